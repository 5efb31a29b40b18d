#!/bin/bash
# compensation_factor with usage: four users, 1 share each; alice and bob burn 70 s, then
# carol burns 70 s; dave has no usage. Pending jobs of all four; snaps with
# compensation_factor 5, 2, 1, 0 and 10.
. "$(dirname "$0")/../lib.sh"
begin s8_compensation
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
ba=$(burn alice 70); bb=$(burn bob 70)
tsm
bc=$(burn carol 70)
wait_done $ba $bb
tsm
mgr qmod -d all.q
wait_done $bc
sleep 3
tsm
sub alice; sub alice; sub bob; sub carol; sub dave; sub dave
for cf in 5 2 1 0 10; do
  sconf $P compensation_factor $cf
  snap t_cf$cf
done
