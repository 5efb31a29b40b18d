#!/bin/bash
# Inactive nodes: four users with 25 shares each, only alice and bob have jobs (t0); then
# carol submits (t1); then bob's jobs are deleted (t2).
. "$(dirname "$0")/../lib.sh"
begin s5_inactive
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
shares=25
childnodes=NONE
id=2
name=bob
type=0
shares=25
childnodes=NONE
id=3
name=carol
type=0
shares=25
childnodes=NONE
id=4
name=dave
type=0
shares=25
childnodes=NONE
EOT
stree $TMPD/tree
sub alice; sub alice
b1=$(sub bob); b2=$(sub bob)
snap t0_two_active
sub carol
snap t1_three_active
mgr qdel $b1 $b2
sleep 3
snap t2_bob_gone
