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

A pair key is only numbered: nothing reads it after. Where every static slot binds
a walked name to a number of its own (a free ``Disk`` share: every static slot of
the mixes is its own pair shape), the keys of a run's slots of one ``kind_records``
record (the record's head, then the ``repr`` of each of 10-15 literals) are told
apart by one literal instead (``apart``): when its values differ between those
slots and from every other key of the head's, each slot is a new pair shape,
numbered as its turn comes (``shape_apart``) with no key made, hashed or kept. A
key numbered later that meets such a slot's value has that slot's key made first
(``_Apart.met``), so the numbers are those of every key numbered in turn
(``pair_keys`` gives every key, made where it was not).

Invariant: an available offer is a member of exactly one shape, in its box
(``Offer.box``: the static, partitionable, held or vector-static table the matchmaker
keeps), and ``Offer.shape`` names it; an unavailable offer is in none.

``OfferShapes`` owns these tables (``__init__`` documents them); the request lists
(``request_lists.RequestLists``) and the static and held lists read them and never
change them. The matchmaker owns one ``OfferShapes`` per cycle.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from itertools import repeat

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad import oldscan
from condorlite.core.matching.candidates import POST, PRANK, PRE
from condorlite.core.matching.carved_states import CarvedStates
from condorlite.core.matching.evaluation_count import EvaluationCount
from condorlite.core.matching.held_groups import HeldGroups
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.policy_exprs import PolicyExprs
from condorlite.core.matching.shape_keys import ShapeKeys, literal_reprs
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
        #: a static pair key's head (its first three parts) -> ``_Apart``: the keys of
        #: that head told apart by one literal (``apart``)
        self._apart: dict[tuple, _Apart] = {}
        #: a head no ``_Apart`` tells apart yet -> its keys (with a literal part)
        #: numbered so far, whose values an ``_Apart`` of it starts from
        self._heads: dict[tuple, list[tuple]] = {}
        #: heads no literal told apart when first asked (``apart``): their slots are
        #: keyed from then on, and their keys not kept in ``_heads`` (a head whose
        #: slots share values, the claimed-preemption row's, would otherwise be
        #: asked again for every run, each time against every key of the head)
        self._keyed_heads: set[tuple] = set()
        #: the literal the last ``apart`` told its slots apart by (tried first)
        self._apart_name = ""
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
        """The number of ``pair_key``'s pair shape (from 1, in order of first sight).
        A key of a head ``apart`` tells apart by a literal whose value an unkeyed
        slot holds too has that slot's key made first (``_Apart``)."""
        # (get, then set on a miss: ``setdefault`` would work out the new number
        # for every call)
        pair_shapes = self.pair_shapes
        pair_shape = pair_shapes.get(pair_key, 0)
        if not pair_shape:
            if len(pair_key) == 4:
                head = pair_key[:3]
                apart = self._apart.get(head)
                if apart is None:
                    if head not in self._keyed_heads:
                        self._heads.setdefault(head, []).append(pair_key)
                elif apart.met(pair_key[3][apart.column], pair_shapes):
                    pair_shape = pair_shapes.get(pair_key, 0)
            if not pair_shape:
                pair_shape = pair_shapes[pair_key] = self.pair_count = self.pair_count + 1
        return pair_shape

    def apart(self, head: tuple, literals: tuple[str, ...], ads: list[ClassAd],
              read: Callable[[str], list] | None = None) -> list[_Unkeyed] | None:
        """Static slots (ClassAd-lite ads) whose pair keys are ``head`` and the
        ``repr`` of their ``literals``' values (``shape_keys.ShapeKeys.slot_key``),
        told apart without their keys where one literal's values do it (``read``:
        a literal's values in the slots, in order, where the caller has them read;
        None: read from the ads): each slot's
        ``repr`` of that literal differs from the other slots' and from every
        other key of the head's (numbered or told apart before). Each is then a
        new pair shape, numbered as its turn comes (``shape_apart``), with no key
        made. None (make their keys) when no literal tried does it (the head's own,
        once it has one; else the last one that did, then the others in order,
        ``TRIES`` at most); a head none tells apart at its first ask is not asked
        again (``_keyed_heads``)."""
        if head in self._keyed_heads:
            return None
        found = self._apart.get(head)
        if found is not None:
            tried: tuple[str, ...] = (literals[found.column],)
        elif self._apart_name in literals:
            tried = (self._apart_name, *(n for n in literals if n != self._apart_name))
        else:
            tried = literals
        if read is None:
            read = partial(_column, [adeval.table(ad) for ad in ads])
        for name in tried[:TRIES]:
            values = list(map(repr, read(name)))
            if len(set(values)) < len(values):
                continue
            apart = found
            if apart is None:
                column = literals.index(name)
                apart = _Apart(head, literals, column, dict.fromkeys(
                    [key[3][column] for key in self._heads.get(head, ())], _KEYED))
            if not apart.seen.keys().isdisjoint(values):
                continue
            if found is None:
                self._apart[head] = apart
                self._heads.pop(head, None)
            self._apart_name = name
            unkeyed = list(map(_new_unkeyed, repeat(apart), ads, repeat(0)))
            apart.seen.update(zip(values, unkeyed, strict=True))
            return unkeyed
        if found is None:
            self._keyed_heads.add(head)
            self._heads.pop(head, None)
        return None

    def shape_apart(self, offer: Offer, unkeyed: _Unkeyed) -> int:
        """``shape_of`` a static offer ``apart`` told apart: a new pair shape, unless
        a key met its literal's value since (then its key is made and numbered)."""
        if unkeyed.number < 0:
            return self.shape_of(offer, unkeyed.key())
        pair_shape = unkeyed.number = self.pair_count = self.pair_count + 1
        offer.pair_shape = pair_shape
        return self.shape_number(pair_shape, offer)

    def pair_keys(self) -> dict[tuple, int]:
        """``pair_shapes`` with the keys of the slots ``apart`` numbered made too:
        every pair key numbered, by its number."""
        for apart in self._apart.values():
            for value, unkeyed in apart.seen.items():
                if unkeyed is not _KEYED and unkeyed.number > 0:  # type: ignore[union-attr]
                    apart.met(value, self.pair_shapes)
        return self.pair_shapes

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



def _column(tables: list[dict], name: str) -> list:
    """The values of the literals ``tables`` (ad tables) bind ``name`` to, in order."""
    return [table[name][1].value for table in tables]


#: literals ``OfferShapes.apart`` tries at most for one list of slots
TRIES = 3
#: a value of ``_Apart.seen`` whose key is in ``pair_shapes``
_KEYED = object()


class _Unkeyed:
    """A slot ``OfferShapes.apart`` told apart: its ad, its pair shape ``number``
    (0 before its turn; -1 once a key met its literal's value before it: its key
    is made at its turn)."""

    __slots__ = ("ad", "apart", "number")

    def __init__(self, apart: _Apart, ad: ClassAd) -> None:
        self.apart, self.ad, self.number = apart, ad, 0

    def key(self) -> tuple:
        """The slot's pair key (``ShapeKeys.slot_key``)."""
        return (*self.apart.head, literal_reprs(self.ad, self.apart.literals))


#: ``_Unkeyed(apart, ad)``, the same object, built in one C call (``oldscan.slotted``:
#: no ``__init__`` run, its number 0 given) where the compiled module is built and on:
#: one is made for every static slot told apart
_new_unkeyed: Callable[[_Apart, ClassAd, int], _Unkeyed] = (
    partial(oldscan.slotted, tuple(_Unkeyed.__dict__[name] for name in (
        "apart", "ad", "number")), _Unkeyed)
    if oldscan.enabled() else lambda apart, ad, number: _Unkeyed(apart, ad))


class _Apart:
    """The pair keys of one head (``OfferShapes.apart``): ``literals`` the names
    of their literal part, ``column`` the one that tells them apart, ``seen`` each
    value of it met -> ``_KEYED`` when its key is in ``pair_shapes``, else the
    ``_Unkeyed`` slot holding it.

    Invariant: a key of the head is in ``pair_shapes`` or is an ``_Unkeyed``'s of
    ``seen``, and an ``_Unkeyed``'s value is no other key's: a key whose value
    ``seen`` lacks is new."""

    __slots__ = ("column", "head", "literals", "seen")

    def __init__(self, head: tuple, literals: tuple[str, ...], column: int,
                 seen: dict[str, object]) -> None:
        self.head, self.literals, self.column, self.seen = head, literals, column, seen

    def met(self, value: str, pair_shapes: dict[tuple, int]) -> bool:
        """A key holding ``value`` is about to be numbered: the unkeyed slot that
        holds it, if any, has its key made, in ``pair_shapes`` when numbered, else
        when its turn comes (``_Unkeyed.number`` -1). Whether it was one."""
        unkeyed = self.seen.get(value)
        self.seen[value] = _KEYED
        if unkeyed is None or unkeyed is _KEYED:
            return False
        if unkeyed.number > 0:  # type: ignore[union-attr]
            pair_shapes[unkeyed.key()] = unkeyed.number  # type: ignore[union-attr]
        else:
            unkeyed.number = -1  # type: ignore[union-attr]
        return True
