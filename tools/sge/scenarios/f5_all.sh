#!/bin/bash
# Functional tickets over all four categories with unequal weights
# (user .4, project .3, department .2, job .1); share_functional_shares true/false;
# then equal weights.
. "$(dirname "$0")/../lib.sh"
begin f5_all
P="weight_tickets_functional 1000000 weight_tickets_share 0 weight_user 0.4 weight_project 0.3 weight_department 0.2 weight_job 0.1 weight_ticket 1.0 weight_urgency 0 weight_priority 0"
sconf $P share_functional_shares true
mkprj p1 40 0; mkprj p2 20 0
mkuser alice 100 0; mkuser bob 50 0; mkuser carol 20 0 p2; mkuser dave 0 0; mkuser erin 30 0
mkdept dept_a 60 0 alice,bob
mkdept dept_b 40 0 carol,dave
sub alice -P p1 -js 10; sub alice -P p1; sub alice -P p2 -js 30; sub alice
sub bob -P p1; sub bob -js 20
sub carol; sub carol -P p1 -js 5; sub carol
sub dave -P p2; sub dave
sub erin -js 50; sub erin -P p2
snap t0_sfs_true
sconf $P share_functional_shares false
snap t1_sfs_false
sconf weight_tickets_functional 1000000 weight_tickets_share 0 weight_user 0.25 weight_project 0.25 weight_department 0.25 weight_job 0.25 weight_ticket 1.0 weight_urgency 0 weight_priority 0 share_functional_shares true
snap t2_equal_weights
