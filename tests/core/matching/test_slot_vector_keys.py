"""``slot_vectors.typed``, ``rest_state`` (with ``moves_of``) and ``lefts`` (one of each
per carved state) against their definitions: a value's kind (0 an integer or any
non-real, 1 a real, -1 a negative zero real), ``number(left(value) - amount)`` at each
position taken from and ``left`` of each value, a NaN or a string having nothing
left."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from condorlite.core.classad.values import Undefined
from condorlite.core.matching.slot_vectors import (
    SlotVector,
    left,
    lefts,
    moves_of,
    number,
    rest_state,
    typed,
)


def _kind(value: object) -> int:
    if type(value) is not float:
        return 0
    return -1 if value == 0 and math.copysign(1.0, value) < 0 else 1


_VALUES = st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([0.0, -0.0, 1, 1.0, True, "u046", Undefined]))


@given(st.lists(_VALUES, max_size=8))
def test_typed_keeps_the_kinds_apart(vals) -> None:
    assert typed(vals) == (tuple(vals), tuple(_kind(v) for v in vals))


def test_typed_tells_zeros_and_integers_apart() -> None:
    assert typed((0.0,)) != typed((-0.0,))
    assert typed((1,)) != typed((1.0,))
    assert typed((True,))[1] == (0,)


def _rest(vector: SlotVector, taken: dict[str, float]) -> tuple:
    """The definition: ``number(left(value) - amount)`` where taken from."""
    want = list(vector.vals)
    for res, amount in taken.items():
        pos = vector.index[res.lower()]
        want[pos] = number(left(want[pos]) - amount)
    return tuple(want)


def _rest_state(vector: SlotVector, taken: dict[str, float]) -> tuple:
    return rest_state(vector.vals, moves_of(vector, taken))


def test_rest_state_of_a_nan_or_a_string_is_what_is_left_of_none() -> None:
    names = ("cpus", "memory", "owner")
    vector = SlotVector(names, (math.nan, "x", "u046"), {n: i for i, n in enumerate(names)},
                        literals=1)
    got = _rest_state(vector, {"Cpus": 1.0, "Memory": 2.5})
    assert got == typed((-1, -2.5, "u046"))
    assert _rest_state(SlotVector(names[:1], (8,), {"cpus": 0}), {"Cpus": 2.0}) == ((6,), (0,))
    assert _rest_state(SlotVector(names[:1], (8.0,), {"cpus": 0}), {"Cpus": 0.5}) == ((7.5,), (1,))


@given(st.lists(_VALUES, max_size=8))
def test_lefts_is_left_of_each_value(vals) -> None:
    got, want = lefts(vals), tuple(left(v) for v in vals)
    assert got == want and [type(v) for v in got] == [float] * len(vals)
    assert all(not math.isnan(v) for v in got)


@given(st.lists(_VALUES, min_size=3, max_size=3),
       st.dictionaries(st.sampled_from(["Cpus", "Memory", "Disk"]),
                       st.one_of(st.integers(0, 64).map(float),
                                 st.floats(allow_nan=True, allow_infinity=True)), max_size=3))
def test_rest_state_is_left_minus_the_amount(vals, taken) -> None:
    # (the carving step's one call: the values, their Python types and their kinds)
    names = ("cpus", "disk", "memory")
    vector = SlotVector(names, tuple(vals), {n: i for i, n in enumerate(names)})
    moves = moves_of(vector, taken)
    assert [pos for pos, _ in moves] == [names.index(res.lower()) for res in taken]
    got, want = rest_state(vector.vals, moves), typed(_rest(vector, taken))
    assert [type(v) for v in got[0]] == [type(v) for v in want[0]]
    assert got[1] == want[1]
    assert [repr(v) for v in got[0]] == [repr(v) for v in want[0]]


def test_typed_with_no_real_is_all_integer_kinds() -> None:
    assert typed((1, "x", True, Undefined)) == ((1, "x", True, Undefined), (0, 0, 0, 0))
    assert typed(()) == ((), ())
    assert typed((1, -0.0))[1] == (0, -1)
