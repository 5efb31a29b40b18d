"""Offers in shapes: keeping the cycle's offers in their shapes as the cycle changes
them (one ``OfferShapes`` per cycle, owned by ``matchmaker.Matchmaker``).

An offer is prepared by ``offer_prep.OfferPrep`` (its walks, its job-independent
policy ranks, its pair shape key), which numbers its pair shape and shape here
(``shape_of``) and places it (``place``); ``carve`` moves an offer with a resource
vector to the state a match leaves (``carved_states``: its ranks and the transitions
remembered); ``retire`` forgets an offer that became unavailable. ``place`` and
``retire`` keep the members of each shape, which the request lists walk
(``request_lists``). Shapes are numbered from 1 in order of first sight, so the
numbering is a function of the order offers are prepared in.

Invariant: an available offer is a member of exactly one shape, in its box
(``Offer.box``: the static, partitionable, held or vector-static table the matchmaker
keeps), and ``Offer.shape`` names it; an unavailable offer is in none.

``OfferShapes`` owns these tables (``__init__`` documents them); the request lists
(``request_lists.RequestLists``) and the static and held lists read them and never
change them. The matchmaker owns one ``OfferShapes`` per cycle.
"""

from __future__ import annotations

from condorlite.core.adeval import ClassAd
from condorlite.core.matching.candidates import POST, PRANK, PRE
from condorlite.core.matching.carved_states import CarvedStates
from condorlite.core.matching.evaluation_count import EvaluationCount
from condorlite.core.matching.held_groups import HeldGroups
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.policy_exprs import PolicyExprs
from condorlite.core.matching.shape_keys import ShapeKeys
from condorlite.core.matching.slot_vectors import lefts
from condorlite.core.matching.slot_walks import SlotWalks
from condorlite.core.matching.spent_statics import SpentStatics


class OfferShapes:
    """A cycle's prepared offers, their shapes and the members of each (see the module
    doc). ``walks`` finds what a slot's evaluations can read (``slot_walks``),
    ``shape_keys`` numbers bindings (``shape_keys.ShapeKeys``); ``exprs`` are the
    policy expressions, ``resource_names`` the names carving rebinds."""

    def __init__(self, now: float | None, exprs: PolicyExprs, walks: SlotWalks,
                 resource_names: frozenset[str], counts: EvaluationCount) -> None:
        self.now = now
        self.exprs = exprs
        self.resource_names = resource_names
        self.counts = counts
        self._walks = walks
        #: the names some job binds (the walks' alternate scope, ``literal_orders``)
        self.job_defined = walks.job_defined
        self.shape_keys = ShapeKeys()
        #: every prepared offer, in the order first prepared (``Offer.seq``)
        self.registry: list[Offer] = []
        #: ``registry`` itself once a caller's list was found to be it (``is_full``)
        self.full: list[Offer] | None = None
        #: the carving clock (``stamp``)
        self.clock = 0
        #: shape -> the ``seq`` of its available offers (a dict: ordered); an offer
        #: leaves when it becomes unavailable (``retire``)
        self.members: dict[int, dict[int, None]] = {}
        #: the same for the partitionable offers among them (no vector: placed again
        #: whenever carved); ``members`` keeps the static ones, which never gain a
        #: member after they are first placed
        self.pmembers: dict[int, dict[int, None]] = {}
        #: the same for offers with a resource vector, grouped by pair-static id
        self.groups: dict[int, dict[int, dict[int, None]]] = {}
        #: the same for held offers without a vector, grouped by pair shape, with
        #: the classes' plans of them (``held_groups``)
        self.held = HeldGroups(self.registry)
        #: each vector shape's resource amounts as ``slot_vectors.left`` reads them
        self.shape_left: dict[int, tuple[float, ...]] = {}
        #: shape -> how many times an offer was placed in it (kept entries are
        #: valid while it is unchanged, ``request_lists``)
        self.joins: dict[int, int] = {}
        #: shape -> its pair shape (a shape's offers all have the same one)
        self.pair_of_shape: dict[int, int] = {}
        #: (pair shape, holder, CurrentRank when held) -> shape; pair key -> pair shape
        #: (``shape_of``; ``carved_states`` numbers a carved state's as it does, or
        #: without its key, in neither table)
        self.shape_numbers: dict[tuple, int] = {}
        self.pair_shapes: dict[tuple, int] = {}
        #: how many shapes and pair shapes are numbered (the next number is one more)
        self.shape_count = 0
        self.pair_count = 0
        #: the offers with a resource vector placed, carved or retired since the
        #: carved lists last read it (``ordered_states``; None: nobody reads it)
        self.moved: list[Offer] | None = None
        #: statics left too small for a set of literal requests (``spent_statics``)
        self.spent = SpentStatics()
        #: id(offer) -> (ad walked, busy, (flags, walked names, reaches), offer): an
        #: offer's walk, written as ``offer_prep.OfferPrep`` prepares it, read when it
        #: is carved (``carved_states``) and by the static parts (``static_programs``)
        self.walked: dict[int, tuple] = {}
        #: the carved states' ranks and the carving transitions (``carved_states``)
        self._carved = CarvedStates(self, {PRE: exprs.pre, POST: exprs.post,
                                           PRANK: exprs.preemption_rank})
        #: ``carve(offer, taken)``: move an offer with a resource vector to the state
        #: a match leaves (``CarvedStates.carve`` itself: one call per match)
        self.carve = self._carved.carve

    def pair_names(self, ad: ClassAd, busy: bool) -> tuple[str, ...]:
        """``SlotWalks.pair_names``: what a pair evaluation can read in the ad."""
        return self._walks.pair_names(ad, busy)

    def is_full(self, offers: list[Offer]) -> bool:
        """Whether ``offers`` is the list of every prepared offer, in order (then
        remembered as ``full``, so the next call with it is one identity test)."""
        if offers is self.full:
            return True
        registry = self.registry
        if len(offers) != len(registry) or not all(
                a is b for a, b in zip(offers, registry, strict=True)):
            return False
        self.full = offers
        return True

    def stamp(self, offer: Offer) -> None:
        """Give an offer whose state changed a new ``Offer.version``: the cycle's
        carving clock, so every stamp is later than every list made before it (each
        stamp is kept in ``Offer.stamps``)."""
        self.clock += 1
        offer.version = self.clock
        offer.stamps.append(self.clock)

    def reshape(self, offer: Offer, pair_key: tuple, pair_shape: int = 0) -> None:
        """Number the offer's pair shape and shape (``shape_of``) and place it."""
        self.place(offer, self.shape_of(offer, pair_key, pair_shape))

    def shape_of(self, offer: Offer, pair_key: tuple, pair_shape: int = 0) -> int:
        """Number the offer's pair shape (``pair_shape`` when the caller knows it:
        the number ``pair_key`` was given; set as ``Offer.pair_shape``) and its shape,
        (pair shape, holder, CurrentRank when held), each numbered from 1 in order of
        first sight; returns the shape (not placed)."""
        if not pair_shape:
            pair_shape = self.pair_number(pair_key)
        offer.pair_shape = pair_shape
        shape = self.shape_number(pair_shape, offer)
        vector = offer.vector
        if vector is not None and shape not in self.shape_left:
            self.shape_left[shape] = lefts(vector.vals)
        return shape

    def pair_number(self, pair_key: tuple) -> int:
        """The number of ``pair_key``'s pair shape (from 1, in order of first sight)."""
        # (get, then set on a miss: ``setdefault`` would work out the new number
        # for every call)
        pair_shapes = self.pair_shapes
        pair_shape = pair_shapes.get(pair_key, 0)
        if not pair_shape:
            pair_shape = pair_shapes[pair_key] = self.pair_count = self.pair_count + 1
        return pair_shape

    def shape_number(self, pair_shape: int, offer: Offer) -> int:
        """The number of the shape (pair shape, the offer's holder, its CurrentRank when
        held), from 1 in order of first sight; a new one is recorded in
        ``pair_of_shape`` (its ``shape_left`` is the caller's)."""
        holder = offer.holder
        # (pair shapes number pair keys one to one: the small number keys the shape)
        key = (pair_shape, holder, None if holder is None else offer.current_rank)
        numbers = self.shape_numbers
        shape = numbers.get(key, 0)
        if not shape:
            shape = numbers[key] = self.shape_count = self.shape_count + 1
            self.pair_of_shape[shape] = pair_shape
        return shape

    def place(self, offer: Offer, shape: int) -> None:
        """Record ``offer`` under ``shape`` (moving it from its previous one)."""
        if offer.seq < 0:
            offer.seq = len(self.registry)
            self.registry.append(offer)
            self.full = None
        else:
            self.retire(offer)
        offer.shape = shape
        if offer.vector is not None:
            box = self.groups.setdefault(offer.vector.static, {})
            if self.moved is not None:
                self.moved.append(offer)
        elif offer.holder is not None:
            box = self.held.add(offer)
        else:
            box = self.pmembers if offer.partitionable else self.members
        offer.box = box
        self.joins[shape] = self.joins.get(shape, 0) + 1
        members = box.get(shape)
        if members is None:  # (not setdefault: no dict made per call)
            members = box[shape] = {}
        members[offer.seq] = None

    def retire(self, offer: Offer) -> None:
        """Forget an offer that has become unavailable (it never comes back), so shape
        walks no longer meet it. Call right after setting ``offer.available`` false."""
        box = offer.box
        members = box.get(offer.shape) if box is not None else None
        if members is not None and offer.seq in members:
            members.pop(offer.seq)
            if not members:
                del box[offer.shape]
            if offer.vector is None and offer.holder is not None:
                self.held.remove(offer)
            elif offer.vector is not None and self.moved is not None:
                self.moved.append(offer)

