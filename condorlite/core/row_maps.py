"""Per-job numbers kept as two aligned lists, read as a mapping only when asked.

``significant.build_closed`` numbers a cycle's idle jobs run by run, so each job's
match class and autocluster come out as lists aligned with the idle jobs. The cycle
itself reads them through those lists (``negotiator.Cycle._turns``); the job id ->
number mapping (``Autoclusters.cluster_of``, a cycle result's ``autocluster_of``) is
read by ``--explain`` and the tests, if at all. Building a dict of a million job ids
costs more than the rest of the grouping, so ``RowMap`` builds it on first read.

Invariant: a ``RowMap`` reads as ``dict(zip(ids, values))`` (a later duplicate id
wins, as in that dict); the lists are never changed once handed over.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping


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

    def distinct(self) -> int:
        """``len(set(self.values()))``; without building the dict when the ids are
        unique (then every row's number is a value)."""
        if self._dict is None and len(set(self.ids)) == len(self.ids):
            return len(set(self.values_by_row))
        return len(set(self._map().values()))
