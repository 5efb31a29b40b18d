#!/bin/bash
# Queue instance choice by sequence number: all.q disabled, q_hi (seq_no 20, 1 slot) and
# q_lo (seq_no 10, 2 slots) on the one host; queue_sort_method seqno; jobs in -p order,
# one with -q q_hi (hard queue list). t0: no reservation (no schedule lines);
# t1: the same with max_reservation 5 (running jobs' RUNNING lines, a -R y job reserving).
. "$(dirname "$0")/../lib.sh"
begin d2_seqno_queues
sconf queue_sort_method seqno
for q in q_hi:20:1 q_lo:10:2; do
  IFS=: read name seq slots <<< "$q"
  sed -e "s/^qname .*/qname $name/" -e "s/^hostlist .*/hostlist $HOST/" \
      -e "s/^seq_no .*/seq_no $seq/" -e "s/^slots .*/slots $slots/" \
      $HERE_SGE/default_queue_all.q.txt > $TMPD/$name
  mgr qconf -Aq $TMPD/$name
  mgr qmod -d $name
done
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0; mkuser dave 0 0; mkuser erin 0 0
subs alice 40 -p -10
subs bob 40 -p -15 -q q_hi
subs carol 40 -p -20
subs dave 40 -p -30
mgr qmod -e q_hi q_lo
snap t0
sconf queue_sort_method seqno max_reservation 5
subs erin 30 -p 0 -R y -l h_rt=30
subs alice 10 -p -40 -l h_rt=10
snap t1
