#!/bin/bash
# Functional tickets over department shares only (weight_department 1). true/false.
. "$(dirname "$0")/../lib.sh"
begin f3_department
P="weight_tickets_functional 1000000 weight_tickets_share 0 weight_user 0 weight_project 0 weight_department 1 weight_job 0 weight_ticket 1.0 weight_urgency 0 weight_priority 0"
sconf $P share_functional_shares true
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0; mkuser dave 0 0; mkuser erin 0 0
mkdept dept_a 70 0 alice,bob
mkdept dept_b 30 0 carol,dave
sub alice; sub alice; sub bob
sub carol; sub dave; sub dave; sub dave
sub erin
snap t0_sfs_true
sconf $P share_functional_shares false
snap t1_sfs_false
mgr qconf -mattr userset fshare 10 defaultdepartment
snap t2_defaultdept_fshare10
