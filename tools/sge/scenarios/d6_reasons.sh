#!/bin/bash
# Why jobs wait (schedd_job_info true; qstat -j's "scheduling info" after the run is kept in
# expected/why/<job>.txt): all.q (2 slots) enabled, q_off disabled, global lic=4,
# max_reservation 0. In -p order: lic=5 (more than there is), -q q_off (only a disabled
# queue), lic=2 (starts), lic=3 (2 left), -pe smp 3 (1 slot left), a plain job (starts,
# the queue is full), a last job the run never reaches.
. "$(dirname "$0")/../lib.sh"
begin d6_reasons
add_complex "lic lic INT <= YES YES 0 0"
mgr qconf -mattr exechost complex_values lic=4 global
sconf schedd_job_info true
sed -e "s/^qname .*/qname q_off/" -e "s/^hostlist .*/hostlist $HOST/" \
    $HERE_SGE/default_queue_all.q.txt > $TMPD/q_off
mgr qconf -Aq $TMPD/q_off
mgr qmod -d q_off
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0; mkuser dave 0 0; mkuser erin 0 0
ids="$(subs alice 60 -p 0 -l lic=5)"
ids="$ids $(subs bob 60 -p -5 -q q_off)"
ids="$ids $(subs carol 60 -p -10 -l h_rt=100,lic=2)"
ids="$ids $(subs dave 60 -p -15 -l lic=3)"
ids="$ids $(subs erin 60 -p -20 -pe smp 3)"
ids="$ids $(subs alice 60 -p -25)"
ids="$ids $(subs bob 60 -p -30)"
mgr qmod -e all.q
snap t0
mkdir -p $SCN/t0/expected/why
for j in $ids; do qstat -j $j | sed -n '/^scheduling info:/,$p' > $SCN/t0/expected/why/$j.txt; done
