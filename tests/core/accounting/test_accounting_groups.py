"""Group records in the accountant: charging, hierarchical usage, decay, factors.

The figures follow HTCondor's Accountant.cpp (AddMatch, RemoveMatch, UpdateOnePriority)
worked by hand with PRIORITY_HALFLIFE = 100 s, so one interval of 100 s gives beta 0.5.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core import accounting as A
from condorlite.core.accounting import AccountantState
from condorlite.core.policy import Policy
from condorlite.errors import UsageError

T0 = 1000.0
POLICY = Policy(
    priority_halflife=100.0,
    group_names=("physics", "physics.hep", "chem"),
    group_prio_factor={"chem": 5.0},
)


def start(policy: Policy = POLICY) -> AccountantState:
    return A.update_priorities(AccountantState(None), policy, T0)


def test_every_configured_group_and_none_get_a_record_at_the_first_update():
    state = start()
    assert sorted(state.records) == ["<none>", "chem", "physics", "physics.hep"]
    chem = state.records["chem"]
    assert chem.is_accounting_group and chem.accounting_group == "chem"
    assert chem.priority_factor == 5.0
    assert state.records["physics"].priority_factor == 1000.0
    assert state.records["<none>"].accounting_group == "<none>"


def test_without_groups_no_group_record_is_kept_or_charged():
    policy = Policy(priority_halflife=100.0)
    state = A.add_match(start(policy), policy, "a.b@x", 2.0, T0)
    assert list(state.records) == ["a.b@x"]
    assert state.records["a.b@x"].hier_weighted_resources_used == 0.0


def test_a_match_charges_the_submitter_its_group_and_each_ancestor_hier():
    state = A.add_match(start(), POLICY, "physics.hep.alice@x", 2.0, T0 + 40)
    alice, hep, phys = (state.records[n] for n in
                        ("physics.hep.alice@x", "physics.hep", "physics"))
    assert alice.accounting_group == "physics.hep" and not alice.is_accounting_group
    assert (alice.resources_used, alice.weighted_resources_used) == (1, 2.0)
    assert (alice.uncharged_time, alice.weighted_uncharged_time) == (-40.0, -80.0)
    assert (hep.resources_used, hep.weighted_resources_used) == (1, 2.0)
    assert (hep.uncharged_time, hep.weighted_uncharged_time) == (-40.0, -80.0)
    assert hep.hier_weighted_resources_used == 2.0
    # The parent gets the hierarchical usage only, not the match itself.
    assert (phys.resources_used, phys.weighted_resources_used) == (0, 0.0)
    assert phys.hier_weighted_resources_used == 2.0
    assert state.records["<none>"].hier_weighted_resources_used == 0.0
    assert state.records["chem"].hier_weighted_resources_used == 0.0


def test_an_ungrouped_user_charges_the_none_record():
    state = A.add_match(start(), POLICY, "bob@x", 3.0, T0)
    none = state.records["<none>"]
    assert (none.resources_used, none.weighted_resources_used) == (1, 3.0)
    assert none.hier_weighted_resources_used == 3.0
    assert state.records["physics"].hier_weighted_resources_used == 0.0


def test_membership_is_case_insensitive_and_deepest_configured():
    state = A.add_match(start(), POLICY, "PHYSICS.other.carol@x", 1.0, T0)
    carol = state.records["PHYSICS.other.carol@x"]
    assert carol.accounting_group == "physics"
    assert state.records["physics"].weighted_resources_used == 1.0


def test_a_group_decays_towards_its_subtree_usage():
    state = start()
    state = A.add_match(state, POLICY, "physics.hep.alice@x", 2.0, T0)
    state = A.add_match(state, POLICY, "physics.carol@x", 1.0, T0)
    state = A.update_priorities(state, POLICY, T0 + 100)
    rec = state.records
    # beta = 0.5: prio = 0.5 * 0.5 + usage * 0.5
    assert rec["physics.hep.alice@x"].priority == pytest.approx(1.25)
    assert rec["physics.carol@x"].priority == pytest.approx(0.75)
    assert rec["physics.hep"].priority == pytest.approx(1.25)
    # physics holds 1 slot itself but 3 in its subtree: it decays towards 3.
    assert rec["physics"].weighted_resources_used == 1.0
    assert rec["physics"].hier_weighted_resources_used == 3.0
    assert rec["physics"].priority == pytest.approx(1.75)
    # Accumulated usage stays the group's own: 1 slot x 100 s.
    assert rec["physics"].weighted_accumulated_usage == pytest.approx(100.0)
    assert rec["physics.hep"].weighted_accumulated_usage == pytest.approx(200.0)
    assert rec["chem"].priority == 0.5


def test_removing_the_match_undoes_hier_and_charges_the_time_used():
    state = A.add_match(start(), POLICY, "physics.hep.alice@x", 2.0, T0)
    state = A.update_priorities(state, POLICY, T0 + 100)
    state = A.remove_match(state, POLICY, "physics.hep.alice@x", 2.0, T0 + 150)
    hep, phys = state.records["physics.hep"], state.records["physics"]
    assert (hep.resources_used, hep.weighted_resources_used) == (0, 0.0)
    assert hep.weighted_uncharged_time == 100.0
    assert hep.hier_weighted_resources_used == phys.hier_weighted_resources_used == 0.0
    state = A.update_priorities(state, POLICY, T0 + 200)
    rec = state.records
    # Without hier usage the group falls back to its own recent usage (100 / 100 s).
    assert rec["physics.hep"].priority == pytest.approx(1.25 * 0.5 + 1.0 * 0.5)
    assert rec["physics.hep.alice@x"].priority == pytest.approx(1.125)
    # physics had no own usage: it just decays.
    assert rec["physics"].priority == pytest.approx(0.625)
    assert rec["physics.hep"].weighted_accumulated_usage == pytest.approx(300.0)


def test_hier_never_goes_below_zero():
    state = A.remove_match(start(), POLICY, "physics.hep.alice@x", 2.0, T0)
    assert state.records["physics"].hier_weighted_resources_used == 0.0
    assert state.records["physics.hep"].weighted_resources_used == 0.0


def test_group_record_factors():
    policy = Policy(group_names=("chem", "bio"), group_prio_factor={"CHEM": 7.0},
                    accountant_local_domain="example.org", default_prio_factor=10.0)
    assert A.initial_factor("chem", policy) == 7.0
    # A group has no domain: it is not remote, it gets the default.
    assert A.initial_factor("bio", policy) == 10.0
    assert A.initial_factor("chem.ann@example.org", policy) == 7.0
    assert A.initial_factor("bio.ann@elsewhere.net", policy) == 1e7
    assert A.new_record("Chem", policy, T0).accounting_group == "chem"


def test_defunct_group_record_belongs_to_none():
    assert A.assigned_group("gone", POLICY) == ("<none>", True)
    assert A.assigned_group("physics.hep", POLICY) == ("physics.hep", True)


def test_the_tree_is_cached_per_policy_object():
    first = A.group_tree(POLICY)
    assert A.group_tree(POLICY) is first
    other = Policy(group_names=("x",))
    assert A.group_tree(other).order == ("<none>", "x")


def test_edit_names_accept_configured_groups_and_none():
    assert A.parse_submitter_name("PHYSICS.HEP", POLICY) == "physics.hep"
    assert A.parse_submitter_name("<none>", POLICY) == "<none>"
    with pytest.raises(UsageError):
        A.parse_submitter_name("<none>", Policy())


NAMES = st.sampled_from(["physics.hep.a@x", "physics.b@x", "chem.c@x", "d@x", "x.e@x"])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(NAMES, st.sampled_from([1.0, 2.0, 4.0])), max_size=12))
def test_hier_usage_is_the_subtree_sum_of_its_users(matches):
    """Invariant: after any matches, a group's WeightedResourcesUsed is the sum over its
    own submitters and its hier usage the sum over its subtree's submitters."""
    state = start()
    for name, weight in matches:
        state = A.add_match(state, POLICY, name, weight, T0)
    # End half of them again.
    for name, weight in matches[::2]:
        state = A.remove_match(state, POLICY, name, weight, T0)
    users = {n: r for n, r in state.records.items() if "@" in n}
    for group in ("physics", "physics.hep", "chem", "<none>"):
        own = sum(r.weighted_resources_used for r in users.values()
                  if r.accounting_group == group)
        sub = sum(r.weighted_resources_used for r in users.values()
                  if r.accounting_group == group
                  or r.accounting_group.startswith(group + "."))
        rec = state.records[group]
        assert rec.weighted_resources_used == pytest.approx(own)
        assert rec.hier_weighted_resources_used == pytest.approx(sub)


def test_the_group_tree_is_kept_on_its_policy() -> None:
    """``group_tree`` is built once per policy object (``Policy.derived``); a policy made
    from it by ``replace`` builds its own, so an edit never reads a stale tree."""
    policy = Policy(group_names=("a", "b"), group_quota={"a": 1.0, "b": 2.0})
    tree = A.group_tree(policy)
    assert A.group_tree(policy) is tree
    wider = replace(policy, group_names=("a", "b", "c"),
                    group_quota={"a": 1.0, "b": 2.0, "c": 3.0})
    assert "c" in A.group_tree(wider).order and "c" not in tree.order
    assert policy == Policy(group_names=("a", "b"), group_quota={"a": 1.0, "b": 2.0})
