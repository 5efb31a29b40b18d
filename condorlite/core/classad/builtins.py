"""The ClassAd built-in functions: a registry from lower-case name to ``Builtin``.

A ``Builtin`` holds the function, its arity range and a docstring. Most functions are
*eager*: their arguments are evaluated first and the function gets the values (it
decides itself what undefined or error arguments mean; few functions are simply
strict). A *lazy* function gets ``(cur, env, args)``, the unevaluated argument nodes,
and evaluates what it needs: ``ifThenElse`` (only the chosen branch), ``eval``,
``unparse``, ``debug``, and the time functions that read the clock.

Function names are case-insensitive. Calling an unknown function, or one with the
wrong number of arguments, evaluates to error (as in HTCondor). This module holds the
table, the control functions and the type predicates; string functions live in
``strbuiltins.py`` (regular expressions in ``regexbuiltins.py``, string lists in
``stringlists.py``), list functions in ``listbuiltins.py``, time functions in
``timebuiltins.py``, environment and argument functions in ``envbuiltins.py``; each
registers into the same table when imported, and ``functions.py`` imports them all,
so the table is complete wherever it is read from there.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from . import operators as ops
from .ast import AttrRef, Expr, Select
from .cache import compile_expr
from .errors import ClassAdSyntaxError
from .parser import parse_expr
from .printer import unparse as unparse_expr
from .textfuncs import c_double_to_int, strtod, to_text
from .timevalues import rel_secs
from .values import AbsTime, Error, ExprList, RelTime, Undefined, is_list, list_values, wrap_int64

INFINITE_ARITY = 1 << 30


@dataclass(frozen=True, slots=True)
class Builtin:
    """One built-in: ``fn``, its arity bounds (inclusive) and what it does.

    ``lazy``: ``fn(cur, env, args)`` gets the argument expressions; ``reads_lists``:
    ``fn`` evaluates the elements of list arguments, so a list literal's value passed
    to it is re-homed to the calling expression's ad first (``values.ExprList``)."""

    fn: Callable[..., object]
    min_arity: int
    max_arity: int
    doc: str
    lazy: bool = False
    reads_lists: bool = False


REGISTRY: dict[str, Builtin] = {}


def register(  # type: ignore[no-untyped-def]
    name: str, min_arity: int, max_arity: int, *, lazy: bool = False, reads_lists: bool = False
):
    """Decorator: add a function to the registry under ``name`` (lower-cased); its
    docstring becomes the registry entry's doc."""

    def add(fn: Callable[..., object]) -> Callable[..., object]:
        REGISTRY[name.lower()] = Builtin(
            fn, min_arity, max_arity, fn.__doc__ or "", lazy, reads_lists
        )
        return fn

    return add


def compile_call(name: str, args: tuple[Expr, ...]):  # type: ignore[no-untyped-def]
    """The closure evaluating ``name(args...)``; error for unknown names or arities."""
    spec = REGISTRY.get(name.lower())
    if spec is None or not spec.min_arity <= len(args) <= spec.max_arity:
        return lambda cur, env: Error
    fn = spec.fn
    if spec.lazy:
        return lambda cur, env: fn(cur, env, args)
    fns = tuple(compile_expr(arg) for arg in args)
    if spec.reads_lists:
        return lambda cur, env: fn(*[rehome(f(cur, env), cur, env) for f in fns])
    if len(fns) == 1:
        (only,) = fns
        return lambda cur, env: fn(only(cur, env))
    return lambda cur, env: fn(*[f(cur, env) for f in fns])


def rehome(value: object, cur: object, env: object) -> object:
    """An argument of a built-in that reads list elements: a list literal's value is
    read in the calling expression's ad ``cur``, as HTCondor reads it."""
    if type(value) is ExprList:
        return value.rehomed(cur, env)  # type: ignore[union-attr]
    return value


def _is_ad(value: object) -> bool:
    return hasattr(value, "lookup") and not isinstance(value, (str, list))


# --- control and introspection -------------------------------------------------------


@register("ifThenElse", 3, 3, lazy=True)
def if_then_else(cur, env, args):  # type: ignore[no-untyped-def]
    """ifThenElse(c, a, b): a if c is true (non-zero), b if false; undefined if c is
    undefined, error otherwise. Only the chosen branch is evaluated."""
    cond = compile_expr(args[0])(cur, env)
    choice = ops.bool_equiv(cond)
    if choice is None:
        return Undefined if cond is Undefined else Error
    return compile_expr(args[1] if choice else args[2])(cur, env)


@register("eval", 1, 1, lazy=True)
def eval_(cur, env, args):  # type: ignore[no-untyped-def]
    """eval(s): parse string s as an expression and evaluate it here; error if it does
    not parse, or if s is undefined. A time value is parsed from its string form, and a
    finite real goes through its 16-digit string form as in HTCondor (so it may round:
    ``eval(197257.59898832173)`` is 197257.5989883217); any other non-string is
    returned as it is."""
    text = compile_expr(args[0])(cur, env)
    if text is Undefined:
        return Error
    if type(text) is AbsTime or type(text) is RelTime:
        text = to_text(text)  # HTCondor parses the string form (rarely an expression)
    if type(text) is float and math.isfinite(text):
        return float(f"{text:.16G}")  # HTCondor parses the real's printed form back
    if type(text) is not str:
        return text
    try:
        expr = parse_expr(text)
    except ClassAdSyntaxError:
        return Error
    return compile_expr(expr)(cur, env)


@register("unparse", 1, 1, lazy=True)
def unparse(cur, env, args):  # type: ignore[no-untyped-def]
    """unparse(attr): the text of the definition of attribute reference attr, not
    evaluated, in HTCondor's multi-line "pretty" form for lists and records.

    As HTCondor does it: the reference is printed (``Memory``, ``MY.Memory``,
    ``a.b``) and that text is looked up as an attribute name in the current ad only
    (not its enclosing ads), so only a plain name ever finds a definition; "" when
    nothing is found. Any argument that is not an attribute reference or a selection
    is error."""
    arg = args[0]
    if not isinstance(arg, (AttrRef, Select)) or not hasattr(cur, "lookup"):
        return Error
    found = cur.lookup(unparse_expr(arg))
    if found is None:
        return ""
    return unparse_expr(found, pretty=True, sort=True)


@register("debug", 1, 1, lazy=True)
def debug(cur, env, args):  # type: ignore[no-untyped-def]
    """debug(e): the value of e (HTCondor also logs the evaluation; condorlite does not
    log from the core)."""
    return compile_expr(args[0])(cur, env)


# --- type predicates -----------------------------------------------------------------


def _predicate(name: str, test: Callable[[object], bool], what: str) -> None:
    def predicate(value):  # type: ignore[no-untyped-def]
        return test(value)

    predicate.__doc__ = f"{name}(v): true if v is {what}, else false."
    register(name, 1, 1)(predicate)


_predicate("isUndefined", lambda v: v is Undefined, "undefined")
_predicate("isError", lambda v: v is Error, "error")
_predicate("isString", lambda v: type(v) is str, "a string")
_predicate("isInteger", lambda v: type(v) is int, "an integer")
_predicate("isReal", lambda v: type(v) is float, "a real")
_predicate("isBoolean", lambda v: type(v) is bool, "a boolean")
_predicate("isList", is_list, "a list")
_predicate("isClassAd", _is_ad, "a record (ClassAd)")
_predicate("isAbstime", lambda v: type(v) is AbsTime, "an absolute time")
_predicate("isReltime", lambda v: type(v) is RelTime, "a relative time")


# --- conversions ---------------------------------------------------------------------


def _as_number(value: object) -> int | float | None:
    """Numbers as they are, booleans as 0/1, strings parsed by strtod, an abstime as its
    seconds, a reltime as its whole seconds (a 32-bit C int); else None."""
    kind = type(value)
    if kind is int or kind is float:
        return value  # type: ignore[return-value]
    if kind is bool:
        return 1 if value else 0
    if kind is str:
        return strtod(value)  # type: ignore[arg-type]
    if kind is AbsTime:
        return int(value)  # type: ignore[call-overload]
    if kind is RelTime:
        return rel_secs(value)  # type: ignore[arg-type]
    return None


@register("int", 1, 1)
def to_int(value):  # type: ignore[no-untyped-def]
    """int(v): integer; reals truncate toward zero (NaN or out of range gives
    INT64_MIN, as the C cast does); strings are read as by strtod."""
    if value is Undefined or value is Error:
        return value
    number = _as_number(value)
    if number is None:
        return Error
    return number if type(number) is int else c_double_to_int(number)


@register("real", 1, 1)
def to_real(value):  # type: ignore[no-untyped-def]
    """real(v): a real; strings read as by strtod ("INF", "NaN" allowed)."""
    if value is Undefined or value is Error:
        return value
    number = _as_number(value)
    return Error if number is None else float(number)


@register("string", 1, 1)
def to_string(value):  # type: ignore[no-untyped-def]
    """string(v): the string form of v (reals as %1.15E, lists and records unparsed)."""
    if value is Undefined or value is Error:
        return value
    return to_text(value)


@register("bool", 1, 1)
def to_bool(value):  # type: ignore[no-untyped-def]
    """bool(v): numbers are true when non-zero, a reltime when its whole seconds are;
    the strings "true"/"false" (any case) convert, other strings give undefined; lists,
    records and abstimes give error."""
    if value is Undefined:
        return Undefined
    b = ops.bool_equiv(value)
    if b is not None:
        return b
    if type(value) is RelTime:
        return rel_secs(value) != 0  # type: ignore[arg-type]
    if type(value) is str:
        lowered = value.lower()
        if lowered == "true":
            return True
        if lowered == "false":
            return False
        return Undefined
    return Error


def _rounding(name: str, fn: Callable[[float], float]) -> None:
    def rounding(value):  # type: ignore[no-untyped-def]
        number = _as_number(value)
        if number is None:
            return Error
        if type(number) is int:
            return number
        if not math.isfinite(number):  # C's floor/ceil/rint pass these through
            return c_double_to_int(number)
        return c_double_to_int(fn(number))

    rounding.__doc__ = (
        f"{name}(x): x rounded ({name}) to an integer; strings are read as numbers; "
        "undefined and other non-numbers give error."
    )
    register(name, 1, 1)(rounding)


_rounding("floor", math.floor)
_rounding("ceiling", math.ceil)
_rounding("ceil", math.ceil)
_rounding("round", round)  # Python's round is round-half-even, as C's rint


def c_pow(x: float, y: float) -> float:
    """C's pow(): NaN, infinities and zero divisors instead of Python exceptions."""
    try:
        return math.pow(x, y)
    except OverflowError:
        odd = y == math.floor(y) and int(y) % 2 == 1
        return -math.inf if x < 0 and odd else math.inf
    except ValueError:
        if x == 0.0:  # 0 to a negative power
            odd = y == math.floor(y) and int(y) % 2 == 1
            return -math.inf if odd and math.copysign(1.0, x) < 0 else math.inf
        return math.nan


@register("pow", 2, 2)
def pow_(base, exponent):  # type: ignore[no-untyped-def]
    """pow(b, e): b**e. Two integers with e >= 0 give an integer, computed as HTCondor
    does (in double precision, plus 0.5, then cast: pow(-2, 3) is -7); otherwise a
    real. Undefined, error and non-numbers give error."""
    if type(base) is int and type(exponent) is int and exponent >= 0:
        return c_double_to_int(c_pow(float(base), float(exponent)) + 0.5)
    x = _as_number(base)
    y = _as_number(exponent)
    if x is None or y is None:
        return Error
    return c_pow(float(x), float(y))


def _c_ceil(x: float) -> float:
    """C's ceil(): infinities and NaN come back unchanged, and the sign of zero is
    kept (ceil(-0.2) is -0.0)."""
    return math.copysign(float(math.ceil(x)), x) if math.isfinite(x) else x


def _c_div(a: int, b: int) -> int:
    """C's integer division (truncating toward zero), wrapped to 64 bits."""
    q = abs(a) // abs(b)
    return wrap_int64(q if (a < 0) == (b < 0) else -q)


@register("quantize", 2, 2, reads_lists=True)
def quantize(value, step):  # type: ignore[no-untyped-def]
    """quantize(a, b): a rounded up to a multiple of b, exactly as HTCondor does it.

    * a must convert to a real (numbers, booleans, numeric strings), else error.
    * A list b: the first element whose real value is >= a is returned as it is (even
      a string such as "4"); an element that does not convert is error; past the end,
      b becomes the last element (the real 0.0 for an empty list).
    * An integer b (not a boolean): 0 gives a back unchanged; an integer a gives
      ((a + b - 1) / b) * b in 64-bit C arithmetic (so negative b rounds oddly:
      quantize(3, -2) is 0); any other a gives the real ceil(a / b) * b.
    * Any other b: |b| <= 1e-8 gives a unchanged, else the real ceil(a / b) * b.
    """
    a = _as_number(value)
    if a is None:
        return Error
    a = float(a)
    if is_list(step):
        base: object = 0.0
        for element in list_values(step):
            base = element
            b = _as_number(element)
            if b is None:
                return Error
            if float(b) >= a:
                return element
        step = base
    b = _as_number(step)
    if b is None:
        return Error
    if type(step) is int:
        if step == 0:
            return value
        if type(value) is int:
            return wrap_int64(_c_div(wrap_int64(value + step - 1), step) * step)
        return _c_ceil(a / step) * step
    b = float(b)
    if -1e-8 <= b <= 1e-8:
        return value
    return _c_ceil(a / b) * b


def _plain_number(value: object) -> int | float | None:
    kind = type(value)
    if kind is int or kind is float:
        return value  # type: ignore[return-value]
    if kind is bool:
        return 1 if value else 0
    return None


__all__ = ["REGISTRY", "Builtin", "compile_call", "register"]
