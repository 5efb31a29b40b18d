"""The part of a pair program that is the same for every class sharing its residuals.

``pair_programs`` shares a program's residuals between the classes that differ only in
their literal requests of the vector's resources (the *params*, read after the vector:
``vals[width + i]``). What ``carving.PairProgram`` works out of those residuals before
it runs a state is mostly free of the params' values too: which requests and tests are
constants (and whether a constant rules every state out), which request is a param,
the slot's and policy ranks settled when constant, and a box's atoms settled when they
read no param. A ``ProgramShape`` holds that, made once per residuals of a static
(``pair_programs.ResidualCache.shape``: the job's ``Rank`` is no part of it, so
classes that differ in their Rank share it too); a class's program settles only what
reads its values or its Rank (``PairProgram.of``): its param requests' amounts, the
atoms on a param, the bounds a fit of its amounts does not imply
(``box_bounds.box_tests``) and its Rank.

Exact: every field is what ``PairProgram``'s set-up computed from the same residuals,
and a field is kept here only when no param's value enters it (``_settled``, the
constants' tests and ``box_bounds.settled_atom`` on an atom reading no param read none);
the atoms are kept in their order, so a class's walk over them sets ``never`` and
stops (no box) exactly where the walk over its tests' atoms did.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.classad.partial import Constant
from condorlite.core.classad.residuals import FreeRef, Residual
from condorlite.core.classad.values import Undefined
from condorlite.core.matching.box_bounds import settled_atom
from condorlite.core.matching.slot_vectors import holds

#: a request of the plan that is a residual read at each state
REQUEST = 0
#: a request that is a param: its amount is the class's value
PARAM = 1
#: a request that is a constant: its amount is settled here
CONSTANT = 2


class ProgramShape:
    """What ``carving.PairProgram`` makes of its residuals when no param's value enters
    it (module doc). ``plan``: per request, in order, (kind, spelling, residual or
    amount or param position, vector position, default); ``atoms``: the box's atoms
    in their order as (settled or None, atom), None when the atom reads a param and is
    settled per class; ``whole``: whether every test has atoms and no atom reading no
    param reads a slot's own literal (else the walk stops at ``atoms``' end, no box)."""

    __slots__ = (
        "atoms",
        "constant_ranks",
        "dependent",
        "dependent_keys",
        "literals",
        "never",
        "plan",
        "requests",
        "slot_rank",
        "slot_rank_given",
        "tests",
        "whole",
        "width",
    )

    def __init__(self, requests: Sequence[tuple[str, Residual, int, float]],
                 tests: Sequence[Residual], slot_rank: Residual,
                 dependent: Sequence[tuple[str, Residual]],
                 as_rank: Callable[[object], float], width: int = 0,
                 literals: int = 0) -> None:
        self.width, self.literals = width, literals
        #: a constant part already rules the match out, whatever the params
        self.never = False
        self.plan: list[tuple[int, str, object, int, float]] = []
        #: the requests read at each state (``PairProgram.requests``; read only)
        self.requests: list[tuple[str, Residual, int, float]] = []
        for res, fn, pos, default in requests:
            if type(fn) is Constant:
                found = request_amount(fn.value, default)
                self.never = self.never or found.never
                self.plan.append((CONSTANT, res, found.amount, pos, default))
                continue
            index = getattr(fn, "free_index", None)
            if index is not None and index >= width:
                self.plan.append((PARAM, res, index - width, pos, default))
            else:
                self.plan.append((REQUEST, res, fn, pos, default))
                self.requests.append((res, fn, pos, default))
        #: the tests that read the vector (``PairProgram.tests``; read only)
        self.tests: list[Residual] = []
        for fn in tests:
            if type(fn) is Constant:
                self.never = self.never or not holds(fn.value)
            elif getattr(fn, "never_true", False):
                # (an && or || with an operand never true: never true itself, and
                # never a number, so the test never holds: ``residual_logic``)
                self.never = True
            else:
                self.tests.append(fn)
        self.slot_rank = settled(slot_rank, adeval.slot_rank)
        self.dependent = [(key, settled(fn, as_rank)) for key, fn in dependent]
        self.slot_rank_given = type(self.slot_rank) is not float and any(
            getattr(fn, "reads_given", False) for _, fn in self.dependent)
        #: None when the dependent ranks are all constants (``PairProgram``'s one dict)
        self.dependent_keys: tuple | None = tuple(key for key, _ in self.dependent)
        if all(type(fn) is float for _, fn in self.dependent):
            self.dependent_keys = None
        #: a box with these ranks, and a constant job Rank, has one result
        #: (``PairProgram.result``)
        self.constant_ranks = type(self.slot_rank) is float and self.dependent_keys is None
        self.atoms: list[tuple[object, tuple]] = []
        self.whole = self._atoms()

    def _atoms(self) -> bool:
        """Fill ``atoms`` (class doc) up to where ``PairProgram``'s walk stops whatever
        the params: a test without atoms, or an atom that reads no param and settles
        to None; True when there is no such stop."""
        width, literals = self.width, self.literals
        for fn in self.tests:
            found = getattr(fn, "atoms", None)
            if found is None:
                return False
            for atom in found:
                index, _, operand, _ = atom
                if index >= width or (type(operand) is FreeRef and operand.index >= width):
                    self.atoms.append((None, atom))
                    continue
                settled = settled_atom(atom, width, (), literals)
                if settled is None:
                    return False
                if settled is not True:
                    self.atoms.append((settled, atom))
        return True


class RequestAmount(NamedTuple):
    """A request's amount and whether it rules the match out (``request_amount``)."""

    amount: float
    never: bool


def request_amount(value: object, default: float) -> RequestAmount:
    """A constant or param request's amount: ``value`` as a number, ``default`` when
    undefined; one that is no number (nor undefined), or negative, rules the match
    out (``never``; the amount is then ``default`` or the negative number)."""
    amount = adeval.as_float(value)
    never = amount is None and value is not Undefined
    amount = default if amount is None else amount
    return RequestAmount(amount, never or amount < 0)


def settled(fn: Residual, convert: Callable[[object], float]) -> Residual | float:
    """A constant residual converted once (a float), else the residual."""
    return float(convert(fn.value)) if type(fn) is Constant else fn
