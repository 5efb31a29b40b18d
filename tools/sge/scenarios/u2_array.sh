#!/bin/bash
# Array jobs pending (-t 1-5, -t 1-10:3) next to plain jobs, with functional (user shares)
# and override tickets and urgency requests; then max_pending_tasks_per_job 2.
. "$(dirname "$0")/../lib.sh"
begin u2_array
add_complex "lic lic INT <= YES YES 0 100"
mgr qconf -mattr exechost complex_values lic=100 global
P="weight_tickets_functional 1000000 weight_tickets_share 0 weight_user 1 weight_project 0 weight_department 0 weight_job 0 weight_ticket 1 weight_urgency 0.1 weight_priority 0"
sconf $P
mkuser alice 50 0; mkuser bob 50 100000; mkuser carol 0 0
sub alice -t 1-5
sub alice
sub bob -t 1-10:3 -l lic=1
sub bob
j=$(sub carol -t 1-3); mgr qalter -ot 90000 ${j%%.*}
sub carol -pe smp 2 -t 1-2
snap t0
sconf $P max_pending_tasks_per_job 2
snap t1_max_pending_tasks2
