"""ClassAd operators on values, with HTCondor's daemon-mode semantics.

Every function here takes already-evaluated operands (see ``values.py`` for the value
domain) and returns a value; none raises. The rules, checked against HTCondor's
``classad2`` library and ``src/classad/operators.cpp``:

* Strictness: every operator except ``&& || ?: =?= =!= is isnt`` and elvis is strict:
  an ``error`` operand (left checked first) gives error, else an ``undefined`` operand
  gives undefined. So ``undefined + error`` is error.
* Arithmetic ``+ - * / %`` accepts integers, reals and booleans; a boolean counts as the
  integer 0 or 1 (``true + 1 == 2``). Two integers give a 64-bit wrapping integer;
  ``/`` truncates toward zero, ``%`` takes the sign of the dividend (C), a zero divisor
  is error, ``INT64_MIN / -1`` is ``INT64_MAX`` and ``INT64_MIN % -1`` is 0. Otherwise
  both are reals: a result of exactly ``+inf`` is error (``-inf`` and NaN are kept),
  and ``%`` on a real is always error. Any other operand type is error, except the
  time values (``timevalues.py``).
* Comparisons ``< <= > >= == !=``: a list or record operand is error; two strings
  compare case-insensitively (ASCII, as ``strcasecmp``); a string against anything
  else is error; numbers and booleans compare after the same promotion as arithmetic.
* ``=?=`` / ``is`` (and ``=!=`` / ``isnt``) never promote: different types give false
  (``1 =?= 1.0`` and ``1 =?= true`` are false), undefined =?= undefined and
  error =?= error are true, strings compare case-sensitively, and two lists or two
  records are error.
* Bitwise ``& | ^ ~`` and shifts take integers only (a boolean is error). Shift counts
  behave as on x86-64: ``<<`` and ``>>`` on a non-negative left operand use the count
  modulo 64; ``>>`` on a negative operand is arithmetic and saturates at 64 (a count
  of zero or less leaves it unchanged); ``>>>`` on a negative operand clears the sign
  after one shift and then shifts by ``(count - 1) mod 64``.
* Logic: a number is "boolean-equivalent" (non-zero is true, NaN is true); ``!``
  applies to booleans and numbers, is undefined on undefined, error otherwise.
  ``&&``/``||`` follow the 4x4 tables of ``logical_and``/``logical_or`` below.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable

from . import timevalues as _times
from .values import INT64_MAX, INT64_MIN, AbsTime, Error, RelTime, Undefined, utf8, wrap_int64

_INF = float("inf")
_py_add, _py_sub, _py_mul = operator.add, operator.sub, operator.mul

# ASCII-only lower-casing, as C's tolower() in the "C" locale: str.lower() would also
# fold non-ASCII letters, which strcasecmp does not.
_ASCII_LOWER = {c: c + 32 for c in range(ord("A"), ord("Z") + 1)}


def ascii_lower(text: str) -> str:
    """Lower-case A-Z only (strcasecmp's folding)."""
    return text.lower() if text.isascii() else text.translate(_ASCII_LOWER)


def bool_equiv(value: object) -> bool | None:
    """The boolean a value stands for in a condition, or None if it stands for none.

    Booleans are themselves; integers and reals are true when non-zero (NaN is true);
    everything else (strings, lists, records, undefined, error) has no boolean meaning.
    """
    kind = type(value)
    if kind is bool:
        return value  # type: ignore[return-value]
    if kind is int or kind is float:
        return value != 0
    return None


# --- strictness ----------------------------------------------------------------------


def strict2(a: object, b: object) -> object | None:
    """Error if either operand is error, else undefined if either is undefined, else
    None (meaning: go on and compute)."""
    if a is Error or b is Error:
        return Error
    if a is Undefined or b is Undefined:
        return Undefined
    return None


# --- arithmetic ----------------------------------------------------------------------


def _number(value: object) -> int | float | None:
    """An arithmetic operand as int or float (booleans become 0/1), else None."""
    kind = type(value)
    if kind is int or kind is float:
        return value  # type: ignore[return-value]
    if kind is bool:
        return 1 if value else 0
    return None


def _int_div(a: int, b: int) -> object:
    if b == 0:
        return Error
    if a == INT64_MIN and b == -1:
        return INT64_MAX
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _int_mod(a: int, b: int) -> object:
    if b == 0:
        return Error
    if a == INT64_MIN and b == -1:
        return 0
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def _real_div(a: float, b: float) -> float:
    if b != 0.0:
        return a / b
    # IEEE division by zero, which Python refuses to do.
    if a != a or a == 0.0:
        return float("nan")
    negative = (a < 0) != (math.copysign(1.0, b) < 0)
    return -_INF if negative else _INF


def arithmetic_fn(op: str) -> Callable[[object, object], object]:
    """``arithmetic(op, a, b)`` as a function of ``(a, b)``, for op in ``+ - *``, with
    the common cases answered first: two integers (wrapped to 64 bits when out of
    range) or two reals (an infinite result is an error, as ``arithmetic`` says);
    anything else goes to ``arithmetic``."""
    combine = {"+": _py_add, "-": _py_sub, "*": _py_mul}[op]

    def apply(a: object, b: object) -> object:
        kind = type(a)
        if kind is type(b):
            if kind is int:
                r = combine(a, b)
                return r if INT64_MIN <= r <= INT64_MAX else wrap_int64(r)
            if kind is float:
                r = combine(a, b)
                return Error if r == _INF else r
        return arithmetic(op, a, b)

    return apply


def arithmetic(op: str, a: object, b: object) -> object:
    """``a op b`` for op in ``+ - * / %``."""
    special = strict2(a, b)
    if special is not None:
        return special
    x = _number(a)
    y = _number(b)
    if x is None or y is None:
        return _times.arithmetic(op, a, b)  # error unless a time value is in it
    if type(x) is int and type(y) is int:
        if op == "+":
            return wrap_int64(x + y)
        if op == "-":
            return wrap_int64(x - y)
        if op == "*":
            return wrap_int64(x * y)
        if op == "/":
            return _int_div(x, y)
        return _int_mod(x, y)
    if op == "%":
        return Error
    x = float(x)
    y = float(y)
    if op == "+":
        r = x + y
    elif op == "-":
        r = x - y
    elif op == "*":
        r = x * y
    else:
        r = _real_div(x, y)
    return Error if r == _INF else r


def unary_minus(a: object) -> object:
    """``-a``: integers wrap (``-INT64_MIN`` is itself), reals negate, else error."""
    kind = type(a)
    if kind is int:
        return wrap_int64(-a)  # type: ignore[operator]
    if kind is float:
        return -a  # type: ignore[operator]
    if a is Undefined:
        return Undefined
    return _times.unary_minus(a)


def unary_plus(a: object) -> object:
    """``+a``: numbers, undefined and error pass through; anything else is error."""
    kind = type(a)
    if kind is int or kind is float or kind is RelTime or a is Undefined or a is Error:
        return a
    return Error


# --- comparison ----------------------------------------------------------------------


def _ordered(op: str, c: int) -> bool:
    """Map a three-way comparison result c (<0, 0, >0) to the operator's answer."""
    if op == "==":
        return c == 0
    if op == "!=":
        return c != 0
    if op == "<":
        return c < 0
    if op == "<=":
        return c <= 0
    if op == ">":
        return c > 0
    return c >= 0


def _cmp_num(op: str, x: float, y: float) -> bool:
    # Spelled out per operator so NaN compares false everywhere except !=.
    if op == "==":
        return x == y
    if op == "!=":
        return x != y
    if op == "<":
        return x < y
    if op == "<=":
        return x <= y
    if op == ">":
        return x > y
    return x >= y


def compare(op: str, a: object, b: object) -> object:
    """``a op b`` for op in ``== != < <= > >=`` (strict, promoting)."""
    special = strict2(a, b)
    if special is not None:
        return special
    ka = type(a)
    kb = type(b)
    if ka is list or kb is list or not _is_scalar(ka) or not _is_scalar(kb):
        return _times.compare(op, a, b)  # error unless two times of one type
    if ka is str or kb is str:
        if ka is not str or kb is not str:
            return Error
        la = ascii_lower(a)  # type: ignore[arg-type]
        lb = ascii_lower(b)  # type: ignore[arg-type]
        if not (la.isascii() and lb.isascii()):
            # strcasecmp compares bytes: a stray byte (a lone surrogate) sorts by its
            # value, not by its code point
            la, lb = utf8(la), utf8(lb)  # type: ignore[assignment]
        return _ordered(op, (la > lb) - (la < lb))
    x = _number(a)
    y = _number(b)
    if ka is float or kb is float:
        # C converts the integer to double before comparing; Python would compare exactly.
        x = float(x)  # type: ignore[arg-type]
        y = float(y)  # type: ignore[arg-type]
    return _cmp_num(op, x, y)  # type: ignore[arg-type]


def _is_scalar(kind: type) -> bool:
    return kind is int or kind is float or kind is bool or kind is str


def meta_equal(a: object, b: object) -> object:
    """``a =?= b``: same type and same value, no promotion, never undefined."""
    ka = type(a)
    if ka is not type(b):
        return False
    if a is Undefined or a is Error or b is Undefined or b is Error:
        return a is b
    if ka is list or not _is_scalar(ka):
        return _times.identical(a, b) if ka is AbsTime or ka is RelTime else Error
    return a == b


def meta_not_equal(a: object, b: object) -> object:
    """``a =!= b``: the negation of ``=?=`` (error stays error)."""
    r = meta_equal(a, b)
    return r if r is Error else not r


# --- bitwise -------------------------------------------------------------------------


def bitwise(op: str, a: object, b: object) -> object:
    """``a op b`` for op in ``& | ^ << >> >>>`` on 64-bit integers."""
    special = strict2(a, b)
    if special is not None:
        return special
    if type(a) is not int or type(b) is not int:
        return Error
    if op == "&":
        return a & b
    if op == "|":
        return a | b
    if op == "^":
        return a ^ b
    if op == "<<":
        return wrap_int64(a << (b & 63))
    if op == ">>":
        if a >= 0:
            return a >> (b & 63)
        return a >> min(b, 64) if b > 0 else a
    # ">>>"
    if a >= 0:
        return a >> (b & 63)
    return ((a >> 1) & INT64_MAX) >> ((b - 1) & 63)


def bitwise_not(a: object) -> object:
    """``~a`` on an integer; undefined stays undefined; anything else is error."""
    if type(a) is int:
        return ~a  # type: ignore[operator]
    if a is Undefined:
        return Undefined
    return Error


# --- logic ---------------------------------------------------------------------------


def logical_operand(value: object) -> object:
    """A logical operand as bool, Undefined or Error; None if it is none of these."""
    b = bool_equiv(value)
    if b is not None:
        return b
    if value is Undefined or value is Error:
        return value
    return None


def logical_not(a: object) -> object:
    """``!a``: error -> error, undefined -> undefined, number/boolean -> negation."""
    if a is Error:
        return Error
    if a is Undefined:
        return Undefined
    b = bool_equiv(a)
    return Error if b is None else not b


def logical_and(a: object, b: object) -> object:
    """``a && b`` once ``a`` did not short-circuit it (see ``and_short_circuits``).

    Table (rows a, columns b: true false undefined error):
    true: T F U E; false: F F F F; undefined: U F U E; error: E E E E.
    A non-logical operand (string, list, record) is error.
    """
    x = logical_operand(a)
    y = logical_operand(b)
    if x is None or y is None:
        return Error
    if x is False:
        return False
    if x is Error:
        return Error
    if x is True:
        return y
    # x is Undefined
    if y is False:
        return False
    return Undefined if y is True else y


def logical_or(a: object, b: object) -> object:
    """``a || b`` once ``a`` did not short-circuit it.

    Table (rows a, columns b: true false undefined error):
    true: T T T T; false: T F U E; undefined: T U U E; error: E E E E.
    """
    x = logical_operand(a)
    y = logical_operand(b)
    if x is None or y is None:
        return Error
    if x is True:
        return True
    if x is Error:
        return Error
    if x is False:
        return y
    if y is True:
        return True
    return Undefined if y is False else y


def int_index(value: int) -> int:
    """A list index as C's ``int``: HTCondor truncates the 64-bit subscript to 32 bits."""
    value &= 0xFFFFFFFF
    return value - 2**32 if value >= 2**31 else value


__all__ = [
    "arithmetic",
    "ascii_lower",
    "bitwise",
    "bitwise_not",
    "bool_equiv",
    "compare",
    "int_index",
    "logical_and",
    "logical_not",
    "logical_or",
    "meta_equal",
    "meta_not_equal",
    "strict2",
    "unary_minus",
    "unary_plus",
]
