#!/bin/bash
# The seed manual's prioritisation example (resource reservation section): L4_RR (-p 100,
# license=4), L5_RR (license=5), L1_RR (license=1), global license=5, weights 1/0.1/0.01.
# All pending (queue disabled). t0: license urgency 0 (as in examples/dispatch_license);
# t1: license urgency 1000 (the manual's numbers need a nonzero license urgency).
. "$(dirname "$0")/../lib.sh"
begin seed_prio
sconf max_reservation 10 weight_priority 1.0 weight_urgency 0.1 weight_ticket 0.01
add_complex "license lic INT <= YES YES 0 0"
mgr qconf -mattr exechost complex_values license=5 global
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0
j=$(su alice -c "cd /tmp; . $COMMON/settings.sh; qsub -terse -b y -o /dev/null -j y -N L4_RR -R y -l h_rt=30,license=4 sleep 20")
note "alice qsub -N L4_RR -R y -l h_rt=30,license=4 # job $j"; mgr qalter -p 100 $j
j=$(su bob -c "cd /tmp; . $COMMON/settings.sh; qsub -terse -b y -o /dev/null -j y -N L5_RR -R y -l h_rt=30,license=5 sleep 20")
note "bob qsub -N L5_RR -R y -l h_rt=30,license=5 # job $j"
j=$(su carol -c "cd /tmp; . $COMMON/settings.sh; qsub -terse -b y -o /dev/null -j y -N L1_RR -R y -l h_rt=31,license=1 sleep 20")
note "carol qsub -N L1_RR -R y -l h_rt=31,license=1 # job $j"
snap t0_license_urgency0
qconf -sc | sed '/^# >#</d; s/^license \(.*\) 0$/license \1 1000/' > $TMPD/cplx; qconf -Mc $TMPD/cplx >/dev/null
note "complex license urgency 1000"
snap t1_license_urgency1000
