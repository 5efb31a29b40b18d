"""A held list's run by priority, made only when a list's merge reaches it.

``HeldLists._settle`` sorts a list key's held offers out eagerly (the refusal counts a
list adds at its making need them) into groups of offers listed by priority with one
pair result or job rank source each; making their entries is left to the run
(``lazy_runs.LazyRun``) the lists are handed. Most lists take what they need before
it: on the 10,000-slot static mix the unheld static slots' entries sort first (the
default ``NEGOTIATOR_PRE_JOB_RANK`` adds 1,000,000 to an unclaimed slot), no list's
scan ever reached the runs that held 28,362 of the 73,598 entries by priority made
before, and of the 45,236 offers in the runs reached, 31,767 were still available when
first reached (an offer that has left gets no entry: a scan passes over it).

The run's head is the least first key (``-PRE_JOB_RANK``) of its entries, read as
``candidates.make_entries`` reads it: a held offer's own rank, kept per offer for the
cycle (``NegPre``), else the pair's dependent one. A run may also hold a walk's groups
whose pairs are not worked out yet (``LaterRun``, ``held_types.LaterPairs``): they are
worked out and settled when the run is made, the head then the least of their offers'
own first keys whether they are listed or not (a bound: the run may be made sooner
than needed, never later). A partitionable offer's version moves as it is carved, so
a run holding one is made at once (as all were before). Its sentinel (``lazy_runs``)
is an entry of its first offer with that first key, the least keys after it and
version ``NO_VERSION``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from itertools import chain
from typing import NamedTuple

from condorlite.core.matching.candidates import PRE, PairEval, SharedEntries, make_entries
from condorlite.core.matching.held_groups import HeldGroups
from condorlite.core.matching.lazy_runs import LazyRun
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.rank_columns import RankColumn
from condorlite.core.model import PRIO_PREEMPTION

#: the version of a run's sentinel entry: no offer's (a scan passes over an entry made
#: with its list at another version than its offer's whose offer had that version
#: then, ``list_scan._stale``: true of every offer for this one)
NO_VERSION = -1


class NegPre(dict):
    """seq -> the held offer's own first entry key (``-PRE_JOB_RANK`` of its
    independent ranks, as ``make_entries`` reads it of a pair without dependent
    ranks), -inf for a partitionable offer; worked out on first read."""

    __slots__ = ("_registry",)

    def __init__(self, registry: list[Offer]) -> None:
        super().__init__()
        self._registry = registry

    def __missing__(self, seq: int) -> float:
        offer = self._registry[seq]
        value = self[seq] = -math.inf if offer.partitionable else -offer.independent[PRE]
        return value


class LaterRun(NamedTuple):
    """Offers a run by priority may hold whose pairs are not worked out yet
    (``held_types.LaterPairs``): the least of their own first keys (whether or not
    they are listed), the seq of one of them, and what gives their groups by
    priority once the run is made (as ``PrioRuns.run``'s ``groups``)."""

    head: float
    seq: int
    groups: Callable[[], list[tuple[PairEval, list[int]]]]


class PrioRuns:
    """The cycle's held runs by priority (module doc): ``registry``, the offers by
    seq; ``shared``, the entries shared between lists (``candidates.SharedEntries``)."""

    __slots__ = ("_held", "_neg_pre", "_registry", "_shared")

    def __init__(self, registry: list[Offer], shared: SharedEntries, held: HeldGroups
                 ) -> None:
        self._registry = registry
        self._shared = shared
        #: the held groups, whose ``epoch`` moves once for each held offer that leaves
        self._held = held
        self._neg_pre = NegPre(registry)

    def run(self, groups: list[tuple[PairEval, list[int]]], column: RankColumn | None,
            later: LaterRun | None = None) -> LazyRun:
        """The run of ``groups`` (a pair result, the seqs listed by priority with it:
        with dependent ranks, that result's; else the offers of one job rank source,
        ``HeldLists._settle``) and of ``later``'s groups, given when it is made, for
        the class's rank column ``column``: the sorted entries of the offers still
        available when it is made. Its head bounds ``later``'s by their offers' own
        first keys, whether or not they are listed then."""
        low = self._head(groups) if groups else math.inf
        if later is not None and later.head < low:
            low = later.head
        registry, shared, held = self._registry, self._shared, self._held
        # (the groups hold offers available now: unless a held offer leaves before the
        # run is made, as when a list's first merge makes it, they all still are)
        epoch = held.epoch
        sentinel = (low, -math.inf, -math.inf, -math.inf, -math.inf, "",
                    groups[0][1][0] if groups else later.seq,  # type: ignore[union-attr]
                    NO_VERSION, PRIO_PREEMPTION)

        def fill() -> list[tuple]:
            entries: list[tuple] = []
            moved = held.epoch != epoch
            # (``later``'s groups are settled now, of the offers available now)
            fresh = () if later is None else later.groups()
            for pe, seqs in chain(groups, fresh):
                if moved:
                    seqs = [k for k in seqs if registry[k].available]
                    if not seqs:
                        continue
                if pe.dependent:
                    entries.extend(make_entries(registry, seqs, pe, PRIO_PREEMPTION,
                                                column=column))
                else:
                    entries.extend(shared.entries(seqs, pe, PRIO_PREEMPTION, column))
            entries.sort()
            return entries

        run = LazyRun(fill, (low,), sentinel)
        if low == -math.inf:
            run.make()
        return run

    def _head(self, groups: list[tuple[PairEval, list[int]]]) -> float:
        """The least first key of the entries of ``groups`` (-inf with a partitionable
        offer among them)."""
        registry, neg_pre = self._registry, self._neg_pre
        low = math.inf
        for pe, seqs in groups:
            dependent = pe.dependent
            if not dependent:
                least = min(map(neg_pre.__getitem__, seqs))
            else:
                least = math.inf
                for k in seqs:
                    offer = registry[k]
                    values = offer.independent
                    pre = -math.inf if offer.partitionable else -(
                        values[PRE] if PRE in values else dependent[PRE])
                    if pre < least:
                        least = pre
            if least < low:
                low = least
        return low
