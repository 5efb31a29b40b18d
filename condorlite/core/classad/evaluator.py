"""Evaluating ClassAd expressions, with HTCondor's daemon-mode semantics.

Each expression node is compiled once into a Python closure ``fn(cur, env) -> value``
(cached per node), where ``cur`` is the ad in which the expression is being evaluated
(HTCondor's ``state.curAd``) and ``env`` holds the match context. Operators on values
live in ``operators.py``, functions in ``builtins.py``.

Scopes (as HTCondor's ``MatchClassAd`` sets them up when both MY and TARGET are given):

* An unscoped name is looked up in ``cur``, then up its chain of enclosing ads
  (``parent``); if not found and ``cur`` is the top-level MY ad, in TARGET (and from
  TARGET, in MY): HTCondor's "alternate scope". A nested ad does not fall back to
  TARGET. An expression found by a lookup is evaluated with ``cur`` = the ad that
  holds it, so ``TARGET.x`` where ``x = y`` reads ``y`` in TARGET (or, failing that,
  in MY).
* ``MY.x`` (also ``SELF.x``) looks ``x`` up from ``cur`` and its enclosing ads;
  ``TARGET.x`` looks it up in the other ad of the match; ``PARENT.x`` in the ad
  enclosing ``cur``; ``.x`` in the outermost ad (undefined in a match, whose root is
  HTCondor's match scaffolding). ``base.x`` on a record looks ``x`` up from that
  record and its enclosing ads; on a list it maps over the elements.
* ``CurrentTime`` (when no attribute has that name) is ``time()``.
* A reference to an attribute whose evaluation is already in progress (a circular
  reference) is undefined; evaluation deeper than ``MAX_DEPTH`` references is error.

Deliberate differences from classad2 (documented and tested in the differential tests):
a list value is evaluated eagerly to a Python list of values, so a list that contains
itself (``a = { a }``) gives ``[undefined]`` where HTCondor builds an endless structure;
the names of HTCondor's match scaffolding (``lCtx``, ``LEFT``...) other than ``target``,
``other`` and ``ad`` are not visible; MY absent with a TARGET given still lets
``TARGET.x`` read TARGET (classad2 ignores the target then).
"""

from __future__ import annotations

from collections.abc import Callable

from . import operators as ops
from .ast import (
    AttrRef,
    Binary,
    Call,
    Conditional,
    Elvis,
    Expr,
    ListExpr,
    Literal,
    Paren,
    RecordExpr,
    Select,
    Subscript,
    Unary,
)
from .values import Error, Undefined, wrap_int64

MAX_DEPTH = 500
"""Nested attribute references beyond this depth evaluate to error (HTCondor has a
similar limit); it also keeps Python's recursion limit out of reach."""

Compiled = Callable[["object", "Env"], object]

# Names the lookup treats specially once no attribute of that name exists.
_SELF_NAMES = frozenset({"my", "self"})


class Env:
    """One evaluation's context: the match pair, the clock and the cycle guard.

    ``my``/``target`` are the two top-level ads of a match (``target`` None outside a
    match); ``active`` holds (id(ad), lower-case name) of attributes being evaluated.
    """

    __slots__ = ("active", "depth", "my", "now", "target")

    def __init__(self, my: object, target: object | None, now: int | None) -> None:
        self.my = my
        self.target = target
        self.now = now
        self.active: set[tuple[int, str]] = set()
        self.depth = 0

    def other(self, ad: object) -> object | None:
        """The alternate scope of a top-level ad in a match, else None."""
        if self.target is None:
            return None
        if ad is self.my:
            return self.target
        if ad is self.target:
            return self.my
        return None

    def root(self, ad: object) -> object | None:
        """The outermost ad above ``ad``; None in a match (HTCondor's root there is
        the match scaffolding, which holds no user attributes)."""
        if self.target is not None:
            return None
        while getattr(ad, "parent", None) is not None:
            ad = ad.parent  # type: ignore[attr-defined]
        return ad


# --- lookups -------------------------------------------------------------------------


def _lookup_in_scope(start: object, lname: str, env: Env) -> tuple[object, object]:
    """Resolve a lower-case name from ``start`` up its chain of enclosing ads.

    Returns ``(holder, expr)`` when an attribute is found, ``(None, value)`` when the
    name resolves directly to a value (a special name, or undefined).
    """
    ad = start
    while ad is not None:
        expr = ad.lookup(lname)  # type: ignore[attr-defined]
        if expr is not None:
            return ad, expr
        parent = ad.parent  # type: ignore[attr-defined]
        if lname in _SELF_NAMES:
            return None, ad
        if lname == "parent":
            # Above a top-level ad in a match sits HTCondor's scaffolding; it holds no
            # user attribute, so it is represented here by undefined.
            return None, Undefined if parent is None else parent
        if lname == "currenttime":
            return None, current_time(env)
        if parent is None:
            return None, _scaffold_name(ad, lname, env)
        ad = parent
    return None, Undefined


def _scaffold_name(top: object, lname: str, env: Env) -> object:
    """Names HTCondor's match context defines above the two ads: ``target`` and
    ``other`` (the other ad) and ``ad`` (this ad)."""
    other = env.other(top)
    if other is None:
        return Undefined
    if lname == "target" or lname == "other":
        return other
    if lname == "ad":
        return top
    return Undefined


def current_time(env: Env) -> int:
    """``time()``: the ``now`` given to the evaluation; without one, the real clock.

    Reading the clock here is the one documented exception to core's "no clock" rule:
    ``time()`` is part of the ClassAd language and callers that need determinism pass
    ``now``.
    """
    if env.now is not None:
        return env.now
    import time

    return int(time.time())


def _eval_found(holder: object, lname: str, expr: object, env: Env) -> object:
    """Evaluate an attribute's expression in the ad that holds it, guarding cycles."""
    key = (id(holder), lname)
    active = env.active
    if key in active:
        return Undefined
    if env.depth >= MAX_DEPTH:
        return Error
    active.add(key)
    env.depth += 1
    try:
        return compile_expr(expr)(holder, env)  # type: ignore[arg-type]
    finally:
        env.depth -= 1
        active.discard(key)


def resolve(start: object, lname: str, env: Env) -> object:
    """The value of name ``lname`` looked up from ``start`` (scoped lookup)."""
    holder, found = _lookup_in_scope(start, lname, env)
    if holder is None:
        return found
    return _eval_found(holder, lname, found, env)


def resolve_unscoped(cur: object, lname: str, env: Env) -> object:
    """An unscoped name: ``cur``'s chain first, then the alternate scope (TARGET)."""
    holder, found = _lookup_in_scope(cur, lname, env)
    if holder is not None:
        return _eval_found(holder, lname, found, env)
    if found is Undefined:
        other = env.other(cur)
        if other is not None:
            return resolve(other, lname, env)
    return found


def select(base: object, lname: str, env: Env) -> object:
    """``base.name`` on an evaluated base: records look it up, lists map over their
    elements, undefined/error propagate, anything else is error."""
    if base is Undefined or base is Error:
        return base
    if type(base) is list:
        return [select(item, lname, env) for item in base]
    if hasattr(base, "lookup"):
        return resolve(base, lname, env)
    return Error


# --- compilation ---------------------------------------------------------------------

_CACHE: dict[int, tuple[Expr, Compiled]] = {}
_CACHE_LIMIT = 200_000


def compile_expr(node: Expr) -> Compiled:
    """The closure for ``node``, built once and cached by node identity (the node is
    kept alive in the cache, so its id cannot be reused while the entry exists)."""
    hit = _CACHE.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    fn = _build(node)
    if len(_CACHE) >= _CACHE_LIMIT:
        _CACHE.clear()
    _CACHE[id(node)] = (node, fn)
    return fn


def _build(node: Expr) -> Compiled:
    match node:
        case Literal(value=value):
            return lambda cur, env: value
        case AttrRef(name=name, scope=scope):
            return _build_attr(name.lower(), scope)
        case Select(base=base, name=name):
            return _build_select(compile_expr(base), name.lower())
        case Subscript(base=base, index=index):
            return _build_subscript(compile_expr(base), compile_expr(index))
        case Unary(op=op, operand=operand):
            return _build_unary(op, compile_expr(operand))
        case Binary(op=op, left=left, right=right):
            return _build_binary(op, compile_expr(left), compile_expr(right))
        case Conditional(cond=cond, then=then, otherwise=otherwise):
            return _build_conditional(
                compile_expr(cond), compile_expr(then), compile_expr(otherwise)
            )
        case Elvis(left=left, right=right):
            return _build_elvis(compile_expr(left), compile_expr(right))
        case Paren(inner=inner):
            return compile_expr(inner)
        case Call(name=name, args=args):
            from .builtins import compile_call

            return compile_call(name, args)
        case ListExpr(items=items):
            fns = tuple(compile_expr(item) for item in items)
            return lambda cur, env: [fn(cur, env) for fn in fns]
        case RecordExpr(attrs=attrs):
            return _build_record(attrs)
    raise TypeError(f"not a ClassAd expression node: {node!r}")


def _build_attr(lname: str, scope: str | None) -> Compiled:
    if scope is None:
        return lambda cur, env: resolve_unscoped(cur, lname, env)
    if scope == "absolute":

        def absolute(cur: object, env: Env) -> object:
            root = env.root(cur)
            return Undefined if root is None else resolve(root, lname, env)

        return absolute
    # MY.x / TARGET.x / PARENT.x: the scope word is itself an unscoped name.
    return lambda cur, env: select(resolve_unscoped(cur, scope, env), lname, env)


def _build_select(base: Compiled, lname: str) -> Compiled:
    return lambda cur, env: select(base(cur, env), lname, env)


def _build_subscript(base_fn: Compiled, index_fn: Compiled) -> Compiled:
    def subscript(cur: object, env: Env) -> object:
        base = base_fn(cur, env)
        index = index_fn(cur, env)
        special = ops.strict2(base, index)
        if special is not None:
            return special
        if type(base) is list:
            if type(index) is not int:
                return Error
            i = ops.int_index(index)
            return base[i] if 0 <= i < len(base) else Error
        if type(index) is str and hasattr(base, "lookup"):
            lname = index.lower()
            # A record subscript reads only the record's own attributes.
            expr = base.lookup(lname)  # type: ignore[attr-defined]
            if expr is None:
                return Undefined
            return _eval_found(base, lname, expr, env)
        return Error

    return subscript


def _build_unary(op: str, operand: Compiled) -> Compiled:
    fn = {"-": ops.unary_minus, "+": ops.unary_plus, "!": ops.logical_not, "~": ops.bitwise_not}[op]
    return lambda cur, env: fn(operand(cur, env))


_INT_OPS: dict[str, Callable[[int, int], int]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
}
_COMPARE_OPS = frozenset({"==", "!=", "<", "<=", ">", ">="})
_BITWISE_OPS = frozenset({"&", "|", "^", "<<", ">>", ">>>"})


def _build_binary(op: str, left: Compiled, right: Compiled) -> Compiled:
    if op == "&&":
        return _build_and(left, right)
    if op == "||":
        return _build_or(left, right)
    if op in ("=?=", "is"):
        return lambda cur, env: ops.meta_equal(left(cur, env), right(cur, env))
    if op in ("=!=", "isnt"):
        return lambda cur, env: ops.meta_not_equal(left(cur, env), right(cur, env))
    if op in _COMPARE_OPS:
        return _build_compare(op, left, right)
    if op in _BITWISE_OPS:
        return lambda cur, env: ops.bitwise(op, left(cur, env), right(cur, env))
    if op in ("+", "-", "*", "/", "%"):
        return _build_arith(op, left, right)
    raise TypeError(f"unknown binary operator {op!r}")


def _build_arith(op: str, left: Compiled, right: Compiled) -> Compiled:
    int_op = _INT_OPS.get(op)
    arithmetic = ops.arithmetic
    if int_op is None:
        return lambda cur, env: arithmetic(op, left(cur, env), right(cur, env))

    def arith(cur: object, env: Env) -> object:
        a = left(cur, env)
        b = right(cur, env)
        if type(a) is int and type(b) is int:  # the common case, without the detour
            return wrap_int64(int_op(a, b))
        return arithmetic(op, a, b)

    return arith


def _build_compare(op: str, left: Compiled, right: Compiled) -> Compiled:
    compare = ops.compare
    fast = {
        "==": lambda a, b: a == b,
        "!=": lambda a, b: a != b,
        "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b,
        ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b,
    }[op]

    def comparison(cur: object, env: Env) -> object:
        a = left(cur, env)
        b = right(cur, env)
        if type(a) is int and type(b) is int:  # exact, like C's long long compare
            return fast(a, b)
        return compare(op, a, b)

    return comparison


def _build_and(left: Compiled, right: Compiled) -> Compiled:
    def logical_and(cur: object, env: Env) -> object:
        a = left(cur, env)
        if a is False:
            return False
        if a is True:
            b = right(cur, env)
            if type(b) is bool:
                return b
            return ops.logical_and(True, b)
        if ops.bool_equiv(a) is False:  # short circuit: false && anything
            return False
        return ops.logical_and(a, right(cur, env))

    return logical_and


def _build_or(left: Compiled, right: Compiled) -> Compiled:
    def logical_or(cur: object, env: Env) -> object:
        a = left(cur, env)
        if a is True or ops.bool_equiv(a) is True:  # short circuit: true || anything
            return True
        return ops.logical_or(a, right(cur, env))

    return logical_or


def _build_conditional(cond: Compiled, then: Compiled, otherwise: Compiled) -> Compiled:
    def conditional(cur: object, env: Env) -> object:
        selector = cond(cur, env)
        choice = ops.bool_equiv(selector)
        if choice is True:
            return then(cur, env)
        if choice is False:
            return otherwise(cur, env)
        return Undefined if selector is Undefined else Error

    return conditional


def _build_elvis(left: Compiled, right: Compiled) -> Compiled:
    def elvis(cur: object, env: Env) -> object:
        a = left(cur, env)
        return right(cur, env) if a is Undefined else a

    return elvis


def _build_record(attrs: tuple[tuple[str, Expr], ...]) -> Compiled:
    def record(cur: object, env: Env) -> object:
        from .ad import ClassAd

        ad = ClassAd(attrs)
        ad.parent = cur
        return ad

    return record


# --- public API ----------------------------------------------------------------------


def _context(my: object | None, target: object | None, now: int | None) -> tuple[object, Env]:
    if my is None:
        from .ad import ClassAd

        my = ClassAd()
    if target is my:
        target = None
    return my, Env(my, target, now)


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
        from .parser import parse_expr

        expr_or_text = parse_expr(expr_or_text)
    cur, env = _context(my, target, now)
    try:
        return compile_expr(expr_or_text)(cur, env)
    except RecursionError:
        return Error


def evaluate_attribute(
    ad: object, name: str, target: object | None = None, *, now: int | None = None
) -> object:
    """The value of attribute ``name`` of ``ad`` (found in ``ad`` or an enclosing ad),
    evaluated in the ad that holds it with TARGET = ``target``; undefined if absent."""
    cur, env = _context(ad, target, now)
    lname = name.lower()
    try:
        holder, found = _lookup_in_scope(cur, lname, env)
        if holder is None:
            return found
        return _eval_found(holder, lname, found, env)
    except RecursionError:
        return Error


def requirements_hold(my: object, target: object, *, now: int | None = None) -> bool:
    """Whether ``my.Requirements``, evaluated with MY = ``my`` and TARGET = ``target``,
    is true: a true boolean, or a non-zero integer or real (NaN counts as non-zero),
    exactly as classad2's ``ClassAd.matches``. Absent, undefined, error, strings,
    lists and records are all "no"."""
    value = evaluate_attribute(my, "requirements", target, now=now)
    if value is True:
        return True
    kind = type(value)
    if kind is int or kind is float:
        return value != 0
    return False


def symmetric_match(a: object, b: object, *, now: int | None = None) -> bool:
    """The negotiator's match rule: both ads' Requirements hold, each evaluated with
    itself as MY and the other as TARGET (``requirements_hold`` both ways)."""
    return requirements_hold(a, b, now=now) and requirements_hold(b, a, now=now)
