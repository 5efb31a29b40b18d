#!/bin/bash
# Deadlines: 40 s, 3 min, 10 min, 2 h ahead; snaps 0 s, ~30 s and ~70 s later (the 40 s
# deadline passes between t1 and t2).
. "$(dirname "$0")/../lib.sh"
begin w2_deadline
sconf weight_waiting_time 0.5 weight_deadline 3600000 weight_urgency 1 weight_priority 0 weight_ticket 0
for u in alice bob carol dave; do mkuser $u 0 0; done
sub alice -dl $(date -u -d '+40 sec' +%Y%m%d%H%M.%S)
sub bob -dl $(date -u -d '+3 min' +%Y%m%d%H%M.%S)
sub carol -dl $(date -u -d '+10 min' +%Y%m%d%H%M.%S)
sub dave -dl $(date -u -d '+2 hour' +%Y%m%d%H%M.%S)
sub alice
snap t0
sleep 25
snap t1
sleep 35
snap t2_first_deadline_passed
