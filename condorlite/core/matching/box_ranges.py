"""Items sorted by a number, and the narrowest range of them a box's bounds leave.

A box (``carving``: a program whose tests are conjunctions of bounds ``x op c`` on
single positions of the vector) fails wherever one of its bounds fails. Items sorted
once by their value at a position (a ``Column``: unheld static shapes of a part,
``static_parts``; held groups of a type, ``held_walks``) are bisected for each bound of
one atom, and the narrowest range is the candidates: an item outside it fails that
bound, so passing it over is exact. The items in the range still run the program.

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
    #: position -> [low, high) of its column that its bounds leave
    ranges: dict[int, list[int]] = {}
    columns: dict[int, Column | None] = {}
    for test in program.bounds:
        atoms = getattr(test, "atoms", None)
        if atoms is None or len(atoms) != 1:
            continue
        index, op, operand, _ = atoms[0]
        if type(operand) not in (int, float) or op not in _BOUNDS:
            continue
        try:
            number = float(operand)
        except OverflowError:
            continue
        if isnan(number):
            continue
        if index not in columns:
            columns[index] = column_at(index)
        found = columns[index]
        if found is None:
            continue
        keys = found.keys
        bounds = ranges.setdefault(index, [0, len(keys)])
        if op in _LOWER:
            bounds[0] = max(bounds[0], bisect_left(keys, number))
        if op in _UPPER:
            bounds[1] = min(bounds[1], bisect_right(keys, number))
    if not ranges:
        return None
    index, (low, high) = min(ranges.items(), key=lambda item: item[1][1] - item[1][0])
    return columns[index].items[low:high] if low < high else []  # type: ignore[union-attr]


#: the operators that bound a number from below, from above
_LOWER = frozenset({">=", ">", "=="})
_UPPER = frozenset({"<=", "<", "=="})
_BOUNDS = _LOWER | _UPPER
