"""Column passes over ad tables: where rows change their entries for given names.

The grouping (``significant``) reads the jobs' and the slots' tables (``adeval.table``:
lower-case name -> (spelling, expression) entry) by columns: ``cuts`` says which rows
differ from the row before in the entries of some names, and which distinct entries
the names hold (so the names they refer to are found once per distinct entry, not per
row); ``distinct_expressions`` gives the distinct entries of each name's column alone
that are not literals (the slots' side, where slots of one machine differ in many
names, mostly their own numbers).

Two ways, one answer up to the cuts' test (``COMPILED`` chooses; the tests run both):

* Python (the reference): the names every row binds are read a row at a time by one
  ``itemgetter`` (a tuple per row, compared with the row before's by ``!=``: an
  identity test for shared entry objects, by value otherwise), a name some row lacks
  by ``dict.get`` on its own;
* C (``oldscan.changes``, where the compiled module is built and the scanner is on):
  one loop a row, entries compared by identity; a cut ``!=`` would not make (equal
  entries that are not the same object) splits a run of rows that the grouping merges
  again by ``Canon`` numbers. It takes each row's run mark (``adeval.tables_and_marks``):
  the compiled scanner's mark is the set of names a reader run's lines differ in
  (``ClassAd.layout``), so the rows of a run after its first are not read at all when
  no name read is in it (a cluster's jobs are read as one row).

The slots' side (``distinct_expressions``) in C is a pass of its own
(``_oldscan.expressions``): it drops the absent and the literal entries where it reads
them and tells the rest apart by identity, so no list of every changed entry is made
for Python to filter, and a slot run's later rows are read for the names in the run's
mark alone (the others hold the row before's entries).

``gather`` reads the rows themselves off a chunk of jobs, the same two ways: each
job's table, run mark and id (``oldscan.gather``: one C pass for what five Python
passes read), or None when some job's ad is not ClassAd-lite. ``job_runs`` reads them
as the reader's runs (``Runs``: each run's first row, table and mark, each row's id;
``_oldscan.runs`` in C), and ``run_cuts`` is ``cuts`` over rows given so: a run's
rows after its first are read only where its mark holds a name read, so a cluster's
jobs after its first are not touched past their id and mark (counted at the 10k
mixes: 100,000 rows, 1,219 runs, 11 of them with a mark holding a significant name).
``idle_jobs`` is the cycle's filter of its jobs by status before that, in C too
(``_oldscan.select``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from itertools import chain, compress, count, islice, repeat
from operator import is_not, itemgetter, ne
from typing import NamedTuple, TypeVar

from condorlite.core import adeval
from condorlite.core.classad import oldscan
from condorlite.core.classad.ad import TABLE_SLOT, ClassAd
from condorlite.core.classad.ast import Expr, Literal
from condorlite.core.classad.refs import names as expr_names
from condorlite.core.model import IDLE, Job

T = TypeVar("T")

#: the passes in C (``oldscan.changes``) where it is built and the scanner is on
COMPILED = oldscan.enabled() and oldscan.changes is not None
#: ``gather`` in C (``oldscan.gather``) where it is built and the scanner is on
GATHER_COMPILED = oldscan.enabled() and oldscan.gather is not None
try:  # the slots' side's pass (``distinct_expressions``) in C, with ``COMPILED``
    from condorlite.core.classad._oldscan import expressions as _compiled_expressions
except ImportError:  # (no compiled module, or one older than it: ``changes`` serves)
    _compiled_expressions = None
#: the member descriptors ``oldscan.gather`` reads: a job's ad and id, an ad's table
#: and reader mark
_JOB_MEMBERS = (Job.__dict__["ad"], Job.__dict__["id"])
_AD_MEMBERS = (ClassAd.__dict__[TABLE_SLOT], ClassAd.__dict__["layout"])
#: a job's status, as ``_oldscan.select`` reads it
_JOB_STATUS = Job.__dict__["status"]
try:  # the rows as runs in C (``job_runs``), with ``GATHER_COMPILED``
    from condorlite.core.classad._oldscan import runs as _compiled_runs
except ImportError:  # (no compiled module, or one older than it)
    _compiled_runs = None
try:  # the idle jobs in C (``idle_jobs``), with ``GATHER_COMPILED``
    from condorlite.core.classad._oldscan import select as _compiled_select
except ImportError:  # (no compiled module, or one older than it)
    _compiled_select = None


class Rows(NamedTuple):
    """A chunk of jobs as the grouping reads them: each job's ad's table, its run
    mark (``adeval.tables_and_marks``) and the job's id, in the jobs' order."""

    tables: list[dict]
    marks: list[object]
    ids: list[str]


def gather(jobs: list[Job]) -> Rows | None:
    """The ``Rows`` of ``jobs``, or None unless every job's ad is ClassAd-lite."""
    if GATHER_COMPILED and type(jobs) is list:
        found = oldscan.gather(jobs, _JOB_MEMBERS, ClassAd, _AD_MEMBERS)
        if found is not None:
            return Rows(*found)
        # (a row or ad of another type: read as below)
    both = adeval.tables_and_marks([job.ad for job in jobs])
    return None if both is None else Rows(both[0], both[1], [job.id for job in jobs])


class Runs(NamedTuple):
    """Rows of jobs as the reader's runs (a run: adjacent rows with one run mark,
    ``adeval.tables_and_marks``): ``starts`` the first row of each run, ascending
    (0 first when there are rows), ``tables`` and ``marks`` the table and mark of
    each run's first row, ``ids`` each row's job id.

    Invariant (the reader's, ``ClassAd.layout``): where a run's mark is a set, each of
    its rows binds every name not in the mark to the very entry object its first row
    binds it to."""

    starts: list[int]
    tables: list[dict]
    marks: list[object]
    ids: list[str]


def job_runs(jobs: list[Job]) -> Runs | None:
    """The ``Runs`` of ``jobs``, or None unless every job's ad is ClassAd-lite."""
    if GATHER_COMPILED and _compiled_runs is not None and type(jobs) is list:
        found = _compiled_runs(jobs, _JOB_MEMBERS, ClassAd, _AD_MEMBERS)
        if found is not None:
            return Runs(*found)
        # (a row or ad of another type: read as below)
    rows = gather(jobs)
    if rows is None:
        return None
    marks = rows.marks
    starts = list(compress(count(), map(is_not, marks, chain((_NO_MARK,), marks))))
    return Runs(starts, [*map(rows.tables.__getitem__, starts)],
                [*map(marks.__getitem__, starts)], rows.ids)


#: a mark no row has: row 0 starts a run
_NO_MARK = object()
#: the types of the reader's marks (a set of the names a run's lines differ in)
_SETS = (set, frozenset)


def run_cuts(jobs: list[Job], runs: Runs, end: int, names: list[str] | tuple[str, ...]
             ) -> tuple[set[int], list[tuple[str, Expr] | None]]:
    """``cuts`` of ``jobs``' rows ``runs.starts[0]`` to ``end`` (excluded) for
    ``names``, the rows given as ``runs`` (``runs.ids`` unread): the cuts as rows
    of ``jobs``. A run whose mark is a set holding none of ``names`` binds them on every
    row as on its first (``Runs``' invariant), so it is read as that row; any other
    run of more than one row is read row by row, its later rows' tables gathered
    here (rare: a cluster whose jobs differ in a name read)."""
    starts = runs.starts
    if not starts:
        return set(), []
    rows: list[int] = []
    tables: list[dict] = []
    for start, stop, table, mark in zip(starts, [*islice(starts, 1, None), end],
                                        runs.tables, runs.marks, strict=True):
        rows.append(start)
        tables.append(table)
        if stop - start > 1 and not (type(mark) in _SETS and mark.isdisjoint(names)):
            # (gathered from the run's first row, so the later rows' tables are
            # left lazy where the reader made them so: ``gather``)
            run = jobs[start:stop]
            more = gather(run)
            tables += [job.ad._attrs for job in run[1:]] if more is None else more.tables[1:]
            rows += range(start + 1, stop)
    changed, entries = cuts(tables, names)
    return set(map(rows.__getitem__, changed)), entries


def idle_jobs(jobs: list[Job]) -> list[Job]:
    """The jobs whose status is ``IDLE``, in their order: in C where built
    (``_oldscan.select``: each job's status member read at its offset and compared,
    the very object first; about 75 instructions a job, RESULTS, session 32), else a
    comprehension (its attribute read and integer test the interpreter's specialised
    ones, about 260 a job against 600 for ``compress`` over ``map(attrgetter)``;
    RESULTS, session 31)."""
    if GATHER_COMPILED and _compiled_select is not None and type(jobs) is list:
        found = _compiled_select(jobs, _JOB_STATUS, IDLE)
        if found is not None:
            return found
        # (a row of another type: read as below)
    return [job for job in jobs if job.status == IDLE]


def distinct_expressions(tables: list[dict], names: list[str], marks: list | None
                         ) -> list[tuple[str, Expr]]:
    """The distinct entry objects (by identity) of each name's column over ``tables``
    that bind an expression other than a literal (in Python a name no row binds gives
    nothing, found by a pass of ``in`` tests that stops at the first row binding it).
    ``marks``: each row's run mark, or None.

    The literals are dropped before the entries are told apart: a slot's own numbers
    (``KFlops``, ``SlotID``, ``Memory``) are most of a slots' column's entries, one
    per slot, and refer to no name (``names_in``), while the expressions are a few
    shared objects. Counted at the 10k partitionable mix: 95,067 entries at the
    change rows of the 29 significant names, 2,518 not literals, 202 distinct; the
    identity dedup of all of them cost ~20 ms and ``names_in`` over its 56,959 ~9 ms,
    the filter first ~6 ms in all (RESULTS, session 27, setu27)."""
    if COMPILED:
        # (one C pass for all the names, the literals and the absent dropped and the
        # rest deduplicated in it, ``_oldscan.expressions``: no list of every changed
        # entry for Python to filter, and a run's later rows read for the names in
        # its mark alone)
        if _compiled_expressions is not None:
            return _compiled_expressions(tables, names, marks, Literal)
        return distinct(_expressions(oldscan.changes(tables, names, marks)[1]))
    names = [name for name in names if any(map(dict.__contains__, tables, repeat(name)))]
    entries: list = []
    for column in columns(tables, names):
        later = column[1:]
        heads = [column[0], *compress(later, map(is_not, later, column))]
        entries.extend(dict(zip(map(id, heads), heads, strict=True)).values())
    return _expressions(entries)


def _expressions(entries: list[tuple[str, Expr] | None]) -> list[tuple[str, Expr]]:
    """``entries`` less the absent (None) and the literal ones, in their order.

    A flag per entry, then ``compress``: not a filtering comprehension. CPython 3.11
    specialises a code object's bytecode only once it is warm, counted at calls and
    at ``JUMP_BACKWARD``; a filter that is false for most entries loops back through
    ``POP_JUMP_BACKWARD_IF_FALSE``, which does not count, so the cycle's five calls
    ran it unspecialised, about 870 instructions an entry (generic global loads,
    subscripts and calls). Every flag is appended, so its loop warms at the eighth
    entry: about 420 (RESULTS, session 31: 49 M -> ~24 M for the 10k
    partitionable pool's 56,577 entries)."""
    flags = [entry is not None and type(entry[1]) is not Literal for entry in entries]
    return list(compress(entries, flags))


def columns(tables: list[dict], names: list[str]) -> Iterator[Sequence]:
    """Each name's entries (None where absent), one sequence per name: the names
    every row binds are read together, a row at a time (``itemgetter``: one C call
    per row while the row is in the cache), then split into columns; a name some
    row lacks is read on its own with ``dict.get``."""
    rows, full, partial = read_rows(tables, names, lambda read: list(map(read, tables)))
    if full:
        yield from zip(*rows, strict=True) if len(full) > 1 else (rows,)
    for name in partial:
        yield list(map(dict.get, tables, repeat(name)))


def read_rows(tables: list[dict], names: Iterable[str], use: Callable[[itemgetter], T]
               ) -> tuple[T | None, list[str], list[str]]:
    """``(use(itemgetter(*full)), full, partial)``: ``full`` the names every row
    binds (in the order given), ``partial`` the others; ``use`` None when ``full`` is
    empty. A name's absence shows as the KeyError ``itemgetter`` raises in ``use``,
    so each name is moved at most once and a row lacking none costs no test."""
    full, partial = list(names), []
    while full:
        try:
            return use(itemgetter(*full)), full, partial
        except KeyError as missing:
            name = missing.args[0] if missing.args else None
            if name not in full:  # not a table of ours: a KeyError of something else
                raise
            full.remove(name)
            partial.append(name)
    return None, full, partial


def names_in(entries: Iterable[tuple[str, Expr] | None]) -> set[str]:
    """Every name the entries' expressions refer to. A literal refers to none: a
    column of a slot's own values (``TotalJobRunTime``) costs no walk per entry."""
    found: set[str] = set()
    for entry in entries:
        if entry is not None and type(entry[1]) is not Literal:
            found |= expr_names(entry[1])
    return found


def cuts(tables: list[dict], names: list[str] | tuple[str, ...], marks: list | None = None
          ) -> tuple[set[int], list[tuple[str, Expr] | None]]:
    """The rows (after row 0) whose entries for ``names`` differ (``!=``) from the row
    before's, and the distinct entry objects those names hold (None for absent):
    each distinct value of a column shows at row 0 or at one of its cuts, so only
    those rows' values are kept.

    ``!=`` on shared entry objects is an identity test at C level; entries that are
    equal without being the same object compare by value, so they never cut.

    In C (``COMPILED``) the cuts are by identity, and ``marks`` (each row's run mark,
    ``adeval.tables_and_marks``) lets it skip the rows of a reader's run after its
    first when no name of ``names`` is among the names the run's lines differ in
    (``oldscan.changes``): they hold its first row's entries. The Python passes read
    every row."""
    if not tables:
        return set(), []
    if COMPILED:
        changed, values = oldscan.changes(tables, list(names), marks)
        return set(changed), distinct(values)
    cuts: set[int] = set()
    entries: dict[int, tuple[str, Expr] | None] = {}
    for column, width, changed in python_changes(tables, names):
        cuts.update(changed)
        heads = [column[0], *map(column.__getitem__, changed)]
        if width > 1:
            heads = list(chain.from_iterable(heads))
        entries.update(zip(map(id, heads), heads, strict=True))
    return cuts, list(entries.values())


def distinct(values: list) -> list:
    """``values`` less repeated objects (by identity), in first-seen order."""
    return list(dict(zip(map(id, values), values, strict=True)).values())


def python_changes(tables: list[dict], names: Iterable[str]) -> list[tuple[list, int, list[int]]]:
    """(column, width, changed rows) covering ``names``: one column of ``itemgetter``
    results for the names every row binds (``read_rows``; a tuple per row, or the
    entry itself when width is 1), its rows compared with the row before (``!=``),
    then one column per name some row lacks (``dict.get``, None where absent),
    compared by identity. ``changed``: the rows (after row 0) that differ."""
    column, full, partial = read_rows(tables, names, lambda read: list(map(read, tables)))
    out = []
    if full:
        out.append((column, len(full), _changed(ne, column)))
    for name in partial:
        column = list(map(dict.get, tables, repeat(name)))
        out.append((column, 1, _changed(is_not, column)))
    return out


def _changed(differ: Callable[[object, object], bool], column: list) -> list[int]:
    return list(compress(count(1), map(differ, column[1:], column)))
