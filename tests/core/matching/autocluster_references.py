"""The plain groupings the engine's are held to (``tests/core/matching/test_autocluster.py``).

``build_reference``: each job's own closure walked in full and projected onto its
expression trees, no walk shared and no numbering. ``build_widening``: the engine's
``build`` over the slot-side names, widened by every name the classes' walks reach in
the jobs and the slots until the set stops growing, which ``significant.build_closed`` computes
directly. They lived beside the engine; they are test code.
"""

from __future__ import annotations

from collections.abc import Callable

from condorlite.core.classad.ast import Expr
from condorlite.core.matching.autocluster import (
    Autoclusters,
    build,
    closure,
    closure_union,
    project,
    referenced,
    request_names,
    slot_side_names,
)
from condorlite.core.model import Job, Slot


def build_widening(
    slots: list[Slot], idle: list[Job], policy_exprs: tuple[Expr, ...],
    configured: tuple[str, ...] | None, build_fn: Callable[..., Autoclusters] = build,
) -> Autoclusters:
    """The plain way to the same grouping as ``build_closed``: ``build_fn`` over the
    slot-side names, widened by every name the classes' walks reach in the jobs (so
    with or without slots) and in the slots, until the set stops growing."""
    significant = slot_side_names(slots, policy_exprs)
    requests: dict[str, tuple[str, ...]] = {}
    while True:
        ac = build_fn(idle, significant, configured, requests)
        wider = (significant | ac.job_names | slot_side_names(slots, ())
                 | closure_union(slots, ac.job_names))
        if wider <= significant:
            return ac
        significant = wider


def build_reference(
    jobs: list[Job], significant: frozenset[str], configured: tuple[str, ...] | None,
    requests: dict[str, tuple[str, ...]] | None = None,
) -> Autoclusters:
    """The plain grouping ``build`` must agree with, for the equivalence tests: each
    job's own closure walked in full and projected onto its expression trees (no walks
    shared, no numbering; ``requests`` is accepted, as ``build`` takes it, and
    ignored). Match classes are part of the semantics (a class shares one
    candidate list per submitter turn), so they are formed here too, the plain way."""
    ordered = sorted(jobs, key=lambda j: (j.submitter, j.queue_key(), j.index))
    class_ids: dict[object, int] = {}
    cluster_ids: dict[object, int] = {}
    cluster_of: dict[str, int] = {}
    match_class_of: dict[str, int] = {}
    representative: dict[int, Job] = {}
    job_names: set[str] = set()
    target_names: set[str] = set()
    configured_lower = tuple(n.lower() for n in configured) if configured else None
    for job in ordered:
        reach = closure(job.ad, significant | request_names(job.ad))
        job_names |= reach
        target_names |= referenced(job.ad, reach)
        key = project(job.ad, reach)
        cid = class_ids.setdefault(key, len(class_ids) + 1)
        match_class_of[job.id] = cid
        representative.setdefault(cid, job)
        cluster_key = key if configured_lower is None else project(job.ad, configured_lower)
        cluster_of[job.id] = cluster_ids.setdefault(cluster_key, len(cluster_ids) + 1)
    return Autoclusters(significant, configured, cluster_of, match_class_of, representative,
                        frozenset(job_names), frozenset(target_names))
