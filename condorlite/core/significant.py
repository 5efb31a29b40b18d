"""The cycle's autoclusters over the closed significant set, computed directly.

``Cycle`` groups its idle jobs by the significant set widened until it is closed: job
attributes can lead back into slot attributes that read the job again, so the set of
``autocluster``'s steps 1-3 is widened until no ad's walk leaves it. ``build_closed``
finds that set in one pass over the distinct bindings of each name and splits the jobs
once by it; ``build_widening`` is the plain loop it must agree with (the equivalence
tests run the cycle with it and ``autocluster.build_reference``).

Speed (100,000 jobs): every per-job step is a C-level pass over all rows (``map``,
``compress``, ``itemgetter``) or one list comprehension; nothing sorts the jobs. Jobs
are kept in input order, cut into *runs* of adjacent rows that bind the names split on
to equal entries (the readers share entry objects, so a run is mostly a cluster), and
all per-class work is done once per run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from itertools import chain, compress, count, islice, pairwise, repeat, starmap
from operator import is_not, itemgetter, methodcaller, ne, sub

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
    following, per name, the distinct bindings all ads give it (``_Runs.reached``),
    and then every job's closure is S itself: two jobs are one match class exactly
    when they bind S alike. Only the names some job binds can tell jobs apart; jobs
    are cut into runs that bind those names alike and each run is keyed once
    (``_Canon``), so ids, representatives and names come out as ``build`` gives them.
    The per-job maps are in input order (``build``'s are in queue order).

    Without slots the first round is already closed (S is the roots and a job's
    closure varies): that is ``build`` over the roots. Without idle jobs S is the
    roots and the slots' own walks from them (``slot_side_names``), job side empty.
    """
    if not slots:
        return build(idle, _roots(policy_exprs), configured)
    if not idle:
        return build([], slot_side_names(slots, policy_exprs), configured)
    rows = _Runs(_tables([job.ad for job in idle]))
    columns = _Distinct(_tables([slot.ad for slot in slots]))
    significant = _close(_roots(policy_exprs) | set(filter(_IS_REQUEST, rows.bound)),
                         (columns, rows))
    return _grouped(idle, rows, significant, configured)


def _roots(policy_exprs: Iterable[Expr]) -> frozenset[str]:
    roots = set(ALWAYS_SIGNIFICANT)
    for expr in policy_exprs:
        roots |= expr_names(expr)
    return frozenset(roots)


def _close(start: set[str], sides: tuple[_Runs, ...]) -> frozenset[str]:
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


class _Runs:
    """Ad tables in a fixed row order, cut into *runs*: stretches of adjacent rows
    that bind every name handed to ``reached`` so far to equal entries.

    ``starts`` is the first row of each run, ascending (row 0 first). Invariant: rows
    ``starts[i] <= r < starts[i+1]`` have ``==`` entries for every name in ``names``
    (a cut is made wherever one entry differs from the row before's), so a run's first
    row stands for all of its rows: equal expressions refer to the same names and get
    the same ``_Canon`` numbers. Runs only ever split: a name is handed over once.
    ``bound`` is every name some row binds; a name outside it is absent everywhere
    (no binding to follow, the same 0 in every key), so it costs no pass."""

    def __init__(self, tables: list[dict]) -> None:
        self.tables = tables
        self.bound: set[str] = set().union(*tables)
        self.names: list[str] = []
        self.starts: list[int] = [0] if tables else []

    def reached(self, names: set[str]) -> set[str]:
        """Every name some row's binding of one of ``names`` refers to; the runs are
        cut by the names not handed over before."""
        new = sorted(names & self.bound - set(self.names))
        if not new:
            return set()
        self.names.extend(new)
        cuts, entries = _cuts(self.tables, new)
        self.starts = sorted(cuts.union(self.starts))
        return _names_in(entries)


class _Distinct(_Runs):
    """The slots' side: only the distinct entries of each name matter (no runs), and
    slots of one machine differ in many names (``SlotID``, ``KFlops``), so each name
    is a column of its own, deduplicated by identity (C-level passes, no ``==``)."""

    def reached(self, names: set[str]) -> set[str]:
        entries: list = []
        for name in sorted(names & self.bound - set(self.names)):
            self.names.append(name)
            column = list(map(dict.get, self.tables, repeat(name)))
            changed = compress(islice(column, 1, None),
                               map(is_not, islice(column, 1, None), column))
            heads = [column[0], *changed]
            entries.extend(dict(zip(map(id, heads), heads, strict=True)).values())
        return _names_in(entries)


def _names_in(entries: Iterable[tuple[str, Expr] | None]) -> set[str]:
    found: set[str] = set()
    for entry in entries:
        if entry is not None:
            found |= _names_of(entry[1])
    return found


def _cuts(tables: list[dict], names: list[str] | tuple[str, ...]
          ) -> tuple[set[int], list[tuple[str, Expr] | None]]:
    """The rows (after row 0) whose entries for ``names`` differ (``!=``) from the row
    before's, and the distinct entry objects those names hold (None for absent):
    each distinct value of a column shows at row 0 or at one of its cuts, so only
    those rows are read again.

    ``!=`` on shared entry objects is an identity test at C level; entries that are
    equal without being the same object compare by value, so they never cut."""
    cuts: set[int] = set()
    entries: dict[int, tuple[str, Expr] | None] = {}
    for read, width, changed in _changes(tables, names):
        cuts.update(changed)
        heads = list(map(read, map(tables.__getitem__, [0, *changed])))
        if width > 1:
            heads = list(chain.from_iterable(heads))
        entries.update(zip(map(id, heads), heads, strict=True))
    return cuts, list(entries.values())


def _changes(tables: list[dict], names: Iterable[str]
             ) -> list[tuple[Callable[[dict], object], int, list[int]]]:
    """(reader, width, changed rows) covering ``names``: one ``itemgetter`` over the
    names every row binds (one C call per row; a tuple, or the entry itself when width
    is 1), its rows compared pairwise as they stream (``!=``), then one column per
    name some row lacks (``dict.get``, None where absent), compared by identity. A
    name's absence shows as the KeyError ``itemgetter`` raises, so each name is moved
    at most once."""
    full, partial = list(names), []
    out = []
    while full:
        read = itemgetter(*full)
        try:
            changed = list(compress(count(1), starmap(ne, pairwise(map(read, tables)))))
        except KeyError as missing:
            name = missing.args[0] if missing.args else None
            if name not in full:  # not a table of ours: a KeyError of something else
                raise
            full.remove(name)
            partial.append(name)
            continue
        out.append((read, len(full), changed))
        break
    for name in partial:
        column = list(map(dict.get, tables, repeat(name)))
        changed = list(compress(count(1), map(is_not, islice(column, 1, None), column)))
        out.append((methodcaller("get", name), 1, changed))
    return out


def _grouped(idle: list[Job], rows: _Runs, significant: frozenset[str],
             configured: tuple[str, ...] | None) -> Autoclusters:
    """The Autoclusters of ``idle`` (the rows of ``rows``), whose closure is
    ``significant``: match classes by the runs of ``rows``, autoclusters by runs cut
    by the configured names (or the classes), both numbered in queue order."""
    canon = _Canon()
    names = tuple(rows.names)
    class_of_run, class_firsts = _numbered(idle, rows.starts, names, canon)
    representative = dict(enumerate(class_firsts, 1))
    target_names: set[str] = set()
    for job in representative.values():
        target_names |= referenced(job.ad, names)
    ids = [job.id for job in idle]
    match_class_of = dict(zip(ids, _per_row(class_of_run, rows.starts, len(idle)),
                              strict=True))
    if configured:
        wanted = tuple(sorted({name.lower() for name in configured} & rows.bound))
        starts = sorted(_cuts(rows.tables, wanted)[0].union([0]))
        cluster_of_run, _ = _numbered(idle, starts, wanted, canon)
        cluster_of = dict(zip(ids, _per_row(cluster_of_run, starts, len(idle)), strict=True))
    else:
        cluster_of = match_class_of  # one map serves both: neither is ever changed
    return Autoclusters(significant, configured, cluster_of, match_class_of, representative,
                        significant, frozenset(target_names))


def _numbered(idle: list[Job], starts: list[int], names: tuple[str, ...], canon: _Canon
              ) -> tuple[list[int], list[int]]:
    """Groups of runs whose first rows bind ``names`` to equal expressions, numbered
    from 1 in the queue order of each group's first job: (number of each run, row of
    each number's first job, in number order).

    Queue order is ``build``'s (submitter, ``Job.queue_key``, input index) with equal
    keys in row order, as ``build``'s stable sort leaves them: ``min`` keeps the first
    of equal keys within a run, and the run's start breaks ties between runs."""
    ends = [*islice(starts, 1, None), len(idle)]
    firsts = [min(idle[start:end], key=_queue_key) for start, end in zip(starts, ends, strict=True)]
    first_of: dict[tuple[int, ...], tuple] = {}
    keys = [canon.key(idle[start].ad, names) for start in starts]
    for key, job, start in zip(keys, firsts, starts, strict=True):
        first = (_queue_key(job), start, job)
        known = first_of.get(key)
        if known is None or first[:2] < known[:2]:
            first_of[key] = first
    ranked = sorted(first_of, key=lambda key: first_of[key][:2])
    number = {key: n for n, key in enumerate(ranked, 1)}
    return [number[key] for key in keys], [first_of[key][2] for key in ranked]


def _queue_key(job: Job) -> tuple:
    """``build``'s sort key (submitter, then ``Job.queue_key``, then input index), flat."""
    return (job.submitter, -job.prio, job.qdate, job.cluster, job.proc, job.index)


def _per_row(of_run: list[int], starts: list[int], total: int) -> Iterator[int]:
    """Each run's number repeated over its rows (rows ``starts[i]`` up to the next)."""
    lengths = map(sub, [*islice(starts, 1, None), total], starts)
    return chain.from_iterable(map(repeat, of_run, lengths))
