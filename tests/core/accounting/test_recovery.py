"""``core.accounting.recovery``: the RUP curve is the accountant's own update, and the crossing
time lands on the target."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core.accounting import AccountantState, Record, update_priorities
from condorlite.core.accounting.recovery import curve, recovery, rup_after
from condorlite.core.policy import Policy

T0 = 0.0  # the epoch: times near 1.7e9 would round the interval by 2e-7 s


def _accountant_rup(rup: float, usage: float, halflife: float, seconds: float,
                    steps: int) -> float:
    """The real accountant, updated ``steps`` times over ``seconds`` with ``usage``
    weighted slots held throughout."""
    rec = Record("u@x", priority=rup, resources_used=1 if usage else 0,
                 weighted_resources_used=usage)
    state = AccountantState(T0, {"u@x": rec})
    policy = Policy(priority_halflife=halflife)
    for i in range(1, steps + 1):
        state = update_priorities(state, policy, T0 + seconds * i / steps)
    return state.records["u@x"].priority


@settings(max_examples=300, deadline=None)
@given(rup=st.floats(0.5, 1e6), usage=st.floats(0, 1e4), halflife=st.floats(60, 1e7),
       target=st.floats(0.5, 1e6), steps=st.integers(1, 7))
def test_crossing_time_lands_on_the_target_in_the_accountant(rup, usage, halflife, target,
                                                              steps):
    answer = recovery(rup, usage, halflife, target)
    if answer.seconds is None:
        assert target <= usage and target < rup
        # a long way out, the accountant is still above the target (or has rounded
        # onto it: the curve tends to the usage, which is at or over the target)
        got = _accountant_rup(rup, usage, halflife, 20 * halflife, steps)
        assert got > target or got == pytest.approx(target, rel=1e-12)
        return
    if answer.seconds == 0:
        assert rup <= target
        return
    got = _accountant_rup(rup, usage, halflife, answer.seconds, steps)
    assert got == pytest.approx(target, rel=1e-9, abs=1e-9)


@settings(max_examples=200, deadline=None)
@given(rup=st.floats(0.5, 1e6), usage=st.floats(0, 1e4), halflife=st.floats(60, 1e7),
       seconds=st.floats(0, 1e8), steps=st.integers(1, 5))
def test_curve_is_the_accountant_update_however_often_it_runs(rup, usage, halflife, seconds,
                                                               steps):
    expected = _accountant_rup(rup, usage, halflife, seconds, steps) if seconds else rup
    assert rup_after(rup, usage, halflife, seconds) == pytest.approx(expected, rel=1e-9)


def test_the_three_cases_by_hand():
    day = 86400.0
    # 64 -> 4 with nothing in use: four half-lives
    assert recovery(64, 0, day, 4).seconds == pytest.approx(4 * day)
    # down to the minimum 0.5 is reached (the clamp), under it never
    assert recovery(64, 0, day, 0.5).seconds == pytest.approx(7 * day)
    assert recovery(64, 0, day, 0.4).seconds is None
    # with 10 slots in use it tends to 10: 5 is never reached, 12 is
    assert recovery(64, 10, day, 5).seconds is None
    assert recovery(64, 10, day, 12).seconds == pytest.approx(day * math.log2(54 / 2))
    # already there, but rising past it
    ans = recovery(2, 10, day, 6)
    assert ans.seconds == 0 and ans.rises_past == pytest.approx(day)


def test_curve_points_are_even_and_include_both_ends():
    pts = curve(64, 0, 86400, 4 * 86400, 5)
    assert [p.seconds for p in pts] == [0, 86400, 2 * 86400, 3 * 86400, 4 * 86400]
    assert [p.rup for p in pts] == pytest.approx([64, 32, 16, 8, 4])
