"""Compiling expression nodes into closures ``fn(cur, env) -> value``.

``build(node)`` returns the closure for one node (children are compiled through
``cache.compile_expr``, so shared subtrees are compiled once). Every closure gives
exactly the value ``reference.walk`` gives; the speed comes from doing at compile time
what the reference does at every evaluation:

* constant folding: a subtree made only of literals and operators (no attribute, no
  call) whose value is a scalar is evaluated once; ``constant(node)`` tells which;
* attribute references keep their lower-cased name and read the ad's storage
  directly in the common cases (``attrrefs.py``);
* comparisons have type-specialised fast paths (two ints, two strs, two floats) made
  from one template per operator, and a constant string operand is lower-cased once
  (a closure fusing an attribute read with its comparison, ``fused.py``, was removed:
  0.7 % of a rank-heavy cycle's instructions, ``benchmarks/RESULTS.md``);
* ``ifThenElse(c, a, b)`` compiles as the conditional operator it is;
* ``a && b && c ...`` (a left-leaning chain, as the parser builds it) is one loop;
* the whole expression of an attribute evaluated often (``build_root``, ``WARM_UP``)
  becomes one generated function (``codegen.py``).

The fast paths rely on ``ClassAd._attrs`` (lower-case name -> (spelling, expr)); an ad
object without it goes down the general path.
"""

from __future__ import annotations

from collections.abc import Callable

from . import cache
from . import operators as ops
from . import scope as sc
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
from .attrrefs import build_attr
from .codegen import generate
from .functions import REGISTRY, compile_call
from .refs import and_chain
from .values import Error, ExprList, Undefined, home_of, wrap_int64

Compiled = Callable[[object, "sc.Env"], object]

_SCALARS = (bool, int, float, str)


def constant(node: Expr) -> bool:
    """Whether ``node`` is an operator whose operands all fold (``cache.folded``): then it is
    built only of literals and operators (no attribute reference, no call, no list or
    record) and its value never depends on the context. One level is looked at, the
    operands' own answers being in the compile cache, so deciding is linear in the tree
    (a walk of the whole subtree at every node made a 3,000-term chain take 4 s)."""
    match node:
        case Literal():
            return True
        case Unary(operand=operand):
            operands: tuple[Expr, ...] = (operand,)
        case Binary(left=left, right=right) | Elvis(left=left, right=right):
            operands = (left, right)
        case Conditional(cond=cond, then=then, otherwise=otherwise):
            operands = (cond, then, otherwise)
        case Paren(inner=inner):
            operands = (inner,)
        case _:
            return False
    return all(cache.folded(operand) is not cache.VARIES for operand in operands)


def build(node: Expr) -> tuple[Compiled, object]:
    """The closure for ``node`` and its folded value (``cache.VARIES`` unless constant).

    Only scalar, undefined and error values are folded: a list literal's value
    belongs to the evaluation that made it (``values.ExprList``).
    """
    fn = _build(node)
    if type(node) is not Literal and constant(node):
        try:
            value = fn(None, sc.Env(None, None, None))
        except RecursionError:  # an absurdly deep literal expression: leave it alone
            return fn, cache.VARIES
        if type(value) in _SCALARS or value is Undefined or value is Error:
            return (lambda cur, env: value), value
        return fn, cache.VARIES
    if type(node) is Literal:
        value = node.value
        if type(value) in _SCALARS or value is Undefined or value is Error:
            return fn, value
    return fn, cache.VARIES


WARM_UP = 200
"""Evaluations of a root expression by closures before its code is generated.
Generating costs about as much as 30 to 100 evaluations (0.1-0.4 ms for a
Requirements) and then halves the cost of each evaluation. Waiting for 200 keeps the
cost of generating for an expression that turns out not to be hot below half of what
its evaluations have already cost, and pays back for matchmaking's hot expressions."""


def build_root(node: Expr) -> tuple[Compiled, object]:
    """Like ``build``, for the whole expression of an attribute: after ``WARM_UP``
    evaluations the closure is replaced (in the cache) by a generated function
    (``codegen.py``), if code generation applies to the tree."""
    fn, value = build(node)
    if value is not cache.VARIES or type(node) is AttrRef:
        return fn, value
    slow = fn
    count = 0

    def warming(cur: object, env: sc.Env) -> object:
        nonlocal count
        count += 1
        if count == WARM_UP:
            cache.replace_compiled(node, generate(node, slow) or slow)
        return slow(cur, env)

    return warming, value


def _build(node: Expr) -> Compiled:
    compile_expr = cache.compile_expr
    match node:
        case Literal(value=value):
            return lambda cur, env: value
        case AttrRef(name=name, scope=scope):
            return build_attr(name.lower(), scope)
        case Select(base=base, name=name):
            base_fn = compile_expr(base)
            lname = name.lower()
            select = sc.select
            return lambda cur, env: select(base_fn(cur, env), lname, env, cur)
        case Subscript(base=base, index=index):
            return _build_subscript(compile_expr(base), compile_expr(index))
        case Unary(op=op, operand=operand):
            return _build_unary(op, compile_expr(operand))
        case Binary(op="&&"):
            return _build_and_chain(and_chain(node))
        case Binary(op=op, left=left, right=right):
            return _build_binary(op, left, right)
        case Conditional(cond=cond, then=then, otherwise=otherwise):
            return _build_conditional(
                compile_expr(cond), compile_expr(then), compile_expr(otherwise)
            )
        case Elvis(left=left, right=right):
            return _build_elvis(compile_expr(left), compile_expr(right))
        case Paren(inner=inner):
            return compile_expr(inner)
        case Call(name=name, args=args):
            spec = REGISTRY.get(name.lower())
            if name.lower() == "ifthenelse" and spec is not None and spec.lazy and len(args) == 3:
                # ifThenElse(c, a, b) is the conditional operator spelled as a call: the
                # same three-way choice on bool_equiv(c), only the chosen branch evaluated.
                return _build_conditional(*(compile_expr(arg) for arg in args))
            return compile_call(name, args)
        case ListExpr(items=items):
            fns = tuple(compile_expr(item) for item in items)
            return lambda cur, env: ExprList(
                items, fns, cur if env.home is None else home_of(cur, env), env
            )
        case RecordExpr(attrs=attrs):
            return _build_record(attrs)
    raise TypeError(f"not a ClassAd expression node: {node!r}")


# --- operators -----------------------------------------------------------------------


def _build_subscript(base_fn: Compiled, index_fn: Compiled) -> Compiled:
    def subscript(cur: object, env: sc.Env) -> object:
        base = base_fn(cur, env)
        index = index_fn(cur, env)
        special = ops.strict2(base, index)
        if special is not None:
            return special
        kind = type(base)
        if kind is ExprList or kind is list:
            if type(index) is not int:
                return Error
            i = ops.int_index(index)
            if not 0 <= i < len(base):
                return Error
            return base.item(i) if kind is ExprList else base[i]
        if type(index) is str and hasattr(base, "lookup"):
            lname = index.lower()
            # A record subscript reads only the record's own attributes, and hands back
            # a copy, as HTCondor's does (a list or record there has lost its place).
            expr = base.lookup(lname)  # type: ignore[attr-defined]
            if expr is None:
                return Undefined
            return sc.unscoped(sc._eval_found(base, lname, expr, env))
        return Error

    return subscript


_UNARY = {"-": ops.unary_minus, "+": ops.unary_plus, "!": ops.logical_not, "~": ops.bitwise_not}


def _build_unary(op: str, operand: Compiled) -> Compiled:
    fn = _UNARY[op]
    return lambda cur, env: fn(operand(cur, env))


_COMPARE_OPS = ("==", "!=", "<", "<=", ">", ">=")
_BITWISE_OPS = frozenset({"&", "|", "^", "<<", ">>", ">>>"})


def _build_binary(op: str, left_node: Expr, right_node: Expr) -> Compiled:
    left = cache.compile_expr(left_node)
    right = cache.compile_expr(right_node)
    if op == "||":
        return _build_or(left, right)
    if op in ("=?=", "is"):
        return lambda cur, env: ops.meta_equal(left(cur, env), right(cur, env))
    if op in ("=!=", "isnt"):
        return lambda cur, env: ops.meta_not_equal(left(cur, env), right(cur, env))
    if op in _COMPARE_OPS:
        value = cache.folded(right_node)
        if type(value) is str:
            return _COMPARE_STR_CONST[op](left, value, ops.ascii_lower(value), ops.compare)
        return _COMPARE[op](left, right, ops.compare)
    if op in _BITWISE_OPS:
        return lambda cur, env: ops.bitwise(op, left(cur, env), right(cur, env))
    if op in ("+", "-", "*"):
        return _ARITH[op](left, right, ops.arithmetic, wrap_int64)
    if op in ("/", "%"):
        return lambda cur, env: ops.arithmetic(op, left(cur, env), right(cur, env))
    raise TypeError(f"unknown binary operator {op!r}")


# One closure factory per operator, generated from these templates at import time (the
# operator is one of the fixed symbols above; no expression text ever reaches exec).
# The fast paths are exactly ``ops.compare``'s results for those operand types: two
# ints compare exactly, two floats as IEEE doubles, two strings after ASCII folding.
_COMPARE_TEMPLATE = """
def factory(left, right, compare):
    def comparison(cur, env):
        a = left(cur, env)
        b = right(cur, env)
        kind = type(a)
        if kind is type(b) and (kind is int or kind is float):
            return a {op} b
        return compare("{op}", a, b)
    return comparison
"""

_COMPARE_STR_CONST_TEMPLATE = """
def factory(left, value, folded, compare):
    def comparison(cur, env):
        a = left(cur, env)
        if type(a) is str and a.isascii():
            return a.lower() {op} folded
        return compare("{op}", a, value)
    return comparison
"""

_ARITH_TEMPLATE = """
def factory(left, right, arithmetic, wrap):
    def arith(cur, env):
        a = left(cur, env)
        b = right(cur, env)
        if type(a) is int and type(b) is int:
            return wrap(a {op} b)
        return arithmetic("{op}", a, b)
    return arith
"""


def _factories(template: str, symbols: tuple[str, ...]) -> dict[str, Callable[..., Compiled]]:
    made: dict[str, Callable[..., Compiled]] = {}
    for op in symbols:
        namespace: dict[str, object] = {}
        exec(template.format(op=op), namespace)  # fixed templates, fixed symbols
        made[op] = namespace["factory"]  # type: ignore[assignment]
    return made


_COMPARE = _factories(_COMPARE_TEMPLATE, _COMPARE_OPS)
_COMPARE_STR_CONST = _factories(_COMPARE_STR_CONST_TEMPLATE, _COMPARE_OPS)
_ARITH = _factories(_ARITH_TEMPLATE, ("+", "-", "*"))


def _build_and_chain(operands: list[Expr]) -> Compiled:
    """``o1 && o2 && ... && on`` evaluated left to right, ``acc = acc && next``:
    a false accumulator ends the chain (false && anything is false)."""
    first = cache.compile_expr(operands[0])
    rest = tuple(cache.compile_expr(item) for item in operands[1:])
    bool_equiv = ops.bool_equiv
    logical_and = ops.logical_and

    def and_chain(cur: object, env: sc.Env) -> object:
        acc = first(cur, env)
        for fn in rest:
            if acc is True:
                b = fn(cur, env)
                acc = b if type(b) is bool else logical_and(True, b)
            elif acc is False or bool_equiv(acc) is False:
                return False
            else:
                acc = logical_and(acc, fn(cur, env))
        return acc

    return and_chain


def _build_or(left: Compiled, right: Compiled) -> Compiled:
    bool_equiv = ops.bool_equiv
    logical_or = ops.logical_or

    def logical_or_(cur: object, env: sc.Env) -> object:
        a = left(cur, env)
        if a is True or bool_equiv(a) is True:  # short circuit: true || anything
            return True
        if a is False:
            b = right(cur, env)
            if type(b) is bool:
                return b
        else:
            b = right(cur, env)
        return logical_or(a, b)

    return logical_or_


def _build_conditional(cond: Compiled, then: Compiled, otherwise: Compiled) -> Compiled:
    def conditional(cur: object, env: sc.Env) -> object:
        selector = cond(cur, env)
        choice = ops.bool_equiv(selector)
        if choice is True:
            return then(cur, env)
        if choice is False:
            return otherwise(cur, env)
        return Undefined if selector is Undefined else Error

    return conditional


def _build_elvis(left: Compiled, right: Compiled) -> Compiled:
    def elvis(cur: object, env: sc.Env) -> object:
        a = left(cur, env)
        return right(cur, env) if a is Undefined else a

    return elvis


def _build_record(attrs: tuple[tuple[str, Expr], ...]) -> Compiled:
    """A record literal's ad, made once per (literal, enclosing ad) in one evaluation
    (``Env.records``): HTCondor's nested ad is one object, so a reference cycle through
    it (``[Sub = [x = Sub.x]]``) meets the cycle guard and is undefined, not a descent
    through ever new copies to the depth limit (error)."""
    def record(cur: object, env: sc.Env) -> object:
        if env.home is not None:
            cur = home_of(cur, env)
        memo = env.records
        if memo is None:
            memo = env.records = {}
        key = (id(attrs), id(cur))
        ad = memo.get(key)
        if ad is None:
            ad = ClassAd(attrs)
            ad.parent = cur
            memo[key] = ad
        return ad

    return record


cache.install_builder(build, build_root)  # the cache compiles with this module (``cache.py``)
