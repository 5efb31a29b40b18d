#!/bin/bash
# A three-level tree of grouping nodes: Root -> grpA (60) -> [sub1 (2) -> alice 1, bob 1;
# carol 1]; grpB (40) -> [dave 1, erin 3]. erin has no jobs at first (inactive), then submits.
. "$(dirname "$0")/../lib.sh"
begin s4_3level
P="weight_tickets_functional 0 weight_tickets_share 1000000 weight_ticket 1.0 weight_urgency 0 weight_priority 0"
sconf $P
for u in alice bob carol dave erin; do mkuser $u 0 0; done
cat > $TMPD/tree <<'EOT'
id=0
name=Root
type=0
shares=1
childnodes=1,6
id=1
name=grpA
type=0
shares=60
childnodes=2,5
id=2
name=sub1
type=0
shares=2
childnodes=3,4
id=3
name=alice
type=0
shares=1
childnodes=NONE
id=4
name=bob
type=0
shares=1
childnodes=NONE
id=5
name=carol
type=0
shares=1
childnodes=NONE
id=6
name=grpB
type=0
shares=40
childnodes=7,8
id=7
name=dave
type=0
shares=1
childnodes=NONE
id=8
name=erin
type=0
shares=3
childnodes=NONE
EOT
stree $TMPD/tree
sub alice; sub alice; sub bob
sub carol; sub carol
sub dave
snap t0_erin_inactive
sub erin; sub erin
snap t1_erin_active
