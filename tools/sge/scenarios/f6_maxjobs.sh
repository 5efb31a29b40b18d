#!/bin/bash
# max_functional_jobs_to_schedule 3 with 10 pending jobs (then 200, 1, 1 again, 5).
. "$(dirname "$0")/../lib.sh"
begin f6_maxjobs
P="weight_tickets_functional 1000000 weight_tickets_share 0 weight_user 0.5 weight_project 0 weight_department 0 weight_job 0.5 weight_ticket 1.0 weight_urgency 0 weight_priority 0 share_functional_shares true"
sconf $P max_functional_jobs_to_schedule 3
mkuser alice 50 0; mkuser bob 30 0; mkuser carol 20 0
sub alice; sub alice -js 10; sub alice
sub bob -js 40; sub bob; sub bob
sub carol; sub carol -js 5; sub carol; sub carol
snap t0_max3
sconf $P max_functional_jobs_to_schedule 200
snap t1_max200
sconf $P max_functional_jobs_to_schedule 1
snap t2_max1
snap t3_max1_again
sconf $P max_functional_jobs_to_schedule 5
snap t4_max5
