"""Partial evaluation: an expression specialised for a match in which a few attributes
vary.

A negotiation cycle evaluates the same job against states of one partitionable slot
that differ only in what carving changed (``Cpus``, ``Memory``, ``Disk``...): every
other binding, in both ads, stays the same. ``specialize`` evaluates once everything
that does not depend on the varying (*free*) attributes and returns a *residual*: a
function of the free attributes' values that gives exactly what the full evaluation
would give in the ad with those values bound.

Contract (``vals`` a tuple of values, one per free attribute, in the order given):

    specialize(node, my, target, free, now)(vals)
        == evaluate(node, my', target', now)

where ``my'``/``target'`` bind each free attribute ``(ad, name)`` to the literal
``vals[i]`` and are otherwise the same ads. It holds because the walk below is the
reference walker's (``reference.py``) rule for rule, with one change: a value that
depends on a free attribute is not computed but kept as a closure applying the same
operator (``operators.py``) or built-in to the same operands. A free attribute must be
bound to a literal in every state (a literal reads nothing, so its name reaches
nothing else), and the other bindings must not change between states: the caller
keys a residual by everything the walk can read.

This module is the walk: which nodes are walked, in which order, and how a name is
found (the scopes, the free and given attributes, the depth and step limits). What a
walked operator makes of operands that are residuals is elsewhere: the values that
depend on free attributes (``Res``), the operators on them and their bounds are in
``residuals.py``; the residuals of the operators that choose what they evaluate
(``&&``, ``||``, ``?:``, ``ifThenElse``, elvis) and the bounds of a conjunction in
``residual_logic.py``.

``specialize`` returns None (the caller then evaluates in full) when the expression
uses what a residual cannot reproduce exactly: nested record literals, a record or an
ad flowing into an operator or a function (it could be read later, free attributes
included), the lazy built-ins other than ``ifThenElse``, ``debug`` and ``time``
(``eval`` parses text computed at run time), lists of records, a list literal
whose elements meet a cycle, and absolute
references outside a match.
"""

from __future__ import annotations

from collections.abc import Sequence

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
    Select,
    Subscript,
    Unary,
)
from .functions import REGISTRY
from .reference import _find
from .residual_logic import choice, elvis, junction, known_junction
from .residual_types import arithmetic as typed_arithmetic
from .residual_types import fold_call, fold_meta, typed_of
from .residual_types import free as typed_free
from .residuals import (
    BINARY_FNS,
    PY_COMPARE,
    UNARY,
    Bail,
    Res,
    Residual,
    apply_fn,
    arithmetic,
    binary_fn,
    comparison,
    is_ad,
    list_subscript,
    plain,
)
from .scope import MAX_DEPTH, MAX_STEPS, Env, current_time
from .values import Error, Undefined

#: the operators ``residuals.arithmetic`` makes the residuals of
_ARITHMETIC = frozenset(("+", "-", "*"))


class _State:
    __slots__ = ("active", "depth", "env", "free", "given", "given_read", "kinds", "reads",
                 "steps")

    def __init__(self, env: Env, free: dict[tuple[int, str], int],
                 reads: set[tuple[int, str]] | None,
                 given: dict[tuple[int, str], int] | None = None,
                 kinds: Sequence[type] | None = None) -> None:
        self.env = env
        self.free = free
        #: the free values' types when the residual is made for them
        #: (``specialize``'s ``kinds``), else None
        self.kinds = kinds
        #: the attributes whose values the caller gives after the free ones
        #: (``specialize``'s ``given``), by (id(ad), lower-case name), and whether the
        #: residual reads one
        self.given = given
        self.given_read = False
        self.active: set[tuple[int, str]] = set()
        self.depth = 0
        #: attribute evaluations made so far (``scope.MAX_STEPS``)
        self.steps = 0
        #: (id(ad), name) of every lookup made, when the caller asked for them
        self.reads = reads


def specialize(
    node: Expr,
    my: object,
    target: object | None,
    free: Sequence[tuple[object, str]],
    now: int | None,
    reads: set[tuple[int, str]] | None = None,
    given: Sequence[tuple[object, str]] = (),
    kinds: Sequence[type] | None = None,
) -> Residual | None:
    """The residual of ``node`` evaluated with MY = ``my``, TARGET = ``target``, the
    attributes ``free`` (``(ad, name)`` pairs) varying; None if it cannot be made.

    ``reads``, when given, receives ``(id(ad), lower-case name)`` for every name the
    walk looked up in an ad (found or not): the residual (or the refusal) depends on
    nothing else than those bindings, the free attributes and ``now``.

    ``given``: attributes (``(ad, name)``, any expression) whose value at the state
    the caller has already worked out, as ``specialize_attribute(ad, name, target,
    free, now)`` gives it, and puts in ``vals`` after the free ones (``given[i]`` at
    ``vals[len(free) + i]``). Where the walk evaluates one of them in the context the
    attribute's own residual is made in (straight from ``node``: no attribute being
    evaluated, depth 0), the walk is made as ever (the same reads, the same refusals,
    the same steps counted) and, when its value is a residual and the step limit was
    not reached, the residual reads the given value instead of running the
    attribute's again: the same walk from the same state gives the same value
    (``_evaluate_in``). A residual that reads one has ``reads_given`` set true.

    ``kinds``: the free values' types (one per free attribute, no ``Special``): the
    residual is then made for ``vals`` of those types alone, its type tests folded
    away (``residual_types``; the contract holds for such ``vals``), and returned as
    its ``residual_types.Typed`` source when it has one (``residual_types.compiled``
    makes it a function; ``typed_runner`` does)."""
    return _top(lambda st: _walk(node, my, st), my, target, free, now, reads, given, kinds)


def specialize_attribute(
    ad: object,
    name: str,
    target: object | None,
    free: Sequence[tuple[object, str]],
    now: int | None,
    reads: set[tuple[int, str]] | None = None,
) -> Residual | None:
    """The residual of attribute ``name`` of ``ad`` (MY = ``ad``); see ``specialize``."""
    return _top(lambda st: _scoped(ad, name.lower(), st), ad, target, free, now, reads)


def _top(run, my, target, free, now, reads, given=(), kinds=None) -> Residual | None:  # type: ignore[no-untyped-def]
    env = Env(my, None if target is my else target, now, guarded=True)
    state = _State(env, {(id(ad), name.lower()): i for i, (ad, name) in enumerate(free)},
                   reads, {(id(ad), name.lower()): len(free) + i
                           for i, (ad, name) in enumerate(given)} if given else None,
                   kinds)
    try:
        result = run(state)
        if type(result) is Res:
            if state.given_read:
                result.fn.reads_given = True
            if state.kinds is not None:
                # (made for the free values' types: its source, compiled by the caller)
                return typed_of(result) or result.fn
            return result.fn
        plain(result)
    except (Bail, RecursionError):
        return None
    return Constant(result)


class Constant:
    """The residual of an expression that reads no free attribute: ``value`` for
    every vector (callers may test for it and use ``value`` directly)."""

    __slots__ = ("value",)

    def __init__(self, value: object) -> None:
        self.value = value

    def __call__(self, vals: Sequence[object]) -> object:
        return self.value


# -- names -------------------------------------------------------------------------------


def _evaluate_in(holder: object, lname: str, expr: Expr, st: _State) -> object:
    index = st.free.get((id(holder), lname))
    if index is not None:
        if type(expr) is not Literal:
            raise Bail  # the contract: a free attribute is a literal in every state
        if st.kinds is not None:
            return typed_free(_free_value(index), index, st.kinds[index])
        return Res(_free_value(index))
    key = (id(holder), lname)
    if st.given is not None and key in st.given and st.depth == 0 and not st.active:
        # The attribute's own residual (``specialize_attribute``) is this same walk
        # from this same state (nothing active, depth 0), but for the steps counted
        # before it: when the walk stays within the limit, so did that one, and its
        # value is the caller's (``specialize``'s ``given``).
        value = _evaluate_walk(holder, lname, expr, key, st)
        if type(value) is Res and st.steps <= MAX_STEPS:
            st.given_read = True
            return Res(_given_value(st.given[key]))
        return value
    return _evaluate_walk(holder, lname, expr, key, st)


def _evaluate_walk(holder: object, lname: str, expr: Expr, key: tuple[int, str],
                   st: _State) -> object:
    if key in st.active:
        return Undefined
    if st.depth >= MAX_DEPTH:
        return Error
    st.steps += 1
    if st.steps > MAX_STEPS:
        return Error
    st.active.add(key)
    st.depth += 1
    try:
        return _walk(expr, holder, st)
    finally:
        st.depth -= 1
        st.active.discard(key)


def _free_value(index: int) -> Residual:
    def free_value(vals):  # type: ignore[no-untyped-def]
        return vals[index]

    free_value.free_index = index  # type: ignore[attr-defined]  # (read by comparison)
    return free_value


def _given_value(index: int) -> Residual:
    """A given attribute's value (``specialize``'s ``given``): no free attribute, so
    no ``free_index`` (no bound on the vector is made of it)."""
    def given_value(vals):  # type: ignore[no-untyped-def]
        return vals[index]

    return given_value


def _scoped(start: object, lname: str, st: _State) -> object:
    if st.reads is not None:
        st.reads.add((id(start), lname))
    holder, found = _find(start, lname, st.env)
    return found if holder is None else _evaluate_in(holder, lname, found, st)  # type: ignore[arg-type]


def _unscoped(cur: object, lname: str, st: _State) -> object:
    if st.reads is not None:
        st.reads.add((id(cur), lname))
    holder, found = _find(cur, lname, st.env)
    if holder is not None:
        return _evaluate_in(holder, lname, found, st)  # type: ignore[arg-type]
    other = st.env.other(cur)
    if found is Undefined and other is not None:
        return _scoped(other, lname, st)
    return found


def _select(base: object, lname: str, st: _State) -> object:
    if type(base) is Res:
        raise Bail
    if base is Undefined or base is Error:
        return base
    if isinstance(base, list):
        raise Bail
    if is_ad(base):
        return _scoped(base, lname, st)
    return Error


# -- nodes -------------------------------------------------------------------------------


def _walk(node: Expr, cur: object, st: _State) -> object:
    kind = type(node)
    if kind is Literal:
        return node.value  # type: ignore[attr-defined]
    if kind is AttrRef:
        scope, lname = node.scope, node.name.lower()  # type: ignore[attr-defined]
        if scope is None:
            return _unscoped(cur, lname, st)
        if scope == "absolute":
            root = st.env.root(cur)
            if root is not None:
                raise Bail
            return Undefined
        return _select(_unscoped(cur, scope, st), lname, st)
    if kind is Paren:
        return _walk(node.inner, cur, st)  # type: ignore[attr-defined]
    if kind is Binary:
        return _binary(node, cur, st)  # type: ignore[arg-type]
    if kind is Unary:
        fn = UNARY[node.op]  # type: ignore[attr-defined]
        return apply_fn(fn, (_walk(node.operand, cur, st),))  # type: ignore[attr-defined]
    if kind is Select:
        return _select(_walk(node.base, cur, st), node.name.lower(), st)  # type: ignore[attr-defined]
    if kind is Conditional:
        return _choose(_walk(node.cond, cur, st), node.then, node.otherwise, cur, st)  # type: ignore[attr-defined]
    if kind is Elvis:
        return _elvis(node, cur, st)  # type: ignore[arg-type]
    if kind is Call:
        return _call(node, cur, st)  # type: ignore[arg-type]
    if kind is ListExpr:
        # A list literal's value keeps its element expressions (values.ExprList), read
        # later in the state and ad of the reader: only a subscript straight on the
        # literal is walked (``_literal_subscript``).
        raise Bail
    if kind is Subscript:
        return _subscript(node, cur, st)  # type: ignore[arg-type]
    raise Bail  # records, and any node kind this walk does not know


def _binary(node: Binary, cur: object, st: _State) -> object:
    op = node.op
    left = _walk(node.left, cur, st)
    if op == "&&" or op == "||":
        if type(left) is not Res:
            if ops.bool_equiv(plain(left)) is (op == "||"):
                return op == "||"  # (the left value settles it: the right is not walked)
            return known_junction(op, left, _walk(node.right, cur, st))
        return junction(op, left, _walk(node.right, cur, st))
    right = _walk(node.right, cur, st)
    if st.kinds is not None:
        typed = _typed_binary(op, left, right)
        if typed is not None:
            return typed
    if op in PY_COMPARE:
        return comparison(op, left, right)
    if op in _ARITHMETIC:
        return arithmetic(op, left, right)
    return apply_fn(BINARY_FNS.get(op) or binary_fn(op), (left, right))


def _typed_binary(op: str, left: object, right: object) -> object:
    """``left op right`` made for the free values' types (``residual_types``), None
    where that rule does not apply (made as ever)."""
    if op in _ARITHMETIC:
        return typed_arithmetic(op, left, right)
    folded, value = fold_meta(op, left, right)
    return value if folded else None


def _choose(selector: object, then: Expr, otherwise: Expr, cur: object, st: _State) -> object:
    """``cond ? then : otherwise`` (and ``ifThenElse``) with ``selector`` the condition's
    value: only the chosen branch when the condition is known, both otherwise
    (walking a branch has no effect on the other), made one residual by
    ``residual_logic.choice``."""
    if type(selector) is not Res:
        choice_of = ops.bool_equiv(plain(selector))
        if choice_of is None:
            return Undefined if selector is Undefined else Error
        return _walk(then if choice_of else otherwise, cur, st)
    return choice(selector, _walk(then, cur, st), _walk(otherwise, cur, st))


def _elvis(node: Elvis, cur: object, st: _State) -> object:
    left = _walk(node.left, cur, st)
    if type(left) is not Res:
        return _walk(node.right, cur, st) if left is Undefined else left
    return elvis(left, _walk(node.right, cur, st))


def _call(node: Call, cur: object, st: _State) -> object:
    lname = node.name.lower()
    spec = REGISTRY.get(lname)
    if spec is None or not spec.min_arity <= len(node.args) <= spec.max_arity:
        return Error
    if spec.lazy:
        if lname == "ifthenelse":
            cond, then, otherwise = node.args
            return _choose(_walk(cond, cur, st), then, otherwise, cur, st)
        if lname == "debug":
            return _walk(node.args[0], cur, st)
        if lname == "time":
            return current_time(st.env)
        raise Bail
    args = [_walk(arg, cur, st) for arg in node.args]
    if st.kinds is not None:
        folded, value = fold_call(lname, spec.fn, args)
        if folded:
            return value
    return apply_fn(spec.fn, args)


def _subscript(node: Subscript, cur: object, st: _State) -> object:
    literal = node.base
    while type(literal) is Paren:
        literal = literal.inner  # type: ignore[attr-defined]
    if type(literal) is ListExpr:
        return _literal_subscript(literal, node.index, cur, st)  # type: ignore[arg-type]
    base = _walk(node.base, cur, st)
    index = _walk(node.index, cur, st)
    if type(base) is not Res and is_ad(base):
        raise Bail  # a record subscript evaluates the record's attribute: not here
    return apply_fn(list_subscript, (base, index))


def _literal_subscript(literal: ListExpr, index_node: Expr, cur: object, st: _State) -> object:
    """``{ e0, e1, ... }[i]``: the literal evaluates none of its elements; the
    subscript then evaluates element i alone, in this ad and state, as the walk is
    now. A residual index could pick any element: refused."""
    index = _walk(index_node, cur, st)
    if type(index) is Res:
        raise Bail
    if index is Undefined or index is Error:
        return index
    if type(index) is not int:
        return Error
    i = ops.int_index(index)
    if not 0 <= i < len(literal.items):
        return Error
    return _walk(literal.items[i], cur, st)
