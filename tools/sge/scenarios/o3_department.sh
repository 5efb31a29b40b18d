#!/bin/bash
# Override tickets of departments (usersets of type DEPT). share_override_tickets true/false.
. "$(dirname "$0")/../lib.sh"
begin o3_department
sconf weight_tickets_functional 0 weight_tickets_share 0 share_override_tickets true \
      weight_ticket 1.0 weight_urgency 0 weight_priority 0
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0; mkuser dave 0 0; mkuser erin 0 0
mkdept dept_a 0 100000 alice,bob
mkdept dept_b 0 40000 carol,dave
sub alice; sub alice; sub bob
sub carol; sub dave; sub dave
sub erin     # defaultdepartment, oticket 0
snap t0_share_true
sconf weight_tickets_functional 0 weight_tickets_share 0 share_override_tickets false \
      weight_ticket 1.0 weight_urgency 0 weight_priority 0
snap t1_share_false
