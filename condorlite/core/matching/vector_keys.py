"""The keys of a partitionable offer's resource vector: what its pair shape and its
carved states' ranks are shared by (one ``VectorKeys`` per cycle, owned by
``offer_shapes.OfferShapes``, which asks it while preparing an offer).

A partitionable offer whose resources are number literals gets a ``SlotVector``
(``slot_vectors.vector_of``; ``carving``): its state is the vector's values, and
what stays fixed across every state carving makes is keyed here:

* the **pair-static id** (``SlotVector.static``) numbers the walked bindings other
  than the resources, with the offer's hidden literals (``own_literals``: in the
  vector, so the pair shape still keys their values), the slot's kind, whether it
  is held and the walk's flags. Offers with equal ids and equal typed values pair
  alike (the pair shape key is ``("vector", static, typed(vals))``);
* each job-independent policy rank's **program key** (``SlotVector.rank_keys``): the
  bindings it reaches other than the vector's names, or, for a rank that reaches
  none of them, its value (``SlotVector.constants``);
* the **rank signature** (``SlotVector.rank_sig``): a small number for the ranks'
  keys, a constant rank counted by its name only.

What a record's slots key alike is worked out once per (record, vector names): a
``VectorPlan`` holds the static names, their key plan, each rank's free reach and
key plan, and the static id and rank keys themselves where no literal is read
(the slot's values read only where a key holds them: ``KindRecords.key``).
Slots of one record share its walk (``walked``, ``reaches``), its flags and its
kind, so that plan is the one each slot would make anew.

Invariant: two vectors with equal pair-static ids, equal rank signatures and equal
values have equal pair results and equal ranks in every state (``carved_states``
shares the carved states' ranks and transitions on that). Ids are numbered from 1,
signatures from 0, each in order of first sight: a function of the order offers are
prepared in. With the ``kind_records`` record a slot's walk came from, the keys
read only the slot's literals (``KindRecords.names_key``); otherwise the bindings
themselves (``shape_keys.ShapeKeys.slot_key``): either way the same key, equal keys
for equal bindings.
"""

from __future__ import annotations

from typing import NamedTuple

from condorlite.core.adeval import ClassAd
from condorlite.core.matching.kind_records import KeyPlan, KindRecord, KindRecords
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.shape_keys import ShapeKeys
from condorlite.core.matching.slot_vectors import SlotVector, VectorNumbers


class RankKeys(NamedTuple):
    """How one independent rank of a ``VectorPlan`` is keyed: its reach less the
    vector's names (``free_reach``), whether that is all of it (``constant``: the
    rank's value is the slot's constant when its ranks are a plain dict), the key
    plan of ``free_reach`` (None for a constant rank) and its program key when that
    plan reads no literal (``key``; else None: made per slot)."""

    free_reach: tuple[str, ...]
    constant: bool
    plan: KeyPlan | None
    key: tuple | None


class VectorPlan:
    """What the slots of one ``kind_records`` record with one vector's names key
    alike (module doc): ``static`` (the walked names less the vector's) and its key
    plan, ``static_id`` once known when that plan reads no literal (0 until then),
    ``ranks`` (rank -> ``RankKeys``). ``record``, ``names``, ``reaches`` and
    ``extra`` are what it was made for (held: the ids it is kept under stay theirs,
    and a slot asks with the same ones)."""

    __slots__ = ("extra", "names", "ranks", "reaches", "record", "static", "static_id",
                 "static_plan")

    def __init__(self, record: KindRecord, names: tuple[str, ...], reaches: dict,
                 extra: tuple, static: tuple[str, ...], static_plan: KeyPlan,
                 ranks: dict[str, RankKeys]) -> None:
        self.record = record
        self.names = names
        self.reaches = reaches
        self.extra = extra
        self.static = static
        self.static_plan = static_plan
        self.static_id = 0
        self.ranks = ranks


class VectorKeys:
    """The pair-static ids, rank program keys and rank signatures of a cycle's vector
    offers (module doc); ``resource_names`` are the names carving rebinds."""

    def __init__(self, shape_keys: ShapeKeys, kinds: KindRecords,
                 resource_names: frozenset[str]) -> None:
        self._shape_keys = shape_keys
        self._kinds = kinds
        self.resource_names = resource_names
        #: pair-static key -> id (``SlotVector.static``)
        self.statics: dict[tuple, int] = {}
        #: (id(reach set), vector names) -> (the set, its names less those, sorted)
        self._free_reaches: dict[tuple, tuple[set[str], tuple[str, ...]]] = {}
        #: rank program keys, constants' values left out -> a small number
        #: (``SlotVector.rank_sig``)
        self._rank_sigs: dict[tuple, int] = {}
        #: the vectors, their names and index shared per names
        self._numbers = VectorNumbers(resource_names)
        #: (id(record), id(vector names)) -> its ``VectorPlan``
        self._plans: dict[tuple[int, int], VectorPlan] = {}

    def vector(self, offer: Offer, walked: tuple[str, ...], extra: tuple,
               reaches: dict[str, set[str]], independent: dict,
               record: KindRecord | None = None, row: tuple | None = None
               ) -> SlotVector | None:
        """Set up ``offer.vector`` for a partitionable offer whose resources are number
        literals: its pair-static id over the walked names ``walked`` and ``extra``
        (the slot's kind, held, the walk's flags), and its ranks' keys
        (``rank_keys``). None for any other offer. ``record``: the ``kind_records``
        record the walk came from, if any (module doc); ``row``: the slot's values
        of its literal names, where its lookup gave them
        (``KindRecords.find_read``)."""
        vector = None
        if offer.partitionable:
            vector = self._numbers.of(offer.ad, offer.literals)
        offer.vector = vector
        if vector is None:
            return None
        offer.ad_vals = vector.vals  # the ad holds these values already
        if record is not None:
            self._planned(offer.ad, vector, walked, extra, reaches, independent, record,
                          row)
            return vector
        free = set(vector.names)
        static = tuple(n for n in walked if n not in free)
        key = self._shape_keys.slot_key(offer.ad, static, (*extra, vector.names))
        vector.static = self.statics.setdefault(key, len(self.statics) + 1)
        self.rank_keys(offer.ad, vector, reaches, independent)
        return vector

    def _planned(self, ad: ClassAd, vector: SlotVector, walked: tuple[str, ...],
                 extra: tuple, reaches: dict[str, set[str]], independent: dict,
                 record: KindRecord, row: tuple | None) -> None:
        """``vector``'s static id and rank keys for a slot that found ``record``, as
        ``vector`` and ``rank_keys`` make them, from the (record, names) plan
        (``VectorPlan``): only the literals its key plans name are read (from
        ``row`` where given: ``vector``)."""
        names = vector.names
        plan = self._plans.get((id(record), id(names)))
        if (plan is None or plan.record is not record or plan.names is not names
                or plan.reaches is not reaches or plan.extra != extra):
            plan = self._plan(ad, names, walked, extra, reaches, independent, record)
        static_id = plan.static_id
        if not static_id:
            key = self._kinds.key(plan.static_plan, ad, (*extra, names), row)
            static_id = self.statics.setdefault(key, len(self.statics) + 1)
            if not plan.static_plan.literals:
                plan.static_id = static_id
        vector.static = static_id
        keys = vector.rank_keys = {}
        constants = vector.constants = {}
        signature = []
        ranks = plan.ranks
        plain = type(independent) is dict
        for rank in independent:
            entry = ranks[rank]
            if entry.constant and plain:
                value = constants[rank] = independent[rank]
                keys[rank] = ("value", rank, repr(value))
                signature.append(("value", rank))
                continue
            key = entry.key
            if key is None:
                key = (rank, self._kinds.names_key(record, ad, entry.free_reach, names, row)
                       if entry.plan is None else
                       self._kinds.key(entry.plan, ad, names, row))
            keys[rank] = key
            signature.append(key)
        vector.rank_sig = self._rank_sigs.setdefault(tuple(signature), len(self._rank_sigs))

    def _plan(self, ad: ClassAd, names: tuple[str, ...], walked: tuple[str, ...],
              extra: tuple, reaches: dict[str, set[str]], independent: dict,
              record: KindRecord) -> VectorPlan:
        """The ``VectorPlan`` of (``record``, ``names``), made from this slot and
        kept."""
        free = set(names)
        static = tuple(n for n in walked if n not in free)
        kinds = self._kinds
        ranks = {}
        for rank in independent:
            reach = reaches[rank]
            free_reach = self._free_reach(reach, names)
            if len(free_reach) == len(reach):
                ranks[rank] = RankKeys(free_reach, True, None, None)
                continue
            key_plan = kinds.names_plan(record, ad, free_reach)
            key = None if key_plan.literals else (rank, kinds.key(key_plan, ad, names))
            ranks[rank] = RankKeys(free_reach, False, key_plan, key)
        plan = self._plans[(id(record), id(names))] = VectorPlan(
            record, names, reaches, extra, static, kinds.names_plan(record, ad, static), ranks)
        return plan

    def rank_keys(self, ad: ClassAd, vector: SlotVector, reaches: dict[str, set[str]],
                  independent: dict) -> None:
        """Each independent policy rank's program key, the bindings it reaches other
        than the vector's names, and the vector's ``rank_sig`` (a small number: it is
        part of keys hashed on every carve).

        A rank that reaches none of the vector's names (the default post-job rank
        reads ``KFlops`` and ``SlotID``) has, in every state carving makes (states
        differ only in those names), its value in this one, ``independent[rank]``:
        it goes to ``vector.constants``, its key is that value (``repr``: the type
        and the sign of a zero are part of it), and ``rank_sig`` numbers the other
        ranks' keys with only the names of the constant ones. So slots that differ
        in such a value alone (each its own KFlops) share one signature, and with it
        their carved states' ranks and transitions (``carved_states``),
        with no residual made and no binding numbered for the constant. (A slot
        that found a ``kind_records`` record: ``_planned``, the same keys.)"""
        keys = vector.rank_keys = {}
        constants = vector.constants = {}
        signature = []
        for rank in independent:
            reach = reaches[rank]
            free_reach = self._free_reach(reach, vector.names)
            if len(free_reach) == len(reach) and type(independent) is dict:
                value = constants[rank] = independent[rank]
                keys[rank] = ("value", rank, repr(value))
                signature.append(("value", rank))
            else:
                key = keys[rank] = (rank, self._shape_keys.slot_key(ad, free_reach,
                                                                     vector.names))
                signature.append(key)
        vector.rank_sig = self._rank_sigs.setdefault(tuple(signature), len(self._rank_sigs))

    def _free_reach(self, reach: set[str], free: tuple[str, ...]) -> tuple[str, ...]:
        """``reach`` less ``free``, sorted; remembered per (reach set, free names)."""
        found = self._free_reaches.get((id(reach), free))
        if found is None or found[0] is not reach:
            found = self._free_reaches[(id(reach), free)] = (
                reach, tuple(sorted(reach.difference(free))))
        return found[1]
