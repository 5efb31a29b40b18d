"""Negotiating with groups: the turns, their limits, and the views of the groups.

HTCondor's ``hgq_negotiate_with_all_groups``, pure. The caller owns matchmaking; this
module says who negotiates when, and with what limit.

What the caller must do (``negotiate_groups`` does the bookkeeping)::

    tree = build_tree(policy)                           # core.groups.tree
    cycle = negotiate_groups(tree, pool_size, demand, usage, policy, run_turn)

* ``pool_size``: the sum of the slot weights of the pool (HTCondor's hgq_total_quota).
* ``demand``: per submitter (``user@domain`` names), the weighted running + idle jobs
  (HTCondor's WeightedRunningJobs + WeightedIdleJobs). A submitter with demand > 0
  takes part in its group's turns.
* ``usage``: per submitter, its current weighted usage (its accountant record's
  WeightedResourcesUsed). A group's usage is the sum of its submitters'.
* ``run_turn(turn)`` runs the fair-share cycle (``core.negotiation.negotiator.run_cycle``) among
  ``turn.submitters`` only, with the pool size taken as ``min(pool_size, turn.limit)``
  and the group's new matches capped at ``turn.limit - turn.group_usage`` (so each
  submitter's limit is its share of that pool minus its usage, as in
  ``negotiateWithGroup``), then returns the change of weighted usage per submitter
  (new matches positive, preempted claims negative). Slots matched in one turn are
  gone for the next: the caller keeps one pool across the turns of a cycle.

The rounds (up to GROUP_QUOTA_MAX_ALLOCATION_ROUNDS): allocate (``group_quotas``) from
the groups' demands; with autoregroup the root's quota and allocation become the whole
pool; sort the groups (GROUP_SORT_EXPR on usage at the start of the round, ``<none>``
last); then each group in order gets a turn, unless its allocation is 0 ("zero slots
allocated") or it has no submitters ("no submitters"). A turn's limit::

    target = max(allocated_g, quota_g);   delta = max(0, target - usage0_g)
    limit  = usage0_g + delta * n / maxdelta     (n: the round-robin step; one step,
                                                  n = maxdelta, unless a rate is set)
    limit  = floor(limit)                        without slot weights
    strict quota: for g and each ancestor A that does not accept surplus,
        limit - usage0_g <= max(0, Q_A - subtree_usage_A)   (Q_A: its GROUP_QUOTA if
        static, else its subtree quota; subtree usage as of this turn)
    limit  = int(limit)                          (HTCondor hands the limit over as int)

``usage0`` is the group's usage at the start of the round. ``maxdelta`` is the largest
``max(0, t_g - usage0_g)`` with ``t_g`` = allocation if any group accepts surplus, else
quota. With a GROUP_QUOTA_ROUND_ROBIN_RATE r, n goes r, 2r, ... up to maxdelta and the
groups get a turn per step, so groups competing for the same few slots take them in
turns. The ``<none>`` turn includes, with autoregroup, the submitters of every group
that autoregroups: their second chance, capped by the pool only.

After a round, a group that used less than it was allocated asks next round only for
what it uses, freeing the rest for the others; the rounds stop when every group used
its allocation (usage counted up to the allocation) or the rounds run out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from condorlite.core.groups.quotas import ROOT, Allocation, GroupTree, allocate, assign_quotas
from condorlite.core.groups.tree import (
    build_tree,
    group_of,
    group_totals,
    order_by_keys,
    sort_expression,
    sort_keys,
)
from condorlite.core.policy import Policy
from condorlite.errors import ConfigError

NO_ALLOCATION, NO_SUBMITTERS = "zero slots allocated", "no submitters"


@dataclass(frozen=True)
class Turn:
    """One group's turn: run the fair-share cycle among ``submitters`` with the group's
    usage allowed up to ``limit`` (weighted slots, absolute, usage included)."""

    group: str
    limit: float
    group_usage: float
    submitters: tuple[str, ...]
    submitter_groups: tuple[str, ...]
    round: int
    step: int = 1


@dataclass(frozen=True)
class RoundPlan:
    """One allocation round: quotas and allocation (root override applied), usage at
    its start, sort keys, the negotiation order, and the turns of its first step as
    they are with the usage at the start of the round (later turns of a real cycle are
    recomputed by ``negotiate_groups`` as usage changes)."""

    round: int
    allocation: Allocation
    quota: Mapping[str, float]
    allocated: Mapping[str, float]
    usage: Mapping[str, float]
    sort_keys: Mapping[str, float]
    order: tuple[str, ...]
    max_delta: float
    turns: tuple[Turn, ...]
    skipped: tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class GroupCycle:
    """What ``negotiate_groups`` did: its rounds, every turn taken in order, the final
    usage per submitter and per group, and the groups whose round-robin time becomes
    now (served by the round robin, or with their demand met)."""

    rounds: tuple[RoundPlan, ...]
    turns: tuple[Turn, ...]
    usage: Mapping[str, float]
    group_usage: Mapping[str, float]
    rr_touched: frozenset[str]


def members(tree: GroupTree, demand: Mapping[str, float]) -> dict[str, tuple[str, ...]]:
    """The submitters (with demand > 0) of each group, sorted by name."""
    out: dict[str, list[str]] = {name: [] for name in tree.order}
    for name in sorted(demand):
        if "@" in name and demand[name] > 0:
            out[group_of(name, tree)].append(name)
    return {g: tuple(names) for g, names in out.items()}


def plan_round(
    tree: GroupTree,
    pool_size: float,
    group_demand: Mapping[str, float],
    group_usage: Mapping[str, float],
    who: Mapping[str, tuple[str, ...]],
    policy: Policy,
    round_no: int = 1,
    rr_time: Mapping[str, float] | None = None,
) -> RoundPlan:
    """Allocate and order the groups for one round (module docstring)."""
    quotas = assign_quotas(tree, pool_size)
    allocation = allocate(tree, quotas, group_demand,
                          weighted_slots=policy.negotiator_use_slot_weights, rr_time=rr_time)
    quota, allocated = dict(quotas.quota), dict(allocation.allocated)
    if tree.autoregroup:
        quota[ROOT] = allocated[ROOT] = max(0.0, float(pool_size))
    usage = {g: float(group_usage.get(g, 0.0)) for g in tree.order}
    keys = sort_keys(tree, quota, allocated, usage, sort_expression(policy))
    order = tuple(order_by_keys(tree, keys))
    chosen = allocated if tree.global_accept_surplus else quota
    max_delta = max(max(0.0, chosen[g] - usage[g]) for g in tree.order)
    draft = RoundPlan(round_no, allocation, quota, allocated, usage, keys, order, max_delta,
                      (), ())
    turns, skipped = [], []
    for group in order:
        reason = _skip_reason(tree, draft, group, who)
        if reason:
            skipped.append((group, reason))
            continue
        limit = turn_limit(tree, draft, group, max_delta, usage, policy)
        turns.append(_turn(tree, draft, group, limit, who, 1))
    return RoundPlan(round_no, allocation, quota, allocated, usage, keys, order, max_delta,
                     tuple(turns), tuple(skipped))


def plan_group_negotiation(
    tree: GroupTree,
    pool_size: float,
    demand: Mapping[str, float],
    usage: Mapping[str, float],
    policy: Policy,
    rr_time: Mapping[str, float] | None = None,
) -> RoundPlan:
    """The first round's plan from per-submitter demand and usage (module docstring)."""
    who = members(tree, demand)
    return plan_round(tree, pool_size, group_totals(tree, demand), group_totals(tree, usage),
                      who, policy, 1, rr_time)


def _skip_reason(tree: GroupTree, plan: RoundPlan, group: str, who) -> str:
    if plan.allocated[group] <= 0:
        return NO_ALLOCATION
    if not _turn_groups(tree, group, who)[1]:
        return NO_SUBMITTERS
    return ""


def _turn_groups(tree: GroupTree, group: str, who) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(groups whose submitters negotiate in ``group``'s turn, those submitters): the
    group alone, or for the root with autoregroup the root and every group that
    autoregroups."""
    groups: tuple[str, ...] = (group,)
    if group == ROOT and tree.autoregroup:
        groups = (ROOT, *(g for g in tree.order[1:] if tree.nodes[g].autoregroup))
    return groups, tuple(sorted(n for g in groups for n in who.get(g, ())))


def _turn(tree, plan: RoundPlan, group: str, limit: float, who, step: int) -> Turn:
    groups, subs = _turn_groups(tree, group, who)
    return Turn(group, limit, plan.usage[group], subs, groups, plan.round, step)


def turn_limit(
    tree: GroupTree,
    plan: RoundPlan,
    group: str,
    step_n: float,
    usage_now: Mapping[str, float],
    policy: Policy,
) -> float:
    """The limit of ``group``'s turn at round-robin position ``step_n`` (module doc);
    ``usage_now`` is the groups' usage as of this turn (for the strict quota)."""
    usage0 = plan.usage[group]
    target = max(plan.allocated[group], plan.quota[group])
    delta = max(0.0, target - usage0)
    if delta > 0:
        fraction = step_n / plan.max_delta if plan.max_delta > 0 else 1.0
        slots = usage0 + delta * fraction
    else:
        slots = target
    slots = min(slots, target)
    if not policy.negotiator_use_slot_weights:
        slots = math.floor(slots)
    slots = _strict_quota(tree, plan, group, slots, usage_now)
    return float(int(slots))


def _strict_quota(tree, plan: RoundPlan, group: str, slots: float, usage_now) -> float:
    """NEGOTIATOR_STRICT_ENFORCE_QUOTA: no ancestor-or-self that refuses surplus lets
    its subtree's usage pass its quota."""
    extra = slots - plan.usage[group]
    current: str | None = group
    while current is not None:
        node = tree.nodes[current]
        if not node.accept_surplus:
            cap = node.config_quota if node.is_static else plan.allocation.quotas.subtree_quota[
                current]
            used = sum(usage_now.get(g, 0.0) for g in tree.subtree(current))
            extra = min(extra, max(0.0, cap - used))
        current = node.parent
    return extra + plan.usage[group]


def negotiate_groups(
    tree: GroupTree,
    pool_size: float,
    demand: Mapping[str, float],
    usage: Mapping[str, float],
    policy: Policy,
    run_turn: Callable[[Turn], Mapping[str, float]],
    *,
    round_robin_rate: float | None = None,
    rr_time: Mapping[str, float] | None = None,
) -> GroupCycle:
    """Run every group's turns for one cycle through ``run_turn`` (module docstring).

    ``round_robin_rate`` overrides GROUP_QUOTA_ROUND_ROBIN_RATE (unset: one step).
    """
    rate = round_robin_rate if round_robin_rate is not None else (
        policy.group_quota_round_robin_rate)
    rate = math.inf if rate is None else float(rate)
    if not rate >= 1:  # HTCondor's minimum for GROUP_QUOTA_ROUND_ROBIN_RATE
        raise ConfigError(f"GROUP_QUOTA_ROUND_ROBIN_RATE must be at least 1, not {rate}")
    who = members(tree, demand)
    ledger = _Ledger(tree, {name: float(v) for name, v in usage.items() if "@" in name})
    requested = group_totals(tree, demand)
    rounds, taken = [], []
    for round_no in range(1, max(1, policy.group_quota_max_allocation_rounds) + 1):
        plan = plan_round(tree, pool_size, requested, ledger.by_group(), who, policy,
                          round_no, rr_time)
        rounds.append(plan)
        taken.extend(_run_round(tree, plan, who, ledger, rate, policy, run_turn))
        requested, done = _next_demand(tree, plan, requested, ledger.by_group())
        if done:
            break
    # As HTCondor: the last round's round-robin winners and the groups asking nothing.
    touched = rounds[-1].allocation.round_robin | {g for g in tree.order if requested[g] <= 0}
    return GroupCycle(tuple(rounds), tuple(taken), dict(ledger.usage), ledger.by_group(),
                      frozenset(touched))


class _Ledger:
    """Submitters' usage through a cycle, summed per group on demand (each submitter's
    group looked up once)."""

    def __init__(self, tree: GroupTree, usage: dict[str, float]) -> None:
        self.tree, self.usage = tree, usage
        self._owner: dict[str, str] = {}

    def add(self, changes: Mapping[str, float]) -> None:
        for name, change in sorted(changes.items()):
            self.usage[name] = self.usage.get(name, 0.0) + float(change)

    def by_group(self) -> dict[str, float]:
        totals = dict.fromkeys(self.tree.order, 0.0)
        for name in sorted(self.usage):
            group = self._owner.get(name)
            if group is None:
                group = self._owner[name] = group_of(name, self.tree)
            totals[group] += self.usage[name]
        return totals


def _run_round(tree, plan: RoundPlan, who, ledger: _Ledger, rate: float, policy,
               run_turn) -> list[Turn]:
    """The turns of one round, step by step, recording usage changes in ``ledger``."""
    skipped = {g for g, _ in plan.skipped}
    turns, step, n = [], 0, 0.0
    while True:
        step += 1
        n = min(n + rate, plan.max_delta)
        for group in plan.order:
            if group in skipped:
                continue
            limit = turn_limit(tree, plan, group, n, ledger.by_group(), policy)
            turn = _turn(tree, plan, group, limit, who, step)
            turns.append(turn)
            ledger.add(run_turn(turn))
        # One step always runs, even when nobody is below its target (maxdelta 0).
        if n >= plan.max_delta:
            return turns


def _next_demand(tree, plan: RoundPlan, requested, usage_after) -> tuple[dict, bool]:
    """Demand for the next round, and whether every group used its allocation."""
    nxt = dict(requested)
    used_total = 0.0
    for g in tree.order:
        used_total += min(usage_after[g], plan.allocated[g])
        if usage_after[g] < plan.allocated[g]:
            nxt[g] = usage_after[g]
    return nxt, used_total >= sum(plan.allocated.values())


@dataclass(frozen=True)
class GroupView:
    """One group as the views show it (``condor_userprio -quotas`` and ``--json``).

    ``effective_quota`` is the computed quota (the whole pool for ``<none>`` when groups
    autoregroup), ``requested`` the demand the round started from, ``allocated`` what
    the round allocated, ``usage`` the group's weighted usage at its start.
    """

    name: str
    parent: str | None
    depth: int
    config_quota: float
    effective_quota: float
    subtree_quota: float
    is_static: bool
    accept_surplus: bool
    autoregroup: bool
    requested: float
    allocated: float
    usage: float
    sort_key: float

    def to_json(self) -> dict[str, object]:
        """Snake-case keys, numbers as numbers; a non-finite sort key is null with
        ``sort_key_infinite`` true."""
        finite = math.isfinite(self.sort_key)
        return {
            "name": self.name,
            "parent": self.parent,
            "depth": self.depth,
            "config_quota": self.config_quota,
            "effective_quota": self.effective_quota,
            "subtree_quota": self.subtree_quota,
            "is_static": self.is_static,
            "accept_surplus": self.accept_surplus,
            "autoregroup": self.autoregroup,
            "requested": self.requested,
            "allocated": self.allocated,
            "usage": self.usage,
            "sort_key": self.sort_key if finite else None,
            "sort_key_infinite": not finite,
        }


def group_views(tree: GroupTree, plan: RoundPlan) -> list[GroupView]:
    """Every group of ``plan``, in the tree's breadth-first order."""
    views = []
    for name in tree.order:
        node = tree.nodes[name]
        views.append(GroupView(
            name=name,
            parent=node.parent,
            depth=node.depth,
            config_quota=node.config_quota,
            effective_quota=plan.quota[name],
            subtree_quota=plan.allocation.quotas.subtree_quota[name],
            is_static=node.is_static,
            accept_surplus=node.accept_surplus,
            autoregroup=node.autoregroup,
            requested=plan.allocation.requested[name],
            allocated=plan.allocated[name],
            usage=plan.usage[name],
            sort_key=plan.sort_keys[name],
        ))
    return views


def describe_groups(
    policy: Policy, pool_size: float, demand: Mapping[str, float], usage: Mapping[str, float]
) -> tuple[GroupTree, RoundPlan, list[GroupView]]:
    """Tree, first-round plan and views from the policy and per-submitter demand and
    usage: what ``userprio --quotas`` and ``negotiate --explain`` show."""
    tree = build_tree(policy)
    plan = plan_group_negotiation(tree, pool_size, demand, usage, policy)
    return tree, plan, group_views(tree, plan)
