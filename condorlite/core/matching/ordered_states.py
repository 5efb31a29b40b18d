"""The offers of each vector static in order of their pre-job rank, and a request's
carved entries made from that order only as far as the list's merge reads.

A request's list is read from the front, and on a partitionable pool only a part of
it: on the 10,000-slot partitionable mix about a quarter of the carved entries a list
was made with were ever merged (``Candidates.merge_more``), yet every list walked
every state of its statics and made an entry of each that fits. When a static's
offers are nobody's, none shares its state with another offer, the pre-job rank
reads nothing of the job (it is in each offer's independent ranks) and the class's
job rank is a pair result's or a rank column's value that is the same in every state
of the offer, the class's entries of the static sort first by ``-pre``, an order
that does not depend on the class. ``StaticOrders`` keeps, per static, its available
offers as *items* sorted by (-pre, position): the snapshot of the offer's state an
entry needs (its version, shape, independent ranks and vector values). A list takes
the static's item list as it is (``snapshot``: shared; the next change copies it
first) and makes entries from it on demand (``OrderedStates``), a whole group of
equal -pre at a time: a state that does not hold the class's fixed requests is passed
over, a fitting one gets the class's pair result (a box's one result, a known pair,
or the program run at the item's values) and, if it matches, the entry the walk
would have made when the list was made (``carved_lists``): the item keeps the state
the offer had then, so the entry is the same whatever the offer becomes meanwhile.

The orders follow the offers through ``OfferShapes.moved``, the vector offers placed,
carved or retired since the last ``sync`` (each carve is one append there); ``sync``
moves their items before any list is made. A static is walked for good (its order
dropped) once one of its shapes holds two offers, when its offers are held or their
pre-job rank reads the job, or when a list first asks for it with fewer than
``ORDER_MIN`` offers; once every static is walked the shapes stop logging.

Invariant (what ``Candidates.merge_more`` relies on): ``OrderedStates.entries`` is
the sorted prefix of the sorted entries of the whole snapshot: every item left has
a larger -pre than every entry made, so its entry sorts after them.
"""

from __future__ import annotations

from bisect import bisect_left, insort

from condorlite.core.matching.candidates import (
    FLT_MAX,
    NO_MATCH,
    POST,
    PRE,
    PairEval,
    as_rank,
    box_pair,
    make_pair,
)
from condorlite.core.matching.carving import PairProgram
from condorlite.core.matching.offer_shapes import EvaluationCount, OfferShapes
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.rank_columns import RankColumn
from condorlite.core.model import NO_PREEMPTION, REASON_ORDER

#: the fewest available offers a static keeps its order with: a list's merge reads
#: about twice its first chunk (64) of a source at once, so a smaller static is read
#: whole anyway and its order would only cost its upkeep (1k disk-share row: +2 %)
ORDER_MIN = 128

#: an entry's reason-order key by no preemption (``candidates.make_entry``)
_FREE_ORDER = -REASON_ORDER[NO_PREEMPTION]


class StaticOrders:
    """Each vector static's available offers sorted by (-pre, position), for the
    statics whose offers are nobody's and rank ``pre`` without the job (module doc).

    An item is (-pre, position, version, shape, independent ranks, vector values).
    A static is walked for good (``walked``: no order kept) once one of its shapes
    holds two offers (their entries are a kept run, ``shape_entries``), or when its
    offers are held or their ``pre`` reads the job; ``shared`` holds the statics whose
    list a snapshot holds (changed on a copy)."""

    def __init__(self, shapes: OfferShapes) -> None:
        self._shapes = shapes
        self._groups = shapes.groups
        # (the vector offers prepared so far, then every one placed, carved or retired)
        self._moved = shapes.moved = [offer for offer in shapes.registry
                                      if offer.vector is not None]
        #: static -> its items, sorted
        self._orders: dict[int, list[tuple]] = {}
        #: offer position -> its item (in ``_orders[static]``)
        self._items: dict[int, tuple] = {}
        self._walked: set[int] = set()
        self._shared: set[int] = set()

    def sync(self) -> None:
        """Move the items of the offers moved since the last call (module doc)."""
        moved = self._moved
        if not moved:
            return
        items, orders, groups, walked = self._items, self._orders, self._groups, self._walked
        for offer in {offer.seq: offer for offer in moved}.values():
            static = offer.vector.static  # (an offer's static never changes)
            if static in walked:
                continue
            values = offer.independent
            members = groups[static].get(offer.shape) if offer.available else None
            if (offer.holder is not None or PRE not in values
                    or (members is not None and len(members) > 1)):
                walked.add(static)
                orders.pop(static, None)
                continue
            order = orders.get(static)
            if order is None:
                order = orders[static] = []
            elif static in self._shared:
                order = orders[static] = list(order)
                self._shared.discard(static)
            old = items.pop(offer.seq, None)
            if old is not None:
                del order[bisect_left(order, old)]
            if members is not None:
                item = items[offer.seq] = (-values[PRE], offer.seq, offer.version,
                                           offer.shape, values, offer.vector.vals)
                insort(order, item)
        moved.clear()
        if len(walked) == len(groups):
            # (every static is walked: nothing reads the offers' moves any more)
            self._shapes.moved = None

    def snapshot(self, static: int) -> list[tuple] | None:
        """The static's items as they are now (shared: never changed in place
        afterwards), or None when the static is walked. A static of fewer than
        ``ORDER_MIN`` available offers is walked for good from then on (a static
        never gains an offer)."""
        order = self._orders.get(static)
        if order is None:
            return None
        if len(order) < ORDER_MIN:
            self._walked.add(static)
            del self._orders[static]
            if len(self._walked) == len(self._groups):
                self._shapes.moved = None
            return None
        self._shared.add(static)
        return order


class OrderedStates:
    """One list's entries of one static, made from a snapshot of its order as the
    merge reads them (module doc). ``column``: the class's rank column, whose value
    for each offer of the static is the same in every state (``carved_lists`` asks
    ``RankColumn.same_in_every_state``), or None; ``fixed``: the class's fixed requests (spelling,
    amount, position); ``fitting``: whether a shape holds them (shared per set of
    requests, ``carved_lists``); ``boxed``: the program's one result, else
    ``program`` is run at a state whose pair is not in ``known_pairs``."""

    __slots__ = ("_at", "_boxed", "_column", "_counts", "_fitting", "_fixed", "_known",
                 "_left", "_pair_of", "_program", "_registry", "done", "entries", "items")

    def __init__(self, items: list[tuple], registry: list[Offer], pair_of: dict[int, int],
                 left: dict[int, tuple], fixed: list[tuple[str, float, int]],
                 fitting: dict[int, bool], boxed: PairEval | None,
                 program: PairProgram | None, known_pairs: dict[int, PairEval],
                 counts: EvaluationCount, column: RankColumn | None) -> None:
        self.items = items
        self._registry, self._pair_of, self._left = registry, pair_of, left
        self._fixed, self._fitting = fixed, fitting
        self._boxed, self._program = boxed, program
        self._known, self._counts = known_pairs, counts
        self._column = column
        self._at = 0
        self.entries: list[tuple] = []
        self.done = not items

    def any_fits(self) -> bool:
        """Whether some item's state holds the fixed requests (stops at the first)."""
        fits = self._fits
        return any(fits(item[3]) for item in self.items)

    def _fits(self, shape: int) -> bool:
        fit = self._fitting.get(shape)
        if fit is None:
            have = self._left[shape]
            fit = True
            for _, amount, pos in self._fixed:
                if amount > have[pos]:
                    fit = False
                    break
            self._fitting[shape] = fit
        return fit

    def grow(self, count: int) -> None:
        """Make entries until there are more than ``count`` or no item is left (a
        whole group of equal -pre at a time)."""
        self._make(count, None)

    def through(self, key: float) -> None:
        """Make every item whose -pre is at most ``key`` (the first key of the
        merge's bound) into its entry."""
        self._make(None, key)

    def _make(self, count: int | None, last: float | None) -> None:
        """Make items into entries, in order, stopping at the first group (of equal
        -pre) that starts with more than ``count`` entries made (when given) or
        with its -pre over ``last`` (when given); the entries made (those whose
        state fits and matches) are sorted onto ``entries``."""
        items, known_pairs, pair_of = self.items, self._known, self._pair_of
        fitting, fits, boxed = self._fitting, self._fits, self._boxed
        registry, column, entries = self._registry, self._column, self.entries
        at, end = self._at, len(items)
        batch: list[tuple] = []
        append = batch.append
        group = None  # (the -pre of the group being made)
        while at < end:
            key, idx, version, shape, values, vals = items[at]
            if key != group:
                # (a group's first item: the place to stop)
                if count is not None and len(entries) + len(batch) > count:
                    break
                if last is not None and key > last:
                    break
                group = key
            at += 1
            fit = fitting.get(shape)
            if not (fits(shape) if fit is None else fit):
                continue
            pair_shape = pair_of[shape]
            if boxed is not None:
                known = boxed
                if pair_shape not in known_pairs:
                    self._counts.evaluations += 1
                    known_pairs[pair_shape] = boxed
            else:
                known = known_pairs.get(pair_shape)
                if known is None:
                    self._counts.evaluations += 1
                    program = self._program
                    outcome = program.run_fitted(vals, as_rank)  # type: ignore[union-attr]
                    known = known_pairs[pair_shape] = (
                        NO_MATCH if not outcome[0] else box_pair(program)  # type: ignore[arg-type]
                        if program.result is not None else make_pair(outcome))  # type: ignore[union-attr]
            if not known.match:
                continue
            append((key, -(known.job_rank if column is None
                           else column.value(registry[idx])),
                    -(values[POST] if POST in values else known.dependent[POST]),
                    _FREE_ORDER, FLT_MAX, registry[idx].name, idx, version, NO_PREEMPTION))
        if batch:
            batch.sort()
            entries.extend(batch)
        self._at = at
        self.done = at >= end
