#!/bin/bash
# Final priority weights: tickets (functional, user shares), urgency (consumable requests,
# a PE), POSIX priority (user -p negative, manager qalter -p positive), deadlines, waiting
# time. One snap per weight set.
. "$(dirname "$0")/../lib.sh"
begin w1_weights
add_complex "lic lic INT <= YES YES 0 200"
mgr qconf -mattr exechost complex_values lic=20 global
mkuser alice 100 0; mkuser bob 50 0; mkuser carol 10 0; mkuser dave 0 0
T="weight_tickets_functional 1000000 weight_tickets_share 0 weight_user 1 weight_project 0 weight_department 0 weight_job 0"
sconf $T
sub alice; sub alice -p -100; sub alice -l lic=2
sub bob -p -1023; sub bob -l lic=1 -pe smp 2
j=$(sub bob); mgr qalter -p 500 $j
sub carol -dl $(date -u -d '+30 min' +%Y%m%d%H%M.%S)
j=$(sub carol -p -10); mgr qalter -p 1024 $j
sub dave -dl $(date -u -d '+5 min' +%Y%m%d%H%M.%S) -l lic=3
sub dave
sleep 5
sub dave -p -500
snap t0_normal_profile
sconf $T weight_ticket 0.5 weight_waiting_time 0.278 weight_urgency 0.5 weight_priority 0
snap t1_compiled_defaults
sconf $T weight_ticket 1 weight_waiting_time 0 weight_urgency 0 weight_priority 0
snap t2_ticket_only
sconf $T weight_ticket 0 weight_waiting_time 0 weight_urgency 1 weight_priority 0
snap t3_urgency_only
sconf $T weight_ticket 0 weight_waiting_time 0 weight_urgency 0 weight_priority 1
snap t4_priority_only
sconf $T weight_ticket 0.2 weight_waiting_time 10 weight_urgency 0.3 weight_priority 0.5 weight_deadline 0
snap t5_waiting10_deadline0
sconf $T weight_ticket 0.2 weight_waiting_time 1 weight_urgency 0.3 weight_priority 0.5 weight_deadline 360000000
snap t6_deadline_x100
sconf $T weight_ticket 0 weight_waiting_time 0 weight_urgency 0 weight_priority 0
snap t7_all_zero
