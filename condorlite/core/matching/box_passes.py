"""Whether a held static slot passes a box, asked once per box and slot whatever the
class.

A held walk (``held_walks``) runs the class key's program of a shared static part
(``MatchTable.static_program``) at each held group's numbers. On a pool of claimed
static slots that is nearly every class against nearly every held group, and nearly
every such program is a *box with constant ranks* (``carving``): its outcome is its
one ``result`` when the slot's numbers hold the fixed requests and the bounds, else
no match. What decides it is the box alone: the fixed requests' amounts and
positions, and each bound's atoms (position, operator, number operand: a bound's
test is the comparison its atom states, ``partial``'s contract, which ``box_ranges``
relies on as well). Classes of equal requests (most of a pool's classes differ in
what the box does not read: ranks, owner, other attributes) have equal boxes, so the
passing of a slot is kept per (static part, box) -> pair shape (a held slot's
numbers are those of its pair shape: its ad is never replaced) and shared by every
class whose program of the part is an equal box.

The key is exact: every fixed request is (amount, its type, position), every bound
the test of its one atom (position, operator, operand, its type) with an integer or
real operand; a box with any other bound (an operand read from the vector, a test
of several atoms) gets no key and is run as it is.
Tables are the cycle's (one ``BoxPasses`` per ``HeldWalks``).
"""

from __future__ import annotations

from condorlite.core.matching.carving import PairProgram

#: the operand types a key holds (anything else: the box is run as it is)
_NUMBERS = (int, float)


class BoxPasses:
    """The cycle's tables of whether a slot passes a box (module doc)."""

    def __init__(self) -> None:
        #: (static part, box key) -> pair shape -> whether its numbers pass the box
        self._tables: dict[tuple, dict[int, bool]] = {}

    def table(self, static: int, program: PairProgram) -> dict[int, bool] | None:
        """The table of ``program``'s box in the static part ``static`` (to be filled
        by the caller, ``program.run(vals) is program.result`` per pair shape), or
        None when it is no box with constant ranks or its box has no key."""
        key = box_key(program)
        if key is None:
            return None
        found = self._tables.get((static, key))
        if found is None:
            found = self._tables[(static, key)] = {}
        return found


def box_key(program: PairProgram) -> tuple | None:
    """What the box of ``program`` tests, as a key (module doc), or None: not a box
    with constant ranks, or a bound without atoms or with an operand that is no
    integer or real."""
    if not program.box or program.result is None or program.never:
        return None
    bounds = []
    for test in program.bounds:
        atoms = getattr(test, "atoms", None)
        if atoms is None or len(atoms) != 1:
            return None
        index, op, operand, stated = atoms[0]
        kind = type(operand)
        if stated is not test or kind not in _NUMBERS:
            return None  # (not the test of its own atom alone: no key)
        bounds.append((index, op, operand, kind))
    fixed = tuple((amount, type(amount), pos) for _, amount, pos in program.fixed)
    return (fixed, tuple(bounds))
