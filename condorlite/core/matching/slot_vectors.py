"""Partitionable slots as resource vectors: a state is the first state's ad with other
numbers for its resource names.

During a cycle a partitionable offer's ad changes only by carving, and carving only
rebinds the slot's *resource names* (``Cpus``, ``Memory``, ``Disk`` and every other
``R`` some job asks for with ``Request<R>``) to new number literals. Every state of
the slot is therefore the first state's ad with another vector of those numbers
(``SlotVector.vals``), and whatever a job class and the slot evaluate to is a
function of that vector (``carving.PairProgram`` runs it).

A program is shared between states and offers only under a key made of every binding
the evaluation can read except the resource names (the matchmaker's walked names,
``Matchmaker.prepare``), plus the names themselves. The vector may also hold a slot's
own literals that only a comparison with the job reads (``own_literals``: hidden
names that carving never rebinds), left free the same way, so slots that differ only
in them share a static; values are keyed with their types (``typed``), since 1 and
1.0 are one Python key but two ClassAd values.

A static slot of a shared static part (``static_programs``) has a vector of the same
names and numbers, never carved: a ``StaticVector``, which holds only what its
readers and its part's programs read.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from math import copysign

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad import oldscan
from condorlite.core.classad.ast import Expr, Literal
from condorlite.core.classad.partial import specialize
from condorlite.core.classad.residuals import Residual

#: A ``vals`` key that keeps ClassAd types apart (``typed``).
TypedVals = tuple


def typed(vals: Sequence[object]) -> TypedVals:
    """``vals`` as a dict key: each value with its kind, 0 for an integer, 1 for a
    real and -1 for a negative zero real (``1`` and ``1.0``, ``0.0`` and ``-0.0`` are
    equal in Python, not in ClassAds: ``string`` and ``=?=`` tell them apart)."""
    # (one comprehension, not a call per value: a carve makes one key per new state;
    # none when no value is a real, most states: every kind is 0, made at C speed)
    if float not in map(type, vals):
        return (tuple(vals), (0,) * len(vals))
    return (tuple(vals), tuple([0 if type(v) is not float
                                else 1 if v or copysign(1.0, v) > 0  # type: ignore[arg-type]
                                else -1 for v in vals]))


def number(value: float) -> int | float:
    """How carving binds an amount: an integral amount as an integer literal."""
    return int(value) if float(value).is_integer() else value


@dataclass
class SlotVector:
    """A partitionable offer's resource names (lower-case, sorted) and their values in
    the offer's current state."""

    names: tuple[str, ...]
    vals: tuple
    #: lower-case name -> position in ``names``
    index: dict[str, int]
    #: the pair-static id (``Matchmaker``): equal ids and equal typed vals, equal pairs
    static: int = 0
    #: how many names at the end are a slot's own literals (``own_literals``), not
    #: amounts: values of any type, which carving never changes
    literals: int = 0
    #: independent policy rank -> its program key (``Matchmaker``); ``rank_sig``
    #: numbers them with the values of the constant ones left out, which
    #: ``constants`` holds (rank -> its value in every state: one that reads none of
    #: the vector's names), so slots whose only difference is such a value (their
    #: own KFlops) share what their carved states work out
    rank_keys: dict[str, tuple] = field(default_factory=dict)
    rank_sig: int = 0
    constants: dict[str, float] = field(default_factory=dict)
    #: the piece-weight residuals (SlotWeight, SLOT_WEIGHT) once built, or () to build
    #: (``pieces.vector_piece_weight``)
    weight: tuple = ()
    #: typed combined vals (or the amounts of ``weight_reads``) -> piece weight
    weights: dict[tuple, float] = field(default_factory=dict)
    #: the base resources the weight reads, as ``taken`` spells them; () when the
    #: weight needs the whole vector; None until worked out (``offers``)
    weight_reads: tuple[str, ...] | None = None
    #: ``Matchmaker.weight_key`` once worked out
    weight_key: tuple | None = None


class StaticVector:
    """A static slot's numbers (``static_programs``): what the readers of a static
    offer's vector read (``vals``, its part ``static``) and what a part's program is
    made from (``names``, ``index``, ``literals``, as ``SlotVector`` holds them).
    A static slot is never carved, so none of ``SlotVector``'s carving and weight
    tables is made for it: one small record per static offer, its names and index
    those of every vector of the same names (``VectorNumbers``)."""

    __slots__ = ("index", "literals", "names", "static", "vals")

    def __init__(self, names: tuple[str, ...], vals: tuple, index: dict[str, int],
                 static: int = 0, literals: int = 0) -> None:
        self.names, self.vals, self.index = names, vals, index
        #: the static part's id (``StaticNumbers``), set once the part is known
        self.static, self.literals = static, literals


def vector_of(ad: ClassAd, candidates: frozenset[str],
              literals: tuple[str, ...] = ()) -> SlotVector | None:
    """The vector of the names in ``candidates`` (lower-case) the ad binds, or None
    when one of them is not a number literal (then the slot is evaluated in full,
    state by state); then the ``literals`` (``own_literals``: names bound to literals
    that carving never changes, left free like the resources)."""
    table = adeval.table(ad)
    if table is None:
        bound = {n: expr for n in candidates if (expr := adeval.attr(ad, n)) is not None}
    else:  # (lower-case names, as the table keys them: one lookup each)
        bound = {n: entry[1] for n in candidates if (entry := table.get(n)) is not None}
    names = tuple(sorted(bound))
    vals = []
    for name in names:
        expr = bound[name]
        if type(expr) is not Literal or type(expr.value) not in (int, float):
            return None
        vals.append(expr.value)
    for name in literals:
        vals.append(adeval.attr(ad, name).value)  # type: ignore[union-attr]
    names += literals
    return SlotVector(names, tuple(vals), {n: i for i, n in enumerate(names)},
                      literals=len(literals))


#: ``StaticVector(names, vals, index, static, literals)``, the same object, built in one
#: C call (``oldscan.slotted``: no ``__init__`` run) where the compiled module is built
#: and on: a static offer's vector is made for each of the cycle's static slots, and
#: its five stores through ``__init__`` cost about as much as reading its numbers
new_static_vector: Callable[..., StaticVector] = (
    partial(oldscan.slotted, tuple(StaticVector.__dict__[name] for name in (
        "names", "vals", "index", "static", "literals")), StaticVector)
    if oldscan.enabled() else StaticVector)


class VectorNumbers:
    """``vector_of(ad, resource names, literals)`` for many slots of one cycle, one
    vector per slot (a static or held slot's numbers are its own): the resource names
    looked up in their sorted order, so the bound ones come sorted as ``vector_of``
    sorts them, and each vector's names and index shared by every vector of those
    names (an index is only read). ``make``: the record made of (names, vals, index,
    static, literals), ``SlotVector`` or a static slot's ``StaticVector``. Lives as
    long as its owner's cycle."""

    def __init__(self, resource_names: frozenset[str],
                 make: type[SlotVector] | type[StaticVector] = SlotVector) -> None:
        self._resource_names = resource_names
        self._make = new_static_vector if make is StaticVector else make
        self._sorted = tuple(sorted(resource_names))
        #: vector names -> (them, their index)
        self._indexes: dict[tuple, tuple[tuple[str, ...], dict[str, int]]] = {}

    def of(self, ad: ClassAd, literals: tuple[str, ...] = ()
           ) -> SlotVector | StaticVector | None:
        """The ad's vector (``vector_of``, as a ``make`` record), or None when a
        resource it binds is not a number literal."""
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
        if literals:
            for name in literals:
                vals.append(adeval.attr(ad, name).value)  # type: ignore[union-attr]
            names.extend(literals)
        key = tuple(names)
        known = self._indexes.get(key)
        if known is None:
            known = self._indexes[key] = (key, {n: i for i, n in enumerate(key)})
        return self._make(known[0], tuple(vals), known[1], 0, len(literals))


def free_pairs(ad: ClassAd, vector: SlotVector) -> list[tuple[object, str]]:
    return [(ad, name) for name in vector.names]


def int_now(now: float | None) -> int | None:
    return None if now is None else int(now)


def holds(value: object) -> bool:
    """``Requirements`` holds: true, or a non-zero integer or real."""
    if value is True:
        return True
    kind = type(value)
    return (kind is int or kind is float) and value != 0


def left(value: object) -> float:
    """What a state has of a resource (``as_float`` or 0, as ``offers._requested``)."""
    kind = type(value)
    if kind is int or kind is float:
        number = float(value)  # type: ignore[arg-type]
        return number if number == number else 0.0
    return adeval.as_float(value) or 0.0


def rank_program(expr: Expr, slot_ad: ClassAd, vector: SlotVector,
                 now: float | None) -> Residual | None:
    """A policy rank that reads nothing from the job, as a residual of the vector."""
    return specialize(expr, slot_ad, None, free_pairs(slot_ad, vector), int_now(now))


def lefts(vals: Sequence[object]) -> tuple[float, ...]:
    """``left`` of each value (``OfferShapes.shape_left``), a number inline."""
    return tuple([float(v) if (type(v) is int or type(v) is float) and v == v  # type: ignore[arg-type]
                  else left(v) for v in vals])


def moves_of(vector: SlotVector, taken: dict[str, float]) -> tuple[tuple[int, float], ...]:
    """(position in the vector, amount) of each resource ``taken`` names, in its order:
    what ``rest_state`` reads of ``taken`` (``CarvedStates`` keeps them per ``taken``
    dict and the vector's names)."""
    index = vector.index
    return tuple([(index[res.lower()], amount) for res, amount in taken.items()])


def rest_state(vals: tuple, moves: tuple[tuple[int, float], ...]) -> TypedVals:
    """The ``typed`` state carving ``taken`` leaves of ``vals = vector.vals``, for
    ``moves = moves_of(vector, taken)``: at each position taken from, the value becomes
    ``number(left(value) - amount)`` (``pieces.carve``: an integral rest an integer
    literal; a NaN or a non-number has nothing left); the others stay. The rule
    ``CarvedStates._step`` writes out, reading what a position had left from the carved
    shape's ``shape_left`` and making the new state's in the same pass (the tests
    hold the two equal)."""
    rest = list(vals)
    for pos, amount in moves:
        value = rest[pos]
        if type(value) is int or type(value) is float:
            have = float(value)  # type: ignore[arg-type]
            if have != have:
                have = 0.0
        else:
            have = left(value)
        have -= amount
        rest[pos] = int(have) if have.is_integer() else have  # (have: a float)
    state = tuple(rest)
    # (``typed``, written out: a call less per state)
    if float not in map(type, state):
        return (state, (0,) * len(state))
    return (state, tuple([0 if type(v) is not float
                          else 1 if v or copysign(1.0, v) > 0  # type: ignore[arg-type]
                          else -1 for v in state]))
