#!/bin/bash
# The scheduling cycle over time, with REAL USAGE (the oracle of `condorlite sge schedule`
# without --dry-run): share tree Root -> alice 1, bob 1, carol 1, p1 (project) 1 -> dave 1;
# halftime 1 h so that decay between runs is visible (about 1 % a minute).
# All jobs are submitted with the queue enabled (2 slots) before the first run:
#   alice burns 170 s, dave burns 110 s in p1, carol burns 60 s, bob sleeps 30 s.
# r0 starts the first two; runs about every 50 s then (r1, r2 while they run; r3 after
# dave finished, which starts carol; r4; r5 after alice and carol finished; r6, r7 decay
# only); then qconf -clearusage and r8. Each snap's share_mon shows what the run before
# it charged and decayed (dumped before the snap's own run).
. "$(dirname "$0")/../lib.sh"
begin c1_cycle_usage
P="weight_tickets_functional 0 weight_tickets_share 1000000 weight_ticket 1.0 weight_urgency 0 weight_priority 0 halftime 1"
sconf $P
for u in alice bob carol dave; do mkuser $u 0 0; done
mkprj p1 0 0
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
name=p1
type=1
shares=1
childnodes=5
id=5
name=dave
type=0
shares=1
childnodes=NONE
EOT
stree $TMPD/tree
mgr qmod -e all.q
ba=$(burn alice 170); bd=$(burn dave 110 -P p1); bc=$(burn carol 60); bb=$(subs bob 30)
snap r0
sleep 50; snap r1
sleep 50; snap r2
wait_done $bd
sleep 8; snap r3
sleep 50; snap r4
wait_done $ba $bc
sleep 8; snap r5
sleep 45; snap r6
sleep 45; snap r7
mgr qconf -clearusage
snap r8
