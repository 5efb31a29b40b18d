#!/bin/bash
# A parallel job reserving, host-level slots, and a queue in load alarm. Host vm offers
# slots=3 (a host consumable: H lines), all.q 4 slots, q_alarm (load_thresholds
# np_load_avg=0.0) is in alarm; max_reservation 10. t0: two sequential jobs (h_rt 100,
# 200) start; a -pe smp 2 -R y job (h_rt 50) reserves at the first one's end; a short job
# (h_rt 20) backfills the host's last slot; a -pe smp 2-3 job without -R waits.
. "$(dirname "$0")/../lib.sh"
begin d8_pe_reserve_hostslots
mgr qconf -mattr exechost complex_values slots=3 $HOST
mgr qconf -mattr queue slots 4 all.q
sed -e "s/^qname .*/qname q_alarm/" -e "s/^hostlist .*/hostlist $HOST/" \
    -e "s/^load_thresholds .*/load_thresholds np_load_avg=0.0/" -e "s/^seq_no .*/seq_no 5/" \
    $HERE_SGE/default_queue_all.q.txt > $TMPD/q_alarm
mgr qconf -Aq $TMPD/q_alarm
mgr qmod -d q_alarm
sconf max_reservation 10 schedd_job_info true
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0; mkuser dave 0 0; mkuser erin 0 0
ids="$(subs alice 60 -p 0 -l h_rt=100)"
ids="$ids $(subs bob 60 -p -10 -l h_rt=200)"
ids="$ids $(subs carol 60 -p -20 -pe smp 2 -R y -l h_rt=50)"
ids="$ids $(subs dave 15 -p -30 -l h_rt=20)"
ids="$ids $(subs erin 60 -p -40 -pe smp 2-3)"
mgr qmod -e all.q q_alarm
snap t0
mkdir -p $SCN/t0/expected/why
for j in $ids; do qstat -j $j | sed -n '/^scheduling info:/,$p' > $SCN/t0/expected/why/$j.txt; done
