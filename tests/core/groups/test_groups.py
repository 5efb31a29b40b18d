"""Hierarchical group quotas: the seeds' examples, HTCondor's scenarios, properties."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core.classad import parse_expr
from condorlite.core.groups.plan import (
    NO_ALLOCATION,
    NO_SUBMITTERS,
    Turn,
    plan_group_negotiation,
)
from condorlite.core.groups.quotas import ROOT, allocate, assign_quotas
from condorlite.core.groups.rounds import negotiate_groups
from condorlite.core.groups.tree import (
    DEFAULT_GROUP_SORT_EXPR,
    FLT_MAX,
    build_tree,
    group_of,
    group_totals,
    sort_groups,
    sort_keys,
)
from condorlite.core.groups.views import describe_groups
from condorlite.core.policy import Policy
from condorlite.errors import ConfigError

SEED = Policy(group_names=("group_physics", "group_chemistry"),
              group_quota={"group_physics": 20, "group_chemistry": 10})
PHY, CHEM = "group_physics", "group_chemistry"


def user(group: str, name: str = "u") -> str:
    return f"{group}.{name}@example.org" if group != ROOT else f"{name}@example.org"


class FakePool:
    """Identical one-weight slots and a fair-share stand-in for run_cycle: each turn
    deals slots one at a time, round robin over the turn's submitters in name order,
    to a submitter with an idle job that accepts a free slot, until the pie
    ``min(pool, limit) - usage of the turn's submitters`` is used. Never gives a slot
    twice."""

    def __init__(self, size: int, idle: dict[str, int],
                 wants: dict[str, Callable[[int], bool]] | None = None) -> None:
        self.size = size
        self.free = list(range(1, size + 1))
        self.idle = dict(idle)
        self.wants = wants or {}
        self.usage = dict.fromkeys(idle, 0.0)
        self.taken: dict[int, str] = {}

    def __call__(self, turn: Turn) -> dict[str, float]:
        pie = min(self.size, turn.limit) - sum(self.usage[s] for s in turn.submitters)
        changes: dict[str, float] = {}
        progress = True
        while pie >= 1 and progress:
            progress = False
            for name in turn.submitters:
                if pie < 1 or self.idle[name] == 0:
                    continue
                ok = self.wants.get(name, lambda _slot: True)
                slot = next((s for s in self.free if ok(s)), None)
                if slot is None:
                    continue
                assert slot not in self.taken
                self.free.remove(slot)
                self.taken[slot] = name
                self.idle[name] -= 1
                self.usage[name] += 1
                changes[name] = changes.get(name, 0.0) + 1
                pie -= 1
                progress = True
        return changes

    def running(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for name in self.taken.values():
            counts[name] = counts.get(name, 0) + 1
        return counts


# -- the tree ------------------------------------------------------------------------


def test_tree_order_case_and_problems():
    policy = Policy(
        group_names=("b", "A", "a.Y", "a.x", "zz.q", "B", "<none>", "a.x.deep"),
        group_quota={"A": 10, "a.x": 4},
        group_quota_dynamic={"a": 0.5, "a.y": 0.25, "a.x.deep": 1.0},
        group_accept_surplus_by_group={"a.x": True},
        group_autoregroup_by_group={"b": True},
        group_prio_factor={"a": 5.0},
    )
    tree = build_tree(policy)
    assert tree.order == (ROOT, "A", "b", "a.x", "a.Y", "a.x.deep")
    assert tree.root.children == ("A", "b")
    assert tree.node("a").children == ("a.x", "a.Y")
    problems = "\n".join(tree.problems)
    assert "'zz.q' ignored" in problems and "'B' ignored: duplicate of 'b'" in problems
    assert "reserved" in problems and "'b' has no GROUP_QUOTA" in problems
    a, ay, deep = tree.node("A"), tree.node("a.y"), tree.node("A.X.DEEP")
    assert (a.config_quota, a.is_static, a.prio_factor) == (10.0, True, 5.0)  # static wins
    assert (ay.config_quota, ay.is_static, ay.depth, ay.parent) == (0.25, False, 2, "A")
    assert deep.depth == 3 and deep.parent == "a.x"
    assert tree.node("a.x").accept_surplus and not a.accept_surplus
    assert tree.node("b").autoregroup and tree.root.autoregroup and tree.autoregroup
    assert tree.root.accept_surplus and tree.global_accept_surplus


def test_group_of_deepest_configured_prefix():
    tree = build_tree(Policy(group_names=("a", "a.b"), group_quota={"a": 1, "a.b": 1}))
    assert group_of("A.B.alice@x.org", tree) == "a.b"
    assert group_of("a.zz.alice@x.org", tree) == "a"
    assert group_of("a.b.c.alice@x.org", tree) == "a.b"
    assert group_of("zz.alice@x.org", tree) == ROOT
    assert group_of("alice@x.org", tree) == ROOT
    assert group_of("A.B", tree) == "a.b"  # a name without @ is a group
    assert group_of("nosuch", tree) == ROOT
    totals = group_totals(tree, {"a.b.u@x": 2, "a.v@x": 3, "w@x": 4, "a.b": 99})
    assert totals == {ROOT: 4.0, "a": 3.0, "a.b": 2.0}


# -- quotas --------------------------------------------------------------------------


def test_seed_static_quotas_and_scaling():
    tree = build_tree(SEED)
    q = assign_quotas(tree, 30)
    assert (q.quota[PHY], q.quota[CHEM], q.quota[ROOT]) == (20, 10, 0)
    big = assign_quotas(tree, 60)  # not scaled up: the rest is <none>'s
    assert (big.quota[PHY], big.quota[CHEM], big.quota[ROOT]) == (20, 10, 30)
    # Half the pool lost: scaled down only when oversubscription is disallowed.
    assert assign_quotas(tree, 15).quota[PHY] == 20
    strict = build_tree(replace(SEED, negotiator_allow_quota_oversubscription=False))
    half = assign_quotas(strict, 15)
    assert (half.quota[PHY], half.quota[CHEM]) == (10, 5)


def test_dynamic_quotas_are_fractions_of_the_parent():
    policy = Policy(group_names=("p", "p.hep", "p.lep", "c"),
                    group_quota_dynamic={"p": 2 / 3, "c": 1 / 3, "p.hep": 0.75, "p.lep": 0.25},
                    negotiator_allow_quota_oversubscription=False)
    q = assign_quotas(build_tree(policy), 30)
    assert q.quota["p.hep"] == pytest.approx(15) and q.quota["p.lep"] == pytest.approx(5)
    assert q.subtree_quota["p"] == pytest.approx(20) and q.quota["p"] == pytest.approx(0)
    assert q.quota["c"] == pytest.approx(10)
    over = Policy(group_names=("x", "y"), group_quota_dynamic={"x": 0.8, "y": 0.8})
    q2 = assign_quotas(build_tree(over), 10)  # fractions summing over 1 are scaled to 1
    assert q2.quota["x"] == pytest.approx(5) and q2.quota["y"] == pytest.approx(5)


# -- the seed's example: 30 machines, physics 20, chemistry 10 ------------------------


def test_seed_starvation_order_chemistry_first():
    tree = build_tree(SEED)
    alloc = allocate(tree, assign_quotas(tree, 30), {PHY: 40, CHEM: 40})
    order = sort_groups(tree, alloc, {PHY: 15, CHEM: 5}, SEED)
    assert order == [CHEM, PHY, ROOT]
    assert sort_groups(tree, alloc, {PHY: 5, CHEM: 9}, SEED) == [PHY, CHEM, ROOT]


def test_seed_surplus_off_each_group_stops_at_its_quota():
    demand = {user(PHY, "einstein"): 5, user(CHEM, "curie"): 30}
    pool = FakePool(30, {user(PHY, "einstein"): 5, user(CHEM, "curie"): 30})
    cycle = negotiate_groups(build_tree(SEED), 30, demand, {}, SEED, pool)
    assert pool.running() == {user(PHY, "einstein"): 5, user(CHEM, "curie"): 10}
    first = cycle.rounds[0]
    assert first.allocated[CHEM] == 10 and first.allocated[PHY] == 5
    assert first.allocation.unallocated == 15  # idle: nobody may borrow it


def test_seed_accept_surplus_lends_idle_quota():
    policy = replace(SEED, group_accept_surplus=True)
    tree = build_tree(policy)
    alloc = allocate(tree, assign_quotas(tree, 30), {PHY: 5, CHEM: 30})
    assert (alloc.allocated[PHY], alloc.allocated[CHEM], alloc.unallocated) == (5, 25, 0)
    pool = FakePool(30, {user(PHY): 5, user(CHEM): 30})
    negotiate_groups(tree, 30, {user(PHY): 5, user(CHEM): 30}, {}, policy, pool)
    assert pool.running() == {user(PHY): 5, user(CHEM): 25}


ROOT60 = Policy(group_names=("group_root", "group_root.a", "group_root.b", "group_root.c"),
                group_quota={"group_root": 60, "group_root.a": 10, "group_root.b": 20,
                             "group_root.c": 30},
                group_accept_surplus=True, negotiator_allow_quota_oversubscription=False)


def test_seed_hierarchy_root_60_with_a_b_c():
    tree = build_tree(ROOT60)
    q = assign_quotas(tree, 60)
    assert [q.quota[f"group_root.{x}"] for x in "abc"] == [10, 20, 30]
    assert q.quota["group_root"] == 0 and q.subtree_quota["group_root"] == 60
    light = allocate(tree, q, {"group_root.a": 40, "group_root.c": 10})
    assert light.allocated["group_root.a"] == 40 and light.allocated["group_root.c"] == 10
    # c idle: its 30 are shared by a and b in proportion to their quotas (1:2).
    heavy = allocate(tree, q, {"group_root.a": 100, "group_root.b": 100})
    assert heavy.allocated["group_root.a"] == pytest.approx(20)
    assert heavy.allocated["group_root.b"] == pytest.approx(40)
    # Without surplus each child stops at its quota.
    off = build_tree(replace(ROOT60, group_accept_surplus=False))
    capped = allocate(off, assign_quotas(off, 60), {"group_root.a": 100, "group_root.b": 100})
    assert (capped.allocated["group_root.a"], capped.allocated["group_root.b"]) == (10, 20)


def test_seed_hierarchy_with_oversubscription_counts_the_parent_quota_too():
    # HTCondor's default: group_root keeps its 60 as its own quota besides its children's
    # 10+20+30, so its unused 60 is surplus too and the allocation exceeds the pool;
    # the slots themselves bound what the negotiation can give.
    policy = replace(ROOT60, negotiator_allow_quota_oversubscription=True)
    tree = build_tree(policy)
    q = assign_quotas(tree, 60)
    assert q.quota["group_root"] == 60 and q.quota["group_root.c"] == 30
    heavy = allocate(tree, q, {"group_root.a": 100, "group_root.b": 100})
    assert heavy.allocated["group_root.a"] == pytest.approx(40)
    assert heavy.allocated["group_root.b"] == pytest.approx(80)
    demand = {user("group_root.a"): 100, user("group_root.b"): 100}
    pool = FakePool(60, dict(demand))
    negotiate_groups(tree, 60, demand, {}, policy, pool)
    assert sum(pool.running().values()) == 60


# -- HTCondor's scenarios --------------------------------------------------------------


def test_htcondor_autoregroup_four_slots():
    policy = Policy(group_names=("a", "b"), group_quota={"a": 1, "b": 1},
                    group_accept_surplus=False, group_autoregroup=True)
    tree = build_tree(policy)
    demand = {user("a"): 2, user("b"): 2}
    plan = plan_group_negotiation(tree, 4, demand, {}, policy)
    assert [(t.group, t.limit) for t in plan.turns] == [("a", 1), ("b", 1), (ROOT, 4)]
    assert plan.turns[-1].submitter_groups == (ROOT, "a", "b")
    assert plan.turns[-1].submitters == (user("a"), user("b"))
    pool = FakePool(4, dict(demand))
    cycle = negotiate_groups(tree, 4, demand, {}, policy, pool)
    assert pool.running() == {user("a"): 2, user("b"): 2}
    first = [(t.group, t.limit) for t in cycle.turns[:3]]
    assert first == [("a", 1), ("b", 1), (ROOT, 4)]
    assert cycle.group_usage == {ROOT: 0.0, "a": 2.0, "b": 2.0}


def test_autoregroup_only_for_groups_that_ask_for_it():
    policy = Policy(group_names=("a", "b"), group_quota={"a": 1, "b": 1},
                    group_autoregroup_by_group={"a": True})
    tree = build_tree(policy)
    demand = {user("a"): 2, user("b"): 2}
    pool = FakePool(4, dict(demand))
    negotiate_groups(tree, 4, demand, {}, policy, pool)
    assert pool.running() == {user("a"): 2, user("b"): 1}
    # The <none> turn has the whole pool but nobody to run it: a has no demand here.
    plan = plan_group_negotiation(tree, 4, {user("b"): 2}, {}, policy)
    assert (ROOT, NO_SUBMITTERS) in plan.skipped and plan.allocated[ROOT] == 4


HGQ = ("a", "b", "a.a", "a.b", "b.a", "b.b")
HGQ_POLICY = Policy(group_names=HGQ, group_quota_dynamic=dict.fromkeys(HGQ, 0.5),
                    group_accept_surplus=True,
                    group_accept_surplus_by_group={"a": False, "b": False})
HGQ_DEMAND = {"a.a": 20, "a.b": 10, "b.a": 10, "b.b": 10}


@pytest.mark.parametrize("oversub", [True, False])
def test_htcondor_forty_slots_allocation(oversub):
    tree = build_tree(replace(HGQ_POLICY, negotiator_allow_quota_oversubscription=oversub))
    q = assign_quotas(tree, 40)
    assert [q.quota[g] for g in ("a.a", "a.b", "b.a", "b.b")] == [10, 10, 10, 10]
    assert q.subtree_quota["a"] == q.subtree_quota["b"] == 20
    alloc = allocate(tree, q, HGQ_DEMAND)
    if oversub:
        # a and b keep their whole subtree quota as their own: a's 20 unused by a
        # itself flows to a.a inside a; b's leaves 20 that nobody outside may take.
        assert (q.quota["a"], q.quota[ROOT]) == (20, 0)
        assert alloc.allocated["a.a"] == 20 and alloc.unallocated == 30
    else:
        assert (q.quota["a"], q.quota[ROOT]) == (0, 0)
        assert alloc.allocated["a.a"] == 10 and alloc.unallocated == 0
    assert [alloc.allocated[g] for g in ("a.b", "b.a", "b.b")] == [10, 10, 10]


def _forty_slot_run(policy: Policy, rate: float | None, cycles: int) -> list[dict[str, int]]:
    wants = {user("a.a"): lambda s: s > 10, user("a.b"): lambda s: False,
             user("b.a"): lambda s: s <= 10, user("b.b"): lambda s: s <= 10}
    demand = {user(g): n for g, n in HGQ_DEMAND.items()}
    pool = FakePool(40, dict(demand), wants)
    seen = []
    for _cycle in range(cycles):  # jobs keep running: usage carries over, demand stays
        negotiate_groups(build_tree(policy), 40, demand, dict(pool.usage), policy, pool,
                         round_robin_rate=rate)
        seen.append({name.split(".u@")[0]: n for name, n in sorted(pool.running().items())})
    return seen


@pytest.mark.parametrize(("oversub", "climb"), [(True, [10, 15, 18, 19, 20]),
                                               (False, [15, 18, 19, 20, 20])])
def test_htcondor_forty_slots_end_to_end(oversub, climb):
    policy = replace(HGQ_POLICY, negotiator_allow_quota_oversubscription=oversub)
    # With GROUP_QUOTA_ROUND_ROBIN_RATE = 1, b.a and b.b take the ten slots in turns.
    # a.a's strict cap (a refuses surplus) is checked against usage that grows within
    # the round while its target counts from the round's start, as in HTCondor, so it
    # climbs to its 20 over a few cycles: the steady state of HTCondor's test.
    runs = _forty_slot_run(policy, 1, 5)
    assert [r["a.a"] for r in runs] == climb
    assert all((r["b.a"], r["b.b"]) == (5, 5) and "a.b" not in r for r in runs)
    # In one step (HTCondor's default rate) the first of the two takes all ten.
    assert _forty_slot_run(policy, math.inf, 2) == [{"a.a": 20, "b.a": 10}] * 2
    # The knob does what the argument does.
    knob = replace(policy, group_quota_round_robin_rate=1.0)
    assert _forty_slot_run(knob, None, 5) == runs


def test_strict_quota_caps_a_subtree_that_refuses_surplus():
    policy = Policy(group_names=("a", "a.x"), group_quota={"a": 4, "a.x": 2},
                    group_accept_surplus_by_group={"a.x": True},
                    negotiator_allow_quota_oversubscription=False)
    tree = build_tree(policy)
    demand = {user("a.x"): 9, user("a"): 3, user(ROOT): 1}
    plan = plan_group_negotiation(tree, 10, demand, {user("a"): 3}, policy)
    # a spends its own 2 on its own demand, so a.x gets its 2; the strict quota then
    # lets a.x add only 1 because a's subtree already uses 3 of a's 4. a is at 3, over
    # its target of 2: its turn allows nothing new. <none> may use its quota of 6.
    assert (plan.quota["a"], plan.allocated["a"], plan.allocated["a.x"]) == (2, 2, 2)
    assert [(t.group, t.limit) for t in plan.turns] == [("a.x", 1), ("a", 2), (ROOT, 6)]
    assert plan.turns[1].group_usage == 3


def test_round_robin_of_remainders_without_slot_weights():
    policy = Policy(group_names=("a", "b", "c"), group_quota={"a": 2.5, "b": 2.5, "c": 5},
                    group_accept_surplus=True, negotiator_use_slot_weights=False)
    tree = build_tree(policy)
    q = assign_quotas(tree, 10)
    demand = {"a": 9, "b": 9, "c": 9}
    # a and b give up half a slot each; the whole slot goes to the group served longest
    # ago, then the one with the larger quota (c), then larger request, then order.
    alloc = allocate(tree, q, demand, weighted_slots=False)
    assert (alloc.allocated["a"], alloc.allocated["b"], alloc.allocated["c"]) == (2, 2, 6)
    assert alloc.round_robin == {"c"}
    later = allocate(tree, q, demand, weighted_slots=False, rr_time={"c": 100.0})
    assert (later.allocated["a"], later.allocated["b"], later.allocated["c"]) == (3, 2, 5)
    weighted = allocate(tree, q, demand)
    assert (weighted.allocated["a"], weighted.allocated["b"]) == (2.5, 2.5)
    # Groups that refuse surplus cannot take the pooled slot: it stays unallocated.
    off = build_tree(replace(policy, group_accept_surplus=False))
    lost = allocate(off, assign_quotas(off, 10), demand, weighted_slots=False)
    assert sum(lost.allocated.values()) == 9 and lost.unallocated == 1


# -- sort expression and views ---------------------------------------------------------


def test_group_sort_expr_custom_and_fallback():
    tree = build_tree(SEED)
    alloc = allocate(tree, assign_quotas(tree, 30), {PHY: 1, CHEM: 1})
    biggest = replace(SEED, group_sort_expr="-GroupQuota")
    assert sort_groups(tree, alloc, {}, biggest) == [PHY, CHEM, ROOT]
    text = replace(SEED, group_sort_expr='"not a number"')
    assert sort_groups(tree, alloc, {}, text) == [CHEM, PHY, ROOT]  # FLT_MAX ties: by name
    with pytest.raises(ConfigError, match="GROUP_SORT_EXPR"):
        sort_groups(tree, alloc, {}, replace(SEED, group_sort_expr="1 +"))


def test_views_json_keys_and_figures():
    demand = {user(PHY): 30, user(CHEM): 4}
    tree, plan, views = describe_groups(SEED, 30, demand, {user(PHY): 15, user(CHEM): 4})
    assert [v.name for v in views] == list(tree.order)
    phys = {v.name: v for v in views}[PHY].to_json()
    assert list(phys) == ["name", "parent", "depth", "config_quota", "effective_quota",
                          "subtree_quota", "is_static", "accept_surplus", "autoregroup",
                          "requested", "allocated", "usage", "sort_key", "sort_key_infinite"]
    assert phys["parent"] == ROOT and phys["requested"] == 30 and phys["allocated"] == 20
    assert phys["usage"] == 15 and phys["sort_key"] == pytest.approx(0.75)
    root = {v.name: v for v in views}[ROOT].to_json()
    assert root["sort_key"] == pytest.approx(3.4e38) and root["allocated"] == 0
    assert plan.order[-1] == ROOT and (ROOT, NO_ALLOCATION) in plan.skipped
    assert FLT_MAX > 3.4e38


def test_round_robin_rate_below_one_is_a_config_error():
    with pytest.raises(ConfigError, match="ROUND_ROBIN_RATE"):
        negotiate_groups(build_tree(SEED), 30, {}, {}, SEED, lambda t: {}, round_robin_rate=0.5)


# -- properties ----------------------------------------------------------------------


@st.composite
def group_setups(draw):
    n = draw(st.integers(1, 7))
    names: list[str] = []
    for i in range(n):
        parent = draw(st.sampled_from([None, *names]))
        names.append(f"g{i}" if parent is None else f"{parent}.g{i}")
    static, dynamic = {}, {}
    for name in names:
        kind = draw(st.sampled_from(["static", "dynamic", "none"]))
        if kind == "static":
            static[name] = draw(st.integers(0, 20))
        elif kind == "dynamic":
            dynamic[name] = draw(st.sampled_from([0.0, 0.1, 0.25, 0.5, 1 / 3, 0.8, 1.0]))
    accept = {name: draw(st.booleans()) for name in names}
    policy = Policy(group_names=tuple(names), group_quota=static, group_quota_dynamic=dynamic,
                    group_accept_surplus_by_group=accept,
                    negotiator_allow_quota_oversubscription=draw(st.booleans()),
                    negotiator_use_slot_weights=draw(st.booleans()))
    demand = {name: draw(st.integers(0, 30)) for name in [ROOT, *names]}
    return policy, draw(st.integers(0, 60)), demand


@settings(max_examples=150, deadline=None)
@given(group_setups())
def test_allocation_properties(setup):
    policy, pool, demand = setup
    tree = build_tree(policy)
    quotas = assign_quotas(tree, pool)
    weighted = policy.negotiator_use_slot_weights
    alloc = allocate(tree, quotas, demand, weighted_slots=weighted)
    eps = 1e-6 * max(1, pool)
    for g in tree.order:
        assert -eps <= alloc.allocated[g] <= demand[g] + eps
        if not weighted:
            assert alloc.allocated[g] == int(alloc.allocated[g])
    total_quota = sum(quotas.quota.values())
    assert sum(alloc.allocated.values()) + alloc.unallocated == pytest.approx(
        total_quota, abs=1e-6 * max(1.0, total_quota))
    if not policy.negotiator_allow_quota_oversubscription:
        if pool > 0:
            assert total_quota == pytest.approx(pool)
        assert sum(alloc.allocated.values()) <= pool + eps
        for g in tree.order[1:]:
            if not tree.nodes[g].accept_surplus:
                inside = sum(alloc.allocated[x] for x in tree.subtree(g))
                assert inside <= quotas.subtree_quota[g] + eps
    # Deterministic, and independent of the order of GROUP_NAMES.
    again = allocate(build_tree(replace(policy, group_names=policy.group_names[::-1])),
                     quotas, demand, weighted_slots=weighted)
    assert again.allocated == alloc.allocated and again.unallocated == alloc.unallocated


@settings(max_examples=60, deadline=None)
@given(group_setups(), st.sampled_from([1.0, 3.0, math.inf]))
def test_negotiation_properties(setup, rate):
    policy, pool_size, demand = setup
    tree = build_tree(policy)
    idle = {user(g): n for g, n in demand.items()}
    pool = FakePool(pool_size, dict(idle))
    cycle = negotiate_groups(tree, pool_size, idle, {}, policy, pool, round_robin_rate=rate)
    running = pool.running()
    assert sum(running.values()) <= pool_size  # FakePool asserts no slot is given twice
    for name, count in running.items():
        assert count <= idle[name]
    for g in tree.order[1:]:
        node = tree.nodes[g]
        if not node.accept_surplus:  # strict quota: the subtree stays within its cap
            cap = node.config_quota if node.is_static else cycle.rounds[0].allocation.quotas \
                .subtree_quota[g]
            assert sum(cycle.group_usage[x] for x in tree.subtree(g)) <= cap + 1e-9
    replay = FakePool(pool_size, dict(idle))
    negotiate_groups(tree, pool_size, idle, {}, policy, replay, round_robin_rate=rate)
    assert replay.taken == pool.taken


def test_sort_keys_and_defaults_agree_with_htcondor():
    import classad2
    import htcondor2  # the oracle: HTCondor's own defaults and ClassAd library

    assert htcondor2.param["GROUP_SORT_EXPR"].replace(" ", "") == \
        DEFAULT_GROUP_SORT_EXPR.replace(" ", "")
    assert htcondor2.param["NEGOTIATOR_ALLOW_QUOTA_OVERSUBSCRIPTION"] is True
    assert Policy().negotiator_allow_quota_oversubscription is True
    assert htcondor2.param["GROUP_QUOTA_MAX_ALLOCATION_ROUNDS"] == \
        Policy().group_quota_max_allocation_rounds
    tree = build_tree(Policy(group_names=("a", "b", "c"), group_quota={"a": 20, "b": 0},
                             group_quota_dynamic={"c": 0.5}))
    quota = {ROOT: 5.0, "a": 20.0, "b": 0.0, "c": 7.5}
    allocated = {ROOT: 1.0, "a": 12.0, "b": 3.0, "c": 7.5}
    usage = {ROOT: 2.0, "a": 15.0, "b": 1.0, "c": 3.0}
    for text in (DEFAULT_GROUP_SORT_EXPR, "GroupResourcesAllocated - GroupResourcesInUse",
                 'AccountingGroup == "b"', "GroupQuota / 0", 'strcat(AccountingGroup, "x")'):
        mine = sort_keys(tree, quota, allocated, usage, parse_expr(text))
        for g in tree.order:
            ad = classad2.ClassAd({"AccountingGroup": g, "GroupQuota": quota[g],
                                   "GroupResourcesAllocated": allocated[g],
                                   "GroupResourcesInUse": usage[g]})
            theirs = classad2.ExprTree(text).eval(ad)
            number = isinstance(theirs, bool | int | float) and not isinstance(
                theirs, classad2.Value)
            if number and not math.isnan(theirs):
                assert mine[g] == pytest.approx(float(theirs)), (text, g)
            else:  # undefined, error, string: HTCondor's FLT_MAX; NaN too (our choice)
                assert mine[g] == FLT_MAX, (text, g)
