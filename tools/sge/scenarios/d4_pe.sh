#!/bin/bash
# Parallel jobs at dispatch: all.q with 4 slots; PEs fu ($fill_up), rr ($round_robin),
# two (allocation_rule 2); max_reservation 10. t0: J1 -pe fu 1-3 takes the most slots
# that fit (3); J2 -pe rr 2 -R y reserves at J1's end; J3 (sequential, h_rt 30) backfills
# the last slot; the queue is then full and J4 (-R y) is not looked at. t1: the running
# PE job's RUNNING lines (qstat -g t MASTER/SLAVE lines).
. "$(dirname "$0")/../lib.sh"
begin d4_pe
sconf max_reservation 10
for p in 'fu:$fill_up' 'rr:$round_robin' 'two:2'; do
  name=${p%%:*}; rule=${p#*:}
  sed -e "s/^pe_name .*/pe_name $name/" -e "s/^allocation_rule .*/allocation_rule $rule/" \
      $HERE_SGE/default_pe_smp.txt > $TMPD/pe_$name
  mgr qconf -Ap $TMPD/pe_$name
done
mgr qconf -mattr queue pe_list "smp fu rr two" all.q
mgr qconf -mattr queue slots 4 all.q
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0; mkuser dave 0 0; mkuser erin 0 0
subs alice 60 -p 0 -pe fu 1-3 -l h_rt=100
subs bob 60 -p -10 -pe rr 2 -R y -l h_rt=60
subs carol 20 -p -20 -l h_rt=30
subs dave 20 -p -30 -R y -l h_rt=30
mgr qmod -e all.q
snap t0
sleep 3
snap t1
