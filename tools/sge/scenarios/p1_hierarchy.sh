#!/bin/bash
# policy_hierarchy with all three ticket policies active: override (users + one job),
# functional (user fshares), share tree (users). One snap per hierarchy.
. "$(dirname "$0")/../lib.sh"
begin p1_hierarchy
P="weight_tickets_functional 1000000 weight_tickets_share 1000000 weight_user 1 weight_project 0 weight_department 0 weight_job 0 weight_ticket 1.0 weight_urgency 0 weight_priority 0"
sconf $P policy_hierarchy OFS
mkuser alice 100 500000; mkuser bob 50 0; mkuser carol 20 1000000; mkuser dave 0 0; mkuser erin 30 0
cat > $TMPD/tree <<'EOT'
id=0
name=Root
type=0
shares=1
childnodes=1,2,3,4
id=1
name=alice
type=0
shares=30
childnodes=NONE
id=2
name=bob
type=0
shares=50
childnodes=NONE
id=3
name=carol
type=0
shares=20
childnodes=NONE
id=4
name=dave
type=0
shares=10
childnodes=NONE
EOT
stree $TMPD/tree
sub alice; sub alice; sub alice
sub bob; sub bob; sub bob
sub carol; sub carol
sub dave; d2=$(sub dave)
sub erin
mgr qalter -ot 300000 $d2
for ph in OFS OSF FOS FSO SOF SFO OF OS FS SF F S O NONE; do
  sconf $P policy_hierarchy $ph
  snap ph_$ph
done
