"""The ClassAd built-in functions: a registry from lower-case name to ``Builtin``.

A ``Builtin`` holds the function, its arity range and a docstring. Most functions are
*eager*: their arguments are evaluated first and the function gets the values (it
decides itself what undefined or error arguments mean; few functions are simply
strict). A *lazy* function gets ``(cur, env, args)``, the unevaluated argument nodes,
and evaluates what it needs: ``ifThenElse`` (only the chosen branch), ``eval``,
``unparse``, ``debug``, ``time``.

Function names are case-insensitive. Calling an unknown function, or one with the
wrong number of arguments, evaluates to error (as in HTCondor). String functions live
in ``strbuiltins.py`` and register themselves into the same table.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from . import operators as ops
from .ast import AttrRef, Expr
from .textfuncs import c_double_to_int, interval_text, strtod, to_text
from .values import Error, Undefined, wrap_int64

INFINITE_ARITY = 1 << 30


@dataclass(frozen=True, slots=True)
class Builtin:
    """One built-in: ``fn``, its arity bounds (inclusive) and what it does."""

    fn: Callable[..., object]
    min_arity: int
    max_arity: int
    doc: str
    lazy: bool = False


REGISTRY: dict[str, Builtin] = {}


def register(name: str, min_arity: int, max_arity: int, *, lazy: bool = False):  # type: ignore[no-untyped-def]
    """Decorator: add a function to the registry under ``name`` (lower-cased); its
    docstring becomes the registry entry's doc."""

    def add(fn: Callable[..., object]) -> Callable[..., object]:
        REGISTRY[name.lower()] = Builtin(fn, min_arity, max_arity, fn.__doc__ or "", lazy)
        return fn

    return add


def compile_call(name: str, args: tuple[Expr, ...]):  # type: ignore[no-untyped-def]
    """The closure evaluating ``name(args...)``; error for unknown names or arities."""
    from .evaluator import compile_expr

    spec = REGISTRY.get(name.lower())
    if spec is None or not spec.min_arity <= len(args) <= spec.max_arity:
        return lambda cur, env: Error
    fn = spec.fn
    if spec.lazy:
        return lambda cur, env: fn(cur, env, args)
    fns = tuple(compile_expr(arg) for arg in args)
    if len(fns) == 1:
        (only,) = fns
        return lambda cur, env: fn(only(cur, env))
    return lambda cur, env: fn(*[f(cur, env) for f in fns])


def _is_ad(value: object) -> bool:
    return hasattr(value, "lookup") and not isinstance(value, (str, list))


# --- control and introspection -------------------------------------------------------


@register("ifThenElse", 3, 3, lazy=True)
def if_then_else(cur, env, args):  # type: ignore[no-untyped-def]
    """ifThenElse(c, a, b): a if c is true (non-zero), b if false; undefined if c is
    undefined, error otherwise. Only the chosen branch is evaluated."""
    from .evaluator import compile_expr

    cond = compile_expr(args[0])(cur, env)
    choice = ops.bool_equiv(cond)
    if choice is None:
        return Undefined if cond is Undefined else Error
    return compile_expr(args[1] if choice else args[2])(cur, env)


@register("eval", 1, 1, lazy=True)
def eval_(cur, env, args):  # type: ignore[no-untyped-def]
    """eval(s): parse string s as an expression and evaluate it here; error if it does
    not parse, or if s is undefined. Any other non-string is returned as it is."""
    from .errors import ClassAdSyntaxError
    from .evaluator import compile_expr
    from .parser import parse_expr

    text = compile_expr(args[0])(cur, env)
    if text is Undefined:
        return Error
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
    evaluated ("" if it is not defined); error for any other argument."""
    from .evaluator import _lookup_in_scope
    from .printer import unparse as unparse_expr

    arg = args[0]
    if not isinstance(arg, AttrRef) or arg.scope is not None:
        return Error
    holder, found = _lookup_in_scope(cur, arg.name.lower(), env)
    if holder is None:
        return ""
    return unparse_expr(found)


@register("debug", 1, 1, lazy=True)
def debug(cur, env, args):  # type: ignore[no-untyped-def]
    """debug(e): the value of e (HTCondor also logs the evaluation; condorlite does not
    log from the core)."""
    from .evaluator import compile_expr

    return compile_expr(args[0])(cur, env)


@register("time", 0, 0, lazy=True)
def time_(cur, env, args):  # type: ignore[no-untyped-def]
    """time(): the current time in epoch seconds: the ``now`` given to the evaluation,
    or the real clock when none was given."""
    from .evaluator import current_time

    return current_time(env)


@register("interval", 1, 1)
def interval(value):  # type: ignore[no-untyped-def]
    """interval(secs): seconds as "[days+]hh:mm:ss" (e.g. 3661 -> "1:01:01"); the
    seconds are truncated to a 32-bit C int first, as HTCondor does; undefined and
    non-numbers give error."""
    number = _as_number(value)
    if number is None:
        return Error
    seconds = number if type(number) is int else c_double_to_int(number)
    return interval_text(ops.int_index(seconds))


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
_predicate("isList", lambda v: type(v) is list, "a list")
_predicate("isClassAd", _is_ad, "a record (ClassAd)")
_predicate("isAbstime", lambda v: False, "an absolute time (condorlite has none)")
_predicate("isReltime", lambda v: False, "a relative time (condorlite has none)")


# --- conversions ---------------------------------------------------------------------


def _as_number(value: object) -> int | float | None:
    """Numbers as they are, booleans as 0/1, strings parsed by strtod; else None."""
    kind = type(value)
    if kind is int or kind is float:
        return value  # type: ignore[return-value]
    if kind is bool:
        return 1 if value else 0
    if kind is str:
        return strtod(value)  # type: ignore[arg-type]
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
    """bool(v): numbers are true when non-zero; the strings "true"/"false" (any case)
    convert, other strings give undefined; lists and records give error."""
    if value is Undefined:
        return Undefined
    b = ops.bool_equiv(value)
    if b is not None:
        return b
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


def _quantize_one(a: int | float, b: int | float) -> object:
    if type(a) is int and type(b) is int:
        if b == 0:
            return a
        q = -((-a) // b) if b > 0 else -(a // -b)
        return wrap_int64(q * b)
    a = float(a)
    b = float(b)
    if b == 0.0:
        return a
    return math.ceil(a / b) * b


@register("quantize", 2, 2)
def quantize(value, step):  # type: ignore[no-untyped-def]
    """quantize(a, b): a rounded up to a multiple of b; with a list b, the first element
    >= a, or else a rounded up to a multiple of the last element (a if empty)."""
    a = _as_number(value)
    if a is None:
        return Error
    if type(step) is list:
        if not step:
            return value
        numbers = [_plain_number(item) for item in step]
        if any(n is None for n in numbers):
            return Error
        for n in numbers:
            if n >= a:  # type: ignore[operator]
                return n
        return _quantize_one(a, numbers[-1])  # type: ignore[arg-type]
    b = _plain_number(step)
    if b is None:
        return Error
    return _quantize_one(a, b)


def _plain_number(value: object) -> int | float | None:
    kind = type(value)
    if kind is int or kind is float:
        return value  # type: ignore[return-value]
    if kind is bool:
        return 1 if value else 0
    return None


# --- lists ---------------------------------------------------------------------------


def _list_numbers(values: object) -> list[int | float] | object:
    """The numeric elements of a list (undefined skipped, booleans as 0/1), or error."""
    if type(values) is not list:
        return Undefined if values is Undefined else Error
    numbers: list[int | float] = []
    for item in values:
        if item is Undefined:
            continue
        n = _plain_number(item)
        if n is None:
            return Error
        numbers.append(n)
    return numbers


@register("sum", 1, 1)
def sum_(values):  # type: ignore[no-untyped-def]
    """sum(list): the sum of the numbers in list (undefined elements skipped; 0 if
    none, the element itself if one); an integer unless a real is present; a
    non-number is error."""
    if type(values) is not list:
        return Undefined if values is Undefined else Error
    kept = [item for item in values if item is not Undefined]
    if any(_plain_number(item) is None for item in kept):
        return Error
    if not kept:
        return 0
    total = kept[0]  # a single element comes back as it is (even a boolean)
    for n in kept[1:]:
        total = ops.arithmetic("+", total, n)
    return total


@register("avg", 1, 1)
def avg(values):  # type: ignore[no-untyped-def]
    """avg(list): the mean of the numbers in list as a real (0 if none)."""
    numbers = _list_numbers(values)
    if type(numbers) is not list:
        return numbers
    if not numbers:
        return 0
    total: object = 0
    for n in numbers:
        total = ops.arithmetic("+", total, n)
    return ops.arithmetic("/", float(total), float(len(numbers)))  # type: ignore[arg-type]


def _extreme(name: str, better: str) -> None:
    def extreme(values):  # type: ignore[no-untyped-def]
        if type(values) is not list:
            return Undefined if values is Undefined else Error
        kept = [item for item in values if item is not Undefined]
        if any(_plain_number(item) is None for item in kept):
            return Error
        if not kept:
            return Undefined
        if len(kept) == 1:
            return kept[0]
        numbers = [_plain_number(item) for item in kept]
        best = numbers[0]
        for n in numbers[1:]:
            if ops.compare(better, n, best) is True:
                best = n
        any_real = any(type(n) is float for n in numbers)
        return float(best) if any_real else best  # type: ignore[arg-type]

    extreme.__doc__ = (
        f"{name}(list): the {name}imum of the numbers in list (undefined elements "
        "skipped, undefined if none); real if any element is real; non-number is error."
    )
    register(name, 1, 1)(extreme)


_extreme("min", "<")
_extreme("max", ">")


@register("size", 1, 1)
def size(value):  # type: ignore[no-untyped-def]
    """size(x): the length of a string (in UTF-8 bytes), a list, or a record."""
    if value is Undefined:
        return Undefined
    if type(value) is str:
        return len(value) if value.isascii() else len(value.encode())
    if type(value) is list:
        return len(value)
    if _is_ad(value):
        return len(value)  # type: ignore[arg-type]
    return Error


@register("member", 2, 2)
def member(item, values):  # type: ignore[no-untyped-def]
    """member(x, list): true if some element == x (with =='s promotion and
    case-insensitive strings); undefined if x is undefined; error if list is not one."""
    return _member(item, values, ops.compare)


@register("identicalMember", 2, 2)
def identical_member(item, values):  # type: ignore[no-untyped-def]
    """identicalMember(x, list): true if some element =?= x."""
    return _member(item, values, lambda op, a, b: ops.meta_equal(a, b))


def _member(item, values, equal):  # type: ignore[no-untyped-def]
    if values is Error or (item is Error and equal is ops.compare):
        return Error
    if values is Undefined or (item is Undefined and equal is ops.compare):
        return Undefined
    if type(values) is not list:
        return Error
    return any(equal("==", item, element) is True for element in values)


_COMPARE_NAMES = {
    "<": "<",
    "<=": "<=",
    "==": "==",
    "!=": "!=",
    ">": ">",
    ">=": ">=",
    "is": "is",
    "isnt": "isnt",
    "=?=": "is",
    "=!=": "isnt",
}


def _compare_any(op: str, a: object, b: object) -> object:
    if op == "is":
        return ops.meta_equal(a, b)
    if op == "isnt":
        return ops.meta_not_equal(a, b)
    return ops.compare(op, a, b)


@register("anyCompare", 3, 3)
def any_compare(op, values, target):  # type: ignore[no-untyped-def]
    """anyCompare(op, list, v): true if (element op v) is true for some element."""
    return _list_compare(op, values, target, any_of=True)


@register("allCompare", 3, 3)
def all_compare(op, values, target):  # type: ignore[no-untyped-def]
    """allCompare(op, list, v): true if (element op v) is true for every element."""
    return _list_compare(op, values, target, any_of=False)


def _list_compare(op, values, target, *, any_of):  # type: ignore[no-untyped-def]
    name = _COMPARE_NAMES.get(op.lower()) if type(op) is str else None
    if name is None or type(values) is not list or target is Error:
        return Error
    if any(element is Error for element in values):
        return Error
    # Element by element, stopping at the first answer that decides (or error).
    for element in values:
        r = _compare_any(name, element, target)
        if r is Error:
            return Error
        if any_of and r is True:
            return True
        if not any_of and r is not True:
            return False
    return not any_of


__all__ = ["REGISTRY", "Builtin", "compile_call", "register"]

# The string functions register themselves into REGISTRY on import.
from . import strbuiltins  # noqa: E402, F401
