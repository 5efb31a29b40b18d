#!/bin/bash
# Two execution hosts again (see d12): all.q with 4 slots on vm and on vm2, vm2's
# np_load_avg scaled by 1.1, weight_urgency 0 (only -p orders the jobs), max_reservation
# 5. t0: two sequential jobs (the second goes to vm2 once the first has raised vm's
# load), a -pe rr 4 job ($round_robin over both hosts), a -pe two 2 -R y job (allocation
# rule 2: two slots on one host) that has to reserve, a short job that backfills.
# t1: a run later (RUNNING lines of a PE job on two hosts: qstat -g t MASTER/SLAVE).
. "$(dirname "$0")/../lib.sh"
TWO=/work/shared/sge/twohost
bash $TWO/setup_vm2.sh > $TMPD/setup_vm2.log 2>&1 || { cat $TMPD/setup_vm2.log; exit 1; }
trap 'qmod -d "*" >/dev/null 2>&1; qdel -f $(qstat -u "*" | awk "NR>2{print \$1}") >/dev/null 2>&1; sleep 5; bash $TWO/teardown_vm2.sh > $TMPD/teardown_vm2.log 2>&1' EXIT
begin d13_twohost_pe
for p in 'two:2' 'rr:$round_robin'; do
  name=${p%%:*}; rule=${p#*:}
  sed -e "s/^pe_name .*/pe_name $name/" -e "s/^allocation_rule .*/allocation_rule $rule/" \
      $HERE_SGE/default_pe_smp.txt > $TMPD/pe_$name
  mgr qconf -Ap $TMPD/pe_$name
done
mgr qconf -mattr queue pe_list "smp two rr" all.q
mgr qconf -mattr queue hostlist "$HOST vm2" all.q
mgr qconf -mattr queue slots 4 all.q
mgr qmod -d all.q
mgr qconf -mattr exechost load_scaling np_load_avg=1.1 vm2
sconf max_reservation 5 schedd_job_info true weight_urgency 0
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0; mkuser dave 0 0; mkuser erin 0 0
ids="$(subs alice 60 -p 0 -l h_rt=100)"
ids="$ids $(subs bob 60 -p -100 -l h_rt=100)"
ids="$ids $(subs carol 60 -p -200 -pe rr 4 -l h_rt=100)"
ids="$ids $(subs dave 60 -p -300 -pe two 2 -R y -l h_rt=100)"
ids="$ids $(subs erin 15 -p -400 -l h_rt=20)"
mgr qmod -e all.q
snap t0
mkdir -p $SCN/t0/expected/why
for j in $ids; do qstat -j $j | sed -n '/^scheduling info:/,$p' > $SCN/t0/expected/why/$j.txt; done
sleep 3
snap t1
