"""A group of one-offer static shapes whose entries are made as the merge reads them.

A class's list of unheld static offers (``static_lists``) gives the offers of its
one-offer shapes of equal ranks as one group. Most lists are read only a few entries
deep (the class's jobs take the first offers they may), so making every entry of a
large group at once is mostly wasted: a ``StaticRun`` makes them a part at a time,
as ``Candidates.merge_more`` reads a source made on demand (``grow``).

Invariant (what the merge relies on): the offers are in the exact order of their
entries, so ``entries`` is the sorted prefix of the whole group's entries and every
entry not made yet sorts after them. ``StaticLists`` makes a run only where that
holds: without a rank column (the job rank is the pair's, one for the group) and
when every static offer gives its pre and post job ranks itself or none does (the
group's ranks are then the offers' or the pair's one value), where the offers' likely
order (``StaticLists._order``) is their entries' order. So a merge bound at or below
an entry made (``merge_more`` takes one of this run's when it made more than its
share) leaves no entry unmade that should sort before it: ``through`` has nothing to
do.

A run is shared by every list of its group (``StaticLists._holder``), each reading
it from its own position; ``entries`` only grows, never changed in place otherwise.
An offer that left before its turn gets no entry; one that leaves after is passed
over by the scan.
"""

from __future__ import annotations

from condorlite.core.matching.candidates import ENTRY_IDX, Candidates, PairEval, make_entries
from condorlite.core.matching.offers import Offer
from condorlite.core.model import NO_PREEMPTION


class StaticRun:
    """The entries of one group of one-offer static shapes (``seqs``, in their
    entries' order; ``pe``: the group's pair result), made on demand (module doc)."""

    __slots__ = ("_at", "_pe", "_registry", "_seqs", "done", "entries")

    def __init__(self, registry: list[Offer], seqs: list[int], pe: PairEval) -> None:
        self._registry, self._seqs, self._pe = registry, seqs, pe
        #: the entries made so far, sorted (the prefix of the group's)
        self.entries: list[tuple] = []
        #: how many of ``seqs`` were made into entries or passed over
        self._at = 0
        self.done = not seqs

    def grow(self, count: int) -> None:
        """Make entries until there are more than ``count`` or no offer is left (the
        offers that have left are passed over)."""
        entries, seqs, registry = self.entries, self._seqs, self._registry
        at, end = self._at, len(seqs)
        while len(entries) <= count and at < end:
            upto = min(end, at + count + 1 - len(entries))
            alive = [k for k in seqs[at:upto] if registry[k].available]
            at = upto
            if alive:
                entries.extend(make_entries(registry, alive, self._pe, NO_PREEMPTION))
        self._at = at
        self.done = at >= end

    def through(self, key: float) -> None:
        """Nothing: every entry not made sorts after those made (module doc)."""


class StaticMerge:
    """The sorted entries of one static list, merged from its sorted runs and its
    runs made on demand (``StaticRun``) only as far as a list of it is read: one per
    list made (``StaticLists._made``), shared by every class that holds the list,
    itself a source made on demand for each class's ``Candidates.merge_more``.

    ``entries`` is the sorted prefix of the whole list (``Candidates.merge_more``
    keeps its own so), so every entry not merged yet sorts after them: ``through``
    has nothing to do. It only grows."""

    __slots__ = ("_merge", "_registry", "done", "entries", "first")

    def __init__(self, registry: list[Offer], runs: list[list[tuple]],
                 lazy: list[StaticRun]) -> None:
        self._registry = registry
        runs = [run for run in runs if run]
        #: the runs still to merge, merged by ``Candidates.merge_more``; one sorted
        #: run alone is the list as it is (a run is never changed in place)
        self._merge = merge = Candidates(runs[0] if len(runs) == 1 and not lazy else [])
        if not merge.entries:
            merge.pending = [[run, 0] for run in runs]
            merge.pending.extend([run.entries, 0, run] for run in lazy)
            merge.lazy_runs = len(lazy)
        self.entries = merge.entries
        #: the position in ``entries`` of the first whose offer may be available
        self.first = 0
        self.done = not merge.pending

    def grow(self, count: int) -> None:
        """Merge until there are more than ``count`` entries or nothing is left."""
        merge, entries = self._merge, self.entries
        while len(entries) <= count and merge.pending:
            merge.merge_more()
        self.done = not merge.pending

    def through(self, key: float) -> None:
        """Nothing: every entry not merged sorts after those merged (class doc)."""

    def start(self) -> int:
        """The first position whose offer is available, ``first`` moved on to it."""
        entries, registry = self.entries, self._registry
        at, end = self.first, len(entries)
        while at < end and not registry[entries[at][ENTRY_IDX]].available:
            at += 1
        self.first = at
        return at
