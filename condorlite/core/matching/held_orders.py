"""The held offers' entries by priority, kept sorted once per job rank source and
filtered per list (``held_lists``).

An entry by priority of a pair result without dependent ranks depends on its offer
and its job rank alone (``candidates.SharedEntries``), and that rank comes from the
class's rank column or, without one, is the pair's constant job rank: so every list
of one source lists a subset of the same entries. On pools of many claimed static
slots nearly every class lists most held offers by priority, and sorting each
list's few hundred entries again cost as much as making them. So the entries of a
source are kept in one sorted *pool* (``HeldOrder``), made as lists first ask for
their offers (never for an offer no list asks: a held offer's job-independent ranks
are worked out when its first entry is made, ``lazy_ranks``), and a list takes the
pool's entries of its offers in the pool's order: the same entries, sorted, as
making and sorting them would give (entries differ in their offer's seq, so their
order is total).

Invariants: a pool's entries are sorted and the entries of its ``made`` (seq ->
entry), one per seq; an entry asked with a version other than its offer's is made
again (as ``SharedEntries`` does) and replaces the old one in the pool. Entries of
offers no longer available stay in the pool (never asked: a list asks for available
offers only) until as many offers have left the held groups as the pool holds
entries, when they are dropped. One ``HeldOrders`` per cycle's lists.
"""

from __future__ import annotations

from condorlite.core.matching.candidates import ENTRY_IDX, ENTRY_VERSION, PairEval, SharedEntries
from condorlite.core.matching.held_groups import HeldGroups
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.rank_columns import RankColumn
from condorlite.core.model import PRIO_PREEMPTION


class HeldOrder:
    """One job rank source's pool (module doc)."""

    __slots__ = ("entries", "epoch", "made")

    def __init__(self, epoch: int) -> None:
        #: the pool's entries, sorted
        self.entries: list[tuple] = []
        #: offer seq -> its entry in ``entries``
        self.made: dict[int, tuple] = {}
        #: ``HeldGroups.epoch`` when entries of offers that left were last dropped
        self.epoch = epoch


class HeldOrders:
    """The cycle's pools by job rank source (module doc). ``held``: the held groups
    (read only, for their epoch); ``registry``: the offers by seq; ``shared``: the
    entries shared between lists (``candidates.SharedEntries``), which makes them."""

    __slots__ = ("_held", "_orders", "_registry", "_shared")

    def __init__(self, held: HeldGroups, registry: list[Offer], shared: SharedEntries
                 ) -> None:
        self._held = held
        self._registry = registry
        self._shared = shared
        #: the column, or the job rank, -> its pool
        self._orders: dict[object, HeldOrder] = {}

    def entries(self, seqs: list[int], pe: PairEval, column: RankColumn | None
                ) -> list[tuple]:
        """The entries by priority of the available offers ``seqs`` (each once) with
        the pair result ``pe`` (without dependent ranks), sorted: as
        ``sorted(SharedEntries.entries(seqs, pe, PRIO_PREEMPTION, column))``."""
        key = column if column is not None else pe.job_rank
        order = self._orders.get(key)
        if order is None:
            order = self._orders[key] = HeldOrder(self._held.epoch)
        made, registry = order.made, self._registry
        fresh = []
        for k in seqs:
            entry = made.get(k)
            if entry is None or entry[ENTRY_VERSION] != registry[k].version:
                fresh.append(k)
        if fresh:
            self._add(order, fresh, pe, column)
        elif self._held.epoch - order.epoch > len(order.entries):
            self._drop_left(order)
        if len(seqs) == len(made):
            return order.entries  # (every entry of the pool: the pool itself)
        want = set(seqs)
        return [e for e in order.entries if e[ENTRY_IDX] in want]

    def _add(self, order: HeldOrder, fresh: list[int], pe: PairEval,
             column: RankColumn | None) -> None:
        """Make the entries of the ``fresh`` seqs and put them in the pool (a new
        list: one handed out is never changed), replacing those of older versions."""
        made = order.made
        stale = {k for k in fresh if k in made}
        kept = order.entries if not stale else [
            e for e in order.entries if e[ENTRY_IDX] not in stale]
        new = self._shared.entries(fresh, pe, PRIO_PREEMPTION, column)
        for entry in new:
            made[entry[ENTRY_IDX]] = entry
        # (two sorted runs: the sort merges them)
        new.sort()
        order.entries = [*kept, *new]
        order.entries.sort()
        if self._held.epoch - order.epoch > len(order.entries):
            self._drop_left(order)

    def _drop_left(self, order: HeldOrder) -> None:
        """Drop the entries of offers no longer available (a new list)."""
        registry = self._registry
        order.entries = [e for e in order.entries if registry[e[ENTRY_IDX]].available]
        order.made = {e[ENTRY_IDX]: e for e in order.entries}
        order.epoch = self._held.epoch
