#!/bin/bash
# Functional tickets over project shares only (weight_project 1); jobs with -P, jobs without a
# project, and a user (erin) with default_project p2. share_functional_shares true/false.
. "$(dirname "$0")/../lib.sh"
begin f2_project
P="weight_tickets_functional 1000000 weight_tickets_share 0 weight_user 0 weight_project 1 weight_department 0 weight_job 0 weight_ticket 1.0 weight_urgency 0 weight_priority 0"
sconf $P share_functional_shares true
mkprj p1 60 0; mkprj p2 30 0; mkprj p3 10 0
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0; mkuser erin 0 0 p2
sub alice -P p1; sub alice -P p1; sub bob -P p1
sub bob -P p2; sub carol -P p2
sub carol -P p3
sub alice; sub carol
sub erin; sub erin -P p3
snap t0_sfs_true
sconf $P share_functional_shares false
snap t1_sfs_false
