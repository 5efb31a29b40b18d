"""``carve_amounts``: the C pass and the Python version give the same new values (their
Python types included), amounts left and float test for any state and moves; both are
``slot_vectors.rest_state`` and ``lefts`` of its values; the C pass answers None, and
makes nothing, off its fast path."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core.classad import oldscan
from condorlite.core.classad.values import Undefined
from condorlite.core.matching import carve_amounts
from condorlite.core.matching.slot_vectors import lefts, rest_state

_VALUES = st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([0.0, -0.0, 1, 1.0, 2**60, True, "u046", Undefined]))
_AMOUNTS = st.one_of(st.integers(0, 64).map(float), st.integers(0, 2**60),
                     st.floats(allow_nan=True, allow_infinity=True),
                     st.sampled_from([0.0, -0.0, 0.5, 1e300]))


def _moves(size: int):
    """(position, amount) moves of a vector of ``size`` values, each position once, in
    any order (``slot_vectors.moves_of``)."""
    return st.lists(st.tuples(st.integers(0, size - 1), _AMOUNTS), max_size=size,
                    unique_by=lambda move: move[0]).map(tuple)


def _text(values) -> list[str]:
    """Values as text with their types (a NaN equals no other: compared by repr)."""
    return [f"{type(v).__name__}:{v!r}" for v in values]


@settings(max_examples=400, deadline=None)
@given(st.lists(_VALUES, min_size=1, max_size=6).flatmap(
    lambda vals: st.tuples(st.just(tuple(vals)), _moves(len(vals)))))
def test_python_carve_amounts_is_rest_state_and_its_lefts(case) -> None:
    vals, moves = case
    had = lefts(vals)
    rest, left, plain = carve_amounts.python_carve_amounts(vals, had, moves)
    want = rest_state(vals, moves)[0]
    assert type(rest) is tuple and type(left) is tuple
    assert _text(rest) == _text(want)
    assert _text(left) == _text(lefts(want))
    assert plain == (float not in map(type, want))


@pytest.mark.skipif(not oldscan.AVAILABLE, reason="the compiled module was not built")
@settings(max_examples=400, deadline=None)
@given(st.lists(_VALUES, min_size=1, max_size=6).flatmap(
    lambda vals: st.tuples(st.just(tuple(vals)), _moves(len(vals)))), st.booleans())
def test_compiled_and_python_carve_amounts_agree(case, as_list) -> None:
    vals, moves = case
    had = lefts(vals)
    got = carve_amounts._compiled(vals, had, list(moves) if as_list else moves)
    want = carve_amounts.python_carve_amounts(vals, had, moves)
    assert got is not None and type(got) is tuple
    assert _text(got[0]) == _text(want[0])
    assert _text(got[1]) == _text(want[1])
    assert got[2] is want[2]
    # (the positions not moved keep their very objects)
    moved = {pos for pos, _ in moves}
    assert all(got[0][i] is vals[i] and got[1][i] is had[i]
               for i in range(len(vals)) if i not in moved)


@pytest.mark.skipif(not oldscan.AVAILABLE, reason="the compiled module was not built")
@pytest.mark.parametrize("vals, had, moves", [
    ([1, 2], (1.0, 2.0), ((0, 1.0),)),            # values not a tuple
    ((1, 2), [1.0, 2.0], ((0, 1.0),)),            # amounts left not a tuple
    ((1, 2), (1.0,), ((0, 1.0),)),                # of two lengths
    ((1, 2), (1.0, 2.0), ((2, 1.0),)),            # a position out of range
    ((1, 2), (1.0, 2.0), ((-1, 1.0),)),           # a negative position
    ((1, 2), (1.0, 2.0), ((0.0, 1.0),)),          # a position not an int
    ((1, 2), (1, 2.0), ((0, 1.0),)),              # an amount left not a float
    ((1, 2), (1.0, 2.0), ((0, True),)),           # an amount a bool
    ((1, 2), (1.0, 2.0), ((0, "1"),)),            # an amount not a number
    ((1, 2), (1.0, 2.0), ((0, 1.0, 2),)),         # a move not a pair
    ((1, 2), (1.0, 2.0), {(0, 1.0)}),             # moves not a tuple or list
])
def test_compiled_carve_amounts_off_its_fast_path_answers_none(vals, had, moves) -> None:
    assert carve_amounts._compiled(vals, had, moves) is None


@pytest.mark.skipif(not oldscan.AVAILABLE, reason="the compiled module was not built")
def test_compiled_carve_amounts_raises_as_python_does_on_a_huge_int() -> None:
    with pytest.raises(OverflowError):
        carve_amounts.python_carve_amounts((1,), (1.0,), ((0, 10**400),))
    with pytest.raises(OverflowError):
        carve_amounts._compiled((1,), (1.0,), ((0, 10**400),))


def test_a_carve_of_integral_and_fractional_amounts() -> None:
    """The rule by hand: an integral rest an int value and a float amount left (-0.0
    is 0.0), a fractional one a float in both, a NaN nothing left, an infinity kept."""
    vals = (4, 2.5, "u1", 8, 3)
    had = lefts(vals)
    for run in {carve_amounts.python_carve_amounts, carve_amounts.carve_amounts}:
        rest, left, plain = run(vals, had, ((0, 4.0), (1, 1.0), (3, math.inf), (4, 0.5)))
        assert _text(rest) == _text((0, 1.5, "u1", -math.inf, 2.5))
        assert _text(left) == _text((0.0, 1.5, 0.0, -math.inf, 2.5))
        assert not plain
        rest, left, plain = run(vals[:1], had[:1], ((0, 4.0),))
        assert _text(rest) == ["int:0"] and _text(left) == ["float:0.0"] and plain
        rest, left, _ = run((1.0,), (1.0,), ((0, math.nan),))
        assert math.isnan(rest[0]) and left == (0.0,)
