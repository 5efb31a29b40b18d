"""Items sorted by a number, and the narrowest range of them a box's bounds leave.

A box (``carving``: a program whose tests are conjunctions of bounds ``x op c`` on
single positions of the vector) fails wherever one of its bounds fails. Items sorted
once by their value at a position (a ``Column``: unheld static shapes of a part,
``static_parts``; held groups of a type, ``held_walks``) are bisected for each bound of
one atom, and the narrowest range is the candidates: an item outside it fails that
bound, so passing it over is exact. The items in the range still run the program,
but for those a box is sure to pass (``split``: strictly inside every bound, when
every bound can be told so), which need only its ranks.

The range errs on the side of holding. The keys are the numbers as reals, and rounding
to a real is monotonic, so ``x >= c`` and ``x > c`` (compared exactly, or both as
reals, as ``operators.compare`` does an integer and a real) imply ``float(x) >=
float(c)``; ``x <= c`` and ``x < c`` imply ``float(x) <= float(c)``; ``x == c`` both.
A value a real cannot hold (too large), a NaN or a value that is no number leaves its
position without a column; a bound that is no number comparison (or against a NaN)
is not used.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from math import isnan
from typing import NamedTuple

from condorlite.core.matching.carving import PairProgram


class Column(NamedTuple):
    """Items in ascending order of their number at one position: ``keys[i]``, the
    number as a real, is that of ``items[i]`` (ties in the items' given order)."""

    keys: list[float]
    items: list


def column(items: Sequence, numbers: Sequence[object]) -> Column | None:
    """``items`` sorted by ``numbers`` (one per item), or None when one is no integer
    or real, too large for a real, or NaN (module doc)."""
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
    order = sorted(range(len(keys)), key=keys.__getitem__)
    return Column([keys[i] for i in order], [items[i] for i in order])


def narrowest(program: PairProgram, column_at: Callable[[int], Column | None]
              ) -> list | None:
    """The items of the narrowest range that the box ``program``'s one-atom bounds
    leave on one position (``column_at(index)``: that position's column, or None),
    every item the box may pass among them; None when no bound could be used (every
    item is a candidate)."""
    found = _ranges(program, column_at)
    if found is None:
        return None
    (index, (low, high, _, _)), columns, _ = found
    return columns[index].items[low:high] if low < high else []  # type: ignore[union-attr]


class Split(NamedTuple):
    """The items of a narrowest range (``narrowest``) in two: ``sure`` pass every
    bound of the box, ``tried`` may or may not (the program runs on them)."""

    sure: list
    tried: list


def split(program: PairProgram, column_at: Callable[[int], Column | None]
          ) -> Split | None:
    """``narrowest``'s items split by whether every bound of the box ``program`` is
    sure to hold on them, or None when some bound is no one-atom bound on a
    position with a column, or one bounding another position leaves out some item
    of its column (then ``narrowest``). An item is sure where its key is inside
    every bound: rounding to a real is monotonic, so ``float(x) > float(c)``
    implies ``x > c`` (and ``x >= c``) whether compared exactly or as reals (the
    module doc), likewise below. A key equal to ``float(c)`` holds ``>=``, ``<=``
    and ``==`` when ``c`` is a real (compared as reals, or exactly: equal) or an
    integer below 2**53 in size (the only integer that rounds to it is itself, and
    a real equal to it compares equal); otherwise, and for ``>`` and ``<``, the item
    is tried. A box with fixed requests (a fit to test) is not split."""
    if program.fixed:
        return None
    found = _ranges(program, column_at, every=True)
    if found is None:
        return None
    (index, (low, high, sure_low, sure_high)), columns, _ = found
    if low >= high:
        return Split([], [])
    for other, (_, _, other_low, other_high) in found[2].items():
        if other != index and (other_low > 0 or other_high < len(columns[other].keys)):
            return None  # (a bound on another position may fail: every item runs)
    items = columns[index].items
    if sure_low >= sure_high:
        return Split([], items[low:high])
    return Split(items[sure_low:sure_high], items[low:sure_low] + items[sure_high:high])


def _ranges(program: PairProgram, column_at: Callable[[int], Column | None],
            every: bool = False) -> tuple | None:
    """The bounds of the box ``program`` as ranges of its columns: ((the position
    of the narrowest range, [low, high, sure low, sure high]), the columns by
    position, every position's ranges), [low, high) the items its bounds may pass
    and [sure low, sure high) those they surely pass (``split``; worked out with
    ``every`` only). None when no bound could be used or, with ``every``, when one
    could not."""
    #: position -> [low, high, sure low, sure high) of its column that its bounds leave
    ranges: dict[int, list[int]] = {}
    columns: dict[int, Column | None] = {}
    for test in program.bounds:
        atoms = getattr(test, "atoms", None)
        if atoms is None or len(atoms) != 1:
            if every:
                return None
            continue
        index, op, operand, _ = atoms[0]
        if type(operand) not in (int, float) or op not in _BOUNDS:
            if every:
                return None
            continue
        try:
            number = float(operand)
        except OverflowError:
            if every:
                return None
            continue
        if isnan(number):
            if every:
                return None
            continue
        if index not in columns:
            columns[index] = column_at(index)
        found = columns[index]
        if found is None:
            if every:
                return None
            continue
        keys = found.keys
        bounds = ranges.setdefault(index, [0, len(keys), 0, len(keys)])
        if not every:  # (``narrowest``: the ranges the items may pass alone)
            if op in _LOWER:
                bounds[0] = max(bounds[0], bisect_left(keys, number))
            if op in _UPPER:
                bounds[1] = min(bounds[1], bisect_right(keys, number))
            continue
        # (a key equal to the number holds a bound that is not strict, but for an
        # integer the reals cannot tell from its neighbours: ``split``)
        equal = op in _EVEN and (type(operand) is float or abs(operand) < 2**53)
        if op in _LOWER:
            low = bisect_left(keys, number)
            bounds[0] = max(bounds[0], low)
            bounds[2] = max(bounds[2], low if equal else bisect_right(keys, number))
        if op in _UPPER:
            high = bisect_right(keys, number)
            bounds[1] = min(bounds[1], high)
            bounds[3] = min(bounds[3], high if equal else bisect_left(keys, number))
    if not ranges:
        return None
    narrow = min(ranges.items(), key=lambda item: item[1][1] - item[1][0])
    return narrow, columns, ranges


#: the operators that bound a number from below, from above
_LOWER = frozenset({">=", ">", "=="})
_UPPER = frozenset({"<=", "<", "=="})
_BOUNDS = _LOWER | _UPPER
#: the bounds a number equal to theirs holds
_EVEN = frozenset({">=", "<=", "=="})
