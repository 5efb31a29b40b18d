#!/bin/bash
# Functional tickets over user shares only (weight_user 1); share_functional_shares true/false.
. "$(dirname "$0")/../lib.sh"
begin f1_user
P="weight_tickets_functional 1000000 weight_tickets_share 0 weight_user 1 weight_project 0 weight_department 0 weight_job 0 weight_ticket 1.0 weight_urgency 0 weight_priority 0"
sconf $P share_functional_shares true
mkuser alice 100 0; mkuser bob 50 0; mkuser carol 25 0; mkuser dave 0 0; mkuser erin 10 0
sub alice; sub alice; sub alice; sub alice
sub bob; sub bob
sub carol
sub dave; sub dave
sub erin
snap t0_sfs_true
sconf $P share_functional_shares false
snap t1_sfs_false
