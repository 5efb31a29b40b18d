#!/bin/bash
# Functional tickets over job shares only (qsub -js; weight_job 1). true/false.
. "$(dirname "$0")/../lib.sh"
begin f4_job
P="weight_tickets_functional 1000000 weight_tickets_share 0 weight_user 0 weight_project 0 weight_department 0 weight_job 1 weight_ticket 1.0 weight_urgency 0 weight_priority 0"
sconf $P share_functional_shares true
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0
sub alice -js 100; sub alice -js 100; sub alice -js 50
sub bob -js 200; sub bob
sub carol -js 10; sub carol -js 0
snap t0_sfs_true
sconf $P share_functional_shares false
snap t1_sfs_false
