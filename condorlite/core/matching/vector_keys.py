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

from condorlite.core.adeval import ClassAd
from condorlite.core.matching.kind_records import KindRecord, KindRecords
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.shape_keys import ShapeKeys
from condorlite.core.matching.slot_vectors import SlotVector, vector_of


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

    def vector(self, offer: Offer, walked: tuple[str, ...], extra: tuple,
               reaches: dict[str, set[str]], independent: dict,
               record: KindRecord | None = None) -> SlotVector | None:
        """Set up ``offer.vector`` for a partitionable offer whose resources are number
        literals: its pair-static id over the walked names ``walked`` and ``extra``
        (the slot's kind, held, the walk's flags), and its ranks' keys
        (``rank_keys``). None for any other offer. ``record``: the ``kind_records``
        record the walk came from, if any (module doc)."""
        vector = None
        if offer.partitionable:
            vector = vector_of(offer.ad, self.resource_names, offer.literals)
        offer.vector = vector
        if vector is None:
            return None
        offer.ad_vals = vector.vals  # the ad holds these values already
        free = set(vector.names)
        static = tuple(n for n in walked if n not in free)
        if record is None:
            key = self._shape_keys.slot_key(offer.ad, static, (*extra, vector.names))
        else:
            key = self._kinds.names_key(record, offer.ad, static, (*extra, vector.names))
        vector.static = self.statics.setdefault(key, len(self.statics) + 1)
        self.rank_keys(offer.ad, vector, reaches, independent, record)
        return vector

    def rank_keys(self, ad: ClassAd, vector: SlotVector, reaches: dict[str, set[str]],
                  independent: dict, record: KindRecord | None = None) -> None:
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
        with no residual made and no binding numbered for the constant. ``record``:
        as ``vector`` has it."""
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
                key = keys[rank] = (rank, self._shape_keys.slot_key(ad, free_reach, vector.names)
                                    if record is None else
                                    self._kinds.names_key(record, ad, free_reach, vector.names))
                signature.append(key)
        vector.rank_sig = self._rank_sigs.setdefault(tuple(signature), len(self._rank_sigs))

    def _free_reach(self, reach: set[str], free: tuple[str, ...]) -> tuple[str, ...]:
        """``reach`` less ``free``, sorted; remembered per (reach set, free names)."""
        found = self._free_reaches.get((id(reach), free))
        if found is None or found[0] is not reach:
            found = self._free_reaches[(id(reach), free)] = (
                reach, tuple(sorted(reach.difference(free))))
        return found[1]
