#!/bin/bash
# Share tree WITH USAGE, users tree alice/bob/carol/dave 1 share each.
# alice burns CPU for 150 s, bob for 60 s (queue enabled for them only), then pending jobs of
# all four users. Snaps: while both run (t0), after bob finished (t1), after both finished
# with compensation_factor 5 / 2 / 0 (t2-t4), halftime 1 h and halftime 0 (t5, t6),
# usage_weight_list cpu=.5,mem=.5 (t7), and halflife_decay_list cpu=1 minute after 30 s (t8).
. "$(dirname "$0")/../lib.sh"
begin s6_usage_users
P="weight_tickets_functional 0 weight_tickets_share 1000000 weight_ticket 1.0 weight_urgency 0 weight_priority 0"
sconf $P
for u in alice bob carol dave; do mkuser $u 0 0; done
cat > $TMPD/tree <<'EOT'
id=0
name=Root
type=0
shares=1
childnodes=1,2,3,4
id=1
name=alice
type=0
shares=1
childnodes=NONE
id=2
name=bob
type=0
shares=1
childnodes=NONE
id=3
name=carol
type=0
shares=1
childnodes=NONE
id=4
name=dave
type=0
shares=1
childnodes=NONE
EOT
stree $TMPD/tree
mgr qmod -e all.q
ba=$(burn alice 150); bb=$(burn bob 60)
tsm
mgr qmod -d all.q
sub alice; sub alice; sub bob; sub bob; sub carol; sub carol; sub dave
sleep 45      # execd reports usage every load_report_time (40 s)
snap t0_running
wait_done $bb
sleep 5
snap t1_bob_done
wait_done $ba
sleep 5
tsm           # let the scheduler account the finished job's usage
snap t2_cf5
sconf $P compensation_factor 2
snap t3_cf2
sconf $P compensation_factor 0
snap t4_cf0
sconf $P halftime 1
snap t5_halftime1
sconf $P halftime 0
snap t6_halftime0
sconf $P usage_weight_list cpu=0.5,mem=0.5,io=0
snap t7_uwl_cpu05_mem05
sconf $P halflife_decay_list cpu=1
sleep 30
snap t8_halflife_cpu1min
