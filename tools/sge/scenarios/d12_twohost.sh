#!/bin/bash
# Two execution hosts (vm and vm2 on one machine, /work/shared/sge/twohost): queue order
# by load with job load adjustment, and PEs across hosts. vm2's np_load_avg is scaled by
# 1.5 (load_scaling), so vm is less loaded until the run's own starts raise its load by
# 0.50 / 2 per slot. all.q has 2 slots on each host; max_reservation 5 (schedule lines
# name the hosts); schedd_job_info true. t0: two sequential jobs, a -pe rr 2
# ($round_robin) job and a -pe fu 3 ($fill_up) job. t1: all.q@vm disabled, a new
# sequential job and a -pe rr 2 job. The second host is set up first and torn down at
# the end (trap), so the cell is left with its one host.
. "$(dirname "$0")/../lib.sh"
TWO=/work/shared/sge/twohost
bash $TWO/setup_vm2.sh > $TMPD/setup_vm2.log 2>&1 || { cat $TMPD/setup_vm2.log; exit 1; }
trap 'qmod -d "*" >/dev/null 2>&1; qdel -f $(qstat -u "*" | awk "NR>2{print \$1}") >/dev/null 2>&1; sleep 5; bash $TWO/teardown_vm2.sh > $TMPD/teardown_vm2.log 2>&1' EXIT
begin d12_twohost
for p in 'fu:$fill_up' 'rr:$round_robin'; do
  name=${p%%:*}; rule=${p#*:}
  sed -e "s/^pe_name .*/pe_name $name/" -e "s/^allocation_rule .*/allocation_rule $rule/" \
      $HERE_SGE/default_pe_smp.txt > $TMPD/pe_$name
  mgr qconf -Ap $TMPD/pe_$name
done
mgr qconf -mattr queue pe_list "smp fu rr" all.q
mgr qconf -mattr queue hostlist "$HOST vm2" all.q
mgr qmod -d all.q
mgr qconf -mattr exechost load_scaling np_load_avg=1.5 vm2
sconf max_reservation 5 schedd_job_info true
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0; mkuser dave 0 0; mkuser erin 0 0
ids="$(subs alice 60 -p 0 -l h_rt=100)"
ids="$ids $(subs bob 60 -p -100 -l h_rt=100)"
ids="$ids $(subs carol 60 -p -200 -pe rr 2 -l h_rt=100)"
ids="$ids $(subs dave 60 -p -300 -pe fu 3 -l h_rt=100)"
mgr qmod -e all.q
snap t0
mkdir -p $SCN/t0/expected/why
for j in $ids; do qstat -j $j | sed -n '/^scheduling info:/,$p' > $SCN/t0/expected/why/$j.txt; done
mgr qmod -d all.q@$HOST
ids="$(subs erin 60 -p 0 -l h_rt=100)"
ids="$ids $(subs alice 60 -p -50 -pe rr 2 -l h_rt=100)"
snap t1
mkdir -p $SCN/t1/expected/why
for j in $ids; do qstat -j $j | sed -n '/^scheduling info:/,$p' > $SCN/t1/expected/why/$j.txt; done
