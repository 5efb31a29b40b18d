"""The plain negotiation cycle the optimised one is held to (issue 18).

Written from HTCondor's documented semantics (``docs/negotiate.md``, the seeds,
``matchmaker.cpp``'s ``negotiate`` and ``matchmakingAlgorithm``), sharing with
``condorlite`` only the data model (``core.model``, ``core.policy``) and the ClassAd
language (``core.adeval``, ``core.classad``): every job's request is evaluated
against every slot, nothing is remembered between requests.

- ``grouping``: autoclusters and match classes (significant attributes);
- ``pool``: the offers (busy slots, live claims) and the negotiator's group attributes;
- ``matching``: one request's match list (match, ranks, reasons, order) and its walk;
- ``cycle``: the fair-share walk (submitter order, pie spins, limits, floors,
  ceilings, preemption, group turns), ``run_reference_cycle``.
"""

from tests.core.reference.cycle import run_reference_cycle

__all__ = ["run_reference_cycle"]
