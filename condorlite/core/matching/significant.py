"""The cycle's autoclusters over the closed significant set, computed directly.

``Cycle`` groups its idle jobs by the significant set widened until it is closed: job
attributes can lead back into slot attributes that read the job again, so the set of
``autocluster``'s steps 1-3 is widened until no ad's walk leaves it. ``build_closed``
finds that set in one sweep over the jobs and splits them by it as it goes;
the plain widening loop it must agree with is ``build_widening`` in
``tests/core/matching/autocluster_references.py``.

Speed (100,000 jobs): the jobs are read once, in input order, a chunk of ``CHUNK`` rows
at a time, and everything a row gives is taken while its chunk is in the CPU cache
(its reader run, its names, its entries for the significant names, the queue order's
blocks of ``queue_blocks``, its job id): a second pass over a cached chunk costs a
fraction of a pass over 100,000 ads fetched from memory. The per-row work is C-level
or one list comprehension; nothing sorts the jobs. Rows are cut into
*runs* of adjacent rows that bind the significant names to equal entries (the readers
share entry objects, so a run is mostly a cluster), and all per-class work is done
once per run. Names are looked up by the tables' own key objects (the readers share
one string per name), taken from each chunk's union and from the first slot's table:
a lookup by the very object is an identity hit, where a name taken from an expression
costs a string compare in every row.

A chunk is read as the reader's runs (``columns.job_runs``; ``_oldscan.runs`` in C):
adjacent ads with one run mark (``ClassAd.layout``: the compiled scanner's mark is
the set of names a reader run's lines differ in, and it starts such an ad from a copy
of the previous ad's dict; a cluster's jobs are one run, an unmarked ad its own). A
row after its run's first is read for its id and mark alone: its table is neither
taken nor listed (its reference count written and freed again cost a cache miss a
job, and the lists of 100,000 tables and marks their growth and freeing: RESULTS,
session 36). 100,000 jobs are 1,316 reader runs at the 10k pools.

The column passes (a chunk's cuts, a late name's, the configured names', and the
slots' columns) are ``columns``': ``columns.run_cuts`` reads a reader run as its first
row unless its mark holds a name read (then row by row: 11 runs of 22 rows at the 10k
pools); where the compiled module is built, one C loop (``oldscan.changes``; the
slots' columns ``_oldscan.expressions``, which keeps only the entries that are not
literals, and reads a slot run's later rows for the names in its mark alone) that
compares each entry with the row before's by identity, where Python builds a tuple
per row and compares tuples. An identity cut may split a run that ``!=`` would not
(equal entries that are not the same object); runs are merged into classes by
``Canon`` numbers, so the classes, their numbers and representatives are the same
either way (the tests run both).

A chunk's names (needed for the ``Request*`` roots) are the union of its reader
runs' first tables (the ads of a run bind the very same names), not of every table:
a union walks a ``dict`` and inserts into a ``set`` per name, about 100 instructions
a name, the least any exact way found costs (RESULTS, session 20), and was half of
the grouping when every job's 85 names were walked. Then the time goes to the slots'
side (memory-bound column reads over 10,000 tables of 160 names), the rows' own reads
(a job, its ad and its id, one cache miss each) and the queue blocks
(``benchmarks/closed_cpu.py``).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from itertools import islice
from operator import sub

from condorlite.core import adeval
from condorlite.core.classad.ast import Expr
from condorlite.core.classad.refs import names as expr_names
from condorlite.core.matching import columns
from condorlite.core.matching.autocluster import (
    _IS_REQUEST,
    ALWAYS_SIGNIFICANT,
    Autoclusters,
    _table,
    build,
    referenced_lower,
    slot_side_names,
)
from condorlite.core.matching.expr_numbers import Canon
from condorlite.core.matching.queue_blocks import QueueBlocks, chunk_heads
from condorlite.core.matching.row_maps import RowMap
from condorlite.core.model import Job, Slot

#: rows read together: a chunk's tables (about 1 KiB an ad) stay in the CPU cache
#: between the passes over it
CHUNK = 1024


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
    those roots, and it stops when no ad's walk from S leaves S. ``_Sweep`` grows S
    while it reads the jobs, adding a name only when a root, a slot binding
    (``_Distinct``) or a job binding it has read refers to it, so it ends at S; then
    every job's closure is S itself: two jobs are one match class exactly when they
    bind S alike. Only the names some job binds can tell jobs apart; jobs are cut into
    runs that bind those names alike and each run is keyed once (``Canon``), so ids,
    representatives and names come out as ``build`` gives them. The per-job maps are
    in input order (``build``'s are in queue order).

    Without slots S is the same least set, closed under the jobs' bindings alone, so
    the grouping of a queue does not depend on whether any slot is offered (one slot
    that reads nothing changes nothing). Without idle jobs S is the roots and the
    slots' own walks from them (``slot_side_names``), job side empty.
    """
    if not idle:
        return build([], slot_side_names(slots, policy_exprs), configured)
    sweep = _Sweep(idle, _Distinct.of([slot.ad for slot in slots]), _roots(policy_exprs))
    return _grouped(idle, sweep, configured)


def _roots(policy_exprs: Iterable[Expr]) -> frozenset[str]:
    roots = set(ALWAYS_SIGNIFICANT)
    for expr in policy_exprs:
        roots |= expr_names(expr)
    return frozenset(roots)


class _Sweep:
    """The idle jobs read in chunks, with S grown as they are read.

    After ``__init__``: ``significant`` is S; ``bound`` every name some job binds;
    ``names`` S's names some job binds, sorted; ``runs`` the jobs as the reader's
    runs (``columns.Runs``); ``starts`` the first row of each run, ascending;
    ``blocks`` the queue order's blocks (``queue_blocks``, cut while each chunk is
    read); ``firsts`` the least ``queue_blocks.queue_key`` of each run's rows (its
    first job in queue order), a key per block head the run holds, not per row;
    ``ids`` each row's job id.

    Invariant (runs): rows ``starts[i] <= r < starts[i+1]`` have ``==`` entries for
    every name of ``names``, so a run's first row stands for all of its rows: equal
    expressions refer to the same names and get the same ``Canon`` numbers. A chunk
    reads the names of S it binds (the others are absent from all of its rows), every
    chunk starts a run, and a name that joins S after rows that bind it were read is
    read over those rows again (``_late``).

    Invariant (closure): a name joins ``significant`` only when it is a root, a
    ``Request*`` name some job binds, or named by a slot's or a read job's binding of
    a name already in it; every binding of a name in S is read (in its chunk or
    late), so what it names joins S. Hence ``significant`` ends as S.
    """

    def __init__(self, idle: list[Job], slots: _Distinct, roots: frozenset[str]) -> None:
        self.slots = slots
        self.jobs = idle
        self.significant: set[str] = set()
        self.bound: set[str] = set()
        #: the rows as the reader's runs (``columns.Runs``, rows of ``idle``): each
        #: run's first row, table and mark, each row's job id
        self.runs = columns.Runs([], [], [], [])
        self._starts: set[int] = set()
        #: the heads of the queue order's blocks (``queue_blocks``), ascending
        self.heads: list[int] = []
        #: names some row read so far binds (before the chunk being read)
        self._before: set[str] = set()
        #: (name, end): a name that joined S after rows before ``end`` binding it were read
        self._late: list[tuple[str, int]] = []
        #: every name a slot's or a read job's binding of a name of S refers to
        self.referenced: set[str] = set()
        self._join(roots, 0)
        for first in range(0, len(idle), CHUNK):
            self._chunk(idle[first:first + CHUNK], first)
        self._before = self.bound
        self._read_late()
        self.ids = self.runs.ids
        # (as the tables' own key objects, like each chunk's names: ``_chunk``)
        self.names = tuple(sorted(filter(self.significant.__contains__, self.bound)))
        self.starts = sorted(self._starts)
        self.blocks = QueueBlocks(idle, self.heads)
        self.firsts = list(map(self.blocks.least, self.starts, _ends(self.starts, idle)))

    def _join(self, names: Iterable[str], end: int) -> None:
        """Add ``names`` to S with every name the slots' bindings lead to; each that a
        row before ``end`` (all read) may bind is queued to be read over those rows."""
        new = set(names) - self.significant
        while new:
            self.significant |= new
            self._late.extend((name, end) for name in sorted(new & self._before))
            reached = self.slots.reached(new)
            self.referenced |= reached
            new = reached - self.significant

    def _chunk(self, jobs: list[Job], first: int) -> None:
        """Read one chunk (rows ``first`` on): its runs, names, entries for S and
        queue blocks. A ``Request*`` name first bound here is a root from here on."""
        found = columns.job_runs(jobs)
        if found is None:  # (each row its own run)
            ads = [job.ad for job in jobs]
            found = columns.Runs(list(range(len(jobs))), list(map(_table, ads)),
                                 ads, [job.id for job in jobs])
        runs = self.runs
        chunk = columns.Runs([*map(first.__add__, found.starts)], found.tables,
                             found.marks, found.ids)
        runs.starts.extend(chunk.starts)
        runs.tables.extend(found.tables)
        runs.marks.extend(found.marks)
        runs.ids.extend(found.ids)
        # (a run's rows bind the very same names: one table per run walked)
        names = set().union(*found.tables)
        self._before = set(self.bound)
        self._join(filter(_IS_REQUEST, names - self.bound), first)
        self.bound |= names
        starts = {first}
        done: set[str] = set()
        end = first + len(jobs)
        # (the names as the tables' own key objects, taken from ``names``: a lookup
        # by the very object the table holds is an identity hit, no string compare)
        significant = self.significant.__contains__
        todo = set(filter(significant, names))
        while todo:
            done |= todo
            cuts, entries = columns.run_cuts(self.jobs, chunk, end, sorted(todo))
            starts |= cuts
            found_names = columns.names_in(entries)
            self.referenced |= found_names
            self._join(found_names, first)
            todo = set(filter(significant, names - done))
        # (the queue order's blocks are cut while the chunk's jobs are in the cache)
        self.heads.extend(chunk_heads(jobs, first))
        self._starts |= starts

    def _read_late(self) -> None:
        """Read the queued names over the rows before they joined; what they name
        joins S and is read over every row (``_join`` queues it with all rows)."""
        runs = self.runs
        while self._late:
            name, end = self._late.pop()
            # (``end`` is a chunk's first row: a run's first)
            k = bisect_left(runs.starts, end)
            before = columns.Runs(runs.starts[:k], runs.tables[:k], runs.marks[:k], [])
            cuts, entries = columns.run_cuts(self.jobs, before, end, [name])
            self._starts.update(cuts)
            found = columns.names_in(entries)
            self.referenced |= found
            self._join(found, len(self.jobs))


class _Distinct:
    """The slots' side: every name some slot's binding of given names refers to.

    Only the distinct entries of each name matter (no runs), and slots of one machine
    differ in many names (``SlotID``, ``KFlops``), so each name's column is
    deduplicated on its own, by identity (C-level passes, no ``==``). Each name is
    read once. A name no slot binds is found so by a pass of ``in`` tests that stops
    at the first slot binding it, not by a set of every name the slots bind: that
    union costs a pass over every entry of every slot (160 names a slot), and the
    cycle asks for a few dozen names. In C (``columns.COMPILED``) all the asked names
    are one pass (``oldscan.changes``, with the slots' run marks)."""

    def __init__(self, tables: list[dict], marks: list[object] | None = None) -> None:
        self.tables = tables
        #: each slot's run mark (``adeval.tables_and_marks``), or None
        self.marks = marks
        self.names: set[str] = set()
        #: the first slot's names, each as its table's own key object (the readers
        #: share one object per name between ads): a lookup by it is an identity hit
        self.keys: dict[str, str] = {name: name for name in tables[0]} if tables else {}

    @classmethod
    def of(cls, ads: list) -> _Distinct:
        """The slots' side of the slot ads ``ads``."""
        both = adeval.tables_and_marks(ads)
        return cls(list(map(_table, ads)), None) if both is None else cls(*both)

    def reached(self, names: set[str]) -> set[str]:
        tables = self.tables
        keys = self.keys
        fresh = names - self.names
        new = sorted(map(keys.get, fresh, fresh))
        self.names.update(new)
        return columns.names_in(columns.distinct_expressions(tables, new, self.marks))


def _grouped(idle: list[Job], rows: _Sweep, configured: tuple[str, ...] | None
             ) -> Autoclusters:
    """The Autoclusters of ``idle`` (the rows of ``rows``): match classes by the runs
    of ``rows``, autoclusters by runs cut by the configured names (or the classes),
    both numbered in queue order."""
    canon = Canon()
    significant = frozenset(rows.significant)
    class_of_run, class_firsts = _numbered(idle, rows.starts, rows.firsts, rows.names, canon)
    representative = dict(enumerate(class_firsts, 1))
    target_names: set[str] = set()
    for job in representative.values():
        target_names |= referenced_lower(job.ad, rows.names)
    ids = rows.ids
    # (aligned lists, read as dicts only when asked: ``row_maps``)
    match_class_of = RowMap(ids, _per_row(class_of_run, rows.starts, len(idle)), idle)
    if configured:
        wanted = tuple(sorted({name.lower() for name in configured} & rows.bound))
        starts = sorted(columns.run_cuts(idle, rows.runs, len(idle), wanted)[0].union([0]))
        firsts = list(map(rows.blocks.least, starts, _ends(starts, idle)))
        cluster_of_run, _ = _numbered(idle, starts, firsts, wanted, canon)
        cluster_of = RowMap(ids, _per_row(cluster_of_run, starts, len(idle)), idle)
    else:
        cluster_of = match_class_of  # one map serves both: neither is ever changed
    return Autoclusters(significant, configured, cluster_of, match_class_of, representative,
                        significant, frozenset(target_names), rows.blocks,
                        frozenset(rows.referenced))


def _ends(starts: list[int], rows: list) -> list[int]:
    return [*islice(starts, 1, None), len(rows)]


def _numbered(idle: list[Job], starts: list[int], firsts: list[tuple],
              names: tuple[str, ...], canon: Canon) -> tuple[list[int], list[Job]]:
    """Groups of runs whose first rows bind ``names`` to equal expressions, numbered
    from 1 in the queue order of each group's first job: (number of each run, first
    job of each number, in number order). ``firsts``: each run's least
    ``queue_key``; a group's first job has the least of its runs'."""
    first_of: dict[tuple[int, ...], tuple] = {}
    keys = [canon.key(idle[start].ad, names) for start in starts]
    for key, first in zip(keys, firsts, strict=True):
        known = first_of.get(key)
        if known is None or first < known:
            first_of[key] = first
    ranked = sorted(first_of, key=first_of.__getitem__)
    number = {key: n for n, key in enumerate(ranked, 1)}
    return [number[key] for key in keys], [idle[first_of[key][-1]] for key in ranked]


def _per_row(of_run: list[int], starts: list[int], total: int) -> list[int]:
    """Each run's number repeated over its rows (rows ``starts[i]`` up to the next):
    a list repeat per run (C fills the run's rows), not an iterator step per row."""
    out: list[int] = []
    for number, length in zip(of_run, map(sub, [*islice(starts, 1, None), total], starts),
                              strict=True):
        out += [number] * length
    return out
