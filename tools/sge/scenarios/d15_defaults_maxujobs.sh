#!/bin/bash
# Default requests, unknown resources and maxujobs (schedd_job_info true): a consumable
# dflt with default 1 (every job uses one unless it asks otherwise), 2 of them globally;
# a consumable nolic that no host or queue offers; maxujobs 1; all.q 4 slots. alice's
# first job starts and her second is dropped by maxujobs; bob's job takes the second
# dflt; carol's finds none left ("for default request"); dave asks for nolic.
. "$(dirname "$0")/../lib.sh"
begin d15_defaults_maxujobs
add_complex "dflt df INT <= YES YES 1 0"
add_complex "nolic nl INT <= YES YES 0 0"
mgr qconf -mattr exechost complex_values dflt=2 global
mgr qconf -mattr queue slots 4 all.q
sconf maxujobs 1 schedd_job_info true
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0; mkuser dave 0 0
ids="$(subs alice 60 -p 0)"
ids="$ids $(subs alice 60 -p -1)"
ids="$ids $(subs bob 60 -p -2)"
ids="$ids $(subs carol 60 -p -3)"
ids="$ids $(subs dave 60 -p -4 -l nolic=1,dflt=0)"
mgr qmod -e all.q
snap t0
mkdir -p $SCN/t0/expected/why
for j in $ids; do qstat -j $j | sed -n '/^scheduling info:/,$p' > $SCN/t0/expected/why/$j.txt; done
