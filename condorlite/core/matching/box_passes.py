"""Whether a held static slot passes a box, asked once per box and slot numbers
whatever the class.

A held walk (``held_walks``) runs the class key's program of a shared static part
(``MatchTable.static_program``) at each held group's numbers. On a pool of claimed
static slots that is nearly every class against nearly every held group, and nearly
every such program is a *box* (``carving``): it matches when the slot's numbers hold
the fixed requests and the bounds, and then its outcome is its ranks (its one
``result`` when they are constants, else ``PairProgram.passed``). Whether a slot
passes is decided by the box alone: the fixed requests' amounts and positions, and
each bound's atoms (position, operator, number operand: a bound's test is the
comparison its atom states, ``partial``'s contract, which ``box_ranges`` relies on as
well), at the slot's numbers. Classes of equal requests (most of a pool's classes
differ in what the box does not read: ranks, owner, other attributes) have equal
boxes, whatever their ranks, so the passing is kept per box -> the slot's numbers and
shared by every class whose program of any part is an equal box.

The numbers (``numbers``) are the part vector's values with their types, each
distinct tuple numbered once per cycle: held slots of distinct pair shapes often
carry equal numbers (30 % claimed static slots of a few machine types: 1,440 pair
shapes, 38 distinct numbers on the 10k claimed-preemption pool), and a box's tests
read nothing else. The key is exact: every fixed request is (amount, its type,
position), every bound the test of its one atom (position, operator, operand, its
type) with an integer or real operand; a box with any other bound (an operand read
from the vector, a test of several atoms) gets no key and is run as it is.
Tables are the cycle's (one ``BoxPasses`` per ``HeldWalks``).

**A box its type's verdict implies** (``implied_by``): a walk tries the groups of a
held type whose verdict (the class's ``Requirements`` against the type, a box:
``held_verdicts``) every bound of which surely holds (``box_ranges.split``'s sure
items) without a table: a part's box whose every bound is one of the verdict's
(the same resource, operator and operand) passes there, so such a group takes the
box's ranks alone (its one result when they are constants). On the 10k static mix
every box a walk ran passed (50,617 runs): the tests were confirmation.
"""

from __future__ import annotations

from condorlite.core.matching.carving import PairProgram

#: the operand types a key holds (anything else: the box is run as it is)
_NUMBERS = (int, float)


class BoxPasses:
    """The cycle's tables of whether a slot's numbers pass a box (module doc)."""

    def __init__(self) -> None:
        #: box key -> numbers (``numbers``) -> whether they pass the box
        self._tables: dict[tuple, dict[int, bool]] = {}
        #: (part vector's values, their types) -> its number
        self._numbers: dict[tuple, int] = {}

    def table(self, program: PairProgram) -> dict[int, bool] | None:
        """The table of ``program``'s box (to be filled by the caller, whether
        ``program.run`` at the numbers matches), or None when it is no box or its box
        has no key."""
        key = box_key(program)
        if key is None:
            return None
        found = self._tables.get(key)
        if found is None:
            found = self._tables[key] = {}
        return found

    def numbers(self, vals: tuple) -> int:
        """The number of a part vector's values (equal values of equal types: one
        number), the key of a table's entries."""
        key = (vals, tuple(map(type, vals)))
        found = self._numbers.get(key)
        if found is None:
            found = self._numbers[key] = len(self._numbers)
        return found


def box_key(program: PairProgram) -> tuple | None:
    """What the box of ``program`` tests, as a key (module doc), or None: not a box,
    never matching, or a bound without atoms or with an operand that is no integer or
    real. Its ranks are no part of it."""
    if not program.box or program.never:
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


def implied_by(program: PairProgram, names: tuple[str, ...], verdict: PairProgram,
               verdict_names: tuple[str, ...]) -> bool:
    """Whether every slot at which each bound of the box ``verdict`` holds passes the
    box ``program`` (module doc): ``program`` is a box that can match, takes no
    fixed request, and each of its bounds is the test of its one atom, one that is
    also the atom of a test of ``verdict`` alone on the same name (``names`` and
    ``verdict_names``: the names of the vectors' positions), with the same operator
    and an equal operand of the same type. Exact: such a test reads the slot's value
    of that name alone and states the comparison its atom states (``partial``'s
    contract, as ``box_key``), so the two tests agree at every slot."""
    if not program.box or program.never or program.fixed:
        return False
    stated = set()
    for test in verdict.bounds:
        atoms = getattr(test, "atoms", None)
        if atoms is not None and len(atoms) == 1:
            index, op, operand, own = atoms[0]
            if (own is test and index < len(verdict_names) - verdict.literals
                    and type(operand) in _NUMBERS):
                stated.add((verdict_names[index], op, operand, type(operand)))
    for test in program.bounds:
        atoms = getattr(test, "atoms", None)
        if atoms is None or len(atoms) != 1:
            return False
        index, op, operand, own = atoms[0]
        if own is not test or index >= len(names) - program.literals or (
                names[index], op, operand, type(operand)) not in stated:
            return False
    return True
