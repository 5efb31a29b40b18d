#!/bin/bash
# Override tickets of projects (qsub -P); users have none. share_override_tickets true/false.
# erin has default_project p2 and submits without -P.
. "$(dirname "$0")/../lib.sh"
begin o2_project
sconf weight_tickets_functional 0 weight_tickets_share 0 share_override_tickets true \
      weight_ticket 1.0 weight_urgency 0 weight_priority 0
mkprj p1 0 100000; mkprj p2 0 60000; mkprj p3 0 0
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0; mkuser erin 0 0 p2
sub alice -P p1; sub alice -P p1; sub bob -P p1
sub bob -P p2; sub carol -P p2
sub carol -P p3
sub carol
sub erin; sub erin
snap t0_share_true
sconf weight_tickets_functional 0 weight_tickets_share 0 share_override_tickets false \
      weight_ticket 1.0 weight_urgency 0 weight_priority 0
snap t1_share_false
