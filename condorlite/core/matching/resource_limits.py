"""A static slot's request limits compared directly: the class's literal requests
against the slot's literal resources, before a full evaluation.

A static slot whose pairs are evaluated in full (``MatchTable._evaluate_pair``: no
shared part, ``static_programs``) has ``Requirements = START && WithinResourceLimits``
with ``WithinResourceLimits = MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && ...``.
Of the pairs the owner gate lets through (``owner_gates``) and of the slots with no
own literals, about half fail on a request more than the slot has (at 1,000 x 10,000
owner-start, 2,642 of 4,604 full evaluations). Each such test is one comparison of two
number literals, but the full evaluation walks ``START`` and the tests before it to
get there, the job's ``Requirements`` too when the slot has no own literals.

So per pair shape, the slot's ``Requirements`` is read once for *limit tests*: the
conjuncts of its ``&&`` tree (through parentheses, and through a name the slot binds to
a non-literal expression, ``WithinResourceLimits``, ``DEPTH`` names at most with
``Requirements``, never it again) of the form ``TARGET.<name> <op> MY.<R>`` (either side;
``op`` one of ``< <= > >=``) where the slot binds ``R`` to an integer or real literal.
A job that binds ``<name>`` to an integer or real literal takes the test's value, the
evaluator's comparison of the two numbers (``operators.compare``, worked out here by
Python's own, which agrees on reals and on integers of at most ``EXACT``: the others
are left to the full evaluation); when that is false, the slot's ``Requirements``
cannot hold: a conjunct that is false makes
every ``&&`` above it false or error (``false && x`` is false; ``x && false`` is false
for ``x`` true, false or undefined and error otherwise), and neither holds. The
conjunct's value does not depend on where the walk meets it: both operands are
literals, so neither the attributes in progress (a cycle's reference is undefined) nor
``now`` enter it. Any other job binding decides nothing and the pair is evaluated in
full, as before.

Exactness also rests on the pair shape, as the owner gates' does: offers of one pair
shape bind every name a pair evaluation reads alike (``MatchTable.pair``), so the tests
read off one offer of the shape hold for the others. The pair is still counted as one
evaluation.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import AttrRef, Binary, Expr, Literal, Paren
from condorlite.core.matching.offers import Offer

#: how many names, ``Requirements`` included, a limit test is looked for through
#: (``Requirements`` -> ``WithinResourceLimits`` is two)
DEPTH = 4

#: the comparisons a limit test can be, as Python's, and each turned round
_OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}
_TURNED = {"<": ">", "<=": ">=", ">": "<", ">=": "<="}

#: integers no larger than this are reals exactly (2 ** 53): compared with a real,
#: Python's exact comparison and ``operators.compare``'s (the integer made a real
#: first) agree
EXACT = 2 ** 53


class LimitTest(NamedTuple):
    """One conjunct ``TARGET.<name> <op> MY.<R>`` of a slot's ``Requirements`` (or
    ``MY.<R> <op> TARGET.<name>``, turned round: the same for any two numbers), with
    the slot's number for ``R``."""

    #: the job's name, lower-case
    name: str
    #: the comparison with the job's value on the left (``<``, ``<=``, ``>``, ``>=``)
    op: str
    #: the slot's integer or real literal, at most ``EXACT`` in magnitude
    amount: int | float


class ResourceLimits:
    """The cycle's limit tests, per pair shape (module doc)."""

    def __init__(self) -> None:
        #: pair shape -> its slot's limit tests as (job name, comparison, amount)
        #: (empty: none found)
        self._tests: dict[int, tuple[tuple[str, Callable[[object, object], bool],
                                           int | float], ...]] = {}

    def fails(self, job_ad: ClassAd, offer: Offer) -> bool:
        """Whether a limit test of ``offer``'s pair shape is false for ``job_ad``:
        the slot's ``Requirements`` cannot hold. False when nothing is known."""
        tests = self._tests.get(offer.pair_shape)
        if tests is None:
            tests = self._tests[offer.pair_shape] = tuple(
                (test.name, _OPS[test.op], test.amount) for test in limit_tests(offer.ad))
        if not tests:
            return False
        table = adeval.table(job_ad)
        if table is None:
            return False  # (no ClassAd-lite ad: evaluated in full)
        # (asked once per (class, pair shape) the walks meet: Python's own number
        # comparisons, which are ``operators.compare``'s for numbers no larger than
        # ``EXACT``: it turns an integer compared with a real into a real first)
        for name, holds, amount in tests:
            entry = table.get(name)
            if entry is not None and type(expr := entry[1]) is Literal:
                value = expr.value
                kind = type(value)
                if (kind is float or (kind is int and -EXACT <= value <= EXACT)) and not holds(
                        value, amount):
                    return True
        return False


def limit_tests(slot_ad: ClassAd) -> tuple[LimitTest, ...]:
    """The limit tests of ``slot_ad``'s ``Requirements`` (module doc), in the order
    the walk meets them."""
    found: list[LimitTest] = []
    requirements = adeval.attr(slot_ad, "requirements")
    if requirements is not None:
        _walk(requirements, slot_ad, {"requirements"}, found)
    return tuple(found)


def _walk(expr: Expr, slot_ad: ClassAd, seen: set[str], found: list[LimitTest]) -> None:
    """Add the limit tests among the conjuncts of ``expr``'s ``&&`` tree to ``found``;
    ``seen``: the names walked through to get here (each at most once)."""
    kind = type(expr)
    if kind is Paren:
        _walk(expr.inner, slot_ad, seen, found)  # type: ignore[attr-defined]
    elif kind is Binary:
        if expr.op == "&&":  # type: ignore[attr-defined]
            _walk(expr.left, slot_ad, seen, found)  # type: ignore[attr-defined]
            _walk(expr.right, slot_ad, seen, found)  # type: ignore[attr-defined]
        elif expr.op in _OPS:  # type: ignore[attr-defined]
            test = _limit_test(expr, slot_ad)  # type: ignore[arg-type]
            if test is not None and test not in found:  # (met again by another name)
                found.append(test)
    elif kind is AttrRef and expr.scope in (None, "my") and len(seen) < DEPTH:  # type: ignore[attr-defined]
        # (an unscoped name the slot binds is the slot's: MY is looked in first)
        name = expr.name.lower()  # type: ignore[attr-defined]
        bound = adeval.attr(slot_ad, name)
        if bound is not None and type(bound) is not Literal and name not in seen:
            _walk(bound, slot_ad, seen | {name}, found)


def _limit_test(expr: Binary, slot_ad: ClassAd) -> LimitTest | None:
    """``expr`` (an order comparison) as a limit test, or None when it is none."""
    left, right = expr.left, expr.right
    if _is_target(left):
        job, slot, op = left, right, expr.op
    elif _is_target(right):
        job, slot, op = right, left, _TURNED[expr.op]
    else:
        return None
    if type(slot) is not AttrRef or slot.scope not in (None, "my"):
        return None
    bound = adeval.attr(slot_ad, slot.name)
    if type(bound) is not Literal:
        return None
    amount = bound.value
    if not (type(amount) is float or (type(amount) is int and -EXACT <= amount <= EXACT)):
        return None
    return LimitTest(job.name.lower(), op, amount)  # type: ignore[union-attr]


def _is_target(expr: Expr) -> bool:
    return type(expr) is AttrRef and expr.scope == "target"  # type: ignore[attr-defined]
