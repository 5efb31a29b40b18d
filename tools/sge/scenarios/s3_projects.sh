#!/bin/bash
# Share tree of projects with user leaves: p1 (60): alice 3, bob 1; p2 (40): carol 2, default 1.
# Jobs with -P; dave and alice map to p2's default leaf; jobs without project and in p3
# (no node). erin has default_project p1.
. "$(dirname "$0")/../lib.sh"
begin s3_projects
P="weight_tickets_functional 0 weight_tickets_share 1000000 weight_ticket 1.0 weight_urgency 0 weight_priority 0"
sconf $P
for u in alice bob carol dave; do mkuser $u 0 0; done
mkprj p1 0 0; mkprj p2 0 0; mkprj p3 0 0
mkuser erin 0 0 p1
cat > $TMPD/tree <<'EOT'
id=0
name=Root
type=0
shares=1
childnodes=1,4
id=1
name=p1
type=1
shares=60
childnodes=2,3
id=2
name=alice
type=0
shares=3
childnodes=NONE
id=3
name=bob
type=0
shares=1
childnodes=NONE
id=4
name=p2
type=1
shares=40
childnodes=5,6
id=5
name=carol
type=0
shares=2
childnodes=NONE
id=6
name=default
type=0
shares=1
childnodes=NONE
EOT
stree $TMPD/tree
sub alice -P p1; sub alice -P p1; sub bob -P p1
sub carol -P p2; sub carol -P p2; sub dave -P p2; sub alice -P p2
sub alice; sub carol -P p3
sub erin
snap t0
