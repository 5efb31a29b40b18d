"""Evaluating ClassAd expressions, with HTCondor's daemon-mode semantics: the entry points.

``evaluate`` (an expression or its text), ``evaluate_attribute`` (an ad's attribute),
``requirements_hold`` and ``symmetric_match`` (the negotiator's match rule),
``evaluate_printed`` (``condorlite eval``) and ``exhausts_budget``. Each makes the
context of one evaluation and runs the node's compiled closure (``scope.py``: the
context, the scoped lookups and the compile cache; the scope rules are stated there),
first unguarded and, if that went too deep, guarded (``_run``). Values are handed back
settled: a list literal's value becomes the plain list of its elements' values.

A list literal's value is a ``values.ExprList`` (element expressions evaluated when
read, as HTCondor's); the entry points hand back plain lists of values (``settle``), so
a list that contains itself (``a = { a }``) comes back as ``[undefined]``.

Deliberate differences from classad2 (documented and tested in the differential tests):
the names of HTCondor's match scaffolding (``lCtx``, ``LEFT``...) other than ``target``,
``other`` and ``ad`` are not visible; MY absent with a TARGET given still lets
``TARGET.x`` read TARGET (classad2 ignores the target then).
"""

from __future__ import annotations

from collections.abc import Callable

from .ast import Expr
from .cache import Compiled, compile_node
from .parser import parse_expr
from .printer import unparse_value
from .scope import (
    _GUARDED_RUNS,
    MAX_STEPS,
    Env,
    _eval_found,
    _no_ad,
    _TooDeep,
    resolve,
    settle,
)
from .values import Error


def _context(my: object | None, target: object | None) -> tuple[object, object | None]:
    if my is None:
        my = _no_ad()
    return my, None if target is my else target


def _run(
    fn: Compiled,
    cur: object,
    my: object,
    target: object | None,
    now: int | None,
    finish: Callable[[object], object] = settle,
) -> object:
    """``finish(fn(cur, env))``: first unguarded, then, if that went too deep, guarded."""
    try:
        try:
            return finish(fn(cur, Env(my, target, now)))
        except _TooDeep:
            pass
        _GUARDED_RUNS[0] += 1
        try:
            return finish(fn(cur, Env(my, target, now, guarded=True)))
        finally:
            _GUARDED_RUNS[0] -= 1
    except RecursionError:
        return Error


def evaluate(
    expr_or_text: Expr | str,
    my: object | None = None,
    target: object | None = None,
    *,
    now: int | None = None,
) -> object:
    """Evaluate an expression (or expression text) with MY = ``my`` and TARGET =
    ``target``; returns a value (see ``values.py``). ``now`` is what ``time()`` gives.

    Raises ``ClassAdSyntaxError`` for unparsable text; evaluation itself never raises
    (an expression nested too deeply for Python evaluates to error).
    """
    if isinstance(expr_or_text, str):
        expr_or_text = parse_expr(expr_or_text)
    my, target = _context(my, target)
    return _run(compile_node(expr_or_text, root=True), my, my, target, now)


def evaluate_printed(
    expr: Expr, my: object | None = None, target: object | None = None, *, now: int | None = None
) -> tuple[object, str]:
    """``evaluate``'s value and the value's text as HTCondor prints it (a list
    literal's value shows its element expressions: ``{ 1 + 1 }``), for ``condorlite
    eval``, which prints what ``classad_eval`` prints."""
    def finish(value: object) -> tuple[object, str]:
        return settle(value), unparse_value(value)

    my, target = _context(my, target)
    return _run(compile_node(expr, root=True), my, my, target, now, finish)  # type: ignore[return-value]


def evaluate_attribute(
    ad: object, name: str, target: object | None = None, *, now: int | None = None
) -> object:
    """The value of attribute ``name`` of ``ad`` (found in ``ad`` or an enclosing ad),
    evaluated in the ad that holds it with TARGET = ``target``; undefined if absent."""
    lname = name.lower()
    try:
        entry = ad._attrs.get(lname)  # type: ignore[union-attr]
    except AttributeError:
        entry = None
    if entry is not None:  # the common case: the ad's own attribute
        if target is ad:
            target = None
        try:
            return settle(_eval_found(ad, lname, entry[1], Env(ad, target, now)))
        except (_TooDeep, RecursionError):
            # Too deep for the unguarded fast path: the general way below settles it.
            pass
    my, target = _context(ad, target)
    return _run(lambda cur, env: resolve(cur, lname, env), my, my, target, now)


def exhausts_budget(ad: object, name: str, *, now: int | None = None) -> bool:
    """Whether attribute ``name`` of ``ad``, evaluated alone (no TARGET), makes more
    than ``MAX_STEPS`` attribute evaluations: an ad whose attributes multiply each
    other's cost. False when the ad has no such attribute."""
    lname = name.lower()
    try:
        entry = ad._attrs.get(lname)  # type: ignore[attr-defined]
    except AttributeError:
        return False
    if entry is None:
        return False
    env = Env(ad, None, now, guarded=True)
    _GUARDED_RUNS[0] += 1
    try:
        _eval_found(ad, lname, entry[1], env)
    except RecursionError:
        return False
    finally:
        _GUARDED_RUNS[0] -= 1
    return env.steps > MAX_STEPS


def requirements_hold(my: object, target: object, *, now: int | None = None) -> bool:
    """Whether ``my.Requirements``, evaluated with MY = ``my`` and TARGET = ``target``,
    is true: a true boolean, or a non-zero integer or real (NaN counts as non-zero),
    exactly as classad2's ``ClassAd.matches``. Absent, undefined, error, strings,
    lists and records are all "no"."""
    return _holds(my, Env(my, None if target is my else target, now))


def _holds(my: object, env: Env) -> bool:
    """``requirements_hold`` with the context made (MY = ``my``)."""
    try:
        entry = my._attrs.get("requirements")  # type: ignore[attr-defined]
    except AttributeError:
        entry = None
    if entry is None:  # absent here: the general lookup (enclosing ads, special names)
        value = evaluate_attribute(my, "requirements", env.target, now=env.now)
    else:
        try:
            value = _eval_found(my, "requirements", entry[1], env)
        except (_TooDeep, RecursionError):
            value = _run(_requirements, my, my, env.target, env.now)
    if value is True:
        return True
    kind = type(value)
    if kind is int or kind is float:
        return value != 0
    return False


def _requirements(cur: object, env: Env) -> object:
    return resolve(cur, "requirements", env)


def symmetric_match(a: object, b: object, *, now: int | None = None) -> bool:
    """The negotiator's match rule: both ads' Requirements hold, each evaluated with
    itself as MY and the other as TARGET (``requirements_hold`` both ways)."""
    if a is b:
        return requirements_hold(a, a, now=now)
    env = Env(a, b, now)  # one context for both ways round
    if not _holds(a, env):
        return False
    env.my = b
    env.target = a
    env.depth = 0  # an abandoned unguarded run does not unwind its count
    return _holds(b, env)
