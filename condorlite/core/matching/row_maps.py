"""Per-job numbers kept as two aligned lists, read as a mapping only when asked.

``significant.build_closed`` numbers a cycle's idle jobs run by run, so each job's
match class and autocluster come out as lists aligned with the idle jobs. The cycle
itself reads them through those lists (``turn_rows``, for ``negotiation.turns.build_turns``,
which keeps a submitter's rows as columns, ``TurnColumns``: a list per field, made of
slices of these lists, so no object is made per row);
the job id -> number mapping (``Autoclusters.cluster_of``, a cycle result's
``autocluster_of``) is read by ``--explain`` and the tests, if at all. Building a
dict of a million job ids costs more than the rest of the grouping, so ``RowMap``
builds it on first read.

Invariant: a ``RowMap`` reads as ``dict(zip(ids, values))`` (a later duplicate id
wins, as in that dict); the lists are never changed once handed over.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from itertools import chain
from typing import NamedTuple

from condorlite.core.model import Job


class TurnColumns(NamedTuple):
    """A submitter's idle rows in queue order, one aligned list per field: row ``i`` is
    job ``jobs[i]``, its id ``ids[i]``, autocluster ``clusters[i]`` and match class
    ``classes[i]``. The turn's loop zips them (a 100,000-job queue's rows, made as an
    object per row, were about 3 % of the cycle's time; its columns are a few list
    extends per stretch)."""

    jobs: list[Job]
    ids: list[str]
    clusters: list[int]
    classes: list[int]


#: the columns of stretches of idle rows
Rows = Callable[[list[tuple[int, int]]], TurnColumns]


class RowMap(Mapping[str, int]):
    """``dict(zip(ids, values))``, built when first read (see the module doc)."""

    __slots__ = ("_dict", "ids", "jobs", "values_by_row")

    def __init__(self, ids: list[str], values: list[int], jobs: list | None = None) -> None:
        if len(ids) != len(values):
            raise ValueError("ids and values must be aligned")
        #: the job ids and their numbers, row by row (read-only), and the list of
        #: jobs the rows are (when the builder was given one)
        self.ids = ids
        self.values_by_row = values
        self.jobs = jobs
        self._dict: dict[str, int] | None = None

    def _map(self) -> dict[str, int]:
        found = self._dict
        if found is None:
            found = self._dict = dict(zip(self.ids, self.values_by_row, strict=True))
        return found

    def __getitem__(self, key: str) -> int:
        return self._map()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._map())

    def __len__(self) -> int:
        return len(self._map())

    def __repr__(self) -> str:
        return f"RowMap({self._map()!r})"

    def distinct_rows(self) -> int:
        """The number of distinct numbers the rows hold, ``len(set(values_by_row))``:
        ``len(set(self.values()))`` when the ids are unique (every row's number is
        then a value), counted without hashing an id."""
        return len(set(self.values_by_row))


def turn_rows(cluster_of: Mapping[str, int], class_of: Mapping[str, int],
              idle: list[Job]) -> Rows:
    """The rows of a submitter's turn (``negotiation.turns.Turn``) from its stretches of
    ``idle`` rows in queue order: each job's id, autocluster, match class and job, as
    ``TurnColumns``, read from the aligned lists when the numbers are ``RowMap``s of
    ``idle`` itself, else looked up by job id."""
    return (_rows_by_row(cluster_of, class_of, idle)
            or _rows_by_id(cluster_of, class_of, idle))


def _rows_by_id(cluster_of: Mapping[str, int], class_of: Mapping[str, int],
                idle: list[Job]) -> Rows:
    """``turn_rows`` with the numbers looked up by job id."""

    def rows(spans: list[tuple[int, int]]) -> TurnColumns:
        jobs = list(chain.from_iterable(idle[start:end] for start, end in spans))
        ids = [j.id for j in jobs]
        return TurnColumns(jobs, ids, [cluster_of[i] for i in ids], [class_of[i] for i in ids])

    return rows


def _rows_by_row(cluster_of: Mapping[str, int], class_of: Mapping[str, int],
                 idle: list[Job]) -> Rows | None:
    """``_rows_by_id`` without the id lookups, when the grouping gave its numbers as
    lists aligned with ``idle`` itself (``RowMap``): a stretch's rows are
    slices of those lists. Each row keeps its own numbers (were two
    job ids alike, the id lookup would give both the later's; the readers refuse
    duplicate ids). None when the numbers are not so aligned."""
    if not (type(cluster_of) is RowMap and type(class_of) is RowMap
            and cluster_of.jobs is idle and class_of.jobs is idle):
        return None
    ids, clusters, classes = class_of.ids, cluster_of.values_by_row, class_of.values_by_row

    def rows(spans: list[tuple[int, int]]) -> TurnColumns:
        out = TurnColumns([], [], [], [])
        jobs, turn_ids, turn_clusters, turn_classes = out
        for start, end in spans:
            jobs += idle[start:end]
            turn_ids += ids[start:end]
            turn_clusters += clusters[start:end]
            turn_classes += classes[start:end]
        return out

    return rows
