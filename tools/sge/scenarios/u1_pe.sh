#!/bin/bash
# Urgency of parallel jobs: PEs with urgency_slots min (smp), max, avg and 3; ranges
# 2-6, 1-4, 4, 3- (open end); a per-slot consumable times the slots.
. "$(dirname "$0")/../lib.sh"
begin u1_pe
sconf weight_urgency 1 weight_priority 0 weight_ticket 0 weight_waiting_time 0
add_complex "lic lic INT <= YES YES 0 100"
mgr qconf -mattr exechost complex_values lic=100 global
for x in max avg 3; do
  sed -e "s/^pe_name .*/pe_name pe_$x/" -e "s/^urgency_slots .*/urgency_slots $x/" $HERE_SGE/default_pe_smp.txt > $TMPD/pe_$x
  mgr qconf -Ap $TMPD/pe_$x
done
sed -e "s/^pe_name .*/pe_name pe_max16/" -e "s/^urgency_slots .*/urgency_slots max/" -e "s/^slots .*/slots 16/" $HERE_SGE/default_pe_smp.txt > $TMPD/pe_max16
mgr qconf -Ap $TMPD/pe_max16
mgr qconf -mattr queue pe_list "smp pe_max pe_avg pe_3 pe_max16" all.q
mkuser alice 0 0
for pe in smp pe_max pe_avg pe_3 pe_max16; do
  sub alice -pe $pe 2-6
  sub alice -pe $pe 1-4 -l lic=1
  sub alice -pe $pe 4
  sub alice -pe $pe 3-
done
sub alice
sub alice -l lic=5
snap t0
