#!/bin/bash
# Override tickets of jobs (qalter -ot). Job tickets are never shared; several jobs of one user.
. "$(dirname "$0")/../lib.sh"
begin o4_job
sconf weight_tickets_functional 0 weight_tickets_share 0 share_override_tickets true \
      weight_ticket 1.0 weight_urgency 0 weight_priority 0
mkuser alice 0 0; mkuser bob 0 0; mkuser carol 0 0
a1=$(sub alice); a2=$(sub alice); a3=$(sub alice)
b1=$(sub bob); b2=$(sub bob)
c1=$(sub carol)
mgr qalter -ot 100000 $a1
mgr qalter -ot 100000 $a2
mgr qalter -ot 30000 $b1
mgr qalter -ot 250000 $c1
snap t0_share_true
sconf weight_tickets_functional 0 weight_tickets_share 0 share_override_tickets false \
      weight_ticket 1.0 weight_urgency 0 weight_priority 0
snap t1_share_false
