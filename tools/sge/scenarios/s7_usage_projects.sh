#!/bin/bash
# Share tree WITH USAGE under projects: p1 (50): alice 1, bob 1; p2 (50): default 1.
# alice burns in p1 for 120 s, carol in p2 for 50 s; pending jobs in both projects.
# Snaps while running (t0), after both finished (t1), then compensation_factor 2, halftime 1,
# usage_weight_list variants.
. "$(dirname "$0")/../lib.sh"
begin s7_usage_projects
P="weight_tickets_functional 0 weight_tickets_share 1000000 weight_ticket 1.0 weight_urgency 0 weight_priority 0"
sconf $P
for u in alice bob carol dave erin; do mkuser $u 0 0; done
mkprj p1 0 0; mkprj p2 0 0
cat > $TMPD/tree <<'EOT'
id=0
name=Root
type=0
shares=1
childnodes=1,4
id=1
name=p1
type=1
shares=50
childnodes=2,3
id=2
name=alice
type=0
shares=1
childnodes=NONE
id=3
name=bob
type=0
shares=1
childnodes=NONE
id=4
name=p2
type=1
shares=50
childnodes=5
id=5
name=default
type=0
shares=1
childnodes=NONE
EOT
stree $TMPD/tree
mgr qmod -e all.q
ba=$(burn alice 120 -P p1); bc=$(burn carol 50 -P p2)
tsm
mgr qmod -d all.q
sub alice -P p1; sub alice -P p1; sub bob -P p1; sub bob -P p1
sub carol -P p2; sub dave -P p2; sub erin -P p2
sleep 45
snap t0_running
wait_done $ba $bc
sleep 5
tsm
snap t1_cf5
sconf $P compensation_factor 2
snap t2_cf2
sconf $P compensation_factor 2 halftime 1
snap t3_cf2_halftime1
sconf $P usage_weight_list cpu=0.1,mem=0.9,io=0
snap t4_uwl_mem
sconf $P usage_weight_list cpu=0,mem=0,io=1
snap t5_uwl_io_only
