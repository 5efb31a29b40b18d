"""Preparing offers: an offer's walks, its job-independent policy ranks and its pair
shape key, worked out for its first state and for each carved state a match leaves
(one ``OfferPrep`` per cycle, owned by ``matchmaker.Matchmaker``), then placed in its
shape by ``offer_shapes.OfferShapes``.

``prepare`` takes a slot's first state, in order, from the first of these that
serves: the record of an earlier slot holding the same entries (``first_states``:
same walk, ranks, vector and pair shape key), a loose record (same walk and pair
shape key, its own ranks), a record of ``kind_records`` (same walk and rank plans:
its bindings differ only in literal values), else it is worked out in full
(``_work_out``: the walk from ``slot_walks``, each rank from ``first_ranks``, the
vector and its keys from ``vector_keys``, the pair key from ``shape_keys``).
``prepare_all`` prepares the cycle's offers as one list: the values a slot's
``kind_records`` lookup read of its literals (``KindRecords.find_read``) are what
the record's slots of a run read for their ranks and keys, a column at a time,
while everything that numbers, evaluates or counts stays in the offers' order (the
same outcome as ``prepare`` of one offer at a time; a rank whose memo is given up,
a state that never comes back, is run over its column at once); its static slots'
pair shapes are told apart by one literal where that does it, their keys left
unmade (``OfferShapes.apart``).

Invariant: after ``prepare`` an offer has its ``independent`` ranks, its
``pair_shape``, its shape (``OfferShapes.place``) and its walk in
``OfferShapes.walked``; what this module keeps (first states, kind records, rank
plans, vector keys) only shares work between offers and never changes an outcome.
"""

from __future__ import annotations

from operator import itemgetter

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.matching.autocluster import same_walks
from condorlite.core.matching.evaluation_count import EvaluationCount
from condorlite.core.matching.first_ranks import FirstRanks
from condorlite.core.matching.first_states import FirstState, FirstStates
from condorlite.core.matching.kind_records import KindRecord, KindRecords
from condorlite.core.matching.lazy_ranks import LazyRanks
from condorlite.core.matching.offer_shapes import OfferShapes
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.policy_exprs import PolicyExprs
from condorlite.core.matching.slot_vectors import typed
from condorlite.core.matching.slot_walks import SlotWalks
from condorlite.core.matching.vector_keys import VectorKeys


class OfferPrep:
    """Prepares the cycle's offers into ``shapes`` (see the module doc). ``walks``
    finds what a slot's evaluations can read (``slot_walks``); ``exprs`` are the
    policy expressions, ``resource_names`` the names carving rebinds (a
    partitionable offer gets a resource vector over them, ``carving``)."""

    def __init__(self, shapes: OfferShapes, now: float | None, exprs: PolicyExprs,
                 walks: SlotWalks, resource_names: frozenset[str],
                 counts: EvaluationCount) -> None:
        self._shapes = shapes
        self._walks = walks
        #: ``OfferShapes.walked``: each prepared offer's walk (written here)
        self._walked = shapes.walked
        #: PREEMPTION_REQUIREMENTS is false: a held slot is listed only when its Rank
        #: prefers the job (rank preemption), so most held slots' ranks are never read
        self._preemption_off = walks.preemption_off
        canon = shapes.shape_keys.canon
        #: what first states of slots gave, shared by entry identity (``first_states``)
        self._first = FirstStates()
        #: walks shared by the kinds of the bindings, values aside (``kind_records``)
        self._kinds = KindRecords(canon.key)
        #: a first state's job-independent policy ranks (``first_ranks``)
        self.ranks = FirstRanks(canon.number, now, counts)
        #: a vector offer's pair-static id and its ranks' keys (``vector_keys``)
        self._vectors = VectorKeys(shapes.shape_keys, self._kinds, resource_names)
        #: busy -> the policy ranks a slot gets (``PolicyExprs.ranks``, asked once)
        self._ranks = (exprs.ranks(False), exprs.ranks(True))

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
        prev = self._walked.get(id(offer))
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
            found = self._kinds.find_read(ad, busy, offer.slot.kind) if asked else None
            if found is not None:
                self._prepare_kinds(offer, ad, busy, *found)
                return
            if asked:
                # (a slot of a kind no record holds: its misses are no sign of
                # later ones; once kinds are looked up no more, every miss counts)
                self._first.new_kind(ad, busy)
        self._work_out(offer, ad, busy, prev)

    def prepare_all(self, offers: list[Offer]) -> None:
        """``prepare`` of each of ``offers`` in order (the cycle's set-up), the same
        outcome. Once both ``first_states`` lookups have given up for a busy flag
        (``FirstStates.keeping``: no slot's outcome is kept for a later one), a
        slot that finds a ``kind_records`` record joins a *run* of such slots,
        worked out together when a slot goes another way and at the end
        (``_prepare_run``); lookups are asked in the offers' order as ``prepare``
        asks them."""
        run: list[tuple[Offer, ClassAd, bool, KindRecord, tuple]] = []
        first, kinds = self._first, self._kinds
        for offer in offers:
            busy = offer.holder is not None
            if offer.seq >= 0 or first.keeping[busy] or kinds.counts[busy] is None:
                if run:
                    self._prepare_run(run)
                self.prepare(offer)
                continue
            # (not prepared: no vector, so the ad is the state's ad itself)
            ad = offer.state_ad
            found = kinds.find_read(ad, busy, offer.slot.kind)
            if found is not None:
                record, values = found
                run.append((offer, ad, busy, record, values))
                continue
            if run:
                self._prepare_run(run)
            first.new_kind(ad, busy)
            self._work_out(offer, ad, busy, None)
        if run:
            self._prepare_run(run)

    def _prepare_run(self, run: list[tuple[Offer, ClassAd, bool, KindRecord, tuple]]
                     ) -> None:
        """``_prepare_kinds`` of each (offer, ad, busy, record, values) of ``run``
        (values: the slot's values of ``record.literal``, as the record's lookup
        read them, ``KindRecords.find_read``), in order, then ``run`` emptied.
        What a slot's literal values give, its job-independent ranks and a static
        slot's pair shape key, is read for the run's slots of one record together,
        a column at a time from those values (``FirstRanks.columns``,
        ``KindRecords.pair_keys``), when the first of them is reached; static
        slots that one literal tells apart get no key (``_static_keys``). The
        reads are pure; every step that numbers, evaluates or counts (the plans
        made from a record's first slot, each slot's ranks, vector and shape) is
        taken slot by slot in the run's order, as ``prepare`` takes it, so the
        numbering and the counts are ``prepare``'s; but a rank whose memo is given
        up by the record's first slot, whose runs are pure and counted alike in
        any order, is run over the column there (``FirstRanks.columns``)."""
        # the run's slots of each record and their values, and each one's place
        ads: dict[int, list[ClassAd]] = {}
        rows: dict[int, list[tuple]] = {}
        places = []
        for _, ad, _, record, values in run:
            mine = ads.get(id(record))
            if mine is None:
                mine = ads[id(record)] = []
                rows[id(record)] = []
            places.append(len(mine))
            mine.append(ad)
            rows[id(record)].append(values)
        # id(record) -> (its ranks' plans, what ``FirstRanks.columns`` made of its
        # slots or None where the ranks are worked out when read, its static slots'
        # pair keys)
        read: dict[int, tuple] = {}
        walked, values = self._walked, self.ranks.values
        shapes = self._shapes
        place, shape_of, shape_apart = shapes.place, shapes.shape_of, shapes.shape_apart
        for (offer, ad, busy, record, row), at in zip(run, places, strict=True):
            found = read.get(id(record))
            if found is None:
                # (made as ``_prepare_kinds`` makes them, at the record's first slot)
                plans = self.ranks.plans(record.state, ad, self._ranks[busy])
                mine, read_rows = ads[id(record)], rows[id(record)]
                lazy = busy and self._preemption_off and not offer.partitionable
                found = read[id(record)] = (
                    plans, None if lazy else self.ranks.columns(plans, read_rows,
                                                                record.literal),
                    None if offer.partitionable else self._static_keys(
                        record, mine, read_rows,
                        (offer.slot.kind, busy, record.state.walk[0])))
            plans, columns, keys = found
            independent: dict[str, float | None] = (
                self._lazy_ranks(plans, ad) if columns is None
                else values(plans, ad, columns, at))
            if keys is None:
                # (a partitionable slot: its vector and keys as ``prepare`` makes them)
                self._shape_walked(offer, ad, busy, record.state.walk, independent, True,
                                   record, row)
                continue
            walked[id(offer)] = (ad, busy, record.state.walk, offer)
            offer.independent = independent
            key = keys[at]
            place(offer, shape_of(offer, key) if type(key) is tuple else shape_apart(offer, key))
        run.clear()

    def _static_keys(self, record: KindRecord, ads: list[ClassAd], rows: list[tuple],
                     extra: tuple) -> list:
        """The pair shapes of a run's static slots of ``record`` (``ads``, in order;
        ``rows`` their values of ``record.literal``): told apart by one literal
        where it tells them apart (``OfferShapes.apart``: no key made), else their
        keys (``KindRecords.pair_keys``)."""
        plan = self._kinds.key_plan(record, ads[0])
        if plan.literals:
            literal = record.literal
            unkeyed = self._shapes.apart(
                (extra, plan.bound, plan.numbers), plan.literals, ads,
                lambda name: list(map(itemgetter(literal.index(name)), rows)))
            if unkeyed is not None:
                return unkeyed
        return self._kinds.pair_keys(record, ads, rows, extra)

    def _work_out(self, offer: Offer, ad: ClassAd, busy: bool, prev: tuple | None) -> None:
        """``prepare`` of a slot no record served (``prev``: ``walked``'s entry of
        its previous state, None for its first): the walk, unless a carved state's
        changes leave it as it was, the job-independent ranks, the shape."""
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
                      independent: dict, first: bool, record: KindRecord | None = None,
                      row: tuple | None = None) -> None:
        """``prepare``'s end, once the walk and the ranks are known: the vector
        (``VectorKeys.vector``), the pair shape key (from the ``kind_records``
        record the walk came from, if any), the shape; a slot's ``first`` state is
        kept for later slots (``first_states``). ``row``: the slot's values of the
        record's literal names, where its lookup gave them (``KindRecords.find_read``)."""
        flags, walked, reaches = walk
        self._walked[id(offer)] = (ad, busy, walk, offer)
        # Pair results do not depend on who holds the slot or its CurrentRank (only on
        # the walked bindings, RemoteUserPrio and the like included when read): the
        # pair shape leaves them out; the shape (reasons, PREEMPTION_REQUIREMENTS,
        # grouping) adds them.
        extra = (offer.slot.kind, busy, flags)
        vector = self._vectors.vector(offer, walked, extra, reaches, independent, record,
                                      row)
        if vector is not None:
            pair_key = ("vector", vector.static, typed(vector.vals))
        elif record is not None:
            pair_key = self._kinds.pair_key(record, ad, extra, row)
        else:
            pair_key = self._shapes.shape_keys.slot_key(ad, walked, extra)
        offer.independent = independent
        self._shapes.reshape(offer, pair_key)
        if first and self._first.keeping[busy]:
            self._first.keep(ad, busy, offer.slot.kind, walk, independent, pair_key,
                             offer.pair_shape, vector)  # type: ignore[arg-type]

    def _prepare_kinds(self, offer: Offer, ad: ClassAd, busy: bool, record: KindRecord,
                       row: tuple) -> None:
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
            independent = self._lazy_ranks(plans, ad)
        else:
            independent = self.ranks.values(plans, ad)
        self._shape_walked(offer, ad, busy, record.state.walk, independent, True, record,
                           row)

    def _lazy_ranks(self, plans: dict, ad: ClassAd) -> LazyRanks:
        """A slot's job-independent ranks from its record's plans, each worked out
        when first read (``lazy_ranks``, ``FirstRanks.planned``)."""
        planned = self.ranks.planned
        return LazyRanks(list(plans), lambda key: planned(plans[key], ad))

    def _prepare_as(self, offer: Offer, ad: ClassAd, busy: bool, first: FirstState) -> None:
        """``prepare`` of a slot's first state from the record of an earlier slot
        that holds the same entries for every name its walk visited
        (``first_states``): the same walk, ranks, vector and pair shape key."""
        if first.vector is not None:
            vector = offer.vector = first.new_vector()
            offer.ad_vals = vector.vals  # type: ignore[union-attr]  # (the ad holds them)
        self._walked[id(offer)] = (ad, busy, first.walk, offer)
        offer.independent = dict(first.independent)
        self._shapes.place(offer, self._shapes.shape_of(offer, first.pair_key, first.pair_shape))

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
        self._walked[id(offer)] = (ad, busy, first.walk, offer)
        offer.independent = independent
        self._shapes.place(offer, self._shapes.shape_of(offer, first.pair_key, first.pair_shape))
        if not busy and self._first.tries[busy] >= 0:
            # (an unheld slot's entries are mostly its machine type's: later slots
            # may hold them all; a held slot's own literals make that unlikely. The
            # loose record it came from is kept already: once ``find`` has stopped
            # looking, keeping would store nothing that is read)
            self._first.keep(ad, busy, offer.slot.kind, first.walk, independent,
                             first.pair_key, first.pair_shape, vector)
