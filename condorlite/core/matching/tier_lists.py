"""The tier lists of the ordered vector statics (``static_orders``): the tier of each
shape, the lists a snapshot holds, and how a ``sync`` changes one list.

A static's items are kept by *tier*: the vector positions where the item's state has
nothing left (``left`` at most 0; ``TierLists.tier_of``), each tier's list sorted
(``static_orders`` keeps which items are in them; an item holds its tier). A tier is
worked out from the state's amounts left (``tier_of_left``), not kept per shape: every
carve makes a new shape, so such a table grew by one entry a carve and was never read
again but for the item's next move. A class whose fixed requests ask
more than nothing of one of a tier's positions holds no state of it
(``amount > 0 >= left``), so a snapshot hands out only the other tiers (``share``).

A ``sync`` notes each tier list's moves (``TierMoves``: the items it loses and gains)
and then changes each touched list at once (``apply``): by a bisect per move while
its moves are few against its items (``REBUILD``), else anew by one sort of its kept
items and the new ones (on the 10,000-slot disk-share row a touched tier list of 451
items on average loses 70 and gains 74 in one sync: the sort compares the items'
float first fields on its fast path, a bisect whole tuples).

Invariant: a list a snapshot holds (``shared``) is never changed in place: a change
copies it first or makes a new list.
"""

from __future__ import annotations

from bisect import bisect_left, insort
from itertools import compress, count
from typing import NamedTuple

#: a sync changes a tier list one item at a time (a bisect each) while its moves
#: times this are fewer than its items, else makes it anew at once (``apply``)
REBUILD = 6

#: whether an amount left is nothing (``left <= 0``; False for NaN): ``0.0 >= left``
#: (amounts left are floats, ``slot_vectors.lefts``)
_AT_NOTHING = (0.0).__ge__


class TierMoves(NamedTuple):
    """The items one tier list of a static loses (``gone``: as they were placed) and
    gains (``added``) in one ``sync``."""

    gone: list[tuple]
    added: list[tuple]


class TierLists:
    """The tiers of the states (by their amounts left) and the tier lists snapshots
    hold (module doc); ``shape_left``: the shapes' amounts left
    (``OfferShapes.shape_left``)."""

    def __init__(self, shape_left: dict[int, tuple]) -> None:
        self._shape_left = shape_left
        #: which positions of a state have nothing left (``left <= 0`` at each) -> the
        #: tier of those positions, one tuple per pattern (``tier_of_left``)
        self._patterns: dict[tuple[bool, ...], tuple] = {}
        #: the (static, tier) lists a snapshot holds (changed on a copy)
        self.shared: set[tuple[int, tuple]] = set()

    def apply(self, static: int, tiers: dict[tuple, list[tuple]], tier: tuple,
              moves: TierMoves) -> None:
        """Change the static's list of ``tier`` by ``moves``: one item at a time (a
        bisect each) when they are few against the list, else a new list made at once
        (the kept items, then the new ones, sorted: the sort finds the kept run and
        merges the rest in, comparing the items' first fields by its float fast path,
        where each bisect's compare is a whole tuple compare)."""
        gone, added = moves.gone, moves.added
        order = tiers.get(tier)
        if order is None or REBUILD * (len(gone) + len(added)) < len(order):
            order = self._tier(static, tiers, tier)
            for old in gone:
                del order[bisect_left(order, old)]
            for item in added:
                insort(order, item)
            return
        if gone:
            # (an item's position is unique in the static: it names the item)
            seqs = {old[1] for old in gone}
            order = [item for item in order if item[1] not in seqs]
        else:
            order = order.copy()
        order += added
        order.sort()
        # (a new list: a snapshot holding the old one keeps it as it was)
        tiers[tier] = order
        self.shared.discard((static, tier))

    def tier_of(self, shape: int) -> tuple:
        """The positions where the state of ``shape`` has nothing left (``left`` at
        most 0): a class asking more than nothing of one of them holds no state of
        the tier (module doc)."""
        return self.tier_of_left(self._shape_left[shape])

    def tier_of_left(self, left: tuple[float, ...]) -> tuple:
        """The tier of a state whose amounts left are ``left`` (``tier_of``; ``sync``
        writes out its first test). Every carve makes a new state, so a tier is not
        kept per shape: most states have something left everywhere, which one C call
        answers (NaN is never ``<= 0``, so any NaN the ``min`` passes over is no
        position of the tier either way); for the others the pattern of positions at
        nothing is looked up, one tuple per pattern (a static's states keep few
        patterns: a kind's resources it has none of, and a slot carved down to no
        Cpus)."""
        if not left or min(left) > 0:
            return ()
        pattern = tuple(map(_AT_NOTHING, left))
        tier = self._patterns.get(pattern)
        if tier is None:
            tier = self._patterns[pattern] = tuple(compress(count(), pattern))
        return tier

    def _tier(self, static: int, tiers: dict[tuple, list[tuple]], tier: tuple) -> list[tuple]:
        """The list of ``tiers`` (the static's) for ``tier``, made or copied first when
        a snapshot holds it, to change in place."""
        order = tiers.get(tier)
        if order is None:
            order = tiers[tier] = []
        elif (static, tier) in self.shared:
            order = tiers[tier] = list(order)
            self.shared.discard((static, tier))
        return order

    def share(self, static: int, tiers: dict[tuple, list[tuple]], asking: set[int]
              ) -> dict[tuple, list[tuple]]:
        """The static's tiers (``tiers``) a snapshot hands out (``StaticOrders.snapshot``):
        those none of whose positions is in ``asking``, marked shared (the others are
        not: the tier of the states with nothing left grows with every carve that
        empties a slot, and a copy of it per list made would cost what passing it over
        saves)."""
        shared = self.shared
        out = {}
        for tier, items in tiers.items():
            if items and asking.isdisjoint(tier):
                shared.add((static, tier))
                out[tier] = items
        return out
