"""Offers in shapes: preparing offers and keeping them in their shapes as the cycle
changes them (one ``OfferShapes`` per cycle, owned by ``matchmaker.Matchmaker``).

``prepare`` works out an offer's walks, its job-independent policy ranks and its pair
shape and shape (first states shared through ``first_states``; a partitionable
offer's resource vector and what its pair shape and ranks are keyed by:
``vector_keys``); ``carve`` moves an offer with a resource vector to the state a
match leaves (``carved_states``: its ranks and the transitions remembered);
``place`` and ``retire`` keep the members of each shape, which the request lists
walk (``request_lists``). Shapes are numbered from 1 in order of first sight, so
the numbering is a function of the order offers are prepared in.

Invariant: an available offer is a member of exactly one shape, in its box
(``Offer.box``: the static, partitionable, held or vector-static table the matchmaker
keeps), and ``Offer.shape`` names it; an unavailable offer is in none.

``OfferShapes`` owns these tables (``__init__`` documents them); the request lists
(``request_lists.RequestLists``) and the static and held lists read them and never
change them. The matchmaker owns one ``OfferShapes`` per cycle.
"""

from __future__ import annotations

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.matching.autocluster import same_walks
from condorlite.core.matching.candidates import POST, PRANK, PRE
from condorlite.core.matching.carved_states import CarvedStates
from condorlite.core.matching.evaluation_count import EvaluationCount
from condorlite.core.matching.first_ranks import FirstRanks
from condorlite.core.matching.first_states import FirstState, FirstStates
from condorlite.core.matching.held_groups import HeldGroups
from condorlite.core.matching.kind_records import KindRecord, KindRecords
from condorlite.core.matching.lazy_ranks import LazyRanks
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.policy_exprs import PolicyExprs
from condorlite.core.matching.shape_keys import ShapeKeys
from condorlite.core.matching.slot_vectors import lefts, typed
from condorlite.core.matching.slot_walks import SlotWalks
from condorlite.core.matching.spent_statics import SpentStatics
from condorlite.core.matching.vector_keys import VectorKeys

#: "not in the table" for tables whose values may be None
MISSING = object()


class OfferShapes:
    """A cycle's prepared offers, their shapes and the members of each (see the module
    doc). ``walks`` finds what a slot's evaluations can read (``slot_walks``),
    ``shape_keys`` numbers bindings (``shape_keys.ShapeKeys``); ``exprs`` are the
    policy expressions, ``resource_names`` the names carving rebinds (a partitionable
    offer gets a resource vector over them, ``carving``)."""

    def __init__(self, now: float | None, exprs: PolicyExprs, walks: SlotWalks,
                 resource_names: frozenset[str], counts: EvaluationCount) -> None:
        self.now = now
        self.exprs = exprs
        self.resource_names = resource_names
        self.counts = counts
        self._walks = walks
        #: PREEMPTION_REQUIREMENTS is false: a held slot is listed only when its Rank
        #: prefers the job (rank preemption), so most held slots' ranks are never read
        self._preemption_off = walks.preemption_off
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
        #: id(offer) -> (ad walked, busy, (flags, walked names, reaches), offer)
        self.walked: dict[int, tuple] = {}
        #: what first states of slots gave, shared by entry identity (``first_states``)
        self._first = FirstStates()
        #: walks shared by the kinds of the bindings, values aside (``kind_records``)
        self._kinds = KindRecords(self.shape_keys.canon.key)
        #: a first state's job-independent policy ranks (``first_ranks``)
        self.ranks = FirstRanks(self.shape_keys.canon.number, now, counts)
        #: a vector offer's pair-static id and its ranks' keys (``vector_keys``);
        #: ``_statics`` is its table of ids (pair-static key -> id)
        self._vectors = VectorKeys(self.shape_keys, self._kinds, resource_names)
        self._statics = self._vectors.statics
        #: busy -> the policy ranks a slot gets (``PolicyExprs.ranks``, asked once)
        self._ranks = (exprs.ranks(False), exprs.ranks(True))
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

    def prepare(self, offer: Offer) -> None:
        """(Re)compute an offer's shape and its job-independent policy ranks.

        The walks (which policy ranks read the job, which slot names matter) are
        redone only when a binding they could follow changed: a carved slot's new
        state reuses its previous state's walks. A slot's first state is taken from
        the record of an earlier slot holding the same entries (``first_states``:
        same walk, ranks, vector and pair shape key), or from a loose record (same
        walk and pair shape key, its own ranks), or from a record of ``kind_records``
        (same walk and rank plans: its bindings differ only in literal values),
        before it is worked out in full."""
        # (``Offer.ad`` is the state's ad itself without a vector: no property call)
        ad = offer.state_ad if offer.vector is None else offer.ad
        busy = offer.holder is not None
        prev = self.walked.get(id(offer))
        if prev is None:
            first = self._first.find(ad, busy, offer.slot.kind) \
                if self._first.tries[busy] >= 0 else None
            if first is not None:
                self._prepare_as(offer, ad, busy, first)
                return
            # (each lookup asked only while it has not given up for the busy flag)
            first = self._first.find_loose(ad, busy, offer.slot.kind) \
                if self._first.loose_counts[busy] is not None else None
            if first is not None:
                self._prepare_loose(offer, ad, busy, first)
                return
            asked = self._kinds.counts[busy] is not None
            record = self._kinds.find(ad, busy, offer.slot.kind) if asked else None
            if record is not None:
                self._prepare_kinds(offer, ad, busy, record)
                return
            if asked:
                # (a slot of a kind no record holds: its misses are no sign of
                # later ones; once kinds are looked up no more, every miss counts)
                self._first.new_kind(ad, busy)
        diff = None if prev is None else adeval.changed(ad, prev[0])
        if prev is not None and prev[1] == busy and same_walks(ad, prev[0], diff):
            flags, walked, reaches = prev[2]
            changed = {name for name, _ in diff}
            before = prev[3].independent
        else:
            flags, walked, reaches = self._walks.walk(ad, busy)
            changed, before = None, {}
        independent: dict[str, float | None] = {}
        for key, expr in self._ranks[busy]:
            if key not in flags:
                if changed is not None and key in before and not changed & reaches[key]:
                    # nothing this rank reaches changed since the last state
                    independent[key] = before[key]
                    continue
                independent[key] = self.ranks.value(key, expr, ad, reaches[key])
        self._shape_walked(offer, ad, busy, (flags, walked, reaches), independent,
                           prev is None)
        if prev is None:
            self._kinds.keep(ad, busy, offer.slot.kind, (flags, walked, reaches))

    def _shape_walked(self, offer: Offer, ad: ClassAd, busy: bool, walk: tuple,
                      independent: dict, first: bool, record: KindRecord | None = None
                      ) -> None:
        """``prepare``'s end, once the walk and the ranks are known: the vector
        (``VectorKeys.vector``), the pair shape key (from the ``kind_records``
        record the walk came from, if any), the shape; a slot's ``first`` state is
        kept for later slots (``first_states``)."""
        flags, walked, reaches = walk
        self.walked[id(offer)] = (ad, busy, walk, offer)
        # Pair results do not depend on who holds the slot or its CurrentRank (only on
        # the walked bindings, RemoteUserPrio and the like included when read): the
        # pair shape leaves them out; the shape (reasons, PREEMPTION_REQUIREMENTS,
        # grouping) adds them.
        extra = (offer.slot.kind, busy, flags)
        vector = self._vectors.vector(offer, walked, extra, reaches, independent, record)
        if vector is not None:
            pair_key = ("vector", vector.static, typed(vector.vals))
        elif record is not None:
            pair_key = self._kinds.pair_key(record, ad, extra)
        else:
            pair_key = self.shape_keys.slot_key(ad, walked, extra)
        offer.independent = independent
        self.reshape(offer, pair_key)
        if first and self._first.keeping[busy]:
            self._first.keep(ad, busy, offer.slot.kind, walk, independent, pair_key,
                             offer.pair_shape, vector)  # type: ignore[arg-type]

    def _prepare_kinds(self, offer: Offer, ad: ClassAd, busy: bool, record: KindRecord
                       ) -> None:
        """``prepare`` of a slot's first state from a record of ``kind_records``:
        the record's walk, the job-independent ranks from its plans (``first_ranks``:
        a read of the slot's literal values), the rest worked out as ``prepare``
        does (the pair shape key and the vector read the slot's own values). With
        preemption by priority off, a held slot without a vector takes its ranks as
        ``_prepare_loose`` does, each worked out when first read (``lazy_ranks``:
        read only if rank preemption lists the slot; with preemption on, most are
        read and one batched ``FirstRanks.values`` costs less; with a vector the
        ranks key its carved states at once)."""
        plans = self.ranks.plans(record.state, ad, self._ranks[busy])
        independent: dict[str, float | None]
        if busy and self._preemption_off and not offer.partitionable:
            planned = self.ranks.planned
            independent = LazyRanks(list(plans), lambda key: planned(plans[key], ad))
        else:
            independent = self.ranks.values(plans, ad)
        self._shape_walked(offer, ad, busy, record.state.walk, independent, True, record)

    def _prepare_as(self, offer: Offer, ad: ClassAd, busy: bool, first: FirstState) -> None:
        """``prepare`` of a slot's first state from the record of an earlier slot
        that holds the same entries for every name its walk visited
        (``first_states``): the same walk, ranks, vector and pair shape key."""
        if first.vector is not None:
            vector = offer.vector = first.new_vector()
            offer.ad_vals = vector.vals  # type: ignore[union-attr]  # (the ad holds them)
        self.walked[id(offer)] = (ad, busy, first.walk, offer)
        offer.independent = dict(first.independent)
        self.place(offer, self.shape_of(offer, first.pair_key, first.pair_shape))

    def _prepare_loose(self, offer: Offer, ad: ClassAd, busy: bool, first: FirstState
                       ) -> None:
        """``prepare`` of a slot's first state from a loose record (``first_states``):
        the same walk, pair shape key and vector; the job-independent ranks its own,
        each from the record's plan (``first_ranks``): a read of the slot's literal
        values."""
        independent: dict[str, float | None]
        ranks = self._ranks[busy]
        if busy:
            # A held slot's ranks read literals of its own and are read only if the
            # slot is ever listed (by preemption): worked out then (``lazy_ranks``).
            flags = first.walk[0]
            plans = self.ranks.plans(first, ad, ranks)
            independent = LazyRanks([key for key, _ in ranks if key not in flags],
                                    lambda key: self.ranks.planned(plans[key], ad))
        else:
            independent = self.ranks.loose_values(first, ad, ranks)
        vector = None
        if first.vector is not None:
            vector = offer.vector = first.new_vector()
            # (the record's vals, static and pair shape: they read only walked names)
            offer.ad_vals = vector.vals  # type: ignore[union-attr]
            self._vectors.rank_keys(ad, vector, first.walk[2], independent)  # type: ignore[arg-type]
        self.walked[id(offer)] = (ad, busy, first.walk, offer)
        offer.independent = independent
        self.place(offer, self.shape_of(offer, first.pair_key, first.pair_shape))
        if not busy and self._first.tries[busy] >= 0:
            # (an unheld slot's entries are mostly its machine type's: later slots
            # may hold them all; a held slot's own literals make that unlikely. The
            # loose record it came from is kept already: once ``find`` has stopped
            # looking, keeping would store nothing that is read)
            self._first.keep(ad, busy, offer.slot.kind, first.walk, independent,
                             first.pair_key, first.pair_shape, vector)

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

