#!/bin/bash
# A $pe_slots job over two queues of one host: all.q (seq_no 0) and q_b (seq_no 5), 2
# slots each, both with PE smp; queue_sort_method seqno; max_reservation 5. A -pe smp 3
# job takes slots from both instances; then a sequential job; a second -pe smp 2 -R y
# job reserves.
. "$(dirname "$0")/../lib.sh"
begin d18_pe_two_queues
sed -e "s/^qname .*/qname q_b/" -e "s/^hostlist .*/hostlist $HOST/" -e "s/^seq_no .*/seq_no 5/" \
    $HERE_SGE/default_queue_all.q.txt > $TMPD/q_b
mgr qconf -Aq $TMPD/q_b
mgr qmod -d q_b
sconf queue_sort_method seqno max_reservation 5 weight_urgency 0
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0
subs alice 60 -p 0 -pe smp 3 -l h_rt=100
subs bob 60 -p -10 -l h_rt=50
subs carol 60 -p -20 -pe smp 2 -R y -l h_rt=100
mgr qmod -e all.q q_b
snap t0
