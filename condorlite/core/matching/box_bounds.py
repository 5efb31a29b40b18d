"""The bounds a box program tests: its atoms settled, less those a fit or another implies.

Most pair programs are a *box* (``carving.PairProgram``): every request a constant,
every rank a constant, and both ``Requirements`` conjunctions of bounds on single
resources (``classad.residuals``' *atoms*, ``(index, op, operand, test)`` read as
``vals[index] op operand``). Then one result serves every state inside the box, and a
state is inside when it holds the fixed requests and the bounds this module keeps
(``box_tests``). This module is that reasoning on atoms and amounts alone; it runs
nothing per state.

* *Settled* (``settled_atom``): a program's residuals read the vector followed by its
  params (a class's own number literals left free so that classes share residuals,
  ``pair_programs``); an atom on a param alone is decided here, and one against a
  param becomes a bound against that number. A bound on one of the vector's last
  ``literals`` values (a slot's own literals, strings mostly, ``own_literals``) is no
  bound on numbers (``residuals``' atoms hold only where every value compared is a
  number): no box.
* *Implied by a fit* (``_implied``): a bound ``x >= c`` (or ``x > c``) on a resource of
  which the class takes a fixed ``amount > 0`` with ``amount >= c`` (``amount > c``)
  holds in every state the fit admits, since there ``x >= amount`` (integers compared
  exactly: ``c`` is kept within 2**53, where a real represents every integer).
* *Implied by another bound* (``strongest``): a slot's ``WithinResourceLimits``
  repeats the job's ``Memory >= RequestMemory`` and adds ``Memory > 0``, and a static
  slot's program (no fit: nothing is taken) would test nine bounds for three.

Exact: a box's run tests what is left, and gives what the conjunction of all its
bounds gives at every vector a fit admits.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from condorlite.core.classad.residuals import (
    FLIPPED,
    FreeRef,
    Residual,
    bound_test,
    compare_numbers,
)

#: the types of a number a bound compares with
_NUMBERS = (int, float)

#: the operators of a lower bound and of an upper bound, each with its strict one
_LOWER = {">=": False, ">": True}
_UPPER = {"<=": False, "<": True}


def settled_atom(atom: tuple, width: int, params: Sequence[object], literals: int
                 ) -> tuple | bool | None:
    """``atom`` with the params put in (``params[i]`` at ``vals[width + i]``): True or
    False when it reads no vector value, None when it reads a slot's own literal (one
    of the vector's last ``literals`` values: no bound on numbers), else (index, op,
    operand, a test reading the vector alone, or None for ``bound_test(index, op,
    operand)``); the operand is a number, or a ``FreeRef`` into the vector."""
    index, op, operand, test = atom
    first_literal = width - literals
    if first_literal <= index < width or (
            type(operand) is FreeRef and first_literal <= operand.index < width):
        return None
    if type(operand) is FreeRef and operand.index >= width:
        operand = params[operand.index - width]
        if index < width:
            # (a param that is no number, the job's Owner, bounds nothing: the
            # test is run as it is)
            return (index, op, operand, None) if type(operand) in _NUMBERS else None
    if index >= width:
        value = params[index - width]
        if type(operand) is FreeRef:  # a param against the vector: the other way round
            return ((operand.index, FLIPPED[op], value, None) if type(value) in _NUMBERS
                    else None)
        return compare_numbers(op, value, operand) is True
    return (index, op, operand, test)


def box_tests(atoms: list[tuple], amounts: Mapping[int, float]) -> list[Residual]:
    """The tests a box runs of its settled ``atoms`` (``settled_atom``'s tuples), given
    the fixed ``amounts`` it takes by vector position: those no other atom implies
    (``strongest``) and no fit of its amount implies (``_implied``), in their order."""
    return unimplied(strongest(atoms), amounts)


def unimplied(atoms: list[tuple], amounts: Mapping[int, float]) -> list[Residual]:
    """The tests of the settled ``atoms`` that no fit of the fixed ``amounts`` implies
    (``_implied``), in their order, one made for an atom with none of its own
    (``bound_test``): ``box_tests`` of atoms none of which implies another (what
    ``strongest`` keeps, or atoms no two of which share a position and a direction,
    ``program_shapes.ProgramShape.box``)."""
    return [bound_test(index, op, number) if test is None else test
            for index, op, number, test in atoms
            if not _implied(amounts.get(index), op, number)]


def implied_by_own_fit(value: object) -> bool:
    """Whether a box's bound ``x >= value`` on a resource whose fixed amount is the
    request ``value`` itself (``Memory >= RequestMemory``, the request a param) is
    implied by the fit (``_implied``, the amount being ``value`` as a real): a number
    more than nothing, within 2**53. Then every lower bound on ``x`` it implies is
    implied by the fit too (``x >= c`` with ``c <= value``, ``x > c`` with ``c <
    value``), so ``box_tests`` with it left out gives the same tests, but for their
    order where a tighter bound on ``x`` followed it (``program_shapes``)."""
    return (type(value) is int or type(value) is float) and 0 < value <= 2**53  # type: ignore[operator]


def _implied(amount: float | None, op: str, number: object) -> bool:
    """Whether ``x op number`` holds wherever a fit of a fixed ``amount`` of ``x`` does
    (the module doc)."""
    if amount is None or not amount > 0 or type(number) not in _NUMBERS or (
            abs(number) > 2**53):  # type: ignore[arg-type]
        return False
    return (op == ">=" and amount >= number) or (op == ">" and amount > number)  # type: ignore[operator]




def strongest(atoms: list[tuple]) -> list[tuple]:
    """The atoms of a box less those another of them implies (the module doc):
    a bound repeated (a job's ``Memory >= RequestMemory`` and a slot's
    ``WithinResourceLimits`` read alike) and, of the lower (upper) bounds of one
    position against numbers of one type, all but the tightest (``Cpus >= 4``
    implies ``Cpus > 0``). Exact: a comparison with a number holds only where the
    value is a number (``operators.compare``: anything else gives undefined or an
    error, and gives the same to every such comparison), and then numbers are
    totally ordered; integers are kept within 2**53, where a real represents every
    integer. The order of the atoms kept is theirs (a box's tests are pure: the
    order only decides which failing test ends a run)."""
    kept: list[tuple] = []
    #: (position, lower or upper, the number's type) -> where its tightest is kept
    tightest: dict[tuple, int] = {}
    #: the atoms kept whatever else holds, by what they test
    same: set[tuple] = set()
    for atom in atoms:
        index, op, number, _ = atom
        kind = type(number)
        if kind is not int and kind is not float:
            kept.append(atom)  # (against another value of the vector: kept as it is)
            continue
        lower = op in _LOWER
        if (not lower and op not in _UPPER) or number != number or abs(number) > 2**53:
            key = (index, op, kind, number)
            if key not in same:
                same.add(key)
                kept.append(atom)
            continue
        key = (index, lower, kind)
        at = tightest.get(key)
        if at is None:
            tightest[key] = len(kept)
            kept.append(atom)
            continue
        _, old_op, old, _ = kept[at]
        strict = (_LOWER if lower else _UPPER)[op]
        old_strict = (_LOWER if lower else _UPPER)[old_op]
        if (number > old if lower else number < old) or (number == old and strict
                                                           and not old_strict):
            kept[at] = atom  # (tighter: it takes the place of the first)
    return kept
