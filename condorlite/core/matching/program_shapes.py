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
atoms on a param, the bounds a fit of its amounts does not imply and its Rank.

The box is a walk made here once (``ProgramShape.walk``): the atoms on no param settled
(and reduced once, ``box_bounds.strongest``), those on a param in the form
``box_bounds.settled_atom`` gives them, a bound repeated in that form left out (a
slot's ``WithinResourceLimits`` repeats the job's ``Memory >= RequestMemory``), and a
``>=`` on the param of its own resource's request marked, as the fit implies it for
every positive amount (``box_bounds.implied_by_own_fit``). A class's walk
(``ProgramShape.box``) settles only the params' atoms: at 1,000 x 10,000 of the
partitionable row every bound of every class's box is then left out, and no class
reduces its bounds again (RESULTS, session 35).

Exact: every field is what ``PairProgram``'s set-up computed from the same residuals,
and a field is kept here only when no param's value enters it (``_settled``, the
constants' tests and ``box_bounds.settled_atom`` on an atom reading no param read none);
the walk keeps the atoms' order, so a class's walk over it sets ``never`` and stops (no
box) exactly where the walk over its tests' atoms did, and its bounds are the tests
``box_bounds.box_tests`` gives of every settled atom (the same set; in another order
only where a bound left out as ``own`` was the first lower bound of its position).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.classad.partial import Constant
from condorlite.core.classad.residuals import FLIPPED, FreeRef, Residual, compare_numbers
from condorlite.core.classad.values import Undefined
from condorlite.core.matching.box_bounds import (
    box_tests,
    implied_by_own_fit,
    settled_atom,
    strongest,
    unimplied,
)
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
    amount or param position, vector position, default); ``walk``: the box's atoms in
    their order as ``BoxStep``s (module doc), settled per class by ``box``; ``whole``:
    whether every test has atoms and no atom reads a slot's own literal (else the walk
    stops at ``walk``'s end, no box)."""

    __slots__ = (
        "constant_ranks",
        "dependent",
        "dependent_keys",
        "distinct",
        "known",
        "literals",
        "never",
        "plan",
        "requests",
        "slot_rank",
        "slot_rank_given",
        "tests",
        "walk",
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
        #: the box's walk (``box``), its atoms settled already where they read no
        #: param; ``known`` those atoms less the ones another implies (``strongest``)
        self.walk: list[BoxStep] = []
        self.known: list[tuple] = []
        #: whether no two of the walk's bounds share a position and a direction
        #: (``strongest`` then keeps every one of them)
        self.distinct = True
        self.whole = self._walk()
        self.known = strongest(self.known)

    def _walk(self) -> bool:
        """Fill ``walk`` (class doc) up to where ``PairProgram``'s walk stops whatever
        the params: a test without atoms, or an atom on a slot's own literal (its
        settled atom None, whatever the params); True when there is no such stop.

        An atom reading a param is put in the form ``settled_atom`` gives it (a bound
        of the vector against the param, a param against the vector turned round, or
        a comparison of params and numbers); a bound met again in that form (a slot's
        ``WithinResourceLimits`` repeats the job's ``Memory >= RequestMemory`` as
        ``RequestMemory <= Memory``) is left out: it settles as the first did, which
        the walk met first (a stop there stops the walk before it). A bound ``>=`` the
        param of the request of its own resource is marked ``own``."""
        width, literals = self.width, self.literals
        first_literal = width - literals
        own_params = {(amount, pos) for kind, _, amount, pos, _ in self.plan
                      if kind is PARAM}
        bounds: set[tuple] = set()
        keys: list[tuple] = []
        for fn in self.tests:
            found = getattr(fn, "atoms", None)
            if found is None:
                return False
            for atom in found:
                index, op, operand, _ = atom
                ref = operand.index if type(operand) is FreeRef else None
                if index < width and (ref is None or ref < width):
                    settled = settled_atom(atom, width, (), literals)
                    if settled is None:
                        return False
                    if settled is False:
                        self.walk.append(BoxStep(FALSE, atom, 0, False))
                    elif settled is not True:
                        self.walk.append(BoxStep(KNOWN, settled, 0, False))
                        self.known.append(settled)
                        if ref is None:
                            keys.append((index, _DIRECTION.get(op, op)))
                    continue
                if first_literal <= index < width or (
                        ref is not None and first_literal <= ref < width):
                    return False  # (``settled_atom``: no bound on a slot's own literal)
                if index < width:  # (the vector against a param)
                    bound = (index, op, ref - width)  # type: ignore[operator]
                elif ref is not None and ref < width:  # (a param against the vector)
                    bound = (ref, FLIPPED[op], index - width)
                else:  # (a param against a number or a param: true or false)
                    self.walk.append(BoxStep(COMPARE, atom, index - width, False))
                    continue
                if bound in bounds:
                    continue
                bounds.add(bound)
                keys.append((bound[0], _DIRECTION.get(bound[1], bound[1])))
                own = bound[1] == ">=" and (bound[2], bound[0]) in own_params
                self.walk.append(BoxStep(BOUND, bound[:2], bound[2], own))
        self.distinct = len(set(keys)) == len(keys)
        return True

    def box(self, params: tuple, fixed: list[tuple[str, float, int]], never: bool
            ) -> BoxSettled:
        """A class's box (``PairProgram``'s): the walk settled with its ``params``
        (``never``: the class's requests already rule the match out; set by every
        atom settled false before the walk stops) and, when it does not stop and
        the program is a box, its bound tests given its ``fixed`` requests
        (spelling, amount, position), as ``box_bounds.box_tests`` of every settled
        atom gives them (the same tests; in another order only where an ``own``
        bound left out was the first of its position's lower bounds)."""
        atoms: list[tuple] = []
        bounded = False
        width = self.width
        for kind, atom, param, own in self.walk:
            if kind is KNOWN:
                atoms.append(atom)
            elif kind is BOUND:
                value = params[param]
                if type(value) is not int and type(value) is not float:
                    return BoxSettled(never, None)  # (a param no number bounds nothing)
                if own and implied_by_own_fit(value):
                    continue
                atoms.append((atom[0], atom[1], value, None))
                bounded = True
            elif kind is COMPARE:
                other = atom[2]
                if type(other) is FreeRef:
                    other = params[other.index - width]
                if compare_numbers(atom[1], params[param], other) is not True:
                    never = True
            else:
                never = True
        if not self.whole or never or self.requests:
            return BoxSettled(never, None)
        amounts = {pos: amount for _, amount, pos in fixed}
        if not bounded:
            return BoxSettled(never, unimplied(self.known, amounts))
        return BoxSettled(never, unimplied(atoms, amounts) if self.distinct
                          else box_tests(atoms, amounts))


#: a step of a box's walk (``ProgramShape.walk``): a settled atom that reads no
#: param (``atom``), one settled false, a bound of the vector against a param
#: (``atom``: its position and operator; ``param``: the param's position; ``own``: a
#: ``>=`` on the param of the request of its own resource, ``box_bounds.
#: implied_by_own_fit``), a comparison of a param (``atom``, read at ``param``)
KNOWN, FALSE, BOUND, COMPARE = range(4)

#: an operator's direction, for ``ProgramShape.distinct``: lower and upper bounds
_DIRECTION = {">=": "lower", ">": "lower", "<=": "upper", "<": "upper"}


class BoxStep(NamedTuple):
    """A step of a box's walk (``KNOWN``, ``FALSE``, ``BOUND``, ``COMPARE``)."""

    kind: int
    atom: tuple
    param: int
    own: bool


class BoxSettled(NamedTuple):
    """A class's box settled (``ProgramShape.box``): whether the match is ruled out,
    and the bound tests, None when the program is no box."""

    never: bool
    bounds: list | None


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
