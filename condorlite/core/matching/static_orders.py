"""Each vector static's available offers in order of their pre-job rank, kept as
the cycle carves them, for the lists that make their entries only as far as their
merge reads (``ordered_states``).

A request's list is read from the front, and on a partitionable pool only a part of
it: on the 10,000-slot partitionable mix about a quarter of the carved entries a list
was made with were ever merged (``Candidates.merge_more``), yet every list walked
every state of its statics and made an entry of each that fits. When a static's
offers are nobody's (states shared by several offers: below), the pre-job rank
reads nothing of the job (it is in each offer's independent ranks) and the class's
job rank is a pair result's or a rank column's value that is the same in every state
of the offer, the class's entries of the static sort first by ``-pre``, an order
that does not depend on the class. ``StaticOrders`` keeps, per static, its available
offers as *items* sorted by (-pre, position): the snapshot of the offer's state an
entry needs (its version, shape, post-job rank, vector values and name: an entry
made from an item reads nothing of the offer itself, ``item_of``). A list takes
the static's item list as it is (``snapshot``: shared; the next change copies it
first) and makes entries from it on demand (``ordered_states.OrderedStates``).

A pre-job rank that reads the job only through the slots' own literal tests (the
default rank's ``My.Rank`` of a desktop ranking its owner, ``literal_orders``) is
split: the static is ordered by the rank with the tests replaced by the values most
offers have for the first class that asks (``StaticOrders.literal``, made then from
the static's offers, kept by ``sync`` from then on), and a class's *offsets*, the
groups of offers whose tests give it other values (its owner's desktops), are left
out of that order and merged in from items of their own, keyed by their own rank
(``literal_states.LiteralStates``); a class for which more than half of the offers are offsets,
or whose tests read more than literals of the job, walks the static as before.

A static's items are kept by *tier*: the vector positions where the item's state has
nothing left (``left`` at most 0), each tier's list sorted (``tier_lists``).
A class whose fixed requests ask more than nothing of one of a tier's positions holds
no state of it (``amount > 0 >= left``), so its list takes only the other tiers, one
source each (``carved_lists``): on the 10,000-slot partitionable mix three of four
items the lists read were slots carved down to no Cpus, every one passed over.

The orders follow the offers through ``OfferShapes.moved``, the vector offers placed,
carved or retired since the last ``sync`` (each carve is one append there); ``sync``
moves their items before any list is made, noting first each item a tier list loses
and gains, then changing each touched list at once (``tier_lists.TierLists.apply``).
Each moved offer's step is one C loop's on its common path (``sync_moves``: a
nobody's offer of an ordered static, the step ``_move`` would take, taken alike), and
``_move``'s for the others (held, not ordered yet, deferred, walked on the way).

A static whose state is shared by several offers (the untouched slots of a kind:
every static of the partitionable rows) is ordered too, each offer an item as in any
other (``shared_states``): a list of a class whose pair is a program run per state
runs it only for the states its merge reads, where the walk ran it for every state
that fits. Its order is made at the first list that asks for it (``snapshot``; its
moves are passed over till then, ``_deferred``), and ``carved_lists`` walks it for
good at the first class whose pair is a box: the walk costs a box one look-up a
state and a shared state one kept run for every class (``shape_entries``), where the
order makes an entry per offer per class (10,000-slot partitionable row, every class
a box: 1.28 times the instructions with these statics kept in order for all).

A static is walked for good (its order dropped) when its offers are held or their
pre-job rank reads the job (other than through literal tests alone), when a list
first asks for it with fewer than ``ORDER_MIN`` offers, or (its states shared) at
its first class of a box; once every static is walked the shapes stop logging.

Invariant: each tier list of a static holds exactly the items of its available
offers whose state is of that tier, sorted, each item the offer's state as of the
last ``sync`` (a snapshot handed out is never changed in place: a change copies
first or makes a new list), keyed by its exact -pre (for a split static, by the
order's tests' values).
"""

from __future__ import annotations

from operator import attrgetter

from condorlite.core.adeval import ClassAd
from condorlite.core.matching.candidates import DEPENDENT, POST, PRE
from condorlite.core.matching.literal_orders import (
    LiteralOrders,
    LiteralSnapshot,
    LiteralSplit,
    exact,
)
from condorlite.core.matching.offer_shapes import OfferShapes
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.sync_moves import sync_moves
from condorlite.core.matching.tier_lists import TierLists, TierMoves

#: the fewest available offers a static keeps its order with: a smaller one is read
#: nearly whole by every list that asks, so its order would only cost its upkeep (a
#: ``sync`` move per carve). A list reads little of a static of a few dozen offers
#: (the tiers it is not handed, the merge's share of its chunk per lazy source,
#: ``Candidates.merge_more``): the 1k partitionable mix's 44 idle desktops (411
#: program walks of 18,084 states) cost 0.918 of the instructions ordered against
#: walked; 16 orders a 1k owner-start static of 26 desktops its lists read nearly
#: whole (+0.4 % of the opcodes). 128 was set when a merge read twice its first chunk
#: (64) of every source (RESULTS, session 33, crvd33)
ORDER_MIN = 32

#: an offer's position (``sync``'s one pass over the moves keyed by it)
_SEQ = attrgetter("seq")
#: where an item holds its tier (``item_of``)
_TIER = 7

#: whether statics whose states are shared by several offers are ordered too (module
#: doc); the tests switch it off to compare
SHARED = True


def item_of(offer: Offer, key: float, tier: tuple) -> tuple:
    """The item of ``offer`` in its current state, keyed by ``key``, in ``tier`` (its
    state's, ``TierLists.tier_of``): (key, position, version, shape, post-job rank,
    vector values, name, tier), the post-job rank ``DEPENDENT`` when it reads the job
    (an entry takes the pair's). What an entry of the item needs is in it
    (``ordered_states``): on the 10,000-slot partitionable mix a registry read and the
    offer's name for each of ~71,000 entries made were about 1 % of the cycle, the
    offer being cold by then. The tier says which list ``sync`` takes the item out of
    when the offer moves on (sorting never reaches it: a position is unique in its
    static). (``sync`` writes it out.)"""
    values = offer.independent
    return (key, offer.seq, offer.version, offer.shape,
            values.get(POST, DEPENDENT),
            offer.vector.vals, offer.name, tier)  # type: ignore[union-attr]


class StaticOrders:
    """Each vector static's available offers sorted by (-pre, position) in each tier,
    for the statics whose offers are nobody's and rank ``pre`` without the job (module
    doc).

    An item is (-pre, position, version, shape, post-job rank, vector values, name),
    ``item_of``.
    A static is walked for good (``walked``: no order kept) when its offers are held
    or their ``pre`` reads the job, or, its states shared by several offers
    (``shared_states``), when a class whose pair is a box asks for it."""

    def __init__(self, shapes: OfferShapes, literal: LiteralOrders) -> None:
        self._shapes = shapes
        self._groups = shapes.groups
        self._literal = literal
        # (the vector offers prepared so far, then every one placed, carved or retired)
        self._moved = shapes.moved = [offer for offer in shapes.registry
                                      if offer.vector is not None]
        #: static -> its items by tier (``tier_of``), each tier's sorted (read by
        #: ``carved_lists`` as ``tiers`` gives them)
        self._orders: dict[int, dict[tuple, list[tuple]]] = {}
        self.orders = self._orders
        #: offer position -> its item (in ``_orders[static]``)
        self._items: dict[int, tuple] = {}
        #: the shapes' tiers and the tier lists snapshots hold (``tier_lists``)
        self.lists = TierLists(shapes.shape_left)
        #: the statics walked for good (read by ``carved_lists`` before it asks)
        self.walked: set[int] = set()
        #: the statics one of whose states has held several offers (read by
        #: ``carved_lists``: walked for good at the first class whose pair is a box)
        self.shared_states: set[int] = set()
        #: the statics of shared states not ordered yet: their order is made at the
        #: first list that asks for it (``snapshot``), their moves passed over till then
        self._deferred: set[int] = set()
        #: a static whose pre-job rank reads the job through literal tests alone
        #: (``literal_orders``), once ordered: (its split, the rank's program its
        #: items are keyed by, that program's tests' values as ``exact`` keys them)
        self._keyed: dict[int, tuple[LiteralSplit, object, tuple]] = {}
        #: such a static's available offers by group (``LiteralSplit.group``)
        self._by_group: dict[int, dict[object, dict[int, None]]] = {}

    def sync(self) -> None:
        """Move the items of the offers moved since the last call (module doc): each
        move's old item and new one are noted per (static, tier) first, then each
        touched tier list is changed at once (``TierLists.apply``). Each offer is
        stepped once, as last moved: by ``sync_moves``' C loop on its common path,
        the others by ``_move``, in the offers' order."""
        moved = self._moved
        if not moved:
            return
        orders, lists = self._orders, self.lists
        #: (static, tier) -> the items that list loses and gains in this sync
        pending: dict[tuple[int, tuple], TierMoves] = {}
        # (each offer once, as last moved: a C pass, where a comprehension ran a
        # loop of bytecode per move)
        offers = list(dict(zip(map(_SEQ, moved), moved, strict=True)).values())
        walked, groups, move = self.walked, self._groups, self._move
        context = (walked, groups, orders, self._keyed, self._items,
                   self._shapes.shape_left, lists.tier_of_left, pending, TierMoves,
                   self.shared_states, SHARED, PRE, POST, DEPENDENT)
        at, end = 0, len(offers)
        while at < end:
            at = sync_moves(offers, at, context)
            if at < end:
                move(offers[at], pending)
                at += 1
        moved.clear()
        for (static, tier), moves in pending.items():
            # (a static walked after some of its moves were noted has no order left)
            tiers = orders.get(static)
            if tiers is not None:
                lists.apply(static, tiers, tier, moves)
        if len(walked) == len(groups):
            # (every static is walked: nothing reads the offers' moves any more)
            self._shapes.moved = None

    def _move(self, offer: Offer, pending: dict[tuple[int, tuple], TierMoves]) -> None:
        """``sync``'s step of one moved offer (``sync_moves`` takes the common ones in
        C): its static walked or its order made as need be, its old item noted gone
        and its new one added in ``pending``."""
        items, orders, keyed = self._items, self._orders, self._keyed
        static = offer.vector.static  # (an offer's static never changes)
        if static in self.walked:
            return
        values, shape, seq = offer.independent, offer.shape, offer.seq
        members = self._groups[static].get(shape) if offer.available else None
        if PRE not in values and static not in keyed:
            self._unkeyed(offer, static, members)
            return
        if offer.holder is not None:
            self._walk(static)
            return
        if static not in orders and (static in self._deferred or not self._first(static)):
            return  # (a deferred static is ordered at its first list, ``snapshot``)
        if members is not None and len(members) > 1:
            if not SHARED:
                self._walk(static)
                return
            self.shared_states.add(static)
        old = items.pop(seq, None)
        if old is not None:
            # (the tier the old item was placed in: ``item_of``)
            old_tier = old[_TIER]
            place = (static, old_tier)
            moves = pending.get(place)
            if moves is None:
                moves = pending[place] = TierMoves([], [])
            moves.gone.append(old)
        if members is not None:
            vals = offer.vector.vals  # type: ignore[union-attr]
            if PRE in values:
                key = -values[PRE]
            else:
                found = keyed[static]
                split = found[0]
                key = split.key(found[1], vals)
                if old is None:
                    self._by_group[static].setdefault(split.group(vals), {})[seq] = None
            item = items[seq] = item_of(offer, key, self.lists.tier_of(shape))
            new_tier = item[_TIER]
            if old is None or new_tier != old_tier:
                # (most carves leave the state in its tier: the old item's list
                # gains the new one, its moves found above)
                place = (static, new_tier)
                moves = pending.get(place)
                if moves is None:
                    moves = pending[place] = TierMoves([], [])
            moves.added.append(item)
        elif old is not None and PRE not in values:
            del self._by_group[static][keyed[static][0].group(old[5])][seq]

    def _unkeyed(self, offer: Offer, static: int, members: dict | None) -> None:
        """``sync``'s way with a moved offer whose pre-job rank reads the job, of a
        static not split on literal tests (yet): passed over when the static may be
        split (ordered when a list first asks for it, ``literal``; one too small
        never will be), else the static is walked from now on."""
        if offer.holder is None and (SHARED or members is None or len(members) == 1) \
                and len(self._groups[static]) >= ORDER_MIN \
                and self._literal.split(offer) is not None:
            return
        self._walk(static)

    def _first(self, static: int) -> bool:
        """Whether a static ``sync`` meets for the first time (ranked without the
        job, nobody's) is ordered from now on: not when one of its states is shared
        by several offers (once per static: ordered at the first list that asks for
        it, ``snapshot``, or walked for good, ``carved_lists``)."""
        if any(len(others) > 1 for others in self._groups[static].values()):
            if not SHARED:
                self._walk(static)
                return False
            self.shared_states.add(static)
            self._deferred.add(static)
            return False
        self._orders[static] = {}
        return True

    def walk(self, static: int) -> None:
        """Walk ``static`` for good from now on (``carved_lists``' choice)."""
        self._walk(static)

    def _walk(self, static: int) -> None:
        """Walk ``static`` for good from now on: its order, if any, is dropped."""
        self.walked.add(static)
        self._deferred.discard(static)
        self._orders.pop(static, None)
        self._keyed.pop(static, None)
        self._by_group.pop(static, None)
        if len(self.walked) == len(self._groups):
            self._shapes.moved = None

    def tiers(self, static: int) -> dict[tuple, list[tuple]] | None:
        """The static's items by tier as they are now, to read at once (a snapshot
        is ``snapshot``'s), or None when it has no order."""
        return self._orders.get(static)

    def snapshot(self, static: int, asking: set[int]) -> dict[tuple, list[tuple]] | None:
        """The static's items as they are now, of the tiers none of whose positions is
        in ``asking`` (shared: never changed in place afterwards; a class asking more
        than nothing of the positions ``asking`` holds no state of the others), or
        None when the static is walked. A static of fewer than ``ORDER_MIN``
        available offers is walked for good from then on (a static never gains an
        offer)."""
        tiers = self._orders.get(static)
        if tiers is None:
            if static not in self._deferred:
                return None
            tiers = self._made(static)
        if sum(map(len, tiers.values())) < ORDER_MIN:
            self._walk(static)
            return None
        return self.lists.share(static, tiers, asking)

    def _made(self, static: int) -> dict[tuple, list[tuple]]:
        """The order of a static of shared states, made from its available offers
        as they are now (its moves were passed over till now, ``sync``)."""
        self._deferred.discard(static)
        registry, items, tier_of = self._shapes.registry, self._items, self.lists.tier_of
        tiers: dict[tuple, list[tuple]] = {}
        for shape, members in self._groups[static].items():
            tier = tier_of(shape)
            order = tiers.get(tier)
            if order is None:
                order = tiers[tier] = []
            for seq in members:
                offer = registry[seq]
                item = items[seq] = item_of(offer, -offer.independent[PRE], tier)
                order.append(item)
        for order in tiers.values():
            order.sort()
        self._orders[static] = tiers
        return tiers

    def literal(self, first: Offer, job_ad: ClassAd, asking: set[int]
                ) -> LiteralSnapshot | None:
        """For a static whose pre-job rank reads the job through literal tests alone
        (``literal_orders``; ``first``: one of its offers, nobody's): its items as
        ``snapshot`` gives them, keyed by one tests' values (the ones most offers
        have for the first class that asks), and the class's offsets; None when the
        static or this class is walked. The order is made at the first ask, from
        the static's offers then (the moves before are passed over in ``sync``)."""
        static = first.vector.static  # type: ignore[union-attr]
        if static in self.walked:
            return None
        split = self._literal.split(first)
        if split is None:
            return None
        keyed = self._keyed.get(static)
        if keyed is None:
            keyed = self._ordered(static, split, job_ad)
            if keyed is None:
                return None
        tiers = self._orders[static]
        count = sum(map(len, tiers.values()))
        if count < ORDER_MIN:
            self._walk(static)
            return None
        by_group = self._by_group[static]
        plan = self._literal.offsets(static, split, job_ad, keyed[2], by_group)
        if plan is None:
            return None
        extra: list[tuple] = []
        items = self._items
        for group, sigma in plan.items():
            members = by_group.get(group)
            if not members:
                continue
            program = split.rank(sigma)
            if program is None:
                return None
            key = split.key
            for seq in members:
                item = items[seq]
                extra.append((key(program, item[5]), *item[1:]))
        if 2 * len(extra) > count:
            return None  # (most offers are offsets: the walk costs no more)
        extra.sort()
        return LiteralSnapshot(self.lists.share(static, tiers, asking), extra, split.group,
                               frozenset(plan))

    def _ordered(self, static: int, split: LiteralSplit, job_ad: ClassAd
                 ) -> tuple[LiteralSplit, object, tuple] | None:
        """Order a static of ``split`` by the tests' values most of its offers have
        for the class of ``job_ad`` (module doc of ``literal_orders``): its items and
        groups made from its available offers, kept from then on by ``sync``. None
        when it cannot be (walked for good, or the class reads the tests otherwise
        than through literals)."""
        registry = self._shapes.registry
        shapes = self._groups[static]
        if sum(map(len, shapes.values())) < ORDER_MIN:
            self._walk(static)
            return None
        if any(len(members) > 1 for members in shapes.values()):
            if not SHARED:
                self._walk(static)
                return None
            self.shared_states.add(static)
        by_group: dict[object, dict[int, None]] = {}
        for members in shapes.values():
            for seq in members:
                by_group.setdefault(split.group(registry[seq].vector.vals), {})[seq] = None  # type: ignore[union-attr]
        sigmas = self._literal.sigmas(split, job_ad, by_group)
        if sigmas is None:
            return None
        counts: dict[tuple, list] = {}
        for group, sigma in sigmas.items():
            counts.setdefault(exact(sigma), [0, sigma])[0] += len(by_group[group])
        sigma = max(counts.values(), key=lambda found: found[0])[1]
        program = split.rank(sigma)
        if program is None:
            self._walk(static)
            return None
        tiers: dict[tuple, list[tuple]] = {}
        for members in by_group.values():
            for seq in members:
                offer = registry[seq]
                tier = self.lists.tier_of(offer.shape)
                item = self._items[seq] = item_of(offer, split.key(
                    program, offer.vector.vals), tier)  # type: ignore[union-attr]
                tiers.setdefault(tier, []).append(item)
        for order in tiers.values():
            order.sort()
        self._orders[static] = tiers
        self._by_group[static] = by_group
        keyed = self._keyed[static] = (split, program, exact(sigma))
        return keyed
