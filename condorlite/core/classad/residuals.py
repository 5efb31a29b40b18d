"""Residuals: values of a partial evaluation that depend on the free attributes.

``partial.specialize`` walks an expression once; a value that depends on a free
attribute is kept as a ``Res`` whose ``fn(vals)`` computes it from the free values
(``vals``, one per free attribute). This module holds those values and the operators
that combine them: ``apply_fn`` applies an operator or a built-in to known and
residual operands alike (calling it now when every operand is known), ``comparison``
makes a numeric comparison with direct paths for one numeric type, ``plain`` refuses
a known value a residual could not reproduce (``Bail``: an ad, or a list holding one,
could be read later, free attributes included).

*Bounds.* A residual that is a conjunction (``&&``; ``true && b`` and ``false || b``
count as ``b``) of comparisons between one free attribute and a number literal or
another free attribute carries them as ``fn.atoms``: a tuple of ``Atom``
``(index, op, operand, test)``, read as ``vals[index] op operand`` (``op`` one of
``< <= > >= == !=``, the attribute on the left; ``operand`` a number, or a
``FreeRef`` for ``vals[operand.index]``), ``test`` the comparison's own residual.
Whenever every free value is an integer or a real, ``fn(vals)`` is the boolean
``all(test(vals) for ..., test in fn.atoms)``, each atom being ``compare_numbers``
of its two values; a caller may then decide some atoms without evaluating them
(``carving`` does, from what a fit already checked) or make new tests of them
(``bound_test``).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import NamedTuple

from . import operators as ops
from .values import INT64_MAX, INT64_MIN, Error, wrap_int64

Residual = Callable[[Sequence[object]], object]


class Bail(Exception):
    """The expression cannot be specialised exactly (see the module doc)."""


class Res:
    """A value that depends on the free attributes: ``fn(vals)`` computes it.
    ``typed``, set only on a residual made for a type tuple of the free values
    (``residual_types``; unset elsewhere, so making a ``Res`` costs no more): its
    ``residual_types.Typed`` source."""

    __slots__ = ("fn", "typed")

    def __init__(self, fn: Residual) -> None:
        self.fn = fn


def is_ad(value: object) -> bool:
    return hasattr(value, "lookup") and not isinstance(value, (str, list))


def plain(value: object) -> object:
    """A known value about to be consumed by an operator or a function: an ad (or a
    list holding one) could be read later, free attributes included."""
    if is_ad(value) or (type(value) is list and any(_holds_ad(v) for v in value)):
        raise Bail
    return value


def _holds_ad(value: object) -> bool:
    if type(value) is list:
        return any(_holds_ad(v) for v in value)
    return is_ad(value)


def apply_fn(fn: Callable[..., object], operands: Sequence[object]) -> object:
    """``fn(*operands)`` now when every operand is known, else a residual applying it."""
    parts = [p if type(p) is Res else plain(p) for p in operands]
    if not any(type(p) is Res for p in parts):
        return fn(*parts)
    getters = tuple(p.fn if type(p) is Res else const(p) for p in parts)  # type: ignore[union-attr]
    if len(getters) == 1:
        (only,) = getters
        return Res(lambda vals: fn(only(vals)))
    if len(getters) == 2:
        # (a constant operand put in as it is: no call to fetch it)
        left, right = parts
        if type(left) is not Res:
            get = right.fn  # type: ignore[union-attr]
            return Res(lambda vals: fn(left, get(vals)))
        if type(right) is not Res:
            get = left.fn  # type: ignore[union-attr]
            return Res(lambda vals: fn(get(vals), right))
        first, second = getters
        return Res(lambda vals: fn(first(vals), second(vals)))
    return Res(lambda vals: fn(*[g(vals) for g in getters]))


def const(value: object) -> Residual:
    return lambda vals: value


def getter(part: object) -> Residual:
    return part.fn if type(part) is Res else const(plain(part))  # type: ignore[union-attr]


PY_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
               "==": operator.eq, "!=": operator.ne}


#: ``c op x`` is ``x FLIPPED[op] c``
FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}


def atoms_of(value: object) -> tuple | None:
    """The bounds a value carries (module doc): those of a residual, else None."""
    return getattr(value.fn, "atoms", None) if type(value) is Res else None  # type: ignore[attr-defined]


def carry_atoms(out: object, atoms: tuple | None) -> None:
    if atoms is not None and type(out) is Res:
        out.fn.atoms = atoms  # type: ignore[attr-defined]


class FreeRef:
    """An atom's operand that is a free value: ``vals[index]``."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def __repr__(self) -> str:
        return f"FreeRef({self.index})"


class Atom(NamedTuple):
    """One comparison of a residual's bounds (module doc, ``fn.atoms``): ``vals[index]
    op operand``."""

    #: the free value on the left
    index: int
    #: ``<``, ``<=``, ``>``, ``>=``, ``==`` or ``!=``
    op: str
    #: a number, or a ``FreeRef``
    operand: object
    #: the comparison's own residual
    test: Residual


def compare_numbers(op: str, a: object, b: object) -> object:
    """``a op b`` as the comparison residuals compute it: Python's operator for two
    integers or two reals (exact, as ClassAd), ``operators.compare`` otherwise."""
    kind = type(a)
    if kind is type(b) and (kind is int or kind is float):
        return PY_COMPARE[op](a, b)
    return ops.compare(op, a, b)


def bound_test(index: int, op: str, number: int | float) -> Residual:
    """The residual of ``vals[index] op number`` (a comparison with a number literal),
    carrying its atom."""
    fn, general, const_type = PY_COMPARE[op], ops.compare, type(number)

    def against_right(vals):  # type: ignore[no-untyped-def]
        a = vals[index]
        return fn(a, number) if type(a) is const_type else general(op, a, number)

    against_right.atoms = (Atom(index, op, number, against_right),)  # type: ignore[attr-defined]
    return against_right


def _bound(test: Residual, get: Residual, op: str, const: object) -> Residual:
    """``test`` (a comparison of ``get``'s value with ``const``), with its bound as an
    atom when ``get`` is a free attribute itself."""
    index = getattr(get, "free_index", None)
    if index is not None:
        test.atoms = (Atom(index, op, const, test),)  # type: ignore[attr-defined]
    return test


def comparison(op: str, left: object, right: object) -> object:
    """A numeric comparison, with a direct path for two operands of one numeric type
    (two integers or two reals compare in Python exactly as in ClassAd; anything
    else, mixed int/real included, goes through ``operators.compare``)."""
    if type(left) is not Res and type(right) is not Res:
        return ops.compare(op, plain(left), plain(right))
    fn = PY_COMPARE[op]
    general = ops.compare
    if type(right) is not Res:
        const, const_type, get = plain(right), type(right), left.fn  # type: ignore[union-attr]
        if const_type is int or const_type is float:
            def against_right(vals):  # type: ignore[no-untyped-def]
                a = get(vals)
                return fn(a, const) if type(a) is const_type else general(op, a, const)
            return Res(_bound(against_right, get, op, const))
    elif type(left) is not Res:
        const, const_type, get = plain(left), type(left), right.fn  # type: ignore[union-attr]
        if const_type is int or const_type is float:
            def against_left(vals):  # type: ignore[no-untyped-def]
                b = get(vals)
                return fn(const, b) if type(b) is const_type else general(op, const, b)
            return Res(_bound(against_left, get, FLIPPED[op], const))
    first, second = getter(left), getter(right)

    def both(vals):  # type: ignore[no-untyped-def]
        a, b = first(vals), second(vals)
        kind = type(a)
        if kind is type(b) and (kind is int or kind is float):
            return fn(a, b)
        return general(op, a, b)

    index, other = getattr(first, "free_index", None), getattr(second, "free_index", None)
    if index is not None and other is not None:
        both.atoms = (Atom(index, op, FreeRef(other), both),)  # type: ignore[attr-defined]
    return Res(both)


def binary_fn(op: str) -> Callable[[object, object], object]:
    if op in ("==", "!=", "<", "<=", ">", ">="):
        return lambda a, b: ops.compare(op, a, b)
    if op in ("+", "-", "*"):
        return ops.arithmetic_fn(op)
    if op in ("/", "%"):
        return lambda a, b: ops.arithmetic(op, a, b)
    return lambda a, b: ops.bitwise(op, a, b)


#: ``+ - *`` of two integers or two reals, as ``operators.arithmetic_fn`` combines them
_COMBINE = {"+": operator.add, "-": operator.sub, "*": operator.mul}
_INF = float("inf")


def arithmetic(op: str, left: object, right: object) -> object:
    """``left op right`` for ``op`` in ``+ - *``: ``operators.arithmetic_fn(op)`` (the
    function ``apply_fn`` would apply), with its first case written into the residual
    (two integers, wrapped to 64 bits when out of range; two reals, an infinite
    result an error) and no call for a constant operand; any other pair of values
    goes to that function, which answers it as before, but for the mixed pairs of
    numbers (``_MIXED``: a boolean with an integer, an integer or a boolean with a
    real) answered as that function does without its general path. A step of a
    rank's arithmetic (``10000000 * My.Rank - Memory``) is then one call of this
    residual and the operand's."""
    fn = _MIXED[op]
    if type(left) is not Res and type(right) is not Res:
        return fn(plain(left), plain(right))
    combine = _COMBINE[op]
    if type(left) is Res and type(right) is Res:
        first, second = left.fn, right.fn

        def both(vals):  # type: ignore[no-untyped-def]
            a, b = first(vals), second(vals)
            kind = type(a)
            if kind is type(b):
                if kind is int:
                    r = combine(a, b)
                    return r if INT64_MIN <= r <= INT64_MAX else wrap_int64(r)
                if kind is float:
                    r = combine(a, b)
                    return Error if r == _INF else r
            return fn(a, b)

        return Res(both)
    if type(right) is Res:
        return _with_constant(fn, combine, right.fn, plain(left), True)  # type: ignore[union-attr]
    return _with_constant(fn, combine, left.fn, plain(right), False)  # type: ignore[union-attr]


def _with_constant(fn: Callable[[object, object], object], combine: Callable,
                   get: Residual, c: object, on_left: bool) -> object:
    """``arithmetic``'s residual of ``get``'s value and the constant ``c`` (on the left
    when ``on_left``: ``c op value``)."""
    kind = type(c)
    if kind is not int and kind is not float:
        return Res((lambda vals: fn(c, get(vals))) if on_left
                   else (lambda vals: fn(get(vals), c)))
    if kind is int:
        if on_left:
            def int_left(vals):  # type: ignore[no-untyped-def]
                b = get(vals)
                if type(b) is int:
                    r = combine(c, b)
                    return r if INT64_MIN <= r <= INT64_MAX else wrap_int64(r)
                return fn(c, b)
            return Res(int_left)

        def int_right(vals):  # type: ignore[no-untyped-def]
            a = get(vals)
            if type(a) is int:
                r = combine(a, c)
                return r if INT64_MIN <= r <= INT64_MAX else wrap_int64(r)
            return fn(a, c)
        return Res(int_right)
    if on_left:
        def real_left(vals):  # type: ignore[no-untyped-def]
            b = get(vals)
            if type(b) is float:
                r = combine(c, b)
                return Error if r == _INF else r
            return fn(c, b)
        return Res(real_left)

    def real_right(vals):  # type: ignore[no-untyped-def]
        a = get(vals)
        if type(a) is float:
            r = combine(a, c)
            return Error if r == _INF else r
        return fn(a, c)
    return Res(real_right)


def _mixed_fn(op: str) -> Callable[[object, object], object]:
    """``operators.arithmetic_fn(op)`` (``+ - *``) with the pairs of numbers of two
    types answered without ``operators.arithmetic``'s general path, exactly as it
    answers them: a boolean is the integer 0 or 1 (``operators._number``), so a
    boolean with an integer (or two booleans) is integer arithmetic wrapped to 64
    bits, and an integer or a boolean with a real is real arithmetic of the two as
    reals, an infinite result an error. (A rank's ``10000000 * My.Rank`` of a
    slot's boolean Rank, the default pre-job rank's first step: 46,467 times on the
    10k static mix; ``x - Memory`` of a real ``x``.) Everything else goes to
    ``arithmetic_fn(op)``."""
    general = ops.arithmetic_fn(op)
    combine = _COMBINE[op]

    def mixed(a: object, b: object) -> object:
        ka, kb = type(a), type(b)
        if ka is kb and (ka is int or ka is float):
            return general(a, b)  # (the same types: its own first case)
        if (ka is int or ka is bool) and (kb is int or kb is bool):
            r = combine(a, b)  # (Python's booleans are the integers 0 and 1)
            return r if INT64_MIN <= r <= INT64_MAX else wrap_int64(r)
        if (ka is float and (kb is int or kb is bool)) or (
                kb is float and (ka is int or ka is bool)):
            r = combine(float(a), float(b))  # type: ignore[arg-type]
            return Error if r == _INF else r
        return general(a, b)

    return mixed


#: ``_mixed_fn`` of each of ``+ - *``: the function ``arithmetic``'s residuals call
#: for a pair of values not of the type their first case tests
_MIXED = {op: _mixed_fn(op) for op in ("+", "-", "*")}


BINARY_FNS: dict[str, Callable[[object, object], object]] = {
    "=?=": ops.meta_equal, "is": ops.meta_equal,
    "=!=": ops.meta_not_equal, "isnt": ops.meta_not_equal,
}
BINARY_FNS.update({op: binary_fn(op) for op in (
    "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>",
    ">>>")})


def list_subscript(base: object, index: object) -> object:
    """The reference walker's subscript for everything but records (``partial`` refuses
    a record subscript: it evaluates the record's attribute)."""
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


UNARY = {"-": ops.unary_minus, "+": ops.unary_plus, "!": ops.logical_not, "~": ops.bitwise_not}
