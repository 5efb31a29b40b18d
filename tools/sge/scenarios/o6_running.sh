#!/bin/bash
# Running jobs next to pending ones, all three ticket policies: alice has 2 running jobs
# and 2 pending, bob 2 pending, carol 1 pending. Users have otickets and fshares; a flat
# share tree. share_override_tickets / share_functional_shares true (t0) then false (t1).
. "$(dirname "$0")/../lib.sh"
begin o6_running
P="weight_tickets_functional 1000000 weight_tickets_share 1000000 weight_user 1 weight_project 0 weight_department 0 weight_job 0 weight_ticket 1.0 weight_urgency 0 weight_priority 0"
sconf $P share_override_tickets true share_functional_shares true
mkuser alice 100 300000; mkuser bob 50 100000; mkuser carol 50 0
cat > $TMPD/tree <<'EOT'
id=0
name=Root
type=0
shares=1
childnodes=1,2,3
id=1
name=alice
type=0
shares=50
childnodes=NONE
id=2
name=bob
type=0
shares=30
childnodes=NONE
id=3
name=carol
type=0
shares=20
childnodes=NONE
EOT
stree $TMPD/tree
mgr qmod -e all.q
sub alice; sub alice
tsm
mgr qmod -d all.q
sub alice; sub alice
sub bob; sub bob
sub carol
snap t0_share_true
sconf $P share_override_tickets false share_functional_shares false
snap t1_share_false
