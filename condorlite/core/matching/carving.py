"""The residual program of a (job class, slot static) pair, run at a state's vector.

A partitionable offer's states differ only in their resource vector
(``slot_vectors``), so whatever a job class and the slot evaluate to is a function of
that vector. ``classad.partial.specialize`` turns each such evaluation into a
*residual*: everything that does not depend on the vector is evaluated once, and a
state costs only the operators that read its numbers. Exactness: a residual equals the
full evaluation for every vector (the contract of ``partial``); when an expression
cannot be specialised (``specialize`` answers None) the caller evaluates the state in
full, as for any other slot. This module holds the program's run (``PairProgram``);
``pair_programs`` makes the programs and shares their residuals between classes, and
``program_shapes`` the part of a program's set-up that reads none of a class's values
(``PairProgram.of``: a class settles only its values, bounds and Rank).

What a program gives for a (job class, slot) pair at ``vals`` (as ``matchmaker``'s
``_evaluate_pair`` does in full):

* ``taken``: per resource of ``offers.resource_names``, ``Request<R>`` of the job
  (TARGET = slot) as a number, 1 for an undefined ``RequestCpus`` and 0 for the other
  undefined requests; no fit when a request is not a number, negative, or more than
  the state has (``as_float(vals[R])`` or 0);
* the match: the job's and the slot's ``Requirements`` each true or a non-zero number;
* the job's ``Rank`` and the slot's ``Rank`` as numbers (0 when not a number), and the
  policy ranks that read the job, as negotiator ranks.

*Boxes.* Most pairs are a box: every request a constant, every rank a constant, and
both ``Requirements`` conjunctions of bounds on single resources (``partial``'s
``atoms``). Then one result serves every state inside the box, and a state is inside
when it holds the fixed requests and the bounds a fit or another bound does not
already imply (``PairProgram.bounds``, worked out once per program by ``box_bounds``).
A state's run (``run``, ``run_fitted``, ``passed``) tests only those.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from condorlite.core import adeval
from condorlite.core.classad.residuals import Residual
from condorlite.core.classad.values import Undefined
from condorlite.core.matching.deferred_ranks import DeferredRanks
from condorlite.core.matching.program_shapes import (
    PARAM,
    REQUEST,
    ProgramShape,
    request_amount,
    settled,
)
from condorlite.core.matching.slot_vectors import holds, left


class PairProgram:
    """The residuals of one (job class, slot pair-static) pair; ``run`` gives
    ``(match, job_rank, slot_rank, dependent, taken)`` for a vector. Parts that read
    no resource (``Constant``) are settled once, here.

    The residuals read the vector followed by ``params``: the class's own number
    literals that were left free so that classes differing only in them share the
    residuals (``pair_programs.pair_program``); a part that is one of them, or a bound against
    one, is settled here with the class's value as if it had been a constant
    (``box_bounds.settled_atom`` for a bound). A param
    that is no number (a desktop's job ``Owner``, ``pair_programs._with_owner``)
    bounds nothing: a test comparing it with the vector is run as it is. A dependent
    rank made with the slot's Rank given (``pair_programs._program_parts``) reads the
    Rank's value after the params, which ``_ranked`` puts there.

    The vector's last ``literals`` values are a slot's own literals (``own_literals``),
    strings mostly: a bound on one of them is no bound on numbers (``residuals``'
    atoms hold only where every value compared is a number), so a test with such an
    atom makes no box and is run as it is."""

    __slots__ = (
        "bounds",
        "box",
        "dependent",
        "dependent_keys",
        "dependents",
        "fixed",
        "fixed_taken",
        "job_rank",
        "literals",
        "never",
        "pair",
        "params",
        "requests",
        "result",
        "slot_rank",
        "slot_rank_given",
        "taken",
        "tests",
        "width",
    )

    def __init__(self, requests: Sequence[tuple[str, Residual, int, float]],
                 tests: Sequence[Residual], job_rank: Residual, slot_rank: Residual,
                 dependent: Sequence[tuple[str, Residual]],
                 as_rank: Callable[[object], float],
                 width: int = 0, params: tuple = (), literals: int = 0) -> None:
        self._set_up(ProgramShape(requests, tests, slot_rank, dependent, as_rank, width,
                                  literals), job_rank, params)

    @classmethod
    def of(cls, shape: ProgramShape, job_rank: Residual, params: tuple) -> PairProgram:
        """The program of ``shape``'s residuals with a class's ``job_rank`` and
        ``params``: what ``PairProgram(...)`` of the same residuals, Rank and params
        makes, the value-free part shared (``program_shapes``)."""
        program = cls.__new__(cls)
        program._set_up(shape, job_rank, params)
        return program

    def _set_up(self, shape: ProgramShape, job_rank: Residual, params: tuple) -> None:
        #: the vector's length, and the values the residuals read after it
        self.width, self.params = shape.width, params
        #: the positions ``width - literals`` to ``width`` hold literals, not amounts
        self.literals = shape.literals
        #: a constant part, or a param request no number or negative, rules the
        #: match out
        self.never = shape.never
        #: (spelling, amount, position) for requests that are constants or params
        self.fixed: list[tuple[str, float, int]] = []
        for kind, res, amount, pos, default in shape.plan:
            if kind is PARAM:
                found = request_amount(params[amount], default)  # type: ignore[index]
                self.never = self.never or found.never
                amount = found.amount
            elif kind is REQUEST:
                continue
            self.fixed.append((res, amount, pos))  # type: ignore[arg-type]
        #: (spelling, residual, position, default) for the others (shared: read only)
        self.requests: list[tuple[str, Residual, int, float]] = shape.requests
        #: the tests that read the vector (the others are settled: ``never``; shared)
        self.tests: list[Residual] = shape.tests
        #: the fixed requests as a ``taken`` dict (shared by the outcomes of states
        #: run with no other request, ``run_fitted``: outcomes are only read)
        self.fixed_taken = {res: amount for res, amount, _ in self.fixed}
        self.job_rank = settled(job_rank, _job_rank_of)
        self.slot_rank = shape.slot_rank
        self.dependent = shape.dependent
        #: a dependent rank reads the slot's Rank's value after the params (made with
        #: it given, ``pair_programs._program_parts``): ``_ranked`` puts it there
        self.slot_rank_given = shape.slot_rank_given
        #: the dependent ranks' names, and the dicts of them already made, by their
        #: values (a value when one, ``_ranked``: states with equal ranks share one
        #: dict); None and the one dict when they are all constants
        self.dependent_keys = shape.dependent_keys
        self.dependents: dict = {} if self.dependent_keys is not None else dict(self.dependent)
        #: a box (module doc): the match is holding the fixed requests (``taken``)
        #: and ``bounds`` (the tests of the bounds a fit does not imply); ``result``
        #: the one outcome of every such state when the ranks are constants too
        self.box = False
        self.bounds: list[Residual] = []
        self.taken: dict[str, float] = {}
        self.result: tuple | None = None
        #: the matchmaker's pair result made of ``result``, once made
        self.pair: object = None
        self._boxed(shape)

    def _boxed(self, shape: ProgramShape) -> None:
        """Settle the shape's box with the params (``ProgramShape.box``: ``never`` is
        set by every atom settled false before its walk stops) and make the box when
        every test is a conjunction of bounds."""
        if shape.never:
            return  # (never matches: not a box, whatever the atoms)
        found = shape.box(self.params, self.fixed, self.never)
        self.never = found.never
        if found.bounds is None:
            return
        self.bounds = found.bounds
        self.taken = {res: amount for res, amount, _ in self.fixed}
        self.box = True
        if shape.constant_ranks and type(self.job_rank) is float:
            self.result = (True, self.job_rank, self.slot_rank, dict(self.dependent),
                           self.taken)

    def run(self, vals: Sequence[object], as_rank: Callable[[object], float],
            defer: bool = False) -> tuple:
        """The outcome at ``vals`` (class doc); ``defer``: a matching state's dependent
        ranks, when not all constants, are a ``DeferredRanks`` (``held_walks``)."""
        if self.never:
            return (False,)
        if self.box:
            for _, amount, pos in self.fixed:
                if amount > left(vals[pos]):
                    return (False,)
            for test in self.bounds:
                if not test(vals):
                    return (False,)
            if self.result is not None:
                return self.result  # (shared: callers only read it)
            # (the vector and the params made one only for the ranks that read them)
            return self._ranked((*vals, *self.params) if self.params else vals, as_rank,
                                self.taken, None, defer)
        full = (*vals, *self.params) if self.params else vals
        taken: dict[str, float] = {}
        for res, amount, pos in self.fixed:
            if amount > left(vals[pos]):
                return (False,)
            taken[res] = amount
        if self.requests and not self._requested(full, vals, taken):
            return (False,)
        for test in self.tests:
            if not holds(test(full)):
                return (False,)
        return self._ranked(full, as_rank, taken, None, defer)

    def passed(self, vals: Sequence[object], as_rank: Callable[[object], float],
               defer: bool = False) -> tuple:
        """``run`` at a state known to pass this box, every bound (``box_ranges.split``,
        a box without fixed requests) or bounds and fixed requests alike
        (``box_passes``): its ranks alone; ``defer`` as ``run``'s."""
        if self.result is not None:
            return self.result  # (shared: callers only read it)
        return self._ranked((*vals, *self.params) if self.params else vals, as_rank,
                            self.taken, None, defer)

    def passed_reads(self, vals: Sequence[object], as_rank: Callable[[object], float]
                     ) -> tuple[tuple, set[int] | None]:
        """``passed(vals, as_rank)`` and the positions of ``vals`` and the params that
        its ranks read there, from one run: the ranks run at a recording vector
        (``ReadPositions``), every part that is no constant (``_ranked`` runs them all
        when the box has no one result: the job's and the slot's Rank and each
        dependent rank, the slot's Rank given after the params). None for the
        positions when a residual does more than index the vector (``passed`` is
        then run at ``vals`` itself); the empty set for a box of one result."""
        if self.result is not None:
            return self.result, set()
        full = ReadPositions((*vals, *self.params))
        try:
            return self._ranked(full, as_rank, self.taken), full.seen
        except (AttributeError, TypeError, IndexError):
            return self.passed(vals, as_rank), None

    def run_fitted(self, vals: Sequence[object], as_rank: Callable[[object], float],
                   given: float | None = None) -> tuple:
        """``run`` at a state known to hold the fixed requests (``carved_lists`` tests
        them per shape, by ``left`` as ``run`` does, before it runs a state): the same
        outcome, without testing them again. The ``taken`` of a state is the fixed
        requests' dict itself when there are no other requests. ``given``: the one
        dependent rank's value at the state (as ``as_rank`` makes it), when the caller
        knows it exactly and ``given_rank`` holds (``literal_states``: a state's key
        is its pre-job rank for the class): it is not evaluated again."""
        if self.never:
            return (False,)
        full = (*vals, *self.params) if self.params else vals
        if self.box:
            for test in self.bounds:
                if not test(vals):
                    return (False,)
            if self.result is not None:
                return self.result  # (shared: callers only read it)
            return self._ranked(full, as_rank, self.taken, given)
        if not self.requests:
            taken = self.fixed_taken
        else:
            taken = dict(self.fixed_taken)
            if not self._requested(full, vals, taken):
                return (False,)
        for test in self.tests:
            if not holds(test(full)):
                return (False,)
        return self._ranked(full, as_rank, taken, given)

    def given_rank(self, name: str) -> bool:
        """Whether ``run_fitted`` may be given the value of the dependent rank
        ``name``: it is the one dependent rank that is no constant."""
        return not self.never and self.dependent_keys == (name,)

    def _requested(self, full: Sequence[object], vals: Sequence[object],
                   taken: dict[str, float]) -> bool:
        """Add each request that is not a constant amount to ``taken``, evaluated at
        ``full``; False when one is neither a number nor undefined (its default),
        is negative, or is more than the state has left."""
        for res, request, pos, default in self.requests:
            value = request(full)
            amount = adeval.as_float(value)
            if amount is None:
                if value is not Undefined:
                    return False
                amount = default
            if amount < 0 or amount > left(vals[pos]):
                return False
            taken[res] = amount
        return True

    def _ranked(self, full: Sequence[object], as_rank: Callable[[object], float],
                taken: dict[str, float], given: float | None = None, defer: bool = False
                ) -> tuple:
        """The outcome of a matching state (``full``: its vector and the params): its
        ranks, with ``taken``; ``given``: the one dependent rank's value, when the
        caller knows it (``run_fitted``); ``defer``: the dependent ranks worked out
        at their first read (``deferred_ranks``)."""
        job_rank, slot_rank = self.job_rank, self.slot_rank
        if type(job_rank) is not float:
            job_rank = _job_rank(job_rank(full))
        if type(slot_rank) is not float:
            value = slot_rank(full)
            slot_rank = _slot_rank(value)
            if self.slot_rank_given:
                # (a recording vector records the dependent ranks' reads too)
                full = full.given(value) if type(full) is ReadPositions else (*full, value)
        if self.dependent_keys is None:  # (constants, or none: one dict)
            return (True, job_rank, slot_rank, self.dependents, taken)
        if defer:
            return (True, job_rank, slot_rank,
                    DeferredRanks(self.dependent_of, full, as_rank, len(self.dependent)), taken)
        return (True, job_rank, slot_rank, self.dependent_of(full, as_rank, given), taken)

    def dependent_of(self, full: Sequence[object], as_rank: Callable[[object], float],
                     given: float | None = None) -> dict:
        """The dependent ranks' dict of a matching state (``_ranked``; ``full`` with
        the slot's Rank appended when given), for programs whose dependent ranks are
        not all constants."""
        # One dict per program for the states that give the same values (pair
        # results only read it); not with a zero: -0.0 and 0.0 are equal keys.
        if len(self.dependent) == 1:  # (the common case: one value, its own key)
            fn = self.dependent[0][1]
            values: object = (fn if type(fn) is float else as_rank(fn(full)) if given is None
                              else given)
            zero = values == 0.0
        else:
            values = tuple([fn if type(fn) is float else as_rank(fn(full))
                            for _, fn in self.dependent])
            zero = 0.0 in values  # type: ignore[operator]
        dependent = None if zero else self.dependents.get(values)
        if dependent is None:
            dependent = (dict(zip(self.dependent_keys, values, strict=True))
                         if type(values) is tuple else {self.dependent_keys[0]: values})
            if not zero:
                self.dependents[values] = dependent
        return dependent


class ReadPositions:
    """A vector (a program's values and params) that records the positions its
    residuals read of it (residuals read their free values as ``vals[index]`` only,
    ``partial``): the ranks' one run of ``PairProgram.passed_reads``, the tests of
    ``pair_programs.gated_by_literal`` and ``literal_tests``. ``given``: the vector
    with the slot's Rank appended, as ``_ranked`` gives it to the dependent ranks,
    recording into the same set."""

    __slots__ = ("seen", "vals")

    def __init__(self, vals: Sequence[object], seen: set[int] | None = None) -> None:
        self.vals = vals
        self.seen: set[int] = set() if seen is None else seen

    def __getitem__(self, index: int) -> object:
        self.seen.add(index)
        return self.vals[index]

    def __len__(self) -> int:
        return len(self.vals)

    def given(self, value: object) -> ReadPositions:
        return ReadPositions((*self.vals, value), self.seen)


def _job_rank_of(value: object) -> float:
    """A constant job Rank as a number (``adeval.as_float``, 0 when none)."""
    return adeval.as_float(value) or 0.0


def _job_rank(value: object) -> float:
    """``adeval.as_float(value) or 0.0``, a plain number's case inline (the job's Rank
    of every matching state run): NaN and -0.0 give 0.0 as there."""
    kind = type(value)
    if kind is float or kind is int:
        number = float(value)  # type: ignore[arg-type]
        return number if number == number and number else 0.0
    return adeval.as_float(value) or 0.0


def _slot_rank(value: object) -> float:
    """``adeval.slot_rank(value)``, a plain number's case inline (NaN stays NaN)."""
    kind = type(value)
    if kind is float or kind is int:
        return float(value)  # type: ignore[arg-type]
    return adeval.slot_rank(value)
