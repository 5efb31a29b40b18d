#!/bin/bash
# Override tickets of users, projects, departments and jobs together, several pending jobs per
# entity; share_override_tickets true then false.
. "$(dirname "$0")/../lib.sh"
begin o5_all
sconf weight_tickets_functional 0 weight_tickets_share 0 share_override_tickets true \
      weight_ticket 1.0 weight_urgency 0 weight_priority 0
mkuser alice 0 100000; mkuser bob 0 20000; mkuser carol 0 0; mkuser dave 0 50000
mkprj p1 0 80000; mkprj p2 0 0
mkdept dept_a 0 60000 alice,bob
mkdept dept_b 0 10000 carol
j1=$(sub alice -P p1); sub alice -P p1; sub alice -P p2; sub alice
sub bob -P p1; j6=$(sub bob)
sub carol -P p2; sub carol -P p1; j9=$(sub carol)
sub dave; sub dave -P p2
mgr qalter -ot 40000 $j1
mgr qalter -ot 40000 $j6
mgr qalter -ot 150000 $j9
snap t0_share_true
sconf weight_tickets_functional 0 weight_tickets_share 0 share_override_tickets false \
      weight_ticket 1.0 weight_urgency 0 weight_priority 0
snap t1_share_false
