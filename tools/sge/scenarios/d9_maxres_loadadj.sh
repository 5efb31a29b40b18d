#!/bin/bash
# max_reservation 1 and job load adjustment: all.q (4 slots, seq_no 0) and q_load
# (seq_no 10, 2 slots, load_thresholds np_load_avg = the host's load now + 0.1);
# global lic=2; job_load_adjustments np_load_avg=0.50 (the default). The first job
# started raises the host's np_load_avg by 0.50 / 2 processors and puts q_load in load
# alarm for the rest of the run. alice (lic=2) starts; bob (-R y, lic=1) reserves;
# carol (-R y, lic=1) cannot: max_reservation 1; dave (no lic, h_rt 20) backfills.
. "$(dirname "$0")/../lib.sh"
begin d9_maxres_loadadj
add_complex "lic lic INT <= YES YES 0 0"
mgr qconf -mattr exechost complex_values lic=2 global
mgr qconf -mattr queue slots 4 all.q
load=$(qconf -se $HOST | tr -d '\\\n ' | grep -o 'np_load_avg=[0-9.]*' | cut -d= -f2)
limit=$(awk -v l="$load" 'BEGIN{printf "%.2f", l + 0.1}')
note "np_load_avg $load, q_load threshold $limit"
sed -e "s/^qname .*/qname q_load/" -e "s/^hostlist .*/hostlist $HOST/" \
    -e "s/^load_thresholds .*/load_thresholds np_load_avg=$limit/" -e "s/^seq_no .*/seq_no 10/" \
    -e "s/^slots .*/slots 2/" $HERE_SGE/default_queue_all.q.txt > $TMPD/q_load
mgr qconf -Aq $TMPD/q_load
mgr qmod -d q_load
sconf max_reservation 1 schedd_job_info true
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0; mkuser dave 0 0
ids="$(subs alice 60 -p 0 -l h_rt=100,lic=2)"
ids="$ids $(subs bob 60 -p -10 -R y -l h_rt=50,lic=1)"
ids="$ids $(subs carol 60 -p -20 -R y -l h_rt=50,lic=1)"
ids="$ids $(subs dave 15 -p -30 -l h_rt=20)"
mgr qmod -e all.q q_load
snap t0
mkdir -p $SCN/t0/expected/why
for j in $ids; do qstat -j $j | sed -n '/^scheduling info:/,$p' > $SCN/t0/expected/why/$j.txt; done
