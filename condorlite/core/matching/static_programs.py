"""Static slots that differ only in their resource numbers, evaluated by programs.

Real startds report numbers that differ on every slot: a static slot's ``Disk`` is
its share of the machine's free disk, its ``Memory`` what the machine has left. Such
a slot is its own shape as soon as a job's ``Requirements`` reads the number
(``TARGET.Disk >= RequestDisk``), so every class is evaluated against it in full.
Partitionable slots have long been evaluated by residual programs over their
resource vector (``carving``); a static slot can be too: its *static part* is its
walked bindings other than the resources (``Cpus``, ``Memory``, ``Disk`` and every
requested ``R``), and a (class, static part) program answers every slot of the part
at its own numbers (a box: a few bound tests).

A program only pays when its part is shared: a slot whose static part no other
slot has is evaluated in full as before. A desktop whose ``START`` names its owner
shares its machine type's part: the owner is one of its own literals
(``own_literals``), in the vector after the resources. A held slot's holder
(``RemoteOwner``), which the default ``NEGOTIATOR_PRE_JOB_RANK`` reads wherever it
reads the job (a desktop's ``Rank`` names its owner), is left free the same way
(``HOLDER``): the held desktops of one machine type share a part whoever holds
them, not one part per holder (the pair shape still keys the holder).
``StaticNumbers`` decides once per cycle, over every prepared static offer, which
parts hold at least ``SHARED`` pair shapes, ``SHARED_LITERALS`` for a part of
desktops (a pair is evaluated once per shape, so a part whose slots share one shape
gains nothing); a desktop of a smaller part gets its ad back as it was before the
rewrite (``OwnLiterals.unhoist``), which a full evaluation reads faster. The pair result is the one
``match_table.MatchTable._evaluate_pair`` gives, without ``taken`` (a static slot is
never carved): the program's parts are specialised with the same ``partial``
contract (a residual equals the full evaluation for every vector), and a program
that cannot be made falls back to the full evaluation.

Work, not outcome: a vector is made per pair shape, which is most often per offer
(every slot its own ``Disk``), so ``slot_vectors.VectorNumbers`` makes
``vector_of``'s vector without its per-offer sort and index: the resource names looked
up in their sorted order, one index per names shared by their vectors (an index is
only read), and the part's key is made once per part, not per offer: its id is kept
by the identity of the static names' ``Canon`` numbers (``StaticNumbers._vector``).
The vector is a ``slot_vectors.StaticVector``: its names, numbers, index, literals and
part, no more (a static slot is never carved: none of ``SlotVector``'s carving and
weight tables is made, three dicts and seven fields an offer), built in one C call
(``slot_vectors.new_static_vector``); a static offer's ad is read as its ``state_ad``
(it has no vector of its own to bind first). The vectors are kept per pair shape
(its offers bind the walked names alike), but a pair shape's first offer misses that
memo whatever its key, so its key is made only when a second offer of it comes
(``_pair_key``): where every static slot is its own pair shape, none is made.
"""

from __future__ import annotations

from collections.abc import Callable

from condorlite.core import adeval
from condorlite.core.classad.ast import Literal
from condorlite.core.matching.offer_shapes import OfferShapes
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.slot_vectors import StaticVector, VectorNumbers, typed

#: the least number of pair shapes a static part must hold for its programs to be
#: made (below it, full evaluations, one per shape, cost less than the programs)
SHARED = 16
#: the same for a part whose vector holds a slot's own literals (desktops of one
#: machine type, ``own_literals``): their programs cost more to make (the folded
#: ``START`` and ``Rank`` read the owner) and most classes fail the owner test early
#: in a full evaluation, so such a part pays only from more shapes (measured: 16-30
#: shapes a part on the 1k static mix cost +4 % instructions, a few hundred at 10k
#: saved 5.5 %; session 18, the vectors worked out per pair shape: 32 against 64
#: saved 3.3 % of the 10k owner-start cycle and 0.8 % of the 10k static mix, the
#: same at 1k; 16 cost 1-2 % at 1k)
SHARED_LITERALS = 32
#: a held slot's holder, which the default ``NEGOTIATOR_PRE_JOB_RANK`` reads
#: (``RemoteOwner =?= UNDEFINED``) wherever that rank reads the job (a desktop's
#: ``Rank`` names its owner): bound to a string, it is left free like an own
#: literal, so the held desktops of one machine type share a part instead of one
#: part per holder
HOLDER = "remoteowner"


#: "not in the memo" (a memo's value may be None)
_MISSING = object()


class StaticNumbers:
    """Which static offers are evaluated by programs, and their vectors (module doc).
    ``shapes`` is the cycle's ``offer_shapes.OfferShapes`` (its registry, walks and
    shape keys are read, never changed); ``resource_names`` the names a vector
    holds; ``unhoist(offer)`` puts back the ad of a desktop whose part gets no
    programs (``own_literals.OwnLiterals.unhoist``)."""

    def __init__(self, shapes: OfferShapes, resource_names: frozenset[str],
                 unhoist: Callable[[Offer], None] = lambda offer: None) -> None:
        self._shapes = shapes
        self._resource_names = resource_names
        self._unhoist = unhoist
        #: offer seq -> its vector (``StaticVector.static``: the part's id), for the
        #: offers of shared parts only; None until worked out (first ``of``)
        self._vectors: dict[int, StaticVector] | None = None
        #: (id(walked names), vector names) -> (the walked names, those not in the
        #: vector), while the vectors are worked out (``_vector``)
        self._statics: dict[tuple, tuple[tuple, tuple]] = {}
        #: each static offer's numbers, while the vectors are worked out
        self._numbers: VectorNumbers | None = VectorNumbers(resource_names, StaticVector)

    def of(self, offer: Offer) -> StaticVector | None:
        """The vector of a static offer whose part is shared, else None (evaluate
        in full). Worked out for every static offer at the first call, when the
        cycle's offers are all prepared (static offers are never prepared again)."""
        vectors = self._vectors
        if vectors is None:
            vectors = self.by_seq()
        return vectors.get(offer.seq)

    def by_seq(self) -> dict[int, StaticVector]:
        """Every vector ``of`` gives, by offer ``seq`` (worked out at the first call,
        as ``of``): for a pass over many static offers, a look-up each rather than a
        call (``static_parts``). Read, never changed."""
        vectors = self._vectors
        if vectors is None:
            vectors = self._vectors = self._work_out()
            self._statics.clear()
            self._numbers = None
        return vectors

    def _work_out(self) -> dict[int, StaticVector]:
        shapes = self._shapes
        #: static key -> part id
        ids: dict[tuple, int] = {}
        #: (id(the static names' numbers), id(the static names' memo), held,
        #: id(flags)) -> (those three, the part id): ``_vector``'s part ids by the
        #: identity of what their key is made of
        parts: dict[tuple, tuple] = {}
        found: list[tuple[Offer, StaticVector]] = []
        #: part -> the pair shapes of its offers (a pair is evaluated once per shape:
        #: a program pays only where it stands for several)
        shapes_of: dict[int, set[int]] = {}
        #: id(a walk's walked names) -> (them, the walk's pair names, whether they
        #: hold the holder), for held offers
        pair_names: dict[int, tuple] = {}
        #: (pair shape, id(walked names), own literals, their typed values, holder) -> the
        #: vector of its offers, None for none (``_vector``): offers of one pair
        #: shape bind every walked name alike, the resources among them, so one
        #: vector and one part stand for them all (shared: a static offer's vector
        #: is only read); the literals' values and the holder are keyed too, which
        #: the pair shape already tells apart wherever a pair reads them
        by_pair: dict[tuple, StaticVector | None] = {}
        #: pair shape -> (its first offer, its walk, its vector), None once a second
        #: came: the first's ``by_pair`` key is made then (module doc)
        firsts: dict[int, tuple | None] = {}
        walked_of = shapes.walked.get
        for offer in shapes.registry:
            if offer.partitionable or offer.vector is not None or not offer.available:
                continue
            walk = walked_of(id(offer))
            if walk is None:
                continue
            first = firsts.get(offer.pair_shape, _MISSING)
            if first is _MISSING:
                vector = self._vector(offer, walk[2], pair_names, ids, parts)
                firsts[offer.pair_shape] = (offer, walk, vector)
            else:
                if first is not None:
                    by_pair[_pair_key(*first[:2])] = first[2]  # type: ignore[index]
                    firsts[offer.pair_shape] = None
                memo = _pair_key(offer, walk)
                vector = by_pair.get(memo, _MISSING)
                if vector is _MISSING:
                    vector = by_pair[memo] = self._vector(offer, walk[2], pair_names, ids,
                                                          parts)
            if vector is None:
                continue
            pair_shapes = shapes_of.get(vector.static)  # type: ignore[union-attr]
            if pair_shapes is None:
                pair_shapes = shapes_of[vector.static] = set()  # type: ignore[union-attr]
            pair_shapes.add(offer.pair_shape)
            found.append((offer, vector))  # type: ignore[arg-type]
        kept: dict[int, StaticVector] = {}
        for offer, vector in found:
            # (the threshold of desktops is for their own literals: a part whose only
            # literal is the holder is one of plain held slots)
            if len(shapes_of[vector.static]) >= (SHARED_LITERALS if offer.literals
                                                 else SHARED):
                kept[offer.seq] = vector
            elif offer.literals:
                self._unhoist(offer)  # (evaluated in full: the literal is cheaper)
        return kept

    def _vector(self, offer: Offer, walk: tuple, pair_names: dict[int, tuple],
                ids: dict[tuple, int], parts: dict[tuple, tuple]) -> StaticVector | None:
        """The offer's vector (``slot_vectors.vector_of``) with its part's id
        (``StaticVector.static``, numbered in ``ids`` by the part's key), or None when
        its resources are not all number literals. ``walk``: the offer's (flags,
        walked names, reaches); ``pair_names``: ``_work_out``'s memo of held
        offers' pair names; ``parts``: its memo of part ids by identities.

        The part's key (``ShapeKeys.key`` of the static names, with the held flag,
        the flags and the vector's names) is made only for a new (static names'
        numbers, static names, held, flags): ``Canon.entry_key`` gives one numbers
        tuple per (names, the ad's table entries), which the slots of a part share
        (10k static mix: 10,000 keys made, hashed and looked up for 15 parts), and
        equal identities make equal keys, so the id is the one ``ids`` gives the
        key (first sight numbers them, as before)."""
        shapes = self._shapes
        flags, walked, _ = walk
        literals = offer.literals
        # (a static offer has no vector of its own: its ``ad`` is its ``state_ad``,
        # read without the property's call)
        ad = offer.state_ad
        if offer.holder is not None:
            # (the program is no PREEMPTION_REQUIREMENTS: what only that reads,
            # its holder's RemoteUserPrio, does not split the parts). Slots with
            # one walk share it: a walk is kept per structure of the references
            # of what it visited (``SlotWalks.walk``), which decides the pair's
            # names too. Each offer's walk is a tuple of its own, made of the
            # shared walk's parts: its walked names (one tuple per walk made,
            # kept in the memo, so its id stays its own) stand for it.
            known = pair_names.get(id(walked))
            if known is None:
                names = shapes.pair_names(ad, True)
                known = pair_names[id(walked)] = (walked, names, HOLDER in names)
            walked = known[1]
            if known[2] and _is_string(ad, HOLDER):
                literals = (*literals, HOLDER)
        vector = self._numbers.of(ad, literals)  # type: ignore[union-attr]
        if vector is None:
            return None
        # (the walked names but the vector's, the same for every offer of one walk
        # and vector names: kept per both, with the walked names kept alive for
        # their id)
        statics = self._statics
        found = statics.get((id(walked), vector.names))
        if found is None:
            found = statics[id(walked), vector.names] = (
                walked, tuple(n for n in walked if n not in vector.index))
        static = found[1]
        busy = offer.holder is not None
        numbers = shapes.shape_keys.canon.entry_key(ad, static)
        memo = (id(numbers), id(found), busy, id(flags))
        part = parts.get(memo)
        if part is None:
            key = shapes.shape_keys.key(ad, static, ("static", busy, flags, vector.names))
            # (the three held, so that their ids stay theirs while the memo lives)
            part = parts[memo] = (numbers, found, flags, ids.setdefault(key, len(ids) + 1))
        vector.static = part[3]
        return vector


def _pair_key(offer: Offer, walk: tuple) -> tuple:
    """``StaticNumbers._work_out``'s memo key of an offer (``walk``: its
    ``OfferShapes.walked`` entry): its pair shape, walked names, holder and, where
    it hoisted literals, them and their typed values (most offers hoisted none: a
    shorter key, which no key of an offer with literals equals)."""
    literals = offer.literals
    if not literals:
        return (offer.pair_shape, id(walk[2][1]), offer.holder)
    return (offer.pair_shape, id(walk[2][1]), literals,
            typed([adeval.attr(offer.state_ad, name).value  # type: ignore[union-attr]
                   for name in literals]), offer.holder)


def _is_string(ad: object, name: str) -> bool:
    """Whether ``ad`` binds ``name`` to a string literal (a value the vector holds
    as an own literal, ``slot_vectors.vector_of``)."""
    expr = adeval.attr(ad, name)  # type: ignore[arg-type]
    return type(expr) is Literal and type(expr.value) is str
