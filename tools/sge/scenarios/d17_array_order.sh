#!/bin/bash
# The order an array job's tasks start in among other jobs: functional user shares
# (alice 100, bob 50), weight_ticket 1; alice's -t 1-3 array and bob's two jobs, all.q 4
# slots, max_reservation 5 (the schedule lines show the order of the starts).
. "$(dirname "$0")/../lib.sh"
begin d17_array_order
sconf weight_tickets_functional 1000000 weight_user 1 weight_project 0 weight_department 0 \
      weight_job 0 weight_ticket 1.0 weight_urgency 0 weight_priority 0 max_reservation 5
mgr qconf -mattr queue slots 4 all.q
mkuser alice 100 0; mkuser bob 50 0
subs alice 60 -t 1-3 -l h_rt=100
subs bob 60 -l h_rt=100
subs bob 60 -l h_rt=100
mgr qmod -e all.q
snap t0
