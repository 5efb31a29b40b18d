"""Negotiation: the fair-share cycle (HTCondor's negotiator), pure.

``negotiator`` runs one cycle (``run_cycle``, ``Cycle``): submitter order by effective
priority, pie spins, floors and ceilings; ``submitter_turn`` one submitter's turn in a
spin, each job's turn at its candidate list (``core.matching``); ``limits`` computes
the shares and submitter limits of a spin;
``group_cycle`` runs the group turns ``core.groups.plan`` decides, one ``Cycle`` per
pool; ``claims`` reconciles stored claims with a new cycle's ads; ``cycle_notes`` and
``explain`` say why a job did or did not match. This package is the top of the core:
it uses matching, groups and the accountant's constants, and nothing in the core
imports it.
"""

from condorlite.core.negotiation.claims import claims_left, reconcile
from condorlite.core.negotiation.explain import explain_job
from condorlite.core.negotiation.group_cycle import negotiate
from condorlite.core.negotiation.negotiator import Cycle, run_cycle

__all__ = ["Cycle", "claims_left", "explain_job", "negotiate", "reconcile", "run_cycle"]
