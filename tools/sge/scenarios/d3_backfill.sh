#!/bin/bash
# Reservation and backfilling on a global consumable: lic=4, all.q 2 slots, max_reservation
# 10. t0: J1 (lic=3, h_rt 100) starts; J2 (-R y, lic=4, h_rt 100) reserves at J1's end;
# J3 (lic=1, h_rt 200) would overlap the reservation and waits; J4 (lic=1, h_rt 20)
# ends before it and backfills. t1: a run later (RUNNING lines); a job without h_rt
# under default_duration 0:0:30 backfills, one under INFINITY does not.
. "$(dirname "$0")/../lib.sh"
begin d3_backfill
add_complex "lic lic INT <= YES YES 0 0"
mgr qconf -mattr exechost complex_values lic=4 global
sconf max_reservation 10
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0; mkuser dave 0 0; mkuser erin 0 0
subs alice 60 -p 0 -l h_rt=100,lic=3
subs bob 60 -p -10 -R y -l h_rt=100,lic=4
subs carol 60 -p -20 -l h_rt=200,lic=1
subs dave 15 -p -30 -l h_rt=20,lic=1
mgr qmod -e all.q
snap t0
sleep 20
sconf max_reservation 10 default_duration 0:0:30
subs erin 10 -p -25 -l lic=1
snap t1
