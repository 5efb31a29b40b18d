#!/bin/bash
# Jobs the scheduler does not try (schedd_job_info true): a held job (qsub -h), one not
# to start before an hour from now (qsub -a), one waiting for another job (-hold_jid),
# next to a job that starts; all.q 2 slots.
. "$(dirname "$0")/../lib.sh"
begin d16_held
sconf schedd_job_info true
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0
first="$(subs alice 60 -p 0)"
ids="$first $(subs bob 60 -p -1 -h)"
ids="$ids $(subs carol 60 -p -2 -a $(date -d '+1 hour' +%Y%m%d%H%M))"
ids="$ids $(subs alice 60 -p -3 -hold_jid $first)"
mgr qmod -e all.q
snap t0
mkdir -p $SCN/t0/expected/why
for j in $ids; do qstat -j $j | sed -n '/^scheduling info:/,$p' > $SCN/t0/expected/why/$j.txt; done
