#!/bin/bash
# Job order at dispatch: queue enabled (2 slots), 8 jobs of 20 s from four users with
# functional user shares and override tickets, some with -p; one snap per scheduler run,
# 25 s apart, so each run starts the two highest-priority pending jobs (expected/started.txt)
# and the running jobs' tickets change the pending ones'.
. "$(dirname "$0")/../lib.sh"
begin d1_dispatch_order
sconf weight_tickets_functional 1000000 weight_tickets_share 0 weight_user 1 weight_project 0 \
      weight_department 0 weight_job 0 weight_ticket 1.0 weight_urgency 0.1 weight_priority 0.5
mkuser alice 100 0; mkuser bob 50 200000; mkuser carol 20 0; mkuser dave 0 0
subs alice 20; subs alice 20; subs alice 20
subs bob 20; subs bob 20
subs carol 20 -p -100
subs dave 20; j=$(subs dave 20); mgr qalter -p 300 $j
mgr qmod -e all.q
snap run1
sleep 25
snap run2
sleep 25
snap run3
sleep 25
snap run4
