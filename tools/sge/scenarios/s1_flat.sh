#!/bin/bash
# Share tree only: a flat tree of users (alice 50, bob 30, carol 20, erin 10 without jobs);
# dave has jobs but no node. Several pending jobs per node. No usage.
. "$(dirname "$0")/../lib.sh"
begin s1_flat
P="weight_tickets_functional 0 weight_tickets_share 1000000 weight_ticket 1.0 weight_urgency 0 weight_priority 0"
sconf $P
for u in alice bob carol dave erin; do mkuser $u 0 0; done
cat > $TMPD/tree <<'EOT'
id=0
name=Root
type=0
shares=1
childnodes=1,2,3,4
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
id=4
name=erin
type=0
shares=10
childnodes=NONE
EOT
stree $TMPD/tree
sub alice; sub alice; sub alice; sub alice
sub bob; sub bob
sub carol
sub dave
snap t0
sconf $P compensation_factor 0
snap t1_cf0
