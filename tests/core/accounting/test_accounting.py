"""The accountant's formulas against the seed manual's and HTCondor's numbers."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core import accounting as A
from condorlite.core.accounting import AccountantState, Record
from condorlite.core.policy import Policy
from condorlite.errors import DomainError, UsageError

DAY = 86400.0
T0 = 1_700_000_000.0
POLICY = Policy()


def fresh(*records: Record, at: float = T0) -> AccountantState:
    return AccountantState(at, {r.name: r for r in records})


def holding(cores: float, at: float = T0) -> AccountantState:
    """A new user who starts holding ``cores`` cores at ``at``."""
    state = A.update_priorities(AccountantState(None), POLICY, at)
    return A.add_match(state, POLICY, "u@x", cores, at)


# -- the seed manual's figures -----------------------------------------------------------


def test_rup_10_halves_each_halflife_without_usage():
    state = fresh(Record("a@x", priority=10.0))
    one = A.update_priorities(state, POLICY, T0 + DAY)
    two = A.update_priorities(one, POLICY, T0 + 2 * DAY)
    assert one.records["a@x"].priority == pytest.approx(5.0)
    assert two.records["a@x"].priority == pytest.approx(2.5)


def test_new_user_with_100_cores():
    state = holding(100)
    at = {t: A.priority_at(state, POLICY, "u@x", T0 + t).priority for t in (60, DAY, 2 * DAY)}
    assert at[60] == pytest.approx(0.547883, abs=5e-7)
    assert at[DAY] == pytest.approx(50.25)
    assert at[2 * DAY] == pytest.approx(75.125)


def test_one_step_equals_1440_steps_of_60s():
    one = A.update_priorities(holding(100), POLICY, T0 + DAY)
    many = holding(100)
    for i in range(1, 1441):
        many = A.update_priorities(many, POLICY, T0 + 60 * i)
    a, b = one.records["u@x"], many.records["u@x"]
    assert b.priority == pytest.approx(a.priority, rel=1e-9)
    assert b.weighted_accumulated_usage == pytest.approx(100 * DAY)
    assert a.accumulated_usage == pytest.approx(DAY)


def test_steady_state_rup_equals_cores_used():
    state = holding(10)
    state = A.update_priorities(state, POLICY, T0 + 40 * DAY)
    assert state.records["u@x"].priority == pytest.approx(10.0, rel=1e-9)


def test_eup_5_10_20_give_shares_4_2_1():
    recs = [Record(n, priority=p, priority_factor=1.0) for n, p in
            (("a@x", 5.0), ("b@x", 10.0), ("c@x", 20.0))]
    inv = [1 / A.effective_priority(r) for r in recs]
    shares = [i / sum(inv) for i in inv]
    assert [s * 7 for s in shares] == pytest.approx([4, 2, 1])


def test_new_local_user_has_eup_500_with_factor_1000():
    rec = A.new_record("alice@example.org", POLICY, T0)
    assert rec.priority_factor == 1000.0
    assert A.effective_priority(rec) == 500.0


def test_eup_uses_at_least_half():
    assert A.effective_priority(Record("a@x", priority=0.1, priority_factor=3)) == 1.5


# -- update rules ------------------------------------------------------------------------


def test_first_update_keeps_priorities_set_before_it():
    state = AccountantState(None, {"a@x": Record("a@x", priority=40.0)})
    after = A.update_priorities(state, POLICY, T0)
    assert after.last_update_time == T0
    assert after.records["a@x"].priority == 40.0


def test_time_going_backwards_changes_nothing_and_keeps_the_later_time():
    # issue 17: a clock step back (or the cron run that took the lock second) must not
    # move the update time back, or the interval up to it would be charged twice.
    state = fresh(Record("a@x", priority=8.0))
    back = A.update_priorities(state, POLICY, T0 - 500)
    assert back.last_update_time == T0
    assert back.records["a@x"].priority == 8.0


def test_overlapping_runs_never_charge_an_interval_twice():
    state = holding(2)
    forward = A.update_priorities(state, POLICY, T0 + 1000)
    late = A.update_priorities(forward, POLICY, T0 + 500)  # committed after, older clock
    assert late.records == forward.records and late.last_update_time == T0 + 1000
    final = A.update_priorities(late, POLICY, T0 + 1500)
    straight = A.update_priorities(state, POLICY, T0 + 1500)
    assert final.records["u@x"].accumulated_usage == pytest.approx(
        straight.records["u@x"].accumulated_usage)
    assert final.records["u@x"].weighted_accumulated_usage == pytest.approx(2 * 1500)


def test_zero_time_passed_changes_nothing():
    state = fresh(Record("a@x", priority=8.0))
    assert A.update_priorities(state, POLICY, T0) is state


def test_usage_times_are_set():
    state = A.update_priorities(holding(2), POLICY, T0 + 100)
    rec = state.records["u@x"]
    assert (rec.begin_usage_time, rec.last_usage_time) == (T0 + 100, T0 + 100)
    assert rec.accumulated_usage == 100 and rec.weighted_accumulated_usage == 200
    later = A.update_priorities(A.remove_match(state, POLICY, "u@x", 2, T0 + 100), POLICY,
                                T0 + 500)
    assert later.records["u@x"].last_usage_time == T0 + 100
    assert later.records["u@x"].begin_usage_time == T0 + 100


def test_functions_do_not_mutate_their_arguments():
    state = fresh(Record("a@x", priority=3.0))
    snapshot = dict(state.records)
    A.update_priorities(state, POLICY, T0 + 10)
    A.add_match(state, POLICY, "a@x", 4, T0 + 5)
    A.set_factor(state, POLICY, "a@x", 7, T0)
    assert state.records == snapshot and state.last_update_time == T0


# -- exact charging ----------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    updates=st.lists(st.integers(1, 9999), max_size=6, unique=True),
    start=st.integers(0, 10000),
    length=st.integers(0, 10000),
    weight=st.sampled_from([1.0, 2.5, 8.0]),
)
def test_a_match_is_charged_exactly_whatever_the_updates(updates, start, length, weight):
    end = start + length
    events = sorted({*updates, start, end, 20001})
    state = A.update_priorities(AccountantState(None), POLICY, T0)
    for t in events:
        if t in updates or t == 20001:
            state = A.update_priorities(state, POLICY, T0 + t)
        if t == start:
            state = A.add_match(state, POLICY, "u@x", weight, T0 + t)
        if t == end:
            state = A.remove_match(state, POLICY, "u@x", weight, T0 + t)
    rec = state.records["u@x"]
    assert rec.weighted_accumulated_usage == pytest.approx(weight * length, abs=1e-6)
    assert rec.accumulated_usage == pytest.approx(length, abs=1e-6)
    assert rec.resources_used == 0 and rec.weighted_resources_used == 0


def test_remove_match_never_goes_below_zero():
    state = A.remove_match(fresh(), POLICY, "u@x", 3, T0 + 10)
    rec = state.records["u@x"]
    assert (rec.resources_used, rec.weighted_resources_used) == (0, 0.0)
    assert rec.weighted_uncharged_time == 30


def test_bad_weight_is_refused():
    with pytest.raises(DomainError):
        A.add_match(fresh(), POLICY, "u@x", math.nan, T0)


# -- factors and names -------------------------------------------------------------------

GROUPS = Policy(
    group_names=("group_physics", "group_physics.hep"),
    group_prio_factor={"group_physics": 2000.0, "group_physics.hep": 3000.0},
    accountant_local_domain="example.org",
)


@pytest.mark.parametrize(
    ("name", "factor", "group"),
    [
        ("nice-user.bob@example.org", 1e10, "<none>"),
        ("group_physics.newton@example.org", 2000.0, "group_physics"),
        ("group_physics.hep.curie@example.org", 3000.0, "group_physics.hep"),
        ("Group_Physics.x@example.org", 2000.0, "group_physics"),
        ("group_chem.x@example.org", 1000.0, "<none>"),
        ("eve@elsewhere.net", 1e7, "<none>"),
        ("alice@example.org", 1000.0, "<none>"),
    ],
)
def test_initial_factor_rules(name, factor, group):
    rec = A.new_record(name, GROUPS, T0)
    assert rec.priority_factor == factor
    assert rec.accounting_group == group
    assert rec.is_accounting_group is False


def test_group_record():
    rec = A.new_record("group_physics", GROUPS, T0)
    assert rec.is_accounting_group and rec.priority_factor == 2000.0


def test_remote_factor_only_when_local_domain_is_set():
    assert A.new_record("eve@elsewhere.net", POLICY, T0).priority_factor == 1000.0


@pytest.mark.parametrize("name", ["alice@example.org", " bob@x ", "GROUP_PHYSICS"])
def test_valid_submitter_names(name):
    assert A.parse_submitter_name(name, GROUPS) in ("alice@example.org", "bob@x",
                                                    "group_physics")


@pytest.mark.parametrize("name", ["alice", "a@b@c", "", "two words@x", "group_chem"])
def test_invalid_submitter_names(name):
    with pytest.raises(UsageError, match="user@domain"):
        A.parse_submitter_name(name, GROUPS)


# -- edits -------------------------------------------------------------------------------


def test_set_factor_below_one_is_refused():
    with pytest.raises(UsageError, match="greater than or equal to 1"):
        A.set_factor(fresh(), POLICY, "a@x", 0.99, T0)


@pytest.mark.parametrize(
    ("edit", "value"),
    [(A.set_priority, -1.0), (A.set_priority, math.inf), (A.set_priority, -0.5),
     (A.set_accumulated_usage, -5.0), (A.set_accumulated_usage, -0.5),
     (A.set_begin_usage_time, -1), (A.set_begin_usage_time, -0.5), (A.set_ceiling, -2),
     (A.set_floor, -1)],
)
def test_out_of_range_edits_are_refused(edit, value):
    with pytest.raises(UsageError):
        edit(fresh(), POLICY, "a@x", value, T0)


@pytest.mark.parametrize(
    ("edit", "value"),
    [(A.set_priority, 0.0), (A.set_accumulated_usage, 0.0), (A.set_begin_usage_time, 0),
     (A.set_ceiling, -1), (A.set_floor, 0), (A.set_factor, 1.0)],
)
def test_edits_at_the_edge_of_their_range_are_taken(edit, value):
    """The lowest value each edit takes (HTCondor's: a ceiling of -1 is no ceiling)."""
    assert "a@x" in edit(fresh(), POLICY, "a@x", value, T0).records


def test_set_edits_create_and_change_records():
    s = A.set_priority(fresh(), POLICY, "a@x", 12.0, T0)
    s = A.set_factor(s, POLICY, "a@x", 2.0, T0)
    s = A.set_accumulated_usage(s, POLICY, "a@x", 7200.0, T0)
    s = A.set_begin_usage_time(s, POLICY, "a@x", 100.7, T0)
    s = A.set_last_usage_time(s, POLICY, "a@x", 200, T0)
    s = A.set_ceiling(s, POLICY, "a@x", 5, T0)
    s = A.set_floor(s, POLICY, "a@x", 2, T0)
    r = s.records["a@x"]
    assert (r.priority, r.priority_factor, r.weighted_accumulated_usage) == (12.0, 2.0, 7200.0)
    assert r.accumulated_usage == 0.0  # setaccum writes the weighted figure only
    assert (r.begin_usage_time, r.last_usage_time, r.ceiling, r.floor) == (100, 200, 5, 2)
    assert A.effective_priority(r) == 24.0


def test_reset_usage_and_reset_all():
    rec = Record("a@x", accumulated_usage=5, weighted_accumulated_usage=9, begin_usage_time=1)
    s = A.reset_usage(fresh(rec, replace(rec, name="b@x")), "a@x", T0)
    assert s.records["a@x"].weighted_accumulated_usage == 0
    assert s.records["a@x"].begin_usage_time == T0
    assert s.records["b@x"].weighted_accumulated_usage == 9
    s = A.reset_all(s, T0 + 1)
    assert all(r.accumulated_usage == 0 and r.begin_usage_time == T0 + 1
               for r in s.records.values())


def test_reset_and_delete_need_an_existing_record():
    with pytest.raises(DomainError, match="no accountant record named z@x"):
        A.reset_usage(fresh(), "z@x", T0)
    with pytest.raises(DomainError):
        A.delete(fresh(), "z@x")
    assert A.delete(fresh(Record("a@x")), "a@x").records == {}


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a@x", "b@x", "grp.c@x"]),
                          st.floats(min_value=0.0, max_value=64.0)), max_size=30))
def test_add_matches_equals_add_match_one_by_one(matches):
    policy = Policy(group_names=("grp",), group_quota={"grp": 10.0})
    state = A.update_priorities(AccountantState(None, {}), policy, 1000.0)
    state = A.update_priorities(state, policy, 2000.0)
    one_by_one = state
    for name, weight in matches:
        one_by_one = A.add_match(one_by_one, policy, name, weight, 2500.0)
    assert A.add_matches(state, policy, matches, 2500.0) == one_by_one
