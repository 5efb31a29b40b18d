"""Unheld static shapes by static part, sorted by their numbers: a class's list passes
over the shapes its part's program rules out without looking at them.

A class's list of unheld static offers (``static_lists``) needs, for every static
shape, whether the class matches it. A shape of a shared static part
(``static_programs``) is answered by the (class, part) program at the shape's own
numbers (``MatchTable.static_program``), and that program is most often a box
(``carving``: a conjunction of bounds ``x op c`` on single numbers, such as
``TARGET.Disk >= RequestDisk``) or one that never matches (another ``OpSys``). Asking
every shape costs a Python step per (class, shape) even when the answer is no; so the
unheld static shapes are grouped by part once, each part's shapes sorted by each number
of the vector, and a class takes

* nothing of a part whose program never matches;
* of a box, only the shapes in the narrowest range its bounds leave on one number,
  found by bisection; the program still runs on each of those (``static_lists``:
  the bounds on the other numbers, or a bound a real cannot tell, may rule it out);
* every shape of a part whose program is no box or cannot be made, of a part with
  fewer than ``SORTED`` unheld shapes, and of no shared part, as before.

Exactness: a shape left out fails a bound of the program, and ``PairProgram.run``
answers no match where a bound of a box fails. The range holds every number where
the bound can hold: the keys are the numbers as reals and rounding to a real is
monotonic, so ``x >= c`` and ``x > c`` (compared exactly, or both as reals, as
``operators.compare`` does an integer and a real) imply ``float(x) >= float(c)``,
``x <= c`` and ``x < c`` imply ``float(x) <= float(c)``, ``x == c`` both. A number a
real cannot hold, a NaN among a part's numbers (no order) or a bound that is no
number comparison leaves that bound unused.

Static shapes never gain members and lose them only when matched (``OfferShapes``):
a shape that has left is passed over, and the groups are made again when half of
their shapes have left or when offers were prepared since (none are, after the
cycle's set-up).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from math import isnan

from condorlite.core.matching.carving import PairProgram, SlotVector
from condorlite.core.matching.offers import Offer

#: the least number of unheld shapes a part must hold to be sorted (below it every
#: shape is asked, as for a part that is not shared)
SORTED = 2


class Axis:
    """A part's shapes sorted by one number of the vector: ``keys[i]``, the number as
    a real, of ``shapes[i]``."""

    __slots__ = ("keys", "shapes")

    def __init__(self, keys: list[float], shapes: list[int]) -> None:
        self.keys, self.shapes = keys, shapes


class Part:
    """The unheld shapes of one shared static part: ``offer`` stands for all of them
    when the part's program is asked for; ``axes[i]``: the shapes by the vector's
    ``i``-th number, or None when those numbers have no order (module doc)."""

    __slots__ = ("axes", "offer", "shapes", "vals")

    def __init__(self, offer: Offer, shapes: list[int], axes: list[Axis | None],
                 vals: dict[int, tuple]) -> None:
        self.offer, self.shapes, self.axes = offer, shapes, axes
        #: shape -> its numbers (``SlotVector.vals``: every offer of it has them)
        self.vals = vals

    def within(self, program: PairProgram | None) -> Sequence[int]:
        """The shapes ``program`` (the part's program of a class, None: none can be
        made) may match (module doc): () when it never matches, the narrowest range
        of a box's bounds on one number, else every shape."""
        if program is None:
            return self.shapes
        if program.never:
            return ()
        if not program.box:
            return self.shapes
        axes = self.axes
        #: axis position -> [low, high) of the shapes its bounds leave
        ranges: dict[int, list[int]] = {}
        for test in program.bounds:
            atoms = getattr(test, "atoms", None)
            if atoms is None or len(atoms) != 1:
                continue
            index, op, operand, _ = atoms[0]
            axis = axes[index] if 0 <= index < len(axes) else None
            if axis is None or type(operand) not in (int, float):
                continue
            try:
                number = float(operand)
            except OverflowError:
                continue
            found = ranges.get(index)
            if found is None:
                found = ranges[index] = [0, len(axis.keys)]
            if op in (">=", ">", "=="):
                found[0] = max(found[0], bisect_left(axis.keys, number))
            if op in ("<=", "<", "=="):
                found[1] = min(found[1], bisect_right(axis.keys, number))
        if not ranges:
            return self.shapes
        index, (low, high) = min(ranges.items(), key=lambda item: item[1][1] - item[1][0])
        return axes[index].shapes[low:high] if low < high else ()  # type: ignore[union-attr]


class StaticParts:
    """The cycle's unheld static shapes by shared static part (module doc).
    ``registry`` and ``members`` are the matchmaker's offers and static shapes (read,
    never changed); ``vector(offer)``: the offer's vector when its part is shared
    (``MatchTable.static_vector``), else None."""

    def __init__(self, registry: list[Offer], members: dict[int, dict[int, None]],
                 vector: Callable[[Offer], SlotVector | None]) -> None:
        self._registry, self._members, self._vector = registry, members, vector
        #: the shapes asked one by one, and the sorted parts (``_group``)
        self._walked: list[int] = []
        self._parts: list[Part] = []
        #: how many offers were prepared and how many shapes were grouped, when grouped
        self._prepared = -1
        self._grouped = 0

    def groups(self) -> tuple[list[int], list[Part]]:
        """The shapes to ask one by one and the sorted parts; shapes in either may
        have left since (not in ``members``)."""
        if (self._prepared != len(self._registry)
                or len(self._members) * 2 < self._grouped):
            self._group()
        return self._walked, self._parts

    def _group(self) -> None:
        registry, vector_of = self._registry, self._vector
        walked: list[int] = []
        #: part id -> (an offer of it, its shapes, their vals)
        by_part: dict[int, tuple[Offer, list[int], list[tuple]]] = {}
        for shape, seqs in self._members.items():
            offer = registry[next(iter(seqs))]
            vector = vector_of(offer)
            if vector is None:
                walked.append(shape)
                continue
            found = by_part.get(vector.static)
            if found is None:
                found = by_part[vector.static] = (offer, [], [])
            found[1].append(shape)
            found[2].append(vector.vals)
        parts = []
        for offer, shapes, vals in by_part.values():
            if len(shapes) < SORTED:
                walked.extend(shapes)
                continue
            parts.append(Part(offer, shapes, [_axis(shapes, [v[i] for v in vals])
                                              for i in range(len(vals[0]))],
                              dict(zip(shapes, vals, strict=True))))
        self._walked, self._parts = walked, parts
        self._prepared, self._grouped = len(registry), len(self._members)


def _axis(shapes: list[int], numbers: list[object]) -> Axis | None:
    """``shapes`` sorted by ``numbers`` as reals (ties in shape order), or None when
    one is no real (not a number, too large, NaN)."""
    keys = []
    for value in numbers:
        if type(value) not in (int, float):
            return None
        try:
            key = float(value)  # type: ignore[arg-type]
        except OverflowError:
            return None
        if isnan(key):
            return None
        keys.append(key)
    order = sorted(range(len(shapes)), key=keys.__getitem__)
    return Axis([keys[i] for i in order], [shapes[i] for i in order])
