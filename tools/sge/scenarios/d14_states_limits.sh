#!/bin/bash
# Queue states and a queue's run time limit: q_sus (suspended: qmod -s), q_dis
# (disabled), all.q (1 slot, h_rt 0:2:0); max_reservation 5, schedd_job_info true.
# t0: a job without h_rt starts in all.q (its span is the queue's h_rt + 60 s once it
# runs); t1: its RUNNING line, and the next job finds every queue instance dropped.
. "$(dirname "$0")/../lib.sh"
begin d14_states_limits
for q in q_sus q_dis; do
  sed -e "s/^qname .*/qname $q/" -e "s/^hostlist .*/hostlist $HOST/" \
      $HERE_SGE/default_queue_all.q.txt > $TMPD/$q
  mgr qconf -Aq $TMPD/$q
  mgr qmod -d $q
done
mgr qconf -mattr queue slots 1 all.q
mgr qconf -mattr queue h_rt 0:2:0 all.q
sconf max_reservation 5 schedd_job_info true
mkuser alice 0 0; mkuser bob 0 0
ids="$(subs alice 60 -p 0)"
ids="$ids $(subs bob 60 -p -10 -R y)"
mgr qmod -e all.q q_sus
mgr qmod -s q_sus
snap t0
mkdir -p $SCN/t0/expected/why
for j in $ids; do qstat -j $j | sed -n '/^scheduling info:/,$p' > $SCN/t0/expected/why/$j.txt; done
sleep 2
snap t1
mkdir -p $SCN/t1/expected/why
for j in $ids; do qstat -j $j | sed -n '/^scheduling info:/,$p' > $SCN/t1/expected/why/$j.txt; done
