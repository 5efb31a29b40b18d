"""``charge_moves``: a batch of matches and releases charged at once gives exactly the
figures (floats bit for bit) of charging them one after the other with the formulas of
the accounting module doc, with and without groups."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core import accounting as A
from condorlite.core.accounting import AccountantState, Record
from condorlite.core.policy import Policy
from condorlite.errors import DomainError

T0 = 1000.0
GROUPED = Policy(priority_halflife=100.0, group_names=("physics", "physics.hep", "chem"))
PLAIN = Policy(priority_halflife=100.0)
NAMES = ["physics.hep.alice@x", "physics.bob@x", "chem.carol@x", "dave@x", "physics",
         "x.y.erin@x"]


def _reference_move(state: AccountantState, policy: Policy, name: str, count: int,
                    weight: float, now: float) -> AccountantState:
    """One add_match (count 1) or remove_match (count -1), written straight from the
    module doc's formulas, one new record per figure changed."""
    last = state.last_update_time
    dt = 0.0 if last is None else max(0.0, now - last)
    records = dict(state.records)

    def get(n: str) -> Record:
        return records.get(n) or A.new_record(n, policy, now)

    def charge(rec: Record) -> Record:
        return replace(
            rec, resources_used=max(0, rec.resources_used + count),
            weighted_resources_used=max(0.0, rec.weighted_resources_used + count * weight),
            uncharged_time=rec.uncharged_time - count * dt,
            weighted_uncharged_time=rec.weighted_uncharged_time - count * dt * weight)

    records[name] = charge(get(name))
    if A.has_groups(policy) and "@" in name:
        group, _ = A.assigned_group(name, policy)
        records[group] = charge(get(group))
        parts = group.split(".")
        for i in range(len(parts), 0, -1):
            n = ".".join(parts[:i])
            rec = get(n)
            records[n] = replace(rec, hier_weighted_resources_used=max(
                0.0, rec.hier_weighted_resources_used + count * weight))
    return AccountantState(state.last_update_time, records)


def _same(a: AccountantState, b: AccountantState) -> None:
    assert a.last_update_time == b.last_update_time
    assert sorted(a.records) == sorted(b.records)
    for name in a.records:
        # Records compare field by field with ==, which is exact for floats.
        assert a.records[name] == b.records[name], name


MOVES = st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from([1, 1, -1]),
                           st.sampled_from([0.0, 1.0, 2.5, 0.1, 1 / 3, 64.0])),
                 max_size=40)


@settings(max_examples=60, deadline=None)
@given(moves=MOVES, grouped=st.booleans(), later=st.sampled_from([0.0, 7.0, 1e-3, 12345.6]))
def test_a_batch_equals_the_single_moves_one_after_the_other(moves, grouped, later):
    policy = GROUPED if grouped else PLAIN
    state = A.update_priorities(AccountantState(None), policy, T0)
    state = A.add_match(state, policy, "dave@x", 3.0, T0)  # a record with usage already
    expected = state
    for name, count, weight in moves:
        expected = _reference_move(expected, policy, name, count, weight, T0 + later)
    _same(A.charge_moves(state, policy, moves, T0 + later), expected)
    adds = [(n, w) for n, c, w in moves if c == 1]
    expected_adds = state
    for name, weight in adds:
        expected_adds = _reference_move(expected_adds, policy, name, 1, weight, T0 + later)
    _same(A.add_matches(state, policy, adds, T0 + later), expected_adds)


def test_a_batch_leaves_its_input_untouched_and_keeps_groups_hier_usage():
    state = A.update_priorities(AccountantState(None), GROUPED, T0)
    before = dict(state.records)
    after = A.charge_moves(state, GROUPED, [("physics.hep.alice@x", 1, 2.0),
                                            ("physics.bob@x", 1, 1.0),
                                            ("physics.hep.alice@x", -1, 2.0)], T0 + 10)
    assert state.records == before
    assert after.records["physics"].hier_weighted_resources_used == 1.0
    assert after.records["physics.hep"].hier_weighted_resources_used == 0.0
    assert after.records["physics.hep.alice@x"].uncharged_time == 0.0
    assert after.records["physics.bob@x"].weighted_uncharged_time == -10.0


@pytest.mark.parametrize("weight", [-1.0, math.inf, math.nan])
def test_a_bad_weight_anywhere_in_the_batch_is_refused(weight):
    state = A.update_priorities(AccountantState(None), PLAIN, T0)
    with pytest.raises(DomainError):
        A.charge_moves(state, PLAIN, [("a@x", 1, 1.0), ("b@x", 1, weight)], T0)


def test_an_empty_batch_changes_nothing():
    state = A.update_priorities(AccountantState(None), GROUPED, T0)
    assert A.charge_moves(state, GROUPED, [], T0 + 5) == state
