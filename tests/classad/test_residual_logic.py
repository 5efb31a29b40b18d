"""The residuals of the choosing operators (``residual_logic``), made directly of
residual operands: at every vector each gives what the reference walker gives of
the operands' values there (the left of ``&&``/``||`` settling the answer when
``operators.bool_equiv`` says so, else ``operators.logical_and``/``logical_or``;
``?:`` and elvis), carries the bounds of a conjunction, and is marked
``never_true`` only where it can never be ``true``. (Through the walk, the contract
of ``partial`` is held to full evaluation by ``test_partial.py``.)"""

from __future__ import annotations

import itertools

from condorlite.core.classad import operators as ops
from condorlite.core.classad.residual_logic import (
    choice,
    elvis,
    junction,
    known_junction,
    never_true,
)
from condorlite.core.classad.residuals import Res, bound_test, list_subscript
from condorlite.core.classad.values import Error, Undefined

#: what a free value may be: the operators' tables are over these
VALUES = (True, False, Undefined, Error, 0, 3, 2.5, "x")


def _free(index: int) -> Res:
    return Res(lambda vals: vals[index])


def _walked(op: str, a: object, b: object) -> object:
    """The reference walker's ``a op b``: the left settles it, or both combine."""
    stop = op == "||"
    if ops.bool_equiv(a) is stop:
        return stop
    return (ops.logical_or if stop else ops.logical_and)(a, b)


def test_junctions_give_the_walkers_values() -> None:
    for op in ("&&", "||"):
        residual = junction(op, _free(0), _free(1)).fn
        for a, b in itertools.product(VALUES, repeat=2):
            assert residual((a, b)) == _walked(op, a, b), (op, a, b)
        for a, b in itertools.product((True, False, Undefined, 3), VALUES):
            if ops.bool_equiv(a) is (op == "||"):
                continue  # (the walk settles these without the right)
            out = known_junction(op, a, _free(0))
            assert out.fn((b,)) == _walked(op, a, b), (op, a, b)  # type: ignore[union-attr]


def test_a_conjunction_carries_its_bounds_and_never_true() -> None:
    cpus, memory = Res(bound_test(0, ">=", 4)), Res(bound_test(1, ">", 2048))
    both = junction("&&", cpus, memory).fn
    assert [atom[:3] for atom in both.atoms] == [(0, ">=", 4), (1, ">", 2048)]  # type: ignore[attr-defined]
    assert not getattr(both, "never_true", False)
    # true && b is b: its bounds; a || b carries none
    assert known_junction("&&", True, memory).fn.atoms == memory.fn.atoms  # type: ignore[union-attr]
    assert not hasattr(junction("||", cpus, memory).fn, "atoms")
    # an operand that is never true: && never true, || only with two
    undefined = junction("&&", cpus, Undefined)
    assert undefined.fn.never_true  # type: ignore[attr-defined]
    assert never_true(undefined, None) and never_true(False, None)
    assert not never_true(True, None) and not never_true(cpus, None)
    assert not getattr(junction("||", undefined, cpus).fn, "never_true", False)
    assert junction("||", undefined, Error).fn.never_true  # type: ignore[attr-defined]


def test_choices_and_elvis() -> None:
    chosen = choice(_free(0), _free(1), "no").fn
    for cond, then in itertools.product(VALUES, VALUES):
        value = chosen((cond, then))
        which = ops.bool_equiv(cond)
        if which is None:
            assert value is (Undefined if cond is Undefined else Error)
        else:
            assert value == (then if which else "no")
    either = elvis(_free(0), 7).fn
    for value in VALUES:
        assert either((value,)) == (7 if value is Undefined else value)


def test_list_subscript() -> None:
    assert list_subscript([1, 2, 3], 1) == 2
    assert list_subscript([1, 2, 3], 3) is Error
    assert list_subscript([1, 2, 3], "1") is Error
    assert list_subscript([1], Undefined) is Undefined
    assert list_subscript("abc", 0) is Error
