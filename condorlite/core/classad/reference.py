"""The reference evaluator: a plain recursive walk over the expression tree.

This is the obviously-right statement of ClassAd-lite's evaluation rules; the fast
evaluator in ``evaluator.py`` (compiled closures, specialised node shapes, constant
folding) must give exactly the same value for every expression, and the tests check
that it does on the whole differential corpus. Nothing here is tuned for speed: each
node is dispatched by ``match``, each name is looked up by walking the scopes.

Scoping (HTCondor's ``MatchClassAd`` with MY and TARGET):

* an unscoped name is looked up in ``cur``, then in its enclosing ads; failing that, if
  the walk ended at MY (or TARGET), in the other ad of the match;
* when no attribute has the name, a walk answers the special names: ``my``/``self``
  (the ad the walk is at), ``parent`` (the enclosing ad; undefined at top level),
  ``currenttime`` (``time()``), and at the top of the chain ``target``/``other`` (the
  other ad of the match) and ``ad`` (the top ad itself) inside a match;
* ``MY.x``, ``TARGET.x``, ``PARENT.x`` select ``x`` from the value of the scope word
  looked up as an unscoped name; ``.x`` looks ``x`` up from the outermost ad (undefined
  inside a match);
* an attribute's expression is evaluated in the ad that holds it; an attribute whose
  evaluation is in progress (a cycle) is undefined; beyond ``MAX_DEPTH`` nested
  references, error.

Built-in functions come from the same registry as the fast evaluator's. The lazy ones
(``ifThenElse``, ``eval``...) evaluate their arguments themselves, through the fast
evaluator and the same ``Env``; every eager function gets argument values computed here.
Every context of a reference evaluation is *guarded* (an explicit set of the attributes
in progress, see ``Env``), as the rules above say.
"""

from __future__ import annotations

from . import operators as ops
from .ad import ClassAd
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
from .functions import REGISTRY, rehome
from .parser import parse_expr
from .scope import _GUARDED_RUNS, MAX_DEPTH, MAX_STEPS, Env, current_time, settle, unscoped
from .values import Error, ExprList, Undefined, home_of, known_list


def _find(start: object, lname: str, env: Env) -> tuple[object | None, object]:
    """Walk from ``start`` up its enclosing ads: ``(holder, expr)`` when an attribute
    is found, else ``(None, value)`` for a special name (undefined if not special)."""
    ad = start
    while True:
        expr = ad.lookup(lname)  # type: ignore[attr-defined]
        if expr is not None:
            return ad, expr
        if lname in ("my", "self"):
            return None, ad
        if lname == "parent":
            return None, Undefined if ad.parent is None else ad.parent  # type: ignore[attr-defined]
        if lname == "currenttime":
            return None, current_time(env)
        if ad.parent is None:  # type: ignore[attr-defined]
            other = env.other(ad)
            if other is not None and lname in ("target", "other"):
                return None, other
            if other is not None and lname == "ad":
                return None, ad
            return None, Undefined
        ad = ad.parent  # type: ignore[attr-defined]


def _evaluate_in(holder: object, lname: str, expr: Expr, env: Env) -> object:
    """An attribute's expression evaluated in its holder, with the cycle guard."""
    key = (id(holder), lname)
    if key in env.active:
        return Undefined
    if env.depth >= MAX_DEPTH:
        return Error
    env.steps += 1
    if env.steps > MAX_STEPS:
        return Error
    env.active.add(key)
    env.depth += 1
    try:
        return walk(expr, holder, env)
    finally:
        env.depth -= 1
        env.active.discard(key)


def _scoped(start: object, lname: str, env: Env) -> object:
    holder, found = _find(start, lname, env)
    return found if holder is None else _evaluate_in(holder, lname, found, env)  # type: ignore[arg-type]


def _unscoped(cur: object, lname: str, env: Env) -> object:
    holder, found = _find(cur, lname, env)
    if holder is not None:
        return _evaluate_in(holder, lname, found, env)  # type: ignore[arg-type]
    if found is Undefined and env.other(cur) is not None:
        return _scoped(env.other(cur), lname, env)
    return found


def _select(base: object, lname: str, env: Env, cur: object) -> object:
    if base is Undefined or base is Error:
        return base
    if type(base) is ExprList and base.known is not None:
        return known_list([unscoped(_select(item, lname, env, cur)) for item in base.known])
    if type(base) is ExprList:
        key = (id(base.exprs), id(base.cur))
        if env.selecting is None:
            env.selecting = set()
        if key in env.selecting:
            return Undefined  # the list holds itself: a cycle (evaluator.select)
        env.selecting.add(key)
        try:
            items = base.evaluated_in(cur, env)  # read where the selection is, as HTCondor
            return known_list([unscoped(_select(item, lname, env, cur)) for item in items])
        finally:
            env.selecting.discard(key)
    if isinstance(base, list):
        return [_select(item, lname, env, cur) for item in base]
    if hasattr(base, "lookup"):
        return _scoped(base, lname, env)
    return Error


def _subscript(base: object, index: object, env: Env) -> object:
    special = ops.strict2(base, index)
    if special is not None:
        return special
    if isinstance(base, (list, ExprList)):
        if type(index) is not int:
            return Error
        i = ops.int_index(index)
        if not 0 <= i < len(base):
            return Error
        return base.item(i) if type(base) is ExprList else base[i]
    if isinstance(index, str) and hasattr(base, "lookup"):
        # A record subscript reads only the record's own attributes, and hands back
        # a copy, as HTCondor's does (evaluator.unscoped).
        expr = base.lookup(index.lower())
        if expr is None:
            return Undefined
        return unscoped(_evaluate_in(base, index.lower(), expr, env))
    return Error


def _binary(op: str, left: Expr, right: Expr, cur: object, env: Env) -> object:
    a = walk(left, cur, env)
    if op == "&&":
        if ops.bool_equiv(a) is False:
            return False
        return ops.logical_and(a, walk(right, cur, env))
    if op == "||":
        if ops.bool_equiv(a) is True:
            return True
        return ops.logical_or(a, walk(right, cur, env))
    b = walk(right, cur, env)
    if op in ("=?=", "is"):
        return ops.meta_equal(a, b)
    if op in ("=!=", "isnt"):
        return ops.meta_not_equal(a, b)
    if op in ("==", "!=", "<", "<=", ">", ">="):
        return ops.compare(op, a, b)
    if op in ("+", "-", "*", "/", "%"):
        return ops.arithmetic(op, a, b)
    return ops.bitwise(op, a, b)


_UNARY = {"-": ops.unary_minus, "+": ops.unary_plus, "!": ops.logical_not, "~": ops.bitwise_not}


def _call(name: str, args: tuple[Expr, ...], cur: object, env: Env) -> object:
    spec = REGISTRY.get(name.lower())
    if spec is None or not spec.min_arity <= len(args) <= spec.max_arity:
        return Error
    if spec.lazy:
        return spec.fn(cur, env, args)
    values = [walk(arg, cur, env) for arg in args]
    if spec.reads_lists:
        values = [rehome(value, cur, env) for value in values]
    return spec.fn(*values)


def walk(node: Expr, cur: object, env: Env) -> object:
    """The value of ``node`` evaluated with ``cur`` as the current ad."""
    match node:
        case Literal(value=value):
            return value
        case AttrRef(name=name, scope=None):
            return _unscoped(cur, name.lower(), env)
        case AttrRef(name=name, scope="absolute"):
            root = env.root(cur)
            return Undefined if root is None else _scoped(root, name.lower(), env)
        case AttrRef(name=name, scope=scope):
            return _select(_unscoped(cur, scope, env), name.lower(), env, cur)
        case Select(base=base, name=name):
            return _select(walk(base, cur, env), name.lower(), env, cur)
        case Subscript(base=base, index=index):
            return _subscript(walk(base, cur, env), walk(index, cur, env), env)
        case Unary(op=op, operand=operand):
            return _UNARY[op](walk(operand, cur, env))
        case Binary(op=op, left=left, right=right):
            return _binary(op, left, right, cur, env)
        case Conditional(cond=cond, then=then, otherwise=otherwise):
            selector = walk(cond, cur, env)
            choice = ops.bool_equiv(selector)
            if choice is None:
                return Undefined if selector is Undefined else Error
            return walk(then if choice else otherwise, cur, env)
        case Elvis(left=left, right=right):
            value = walk(left, cur, env)
            return walk(right, cur, env) if value is Undefined else value
        case Paren(inner=inner):
            return walk(inner, cur, env)
        case Call(name=name, args=args):
            return _call(name, args, cur, env)
        case ListExpr(items=items):
            # Unevaluated, as the fast evaluator's (values.ExprList): each element is
            # walked when it is read.
            fns = tuple(_walker(item) for item in items)
            return ExprList(items, fns, home_of(cur, env), env)
        case RecordExpr(attrs=attrs):
            # one ad per (literal, enclosing ad) in an evaluation, as the compiler's
            cur = home_of(cur, env)
            if env.records is None:
                env.records = {}
            record = env.records.get((id(attrs), id(cur)))
            if record is None:
                record = ClassAd(attrs)
                record.parent = cur
                env.records[(id(attrs), id(cur))] = record
            return record
    raise TypeError(f"not a ClassAd expression node: {node!r}")


def _walker(item: Expr):  # type: ignore[no-untyped-def]
    """A list element's evaluation ``fn(cur, env)``, by walking it."""
    return lambda cur, env: walk(item, cur, env)


def _context(my: object | None, target: object | None, now: int | None) -> tuple[object, Env]:
    if my is None:
        my = ClassAd()
    return my, Env(my, None if target is my else target, now, guarded=True)


def _guarded(run, *args):  # type: ignore[no-untyped-def]
    """``run(*args)`` with every context guarded, also those a built-in derives."""
    _GUARDED_RUNS[0] += 1
    try:
        return run(*args)
    except RecursionError:
        return Error
    finally:
        _GUARDED_RUNS[0] -= 1


def evaluate(
    expr_or_text: Expr | str,
    my: object | None = None,
    target: object | None = None,
    *,
    now: int | None = None,
) -> object:
    """Like ``evaluator.evaluate``, by walking the tree."""
    if isinstance(expr_or_text, str):
        expr_or_text = parse_expr(expr_or_text)
    cur, env = _context(my, target, now)
    return _guarded(lambda: settle(walk(expr_or_text, cur, env)))


def evaluate_attribute(
    ad: object, name: str, target: object | None = None, *, now: int | None = None
) -> object:
    """Like ``evaluator.evaluate_attribute``, by walking the tree."""
    cur, env = _context(ad, target, now)
    return _guarded(lambda: settle(_scoped(cur, name.lower(), env)))


def requirements_hold(my: object, target: object, *, now: int | None = None) -> bool:
    """Like ``evaluator.requirements_hold``: Requirements is true or a non-zero number."""
    value = evaluate_attribute(my, "requirements", target, now=now)
    if isinstance(value, bool):
        return value
    return type(value) in (int, float) and value != 0  # a time value is no number here


def symmetric_match(a: object, b: object, *, now: int | None = None) -> bool:
    """Like ``evaluator.symmetric_match``: both Requirements hold, each way round."""
    return requirements_hold(a, b, now=now) and requirements_hold(b, a, now=now)
