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

*Bounds.* A residual that is a conjunction (``&&``; ``true && b`` and ``false || b``
count as ``b``) of comparisons between one free attribute and a number literal or
another free attribute carries them as ``fn.atoms``: a tuple of
``(index, op, operand, test)``, read as ``vals[index] op operand`` (``op`` one of
``< <= > >= == !=``, the attribute on the left; ``operand`` a number, or a
``FreeRef`` for ``vals[operand.index]``), ``test`` the comparison's own residual.
Whenever every free value is an integer or a real, ``fn(vals)`` is the boolean
``all(test(vals) for ..., test in fn.atoms)``, each atom being ``compare_numbers``
of its two values; a caller may then decide some atoms without evaluating them
(``carving`` does, from what a fit already checked) or make new tests of them
(``bound_test``).

``specialize`` returns None (the caller then evaluates in full) when the expression
uses what a residual cannot reproduce exactly: nested record literals, a record or an
ad flowing into an operator or a function (it could be read later, free attributes
included), the lazy built-ins other than ``ifThenElse``, ``debug`` and ``time``
(``eval`` parses text computed at run time), lists of records, a list literal
whose elements meet a cycle, and absolute
references outside a match.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence

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
from .builtins import REGISTRY
from .evaluator import MAX_DEPTH, MAX_STEPS, Env, current_time
from .reference import _find
from .values import Error, Undefined

Residual = Callable[[Sequence[object]], object]


class _Bail(Exception):
    """The expression cannot be specialised exactly (see the module doc)."""


class _Res:
    """A value that depends on the free attributes: ``fn(vals)`` computes it."""

    __slots__ = ("fn",)

    def __init__(self, fn: Residual) -> None:
        self.fn = fn


def _is_ad(value: object) -> bool:
    return hasattr(value, "lookup") and not isinstance(value, (str, list))


def _plain(value: object) -> object:
    """A known value about to be consumed by an operator or a function: an ad (or a
    list holding one) could be read later, free attributes included."""
    if _is_ad(value) or (type(value) is list and any(_holds_ad(v) for v in value)):
        raise _Bail
    return value


def _holds_ad(value: object) -> bool:
    if type(value) is list:
        return any(_holds_ad(v) for v in value)
    return _is_ad(value)


class _State:
    __slots__ = ("active", "depth", "env", "free", "reads", "steps")

    def __init__(self, env: Env, free: dict[tuple[int, str], int],
                 reads: set[tuple[int, str]] | None) -> None:
        self.env = env
        self.free = free
        self.active: set[tuple[int, str]] = set()
        self.depth = 0
        #: attribute evaluations made so far (``evaluator.MAX_STEPS``)
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
) -> Residual | None:
    """The residual of ``node`` evaluated with MY = ``my``, TARGET = ``target``, the
    attributes ``free`` (``(ad, name)`` pairs) varying; None if it cannot be made.

    ``reads``, when given, receives ``(id(ad), lower-case name)`` for every name the
    walk looked up in an ad (found or not): the residual (or the refusal) depends on
    nothing else than those bindings, the free attributes and ``now``."""
    return _top(lambda st: _walk(node, my, st), my, target, free, now, reads)


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


def _top(run, my, target, free, now, reads) -> Residual | None:  # type: ignore[no-untyped-def]
    env = Env(my, None if target is my else target, now, guarded=True)
    state = _State(env, {(id(ad), name.lower()): i for i, (ad, name) in enumerate(free)},
                   reads)
    try:
        result = run(state)
        if type(result) is _Res:
            return result.fn
        _plain(result)
    except (_Bail, RecursionError):
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
            raise _Bail  # the contract: a free attribute is a literal in every state
        return _Res(_free_value(index))
    key = (id(holder), lname)
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

    free_value.free_index = index  # type: ignore[attr-defined]  # (read by _comparison)
    return free_value


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
    if type(base) is _Res:
        raise _Bail
    if base is Undefined or base is Error:
        return base
    if isinstance(base, list):
        raise _Bail
    if _is_ad(base):
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
                raise _Bail
            return Undefined
        return _select(_unscoped(cur, scope, st), lname, st)
    if kind is Paren:
        return _walk(node.inner, cur, st)  # type: ignore[attr-defined]
    if kind is Binary:
        return _binary(node, cur, st)  # type: ignore[arg-type]
    if kind is Unary:
        fn = _UNARY[node.op]  # type: ignore[attr-defined]
        return _apply(fn, (_walk(node.operand, cur, st),))  # type: ignore[attr-defined]
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
        raise _Bail
    if kind is Subscript:
        return _subscript(node, cur, st)  # type: ignore[arg-type]
    raise _Bail  # records, and any node kind this walk does not know


def _apply(fn: Callable[..., object], operands: Sequence[object]) -> object:
    """``fn(*operands)`` now when every operand is known, else a residual applying it."""
    parts = [p if type(p) is _Res else _plain(p) for p in operands]
    if not any(type(p) is _Res for p in parts):
        return fn(*parts)
    getters = tuple(p.fn if type(p) is _Res else _const(p) for p in parts)  # type: ignore[union-attr]
    if len(getters) == 1:
        (only,) = getters
        return _Res(lambda vals: fn(only(vals)))
    if len(getters) == 2:
        first, second = getters
        return _Res(lambda vals: fn(first(vals), second(vals)))
    return _Res(lambda vals: fn(*[g(vals) for g in getters]))


def _const(value: object) -> Residual:
    return lambda vals: value


def _getter(part: object) -> Residual:
    return part.fn if type(part) is _Res else _const(_plain(part))  # type: ignore[union-attr]


def _binary(node: Binary, cur: object, st: _State) -> object:
    op = node.op
    left = _walk(node.left, cur, st)
    if op == "&&" or op == "||":
        stop = op == "||"  # the left value that settles the answer without the right
        combine = ops.logical_or if stop else ops.logical_and
        if type(left) is not _Res:
            if ops.bool_equiv(_plain(left)) is stop:
                return stop
            right = _walk(node.right, cur, st)
            out = _apply(lambda b: combine(left, b), (right,))
            if left is (not stop) and type(right) is _Res:
                # true && b and false || b are b for a boolean b: the bounds of b are
                # those of the whole
                _carry_atoms(out, _atoms_of(right))
            return out
        right = _walk(node.right, cur, st)
        right_fn = _getter(right)
        left_fn = left.fn
        go_on = not stop  # the boolean left value that leaves the answer to the right

        def junction(vals):  # type: ignore[no-untyped-def]
            a = left_fn(vals)
            if a is go_on:
                b = right_fn(vals)
                if type(b) is bool:
                    return b  # true && b, false || b: b itself when boolean
                return combine(a, b)
            if ops.bool_equiv(a) is stop:
                return stop
            return combine(a, right_fn(vals))

        if not stop:
            # a && b of two conjunctions of bounds (b true: a itself, for a boolean a)
            first = getattr(left_fn, "atoms", None)
            second = () if right is True else _atoms_of(right)
            if first is not None and second is not None:
                junction.atoms = first + second  # type: ignore[attr-defined]
        return _Res(junction)
    right = _walk(node.right, cur, st)
    if op in _PY_COMPARE:
        return _comparison(op, left, right)
    return _apply(_BINARY_FNS.get(op) or _binary_fn(op), (left, right))


_PY_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
               "==": operator.eq, "!=": operator.ne}
#: ``c op x`` is ``x FLIPPED[op] c``
FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def _atoms_of(value: object) -> tuple | None:
    """The bounds a value carries (module doc): those of a residual, else None."""
    return getattr(value.fn, "atoms", None) if type(value) is _Res else None  # type: ignore[attr-defined]


def _carry_atoms(out: object, atoms: tuple | None) -> None:
    if atoms is not None and type(out) is _Res:
        out.fn.atoms = atoms  # type: ignore[attr-defined]


class FreeRef:
    """An atom's operand that is a free value: ``vals[index]``."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def __repr__(self) -> str:
        return f"FreeRef({self.index})"


def compare_numbers(op: str, a: object, b: object) -> object:
    """``a op b`` as the comparison residuals compute it: Python's operator for two
    integers or two reals (exact, as ClassAd), ``operators.compare`` otherwise."""
    kind = type(a)
    if kind is type(b) and (kind is int or kind is float):
        return _PY_COMPARE[op](a, b)
    return ops.compare(op, a, b)


def bound_test(index: int, op: str, number: int | float) -> Residual:
    """The residual of ``vals[index] op number`` (a comparison with a number literal),
    carrying its atom."""
    fn, general, const_type = _PY_COMPARE[op], ops.compare, type(number)

    def against_right(vals):  # type: ignore[no-untyped-def]
        a = vals[index]
        return fn(a, number) if type(a) is const_type else general(op, a, number)

    against_right.atoms = ((index, op, number, against_right),)  # type: ignore[attr-defined]
    return against_right


def _bound(test: Residual, get: Residual, op: str, const: object) -> Residual:
    """``test`` (a comparison of ``get``'s value with ``const``), with its bound as an
    atom when ``get`` is a free attribute itself."""
    index = getattr(get, "free_index", None)
    if index is not None:
        test.atoms = ((index, op, const, test),)  # type: ignore[attr-defined]
    return test


def _comparison(op: str, left: object, right: object) -> object:
    """A numeric comparison, with a direct path for two operands of one numeric type
    (two integers or two reals compare in Python exactly as in ClassAd; anything
    else, mixed int/real included, goes through ``operators.compare``)."""
    if type(left) is not _Res and type(right) is not _Res:
        return ops.compare(op, _plain(left), _plain(right))
    fn = _PY_COMPARE[op]
    general = ops.compare
    if type(right) is not _Res:
        const, const_type, get = _plain(right), type(right), left.fn  # type: ignore[union-attr]
        if const_type is int or const_type is float:
            def against_right(vals):  # type: ignore[no-untyped-def]
                a = get(vals)
                return fn(a, const) if type(a) is const_type else general(op, a, const)
            return _Res(_bound(against_right, get, op, const))
    elif type(left) is not _Res:
        const, const_type, get = _plain(left), type(left), right.fn  # type: ignore[union-attr]
        if const_type is int or const_type is float:
            def against_left(vals):  # type: ignore[no-untyped-def]
                b = get(vals)
                return fn(const, b) if type(b) is const_type else general(op, const, b)
            return _Res(_bound(against_left, get, FLIPPED[op], const))
    first, second = _getter(left), _getter(right)

    def both(vals):  # type: ignore[no-untyped-def]
        a, b = first(vals), second(vals)
        kind = type(a)
        if kind is type(b) and (kind is int or kind is float):
            return fn(a, b)
        return general(op, a, b)

    index, other = getattr(first, "free_index", None), getattr(second, "free_index", None)
    if index is not None and other is not None:
        both.atoms = ((index, op, FreeRef(other), both),)  # type: ignore[attr-defined]
    return _Res(both)


def _binary_fn(op: str) -> Callable[[object, object], object]:
    if op in ("==", "!=", "<", "<=", ">", ">="):
        return lambda a, b: ops.compare(op, a, b)
    if op in ("+", "-", "*"):
        return ops.arithmetic_fn(op)
    if op in ("/", "%"):
        return lambda a, b: ops.arithmetic(op, a, b)
    return lambda a, b: ops.bitwise(op, a, b)


_BINARY_FNS: dict[str, Callable[[object, object], object]] = {
    "=?=": ops.meta_equal, "is": ops.meta_equal,
    "=!=": ops.meta_not_equal, "isnt": ops.meta_not_equal,
}
_BINARY_FNS.update({op: _binary_fn(op) for op in (
    "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>",
    ">>>")})

_UNARY = {"-": ops.unary_minus, "+": ops.unary_plus, "!": ops.logical_not, "~": ops.bitwise_not}


def _choose(selector: object, then: Expr, otherwise: Expr, cur: object, st: _State) -> object:
    """``cond ? then : otherwise`` (and ``ifThenElse``) with ``selector`` the condition's
    value: only the chosen branch when the condition is known, both as residuals
    otherwise (walking a branch has no effect on the other)."""
    if type(selector) is not _Res:
        choice = ops.bool_equiv(_plain(selector))
        if choice is None:
            return Undefined if selector is Undefined else Error
        return _walk(then if choice else otherwise, cur, st)
    cond_fn = selector.fn
    then_fn = _getter(_walk(then, cur, st))
    else_fn = _getter(_walk(otherwise, cur, st))

    def choose(vals):  # type: ignore[no-untyped-def]
        value = cond_fn(vals)
        choice = ops.bool_equiv(value)
        if choice is None:
            return Undefined if value is Undefined else Error
        return then_fn(vals) if choice else else_fn(vals)

    return _Res(choose)


def _elvis(node: Elvis, cur: object, st: _State) -> object:
    left = _walk(node.left, cur, st)
    if type(left) is not _Res:
        return _walk(node.right, cur, st) if left is Undefined else left
    left_fn, right_fn = left.fn, _getter(_walk(node.right, cur, st))

    def elvis(vals):  # type: ignore[no-untyped-def]
        value = left_fn(vals)
        return right_fn(vals) if value is Undefined else value

    return _Res(elvis)


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
        raise _Bail
    return _apply(spec.fn, [_walk(arg, cur, st) for arg in node.args])


def _subscript(node: Subscript, cur: object, st: _State) -> object:
    literal = node.base
    while type(literal) is Paren:
        literal = literal.inner  # type: ignore[attr-defined]
    if type(literal) is ListExpr:
        return _literal_subscript(literal, node.index, cur, st)  # type: ignore[arg-type]
    base = _walk(node.base, cur, st)
    index = _walk(node.index, cur, st)
    if type(base) is not _Res and _is_ad(base):
        raise _Bail  # a record subscript evaluates the record's attribute: not here
    return _apply(_list_subscript, (base, index))


def _literal_subscript(literal: ListExpr, index_node: Expr, cur: object, st: _State) -> object:
    """``{ e0, e1, ... }[i]``: the literal evaluates none of its elements; the
    subscript then evaluates element i alone, in this ad and state, as the walk is
    now. A residual index could pick any element: refused."""
    index = _walk(index_node, cur, st)
    if type(index) is _Res:
        raise _Bail
    if index is Undefined or index is Error:
        return index
    if type(index) is not int:
        return Error
    i = ops.int_index(index)
    if not 0 <= i < len(literal.items):
        return Error
    return _walk(literal.items[i], cur, st)


def _list_subscript(base: object, index: object) -> object:
    """The reference walker's subscript for everything but records."""
    special = ops.strict2(base, index)
    if special is not None:
        return special
    if type(base) is list:
        if type(index) is not int:
            return Error
        i = ops.int_index(index)
        if not 0 <= i < len(base):
            return Error
        return base[i]  # type: ignore[index]
    return Error

