"""Autoclusters: jobs that are the same request as far as matchmaking can tell.

HTCondor's schedd groups jobs by the values of their *significant attributes*, the job
attributes any matchmaking expression can read (seed 004). condorlite computes the set
the same way, from the ads of this cycle:

1. every name the slot ads' ``Requirements`` and ``Rank`` refer to, followed through the
   slot ad's own attributes (``Requirements = Start && WithinResourceLimits`` reaches
   the names ``WithinResourceLimits`` uses), whatever the scope: a bare name a slot does
   not define is looked up in the job;
2. every name the policy expressions refer to (``NEGOTIATOR_PRE_JOB_RANK``,
   ``NEGOTIATOR_POST_JOB_RANK``, ``PREEMPTION_REQUIREMENTS``, ``PREEMPTION_RANK``),
   followed through slot ads the same way;
3. for each job, its ``Requirements``, ``Rank`` and ``Request*`` attributes, and every
   job attribute those (and the names of 1-2) reach inside the job ad.

Job names lead back into slot attributes (a job's ``NeedMem = Scale + 1`` reads the
slot's ``Scale``, which may read the job again), so the cycle uses the *closed* set S:
the least set holding the names of 1-2 and every idle job's ``Request*`` names that is
closed under every slot's and every job's bindings (each name a bound name's expression
refers to is in S). Widening step 1-3 round by round until nothing is added reaches
exactly S; ``build_closed`` computes it directly, and then every job's closure is S.

Two jobs whose ads bind every name of that closure to the same expression evaluate the
same against every slot, so one evaluation per (autocluster, slot shape) serves them
all: that is the *match class* of a job, and it is always computed this way.

``SIGNIFICANT_ATTRIBUTES``, when configured, replaces the computed set for grouping
only: jobs then form *autoclusters* by the configured names (``ClusterId`` gives the
pre-6.7.15 per-cluster behaviour), and that grouping decides which jobs are skipped
after a rejection. Evaluations are still shared only within match classes, so a loose
configured list can skip jobs (as in HTCondor) but never gives a wrong match.

Ids are assigned in queue order (submitter name, then JobPrio desc, QDate, ClusterId,
ProcId), counting from 1, so they do not depend on input order or hashing.

Slot shapes: slots whose ads bind the names matchmaking reads to the same expressions
are one *pair shape*; held by the same user at the same CurrentRank as well, one
*shape* (``shape_keys.ShapeKeys``; the names come from ``matchmaker.Matchmaker.prepare``).

Sharing, and why it is exact: expressions are numbered by structural equality
(``expr_numbers.Canon``), so keys are tuples of small ints; a closure walk is reused by
any ad that binds every name the walk visited to equal expressions (``_Reach``), or,
between states of one slot, to expressions naming the same names (``same_walks``). The
readers share one (spelling, expression) entry object between all ads holding the same
line, so ads whose entries for the visited names are the same objects walk as one group
(``_walks``, ``significant._Sweep``): identical objects are equal expressions, and
groups that are equal without being identical are still merged by ``Canon`` numbers
before any id is given. The plain builds ``build`` and ``significant.build_closed``
(what the cycle calls) are held to are test code: ``tests/core/matching/autocluster_references.py``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Expr, Literal
from condorlite.core.classad.refs import names as expr_names
from condorlite.core.matching.expr_numbers import Canon
from condorlite.core.matching.queue_blocks import QueueBlocks
from condorlite.core.matching.row_maps import RowMap
from condorlite.core.model import Job, Slot

REQUEST_PREFIX = "request"
#: ``startswith(REQUEST_PREFIX)`` as a C-level test (the filter runs over every name of
#: every idle job, twice per cycle)
_IS_REQUEST = re.compile(re.escape(REQUEST_PREFIX)).match
ALWAYS_SIGNIFICANT = ("requirements", "rank")


def closure(ad: ClassAd, start: Iterable[str]) -> frozenset[str]:
    """``start`` plus every name reached by following the ad's own attributes."""
    seen: set[str] = set()
    todo = [name.lower() for name in start]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        expr = adeval.attr(ad, name)
        if expr is not None:
            todo.extend(expr_names(expr) - seen)
    return frozenset(seen)


def project(ad: ClassAd, names: Iterable[str]) -> tuple[tuple[str, Expr], ...]:
    """The ad's bindings of ``names`` (absent names left out), in name order."""
    out = []
    for name in sorted(names):
        expr = adeval.attr(ad, name)
        if expr is not None:
            out.append((name, expr))
    return tuple(out)


def slot_side_names(slots: Iterable[Slot], policy_exprs: Iterable[Expr]) -> frozenset[str]:
    """Steps 1-2: names slot Requirements/Rank and the policy expressions reach."""
    roots = set(ALWAYS_SIGNIFICANT)
    for expr in policy_exprs:
        roots |= expr_names(expr)
    return frozenset(roots) | closure_union(slots, roots)


def closure_union(slots: Iterable[Slot], roots: Iterable[str]) -> frozenset[str]:
    """The union over ``slots`` of ``closure(slot.ad, roots)`` (empty without slots).

    The walks run side by side (``_walks``): slots of one machine type bind the names
    a walk visits to the same expression objects, so they walk as one group."""
    tables = _tables([slot.ad for slot in slots])
    if not tables:
        return frozenset()
    return frozenset(_walks(tables, roots))


def _walks(tables: list[dict], roots: Iterable[str]) -> set[str]:
    """The union over ``tables`` (ad tables, see ``_table``) of each ad's closure of
    ``roots``, walked by groups of ads.

    A group's ads bind every name the group's walk has visited to the same entry
    objects (hence the same expressions), so the walk's next names are those of any
    member: each level splits a group by the entries of its new names and continues
    each part with one member's bindings. Exact by construction; the cost is one
    lookup per (ad, visited name), never a walk per ad."""
    start = frozenset(name.lower() for name in roots)
    found = set(start)
    todo = [(range(len(tables)), start, tuple(sorted(start)))]
    while todo:
        rows, visited, frontier = todo.pop()
        parts: dict[tuple, list[int]] = {}
        for row in rows:
            key = tuple(map(id, map(tables[row].get, frontier)))
            parts.setdefault(key, []).append(row)
        for members in parts.values():
            entries = tables[members[0]]
            reached: set[str] = set()
            for name in frontier:
                entry = entries.get(name)
                if entry is not None:
                    reached |= expr_names(entry[1])
            reached -= visited
            if reached:
                found |= reached
                todo.append((members, visited | reached, tuple(sorted(reached))))
    return found


def _tables(ads: list[ClassAd]) -> list[dict[str, tuple[str, Expr]]]:
    """``_table`` of each ad (the common case, ClassAd-lite ads, in one pass)."""
    tables = adeval.tables(ads)
    return list(map(_table, ads)) if tables is None else tables


def _table(ad: ClassAd) -> dict[str, tuple[str, Expr]]:
    """The ad's table (lower-cased name -> (spelling, expression)); an ad that is not
    ClassAd-lite gets a new one (a ClassAd is a case-insensitive mapping)."""
    entries = adeval.table(ad)
    if entries is None:
        entries = {name.lower(): (name, expr) for name, expr in ad.items()}
    return entries


def request_names(ad: ClassAd) -> frozenset[str]:
    """The job's ``Request*`` attribute names (lower-cased)."""
    return frozenset(filter(_IS_REQUEST, adeval.lower_names(ad)))


@dataclass(frozen=True)
class Autoclusters:
    """The grouping of one cycle's idle jobs.

    ``cluster_of[job id]`` is the autocluster (the unit of skipping after a
    rejection); ``match_class_of[job id]`` the unit of shared evaluation (the two
    may be one dict when no names are configured: neither is changed after the
    build, and their order is not part of the answer);
    ``representative[match class]`` the first job of that class in queue order.
    ``job_names`` is every job-side name the classes were keyed on;
    ``target_names`` every name the classes' own expressions refer to (what a job can
    read from a slot, before following the slot's attributes).
    ``build_closed`` gives both maps as ``row_maps.RowMap`` (aligned lists over the
    jobs it was given, a dict built only when read), ``blocks``, the queue
    order's blocks of those jobs (``queue_blocks``; None from the other builders), and
    ``binding_refs``, every name some slot's or job's binding of a significant name
    refers to (None from the other builders: not worked out).
    """

    significant: frozenset[str]
    configured: tuple[str, ...] | None
    cluster_of: Mapping[str, int]
    match_class_of: Mapping[str, int]
    representative: dict[int, Job]
    job_names: frozenset[str]
    target_names: frozenset[str] = frozenset()
    blocks: QueueBlocks | None = None
    binding_refs: frozenset[str] | None = None

    @property
    def count(self) -> int:
        """The number of autoclusters (distinct ``cluster_of`` values).

        A cycle's job ids are unique (the readers refuse a duplicate, and a turn
        takes an id for one job: a matched id is done), so a ``RowMap``'s are its
        rows' distinct numbers (``RowMap.distinct_rows``), counted without a set of
        every job id."""
        of = self.cluster_of
        if isinstance(of, RowMap):
            return of.distinct_rows()
        return len(set(of.values()))


class _Reach:
    """Job closures, shared between jobs that bind the same names the same way.

    Invariant (why sharing is exact): the closure walk visits a name and follows the
    names of its binding, so two ads that bind every name one walk visited to equal
    expressions make the same walk. A job's walk is therefore reused from an earlier
    job whose start bindings are equal (first key) and whose bindings of the names
    reached beyond the start are equal (checked per remembered walk)."""

    def __init__(self, canon: Canon, significant: frozenset[str]) -> None:
        self.canon = canon
        self.significant = tuple(sorted(significant))
        self._walks: dict[tuple, list[tuple[tuple[str, ...], tuple[int, ...], tuple]]] = {}

    def of(self, ad: ClassAd, requests: tuple[str, ...] | None = None
           ) -> tuple[frozenset[str], tuple]:
        """``(closure, class key)``; the key is (bound names, their expression numbers)
        and equal keys mean equal bindings of the whole closure. A result object is
        shared by every job that reuses its walk. ``requests``: the ad's
        ``request_names``, sorted, when the caller has them."""
        if requests is None:
            requests = tuple(sorted(request_names(ad)))
        first = (requests, self.canon.entry_key(ad, self.significant))
        walks = self._walks.setdefault(first, [])
        for beyond, numbers, result in walks:
            if self.canon.entry_key(ad, beyond) == numbers:
                return result
        reach = closure(ad, set(self.significant) | set(requests))
        ordered = tuple(sorted(reach))
        numbers_all = self.canon.key(ad, ordered)
        bound = tuple(n for n, k in zip(ordered, numbers_all, strict=True) if k)
        key = (bound, tuple(k for k in numbers_all if k))
        start = set(self.significant) | set(requests)
        beyond = tuple(n for n in ordered if n not in start)
        result = (reach, key)
        if len(walks) < 16:  # bounded: a pathological queue falls back to full walks
            walks.append((beyond, self.canon.key(ad, beyond), result))
        return result


def build(
    jobs: list[Job], significant: frozenset[str], configured: tuple[str, ...] | None,
    requests: dict[str, tuple[str, ...]] | None = None,
) -> Autoclusters:
    """Group ``jobs`` (any order) into autoclusters and match classes (step 3).

    ``requests``: job id -> its sorted ``request_names``, filled in as found, so a
    caller building again over the same jobs (a wider significant set) reuses them."""
    if requests is None:
        requests = {}
    ordered = sorted(jobs, key=lambda j: (j.submitter, j.queue_key(), j.index))
    canon = Canon()
    reach_of = _Reach(canon, significant)
    class_ids: dict[object, int] = {}
    cluster_ids: dict[object, int] = {}
    cluster_of: dict[str, int] = {}
    match_class_of: dict[str, int] = {}
    representative: dict[int, Job] = {}
    reaches: dict[int, frozenset[str]] = {}
    target_names: set[str] = set()
    configured_lower = tuple(sorted({n.lower() for n in configured})) if configured else None
    for job in ordered:
        asks = requests.get(job.id)
        if asks is None:
            asks = requests[job.id] = tuple(sorted(request_names(job.ad)))
        reach, key = reach_of.of(job.ad, asks)
        reaches.setdefault(id(reach), reach)
        cid = class_ids.setdefault(key, len(class_ids) + 1)
        match_class_of[job.id] = cid
        if cid not in representative:
            representative[cid] = job
            target_names |= referenced(job.ad, reach)
        if configured_lower is None:
            cluster_key: object = key
        else:
            cluster_key = canon.key(job.ad, configured_lower)
        cluster_of[job.id] = cluster_ids.setdefault(cluster_key, len(cluster_ids) + 1)
    job_names: set[str] = set()
    for reach in reaches.values():
        job_names |= reach
    return Autoclusters(
        significant=significant,
        configured=configured,
        cluster_of=cluster_of,
        match_class_of=match_class_of,
        representative=representative,
        job_names=frozenset(job_names),
        target_names=frozenset(target_names),
    )


def referenced(ad: ClassAd, reach: Iterable[str]) -> set[str]:
    """Every name the ad's bindings of ``reach`` (names in any case) refer to (any
    scope)."""
    return referenced_lower(ad, [name.lower() for name in reach])


def referenced_lower(ad: ClassAd, names: Iterable[str]) -> set[str]:
    """``referenced`` of names already lower-cased (the significant names, the
    tables' keys): a ClassAd-lite ad's table is read directly, one lookup a name.

    The cycle asks each class's representative for a few dozen names, most of them
    slot attributes the job does not bind; a miss is then one ``dict.get``, where a
    test of the name's case per miss (``str.islower``, a Unicode table lookup per
    character) cost about 550 instructions, 3 M of ``Matchmaker._rank_only``'s 12 M
    over 300 classes (RESULTS, session 32, acls32)."""
    found: set[str] = set()
    table = adeval.table(ad)
    if table is None:
        for name in names:
            expr = adeval.attr(ad, name)
            if expr is not None:
                found |= expr_names(expr)
        return found
    # (the misses dropped at C level, ``filter``: an entry is a pair, never false;
    # a literal refers to nothing)
    for entry in filter(None, map(table.get, names)):
        if type(entry[1]) is not Literal:
            found |= expr_names(entry[1])
    return found


def same_walks(ad: ClassAd, old: ClassAd, diff: list | None = None) -> bool:
    """Whether every closure walk over ``ad`` visits what the same walk over ``old``
    visits: true when each binding that may differ refers to the same names in both
    (a walk only follows names), as when a carved slot's resource literals change.
    ``diff`` is ``adeval.changed(ad, old)`` when the caller has it."""
    for name, expr in adeval.changed(ad, old) if diff is None else diff:
        before = adeval.attr(old, name)
        if expr is None or before is None or expr_names(expr) != expr_names(before):
            return False
    return True
