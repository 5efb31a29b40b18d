"""Residuals of the operators that choose what they evaluate: ``&&``, ``||``, ``?:``
(and ``ifThenElse``) and the elvis ``?:``, with the bounds a conjunction carries.

``partial``'s walk decides what is walked (the reference walker's rules: the right of
``&&``/``||`` only when the left does not settle it, a known condition's branch
alone); when an operand it walked is a residual (``residuals.Res``), the functions
here make the operator's residual of the walked operands: at each vector it gives
what the reference walker gives of the operands' values there (the left of
``&&``/``||`` settling the answer where ``operators.bool_equiv`` says so, else
``operators.logical_and``/``logical_or`` of both; a branch chosen by
``bool_equiv`` of the condition).

*Bounds.* ``a && b`` of two conjunctions of bounds carries both (``fn.atoms``, as
``residuals`` defines them); ``true && b`` and ``false || b`` are ``b`` for a boolean
``b`` and carry its bounds. A residual that can never be ``true`` at any vector is
marked ``fn.never_true``: ``a && b`` with such an operand, ``a || b`` with two. A
``Requirements`` test reads it as "never holds" (``carving.PairProgram``): an ``&&``
or ``||`` is never a number.
"""

from __future__ import annotations

from . import operators as ops
from .residuals import Res, apply_fn, atoms_of, carry_atoms, getter, plain
from .values import Error, Undefined


def known_junction(op: str, left: object, right: object) -> object:
    """``left op right`` for ``op`` ``&&`` or ``||``, ``left`` a known value that does not
    settle the answer on its own (the walk has settled those), ``right`` walked."""
    stop = op == "||"  # the left value that settles the answer without the right
    combine = ops.logical_or if stop else ops.logical_and
    out = apply_fn(lambda b: combine(left, b), (right,))
    if left is (not stop) and type(right) is Res:
        # true && b and false || b are b for a boolean b: the bounds of b are
        # those of the whole
        carry_atoms(out, atoms_of(right))
    if type(out) is Res and (never_true(left, None) if not stop
                             else never_true(right, None)):
        out.fn.never_true = True  # type: ignore[attr-defined]
    return out


def junction(op: str, left: Res, right: object) -> Res:
    """``left op right`` for ``op`` ``&&`` or ``||``, ``left`` a residual, ``right``
    walked: at each vector the right is evaluated only where the left does not settle
    the answer, as the reference walker does."""
    stop = op == "||"
    combine = ops.logical_or if stop else ops.logical_and
    right_fn = getter(right)
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
        second = () if right is True else atoms_of(right)
        if first is not None and second is not None:
            junction.atoms = first + second  # type: ignore[attr-defined]
        if never_true(left, left_fn) or never_true(right, right_fn):
            junction.never_true = True  # type: ignore[attr-defined]
    elif never_true(left, left_fn) and never_true(right, right_fn):
        junction.never_true = True  # type: ignore[attr-defined]
    return Res(junction)


def never_true(part: object, fn: object) -> bool:
    """Whether an operand of ``&&`` or ``||`` can never be ``true`` for any vector: a
    constant that is not logically true (false, undefined, error, or no logical
    value at all), or a residual so marked (the module doc)."""
    if type(part) is not Res:
        return ops.logical_operand(plain(part)) is not True
    return getattr(fn if fn is not None else part.fn, "never_true", False)


def choice(selector: Res, then: object, otherwise: object) -> Res:
    """``cond ? then : otherwise`` of a residual condition, both branches walked: the
    branch its value chooses at each vector, undefined or an error when it is no
    boolean."""
    cond_fn = selector.fn
    then_fn, else_fn = getter(then), getter(otherwise)

    def choose(vals):  # type: ignore[no-untyped-def]
        value = cond_fn(vals)
        chosen = ops.bool_equiv(value)
        if chosen is None:
            return Undefined if value is Undefined else Error
        return then_fn(vals) if chosen else else_fn(vals)

    return Res(choose)


def elvis(left: Res, right: object) -> Res:
    """``left ?: right`` of a residual ``left``: the right's value where the left's is
    undefined."""
    left_fn, right_fn = left.fn, getter(right)

    def elvis(vals):  # type: ignore[no-untyped-def]
        value = left_fn(vals)
        return right_fn(vals) if value is Undefined else value

    return Res(elvis)
