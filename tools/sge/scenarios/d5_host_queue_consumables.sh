#!/bin/bash
# Host and queue consumables and maxujobs: host vm offers hmem=4G (MEMORY, per slot),
# all.q offers qlic=1 (queue level) and 4 slots; maxujobs 2; max_reservation 5 so the
# schedule file shows H and Q lines. alice's three 1G jobs: two start, the third is
# dropped by maxujobs; bob's 3G job (-R y) does not fit the 2G left and reserves; carol's
# two qlic=1 jobs: one starts.
. "$(dirname "$0")/../lib.sh"
begin d5_host_queue_consumables
add_complex "hmem hm MEMORY <= YES YES 0 0"
add_complex "qlic ql INT <= YES YES 0 0"
mgr qconf -mattr exechost complex_values hmem=4G $HOST
mgr qconf -mattr queue complex_values qlic=1 all.q
mgr qconf -mattr queue slots 4 all.q
sconf maxujobs 2 max_reservation 5
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0
subs alice 60 -p 0 -l h_rt=100,hmem=1G
subs alice 60 -p -1 -l h_rt=100,hmem=1G
subs alice 60 -p -2 -l h_rt=100,hmem=1G
subs bob 60 -p -10 -R y -l h_rt=100,hmem=3G
subs carol 60 -p -20 -l h_rt=100,qlic=1
subs carol 60 -p -21 -l h_rt=100,qlic=1
mgr qmod -e all.q
snap t0
