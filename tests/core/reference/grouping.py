"""Which jobs are one request: autoclusters and match classes, the plain way.

HTCondor's schedd groups jobs by the values of their *significant attributes*, the job
attributes a matchmaking expression can read (seed 004, ``docs/negotiate.md``). The
set used here is the closed one:

    S = the least set of (lower-cased) names holding ``Requirements``, ``Rank``, every
        name the four policy expressions refer to and every idle job's ``Request*``
        names, such that for every slot ad and every idle job ad, the names of the
        ad's binding of a name in S are in S.

(Job attributes can lead back into slot attributes that read the job again, so the set
is widened until nothing more is reached.) Two jobs are one *match class* when they
bind every name of S to the same ClassAd expression: compared by tree and by the type
of every literal, since ``1``, ``1.0`` and ``true`` (and ``0.0`` and ``-0.0``) are
different ClassAd values. With ``SIGNIFICANT_ATTRIBUTES`` configured, autoclusters
are formed by the configured names instead (they decide only which jobs are skipped
after a rejection); otherwise an autocluster is a match class.

Ids count from 1 in (submitter, queue order) order: JobPrio descending, then QDate,
ClusterId, ProcId, then input position.

A name only an ``eval()`` reads (``eval("MY.Hidden")``) is in no expression's names,
so it is not significant here, in the engine or in HTCondor's autoclusters: jobs that
differ only there are one request, evaluated with the first one's ad.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Expr, Literal
from condorlite.core.classad.refs import names as expr_names
from condorlite.core.model import Job, Slot


@dataclass(frozen=True)
class Grouping:
    """``cluster_of`` and ``match_class_of``: job id -> id, for every job given."""

    cluster_of: dict[str, int]
    match_class_of: dict[str, int]


def expr_key(node: object) -> object:
    """A value equal for two expressions exactly when they are the same ClassAd
    expression: the tree with each literal's type and ``repr`` (``-0.0`` apart)."""
    if isinstance(node, Literal):
        return ("Literal", type(node.value).__name__, repr(node.value))
    if isinstance(node, Expr):
        return (type(node).__name__,
                *(expr_key(getattr(node, f.name)) for f in fields(node)))
    if isinstance(node, tuple):
        return tuple(expr_key(part) for part in node)
    return (type(node).__name__, node)


def _bound_names(ad: ClassAd, name: str) -> frozenset[str]:
    expr = adeval.attr(ad, name)
    return frozenset() if expr is None else frozenset(n.lower() for n in expr_names(expr))


def significant_names(slots: list[Slot], jobs: list[Job],
                      policy_exprs: tuple[Expr, ...]) -> frozenset[str]:
    """S of the module doc, by widening until nothing is added."""
    found = {"requirements", "rank"}
    for expr in policy_exprs:
        found |= {n.lower() for n in expr_names(expr)}
    for job in jobs:
        found |= {n for n in adeval.lower_names(job.ad) if n.startswith("request")}
    ads = [s.ad for s in slots] + [j.ad for j in jobs]
    todo = list(found)
    while todo:
        name = todo.pop()
        for ad in ads:
            for reached in _bound_names(ad, name) - found:
                found.add(reached)
                todo.append(reached)
    return frozenset(found)


def _bindings(ad: ClassAd, names) -> tuple:
    return tuple((name, expr_key(adeval.attr(ad, name))) for name in sorted(names)
                 if adeval.attr(ad, name) is not None)


def group_jobs(slots: list[Slot], jobs: list[Job], policy_exprs: tuple[Expr, ...],
               configured: tuple[str, ...] | None) -> Grouping:
    """The module doc's autoclusters and match classes of ``jobs``."""
    significant = significant_names(slots, jobs, policy_exprs)
    ordered = sorted(jobs, key=lambda j: (j.submitter, j.queue_key(), j.index))
    class_ids: dict[tuple, int] = {}
    cluster_ids: dict[tuple, int] = {}
    grouping = Grouping({}, {})
    for job in ordered:
        key = _bindings(job.ad, significant)
        grouping.match_class_of[job.id] = class_ids.setdefault(key, len(class_ids) + 1)
        if configured:
            key = _bindings(job.ad, {n.lower() for n in configured})
        grouping.cluster_of[job.id] = cluster_ids.setdefault(key, len(cluster_ids) + 1)
    return grouping
