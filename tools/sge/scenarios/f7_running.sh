#!/bin/bash
# Functional tickets with RUNNING jobs: alice (p1) and bob (p2) have one running job each;
# pending jobs of alice, bob, carol in p1/p2/none. Weights user .5, project .5.
# share_functional_shares true (t0) then false (t1).
. "$(dirname "$0")/../lib.sh"
begin f7_running
P="weight_tickets_functional 1000000 weight_tickets_share 0 weight_user 0.5 weight_project 0.5 weight_department 0 weight_job 0 weight_ticket 1.0 weight_urgency 0 weight_priority 0"
sconf $P share_functional_shares true
mkprj p1 60 0; mkprj p2 40 0
mkuser alice 50 0; mkuser bob 30 0; mkuser carol 20 0
mgr qmod -e all.q
sub alice -P p1; sub bob -P p2
tsm
mgr qmod -d all.q
sub alice -P p1; sub alice -P p2; sub alice
sub bob -P p2; sub bob -P p1
sub carol -P p1; sub carol
snap t0_sfs_true
sconf $P share_functional_shares false
snap t1_sfs_false
