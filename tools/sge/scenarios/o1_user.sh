#!/bin/bash
# Override tickets of users only; share_override_tickets true (t0) then false (t1).
. "$(dirname "$0")/../lib.sh"
begin o1_user
sconf weight_tickets_functional 0 weight_tickets_share 0 share_override_tickets true \
      weight_ticket 1.0 weight_urgency 0 weight_priority 0
mkuser alice 0 100000; mkuser bob 0 50000; mkuser carol 0 0; mkuser dave 0 30000
sub alice; sub alice; sub alice; sub alice
sub bob; sub bob
sub carol; sub carol
sub dave
snap t0_share_true
sconf weight_tickets_functional 0 weight_tickets_share 0 share_override_tickets false \
      weight_ticket 1.0 weight_urgency 0 weight_priority 0
snap t1_share_false
