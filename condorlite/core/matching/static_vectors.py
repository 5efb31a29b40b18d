"""A static offer's vector and static-part key, made while its first ``prepare`` reads
its ad (one ``StaticVectors`` per cycle, owned by ``offer_shapes.OfferShapes``).

``static_programs.StaticNumbers`` decides which static parts are shared and evaluates
their slots by programs at each slot's vector (its module doc): a slot's vector is
its resource numbers (``Cpus``, ``Memory``, ``Disk``, ... bound to number literals,
in sorted order) then its own literals (``Offer.literals``) and, for a held slot
whose pair reads it, its holder (``HOLDER``); its *static key* is the key of its
walked bindings less the vector's (``ShapeKeys.key``, the pair names for a held slot).
Both read only the slot's ad, its walk and its pair shape, none of which changes
after the slot's first ``prepare`` (a static offer is prepared once).

Work, not outcome: they used to be read in a pass of their own over every static
offer when the first pair asked for them; with 10,000 slots of ~160 bindings each
that pass met every ad's table cold (prgs28: the first touch was most of its cost).
``note`` makes them as ``OfferShapes.place`` first places the offer, right after
``prepare`` read the same bindings, and numbers the parts (from 1, in order of first
sight: registry order) and counts each part's pair shapes as that pass did.

A vector is made per (pair shape, walk, holder, own literals' values): offers of
one pair shape bind every walked name alike, so the first offer's vector and key
stand for them all (shared: a static offer's vector is only read). That pass read
the offers still available when the first pair asked; every static offer is then
(a static offer leaves only by a match, and its pair asks first), and when one is
not, ``recount`` notes the offers still available again, from their ads: the same
parts, counts and vectors as that pass made.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Literal
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.shape_keys import ShapeKeys
from condorlite.core.matching.slot_vectors import SlotVector, typed, vector_of

#: a held slot's holder, which the default ``NEGOTIATOR_PRE_JOB_RANK`` reads
#: (``RemoteOwner =?= UNDEFINED``) wherever that rank reads the job (a desktop's
#: ``Rank`` names its owner): bound to a string, it is left free like an own
#: literal, so the held desktops of one machine type share a part instead of one
#: part per holder
HOLDER = "remoteowner"

#: "not in the memo" (a memo's value may be None)
_MISSING = object()


#: an offer's ``available``
_AVAILABLE = attrgetter("available")


class StaticVectors:
    """Static offers' vectors and static keys, made once per offer at its first
    placing (module doc). ``shape_keys`` is the cycle's (``ShapeKeys.key`` makes the
    static keys); ``pair_names(ad, busy)`` what a pair evaluation can read
    (``SlotWalks.pair_names``); ``resource_names`` the names a vector holds."""

    def __init__(self, shape_keys: ShapeKeys,
                 pair_names: Callable[[ClassAd, bool], tuple[str, ...]],
                 resource_names: frozenset[str]) -> None:
        self._shape_keys = shape_keys
        self._pair_names = pair_names
        self._resource_names = resource_names
        #: every static offer noted, in registry order
        self.noted: list[Offer] = []
        #: (offer, its vector) for those with one, in registry order
        self.found: list[tuple[Offer, SlotVector]] = []
        #: part (``SlotVector.static``) -> the pair shapes of its offers (a pair is
        #: evaluated once per shape: a program pays only where it stands for several)
        self.shapes_of: dict[int, set[int]] = {}
        #: static key -> part id
        self._ids: dict[tuple, int] = {}
        #: (pair shape, id(walked names), holder[, own literals, their typed values])
        #: -> the vector of its offers, None for none (module doc)
        self._by_pair: dict[tuple, SlotVector | None] = {}
        #: id(a walk's walked names) -> (them, the walk's pair names, whether they
        #: hold the holder), for held offers (slots with one walk share it: a walk is
        #: kept per structure of the references of what it visited, which decides
        #: the pair's names too)
        self._held_names: dict[int, tuple] = {}
        #: (id(walked names), vector names) -> (the walked names, those not in the
        #: vector)
        self._statics: dict[tuple, tuple[tuple, tuple]] = {}
        #: the resource names in their vector order (``vector_of`` sorts the bound ones)
        self._sorted = tuple(sorted(resource_names))
        #: vector names -> (them, their index), shared by the vectors of those names
        #: (an index is only read)
        self._indexes: dict[tuple, tuple[tuple[str, ...], dict[str, int]]] = {}

    def note(self, offer: Offer, walk: tuple) -> None:
        """Make (or share) the vector of a static offer just placed for the first
        time, number its part and count its pair shape; ``walk`` is its (flags,
        walked names, reaches)."""
        self.noted.append(offer)
        literals = offer.literals
        # (most offers hoisted no literal: a shorter key, which no key of an offer
        # with literals equals; the literals' values and the holder are keyed too,
        # which the pair shape already tells apart wherever a pair reads them)
        memo = (offer.pair_shape, id(walk[1]), offer.holder) if not literals else (
            offer.pair_shape, id(walk[1]), literals,
            typed([adeval.attr(offer.state_ad, name).value  # type: ignore[union-attr]
                   for name in literals]), offer.holder)
        vector = self._by_pair.get(memo, _MISSING)
        if vector is _MISSING:
            vector = self._by_pair[memo] = self._vector(offer, walk)
        if vector is None:
            return
        pair_shapes = self.shapes_of.get(vector.static)  # type: ignore[union-attr]
        if pair_shapes is None:
            pair_shapes = self.shapes_of[vector.static] = set()  # type: ignore[union-attr]
        pair_shapes.add(offer.pair_shape)
        self.found.append((offer, vector))  # type: ignore[arg-type]

    def all_available(self) -> bool:
        """Whether every offer noted is still available (``recount``)."""
        return all(map(_AVAILABLE, self.noted))

    def recount(self, walked: dict[int, tuple]) -> None:
        """Note again, from their ads, the offers noted that are still available
        (``walked``: ``OfferShapes.walked``), as if first placed now."""
        noted = self.noted
        self.noted = []
        self.found = []
        self.shapes_of = {}
        self._ids = {}
        self._by_pair.clear()
        for offer in noted:
            walk = walked.get(id(offer))
            if offer.available and walk is not None:
                self.note(offer, walk[2])
        self.noted = noted

    def done(self) -> None:
        """Forget the memos of vectors: the cycle's static offers are all placed
        (``found``, ``shapes_of`` and the parts' ids are kept: an offer noted later
        still gets a part of its own)."""
        self._by_pair.clear()
        self._held_names.clear()
        self._statics.clear()
        self._indexes.clear()

    def _vector(self, offer: Offer, walk: tuple) -> SlotVector | None:
        """The offer's vector (``slot_vectors.vector_of``) with its part's id
        (``SlotVector.static``, numbered by the key of its walked names less the
        vector's: ``ShapeKeys.key``), read from its ad; None when its resources are
        not all number literals. ``walk``: the offer's (flags, walked names,
        reaches)."""
        flags, walked, _ = walk
        literals = offer.literals
        ad = offer.state_ad  # (no vector: the state's ad is the offer's)
        if offer.holder is not None:
            # (the program is no PREEMPTION_REQUIREMENTS: what only that reads, its
            # holder's RemoteUserPrio, does not split the parts). Each offer's walk
            # is a tuple of its own, made of the shared walk's parts: its walked
            # names (kept in the memo, so their id stays theirs) stand for it.
            known = self._held_names.get(id(walked))
            if known is None:
                names = self._pair_names(ad, True)
                known = self._held_names[id(walked)] = (walked, names, HOLDER in names)
            walked = known[1]
            if known[2] and _is_string(ad, HOLDER):
                literals = (*literals, HOLDER)
        vector = self._numbers(ad, literals)
        if vector is None:
            return None
        # (the walked names but the vector's, the same for every offer of one walk
        # and vector names: kept per both, with the walked names kept alive for
        # their id)
        found = self._statics.get((id(walked), vector.names))
        if found is None:
            found = self._statics[id(walked), vector.names] = (
                walked, tuple(n for n in walked if n not in vector.index))
        key = self._shape_keys.key(ad, found[1], ("static", offer.holder is not None,
                                                  flags, vector.names))
        ids = self._ids
        vector.static = ids.setdefault(key, len(ids) + 1)
        return vector

    def _numbers(self, ad: ClassAd, literals: tuple[str, ...]) -> SlotVector | None:
        """``vector_of(ad, resource names, literals)``, one vector per static offer
        (every slot differs in its numbers): the names looked up in their sorted
        order (so the bound ones come sorted), the index shared per names."""
        table = adeval.table(ad)
        if table is None:
            return vector_of(ad, self._resource_names, literals)
        names: list[str] = []
        vals: list[object] = []
        for name in self._sorted:
            entry = table.get(name)
            if entry is not None:
                expr = entry[1]
                if type(expr) is not Literal or type(expr.value) not in (int, float):
                    return None
                names.append(name)
                vals.append(expr.value)
        for name in literals:
            vals.append(adeval.attr(ad, name).value)  # type: ignore[union-attr]
        names.extend(literals)
        key = tuple(names)
        known = self._indexes.get(key)
        if known is None:
            known = self._indexes[key] = (key, {n: i for i, n in enumerate(key)})
        return SlotVector(known[0], tuple(vals), known[1], literals=len(literals))


def _is_string(ad: object, name: str) -> bool:
    """Whether ``ad`` binds ``name`` to a string literal (a value the vector holds
    as an own literal, ``slot_vectors.vector_of``)."""
    expr = adeval.attr(ad, name)  # type: ignore[arg-type]
    return type(expr) is Literal and type(expr.value) is str
