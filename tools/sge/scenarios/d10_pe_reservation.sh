#!/bin/bash
# A parallel job reserving: all.q 4 slots, max_reservation 10. Three sequential jobs (-p
# (h_rt 100, 100, 200) start; a -pe smp 2-3 -R y job (h_rt 50) reserves where 2 slots are
# free for good (the end of the first two); a job with h_rt 20 backfills the last slot.
# t1 a few seconds later: the reservation is made again from the running jobs.
. "$(dirname "$0")/../lib.sh"
begin d10_pe_reservation
mgr qconf -mattr queue slots 4 all.q
sconf max_reservation 10 schedd_job_info true
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0; mkuser dave 0 0; mkuser erin 0 0
ids="$(subs alice 90 -p 0 -l h_rt=100)"
ids="$ids $(subs bob 90 -p -1 -l h_rt=100)"
ids="$ids $(subs carol 90 -p -2 -l h_rt=200)"
ids="$ids $(subs dave 60 -p -300 -pe smp 2-3 -R y -l h_rt=50)"
ids="$ids $(subs erin 15 -p -400 -l h_rt=20)"
mgr qmod -e all.q
snap t0
mkdir -p $SCN/t0/expected/why
for j in $ids; do qstat -j $j | sed -n '/^scheduling info:/,$p' > $SCN/t0/expected/why/$j.txt; done
sleep 3
snap t1
