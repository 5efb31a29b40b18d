"""The cycle's autoclusters over the closed significant set, computed directly.

``Cycle`` groups its idle jobs by the significant set widened until it is closed: job
attributes can lead back into slot attributes that read the job again, so the set of
``autocluster``'s steps 1-3 is widened until no ad's walk leaves it. ``build_closed``
finds that set in one pass over the distinct bindings of each name and splits the jobs
once by it; ``build_widening`` is the plain loop it must agree with (the equivalence
tests run the cycle with it and ``autocluster.build_reference``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import count, repeat

from condorlite.core.autocluster import (
    _IS_REQUEST,
    ALWAYS_SIGNIFICANT,
    Autoclusters,
    _Canon,
    _names_of,
    _tables,
    build,
    closure_union,
    referenced,
    slot_side_names,
)
from condorlite.core.classad.ast import Expr
from condorlite.core.classad.refs import names as expr_names
from condorlite.core.model import Job, Slot


def build_widening(
    slots: list[Slot], idle: list[Job], policy_exprs: tuple[Expr, ...],
    configured: tuple[str, ...] | None, build_fn: Callable[..., Autoclusters] = build,
) -> Autoclusters:
    """The plain way to the same grouping as ``build_closed``: ``build_fn`` over the
    slot-side names, widened by every name the classes' walks reach in the slots,
    until the set stops growing."""
    significant = slot_side_names(slots, policy_exprs)
    requests: dict[str, tuple[str, ...]] = {}
    while True:
        ac = build_fn(idle, significant, configured, requests)
        wider = significant | slot_side_names(slots, ()) | closure_union(slots, ac.job_names)
        if wider <= significant:
            return ac
        significant = wider


def build_closed(
    slots: list[Slot], idle: list[Job], policy_exprs: tuple[Expr, ...],
    configured: tuple[str, ...] | None,
) -> Autoclusters:
    """The cycle's grouping over its closed significant set: what widening ``build``
    until the set stops growing gives (``significant`` = S below), computed directly.

    S is the least set that holds ``Requirements``, ``Rank``, the names of
    ``policy_exprs`` and every idle job's ``Request*`` names, and is closed under every
    slot's and every job's bindings (a bound name's expression names are in S). The
    widening reaches exactly that set: each round adds only names reachable from
    those roots, and it stops when no ad's walk from S leaves S. So S is found by
    following, per name, the distinct bindings all ads give it (``_Columns``), and
    then every job's closure is S itself: two jobs are one match class exactly when
    they bind S alike. Only the names some job binds can tell jobs apart; jobs are
    split by the identities of those entries (``_Rows``) and each part numbered once
    (``_Canon``), so ids, representatives and names come out as ``build`` gives them.

    Without slots the first round is already closed (S is the roots and a job's
    closure varies): that is ``build`` over the roots. Without idle jobs S is the
    roots and the slots' own walks from them (``slot_side_names``), job side empty.
    """
    if not slots:
        return build(idle, _roots(policy_exprs), configured)
    if not idle:
        return build([], slot_side_names(slots, policy_exprs), configured)
    ordered = sorted(idle, key=_queue_order)
    rows = _Rows(_tables([job.ad for job in ordered]))
    columns = _Columns(_tables([slot.ad for slot in slots]))
    significant = _close(_roots(policy_exprs) | set(filter(_IS_REQUEST, rows.bound)),
                         (columns, rows))
    return _grouped(ordered, rows, significant, configured)


def _queue_order(job: Job) -> tuple:
    """``build``'s order (submitter, then ``Job.queue_key``, then input index), flat."""
    return (job.submitter, -job.prio, job.qdate, job.cluster, job.proc, job.index)


def _roots(policy_exprs: Iterable[Expr]) -> frozenset[str]:
    roots = set(ALWAYS_SIGNIFICANT)
    for expr in policy_exprs:
        roots |= expr_names(expr)
    return frozenset(roots)


def _close(start: set[str], sides: tuple[_Columns, ...]) -> frozenset[str]:
    """The least superset of ``start`` closed under every side's bindings. Each name
    is handed to each side once, in the round after it was first reached."""
    significant = set(start)
    frontier = set(start)
    while frontier:
        reached: set[str] = set()
        for side in sides:
            reached |= side.reached(frontier)
        frontier = reached - significant
        significant |= frontier
    return frozenset(significant)


class _Columns:
    """Many ad tables, read one name (column) at a time.

    ``bound`` is every name some ad binds; a name outside it is absent everywhere
    (no binding to follow, the same 0 in every key), so it costs no pass."""

    def __init__(self, tables: list[dict]) -> None:
        self.tables = tables
        self.bound: set[str] = set().union(*tables)

    def reached(self, names: set[str]) -> set[str]:
        """Every name some ad's binding of one of ``names`` refers to. The distinct
        entries of a column are found by identity (C-level passes): the readers share
        entry objects, so a column of 10,000 slots holds a handful."""
        found: set[str] = set()
        for name in names & self.bound:
            column = list(map(dict.get, self.tables, repeat(name)))
            for entry in dict(zip(map(id, column), column, strict=True)).values():
                if entry is not None:
                    found |= _names_of(entry[1])
        return found


class _Rows(_Columns):
    """The jobs' tables, kept split into parts whose ads bind every name handed to
    ``reached`` so far to the same entry objects (hence the same expressions).

    ``part[row]`` is the first row of that row's part; ``firsts`` lists each part's
    first row in row order. Rows are in queue order, so a part's first row is its
    first job. The parts only ever split: a name is handed over once."""

    def __init__(self, tables: list[dict]) -> None:
        super().__init__(tables)
        self.names: list[str] = []
        self.part: list[int] = [0] * len(tables)
        self.firsts: list[int] = [0] if tables else []

    def reached(self, names: set[str]) -> set[str]:
        new = tuple(sorted(names & self.bound - set(self.names)))
        if not new:
            return set()
        self.names.extend(new)
        self.part, self.firsts = _split(self.tables, new, self.part)
        # every member of a part binds ``new`` as its first row does
        found: set[str] = set()
        for first in self.firsts:
            entries = self.tables[first]
            for name in new:
                entry = entries.get(name)
                if entry is not None:
                    found |= _names_of(entry[1])
        return found


def _split(tables: list[dict], names: tuple[str, ...], part: list[int]
           ) -> tuple[list[int], list[int]]:
    """Split ``part`` (row -> first row of its part) by the identities of each row's
    entries for ``names``: the new (row -> first row of its part, firsts in order)."""
    # column by column, so the per-row work is C-level lookups and one tuple
    columns = [map(id, map(dict.get, tables, repeat(name))) for name in names]
    keys = zip(part, *columns, strict=True)
    seen: dict[tuple, int] = {}
    new_part = list(map(seen.setdefault, keys, count()))
    return new_part, list(seen.values())


def _grouped(ordered: list[Job], rows: _Rows, significant: frozenset[str],
             configured: tuple[str, ...] | None) -> Autoclusters:
    """The Autoclusters of jobs (in queue order) whose closure is ``significant``.

    Parts are numbered in order of their first job, so a class's id comes from its
    first job in queue order, as in ``build``; parts with equal expressions (equal
    ``_Canon`` numbers) are one class."""
    canon = _Canon()
    names = tuple(rows.names)
    class_ids: dict[tuple, int] = {}
    class_of_part: dict[int, int] = {}
    representative: dict[int, Job] = {}
    target_names: set[str] = set()
    for first in rows.firsts:
        job = ordered[first]
        cid = class_ids.setdefault(canon.key(job.ad, names), len(class_ids) + 1)
        class_of_part[first] = cid
        if cid not in representative:
            representative[cid] = job
            target_names |= referenced(job.ad, names)
    ids = [job.id for job in ordered]
    match_class_of = dict(zip(ids, map(class_of_part.__getitem__, rows.part), strict=True))
    if configured:
        wanted = tuple(sorted({name.lower() for name in configured} & rows.bound))
        part, firsts = _split(rows.tables, wanted, [0] * len(ordered))
        cluster_ids: dict[tuple, int] = {}
        cluster_of_part = {first: cluster_ids.setdefault(canon.key(ordered[first].ad, wanted),
                                                          len(cluster_ids) + 1)
                           for first in firsts}
        cluster_of = dict(zip(ids, map(cluster_of_part.__getitem__, part), strict=True))
    else:
        cluster_of = dict(match_class_of)
    return Autoclusters(significant, configured, cluster_of, match_class_of, representative,
                        significant, frozenset(target_names))


