#!/bin/bash
# Everything together: 5 users, 3 projects, 2 departments, share tree (projects with user
# leaves and a default leaf, plus a user node), functional (all categories), override (user,
# project, department, job), urgency requests, priorities, a deadline, array and PE jobs.
# t0 all pending; t1 queue enabled (2 jobs start); t2 queue disabled again (running + pending).
. "$(dirname "$0")/../lib.sh"
begin mix_all
add_complex "lic lic INT <= YES YES 0 300"
add_complex "gpu gpu INT <= YES YES 0 2000"
mgr qconf -mattr exechost complex_values lic=40,gpu=4 global
P="weight_tickets_functional 800000 weight_tickets_share 1200000 weight_user 0.3 weight_project 0.3 weight_department 0.2 weight_job 0.2 share_override_tickets true share_functional_shares true policy_hierarchy OFS weight_ticket 0.5 weight_urgency 0.3 weight_priority 0.2 weight_waiting_time 0.01"
sconf $P
mkprj p1 50 0; mkprj p2 30 200000; mkprj p3 20 0
mkuser alice 100 50000; mkuser bob 60 0 p1; mkuser carol 30 0; mkuser dave 10 120000 p3; mkuser erin 50 0
mkdept dept_a 60 100000 alice,bob
mkdept dept_b 40 0 carol,dave
cat > $TMPD/tree <<'EOT'
id=0
name=Root
type=0
shares=1
childnodes=1,4,7,8
id=1
name=p1
type=1
shares=40
childnodes=2,3
id=2
name=alice
type=0
shares=2
childnodes=NONE
id=3
name=bob
type=0
shares=1
childnodes=NONE
id=4
name=p2
type=1
shares=30
childnodes=5,6
id=5
name=carol
type=0
shares=1
childnodes=NONE
id=6
name=default
type=0
shares=1
childnodes=NONE
id=7
name=erin
type=0
shares=20
childnodes=NONE
id=8
name=p3
type=1
shares=10
childnodes=9
id=9
name=default
type=0
shares=1
childnodes=NONE
EOT
stree $TMPD/tree
sub alice -P p1; sub alice -P p1 -l lic=2; a3=$(sub alice -P p2 -js 20); sub alice -l gpu=1; sub alice -P p1 -pe smp 2-4
sub bob; sub bob -p -200; sub bob -P p2 -l lic=1; sub bob -t 1-3
sub carol -P p2; sub carol -P p2 -dl $(date -u -d '+20 min' +%Y%m%d%H%M.%S); c3=$(sub carol); sub carol -P p1 -l gpu=2; sub carol -P p2 -js 50
sub dave; sub dave -P p2; sub dave -pe smp 3 -l lic=1; sub dave -P p1 -p -50
sub erin; sub erin; sub erin -P p3; e4=$(sub erin -P p2 -l lic=4); sub erin -js 10; sub erin -P p1
mgr qalter -ot 80000 $a3
mgr qalter -ot 150000 $c3
mgr qalter -p 200 $e4
sleep 3
sub alice; sub bob -P p1; sub carol -P p2; sub dave -P p3; sub erin
snap t0_all_pending
mgr qmod -e all.q
snap t1_queue_enabled
mgr qmod -d all.q
sleep 5
snap t2_running_and_pending
sconf $P policy_hierarchy FSO share_override_tickets false share_functional_shares false
snap t3_FSO_noshare
