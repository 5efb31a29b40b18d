#!/bin/bash
# Share tree with a top-level `default` user leaf (20 shares) next to alice (40 shares):
# bob, carol and dave have user objects but no own node, so each maps to `default`.
. "$(dirname "$0")/../lib.sh"
begin s2_default
P="weight_tickets_functional 0 weight_tickets_share 1000000 weight_ticket 1.0 weight_urgency 0 weight_priority 0"
sconf $P
for u in alice bob carol dave; do mkuser $u 0 0; done
cat > $TMPD/tree <<'EOT'
id=0
name=Root
type=0
shares=1
childnodes=1,2
id=1
name=alice
type=0
shares=40
childnodes=NONE
id=2
name=default
type=0
shares=20
childnodes=NONE
EOT
stree $TMPD/tree
sub alice; sub alice
sub bob; sub bob
sub carol
snap t0_bob_carol
sub dave
snap t1_plus_dave
