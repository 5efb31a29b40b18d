#!/bin/bash
# Array tasks, a JOB consumable and max_reservation 1: all.q 3 slots, global lic=3
# (INT, consumable JOB: once per job), max_reservation 1, max_pending_tasks_per_job 50.
# t0: an array -t 1-4 (h_rt 60) takes the free slots task by task; two -R y jobs that
# need lic=2 while one array... the first reserves, the second cannot (max_reservation 1);
# schedd_job_info true keeps the reasons in expected/why/<job>.txt.
. "$(dirname "$0")/../lib.sh"
begin d7_arrays_jobconsumable
add_complex "jlic jl INT <= YES JOB 0 0"
mgr qconf -mattr exechost complex_values jlic=3 global
mgr qconf -mattr queue slots 3 all.q
sconf max_reservation 1 schedd_job_info true
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0; mkuser dave 0 0
ids="$(subs alice 30 -p 0 -t 1-4 -l h_rt=60,jlic=1)"
ids="$ids $(subs bob 30 -p -10 -R y -l h_rt=60,jlic=3)"
ids="$ids $(subs carol 30 -p -20 -R y -l h_rt=60,jlic=2)"
ids="$ids $(subs dave 30 -p -30 -l h_rt=60)"
mgr qmod -e all.q
snap t0
mkdir -p $SCN/t0/expected/why
for j in $ids; do j=${j%%.*}; qstat -j $j | sed -n '/^scheduling info:/,$p' > $SCN/t0/expected/why/$j.txt; done
sleep 2
snap t1
