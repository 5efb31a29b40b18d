"""Running a cycle's group rounds: each group's turns, through the caller's matchmaking.

HTCondor's ``hgq_negotiate_with_all_groups``, pure, the running half: ``plan`` decides
each round's order and each turn's limit; this module runs the rounds and their
round-robin steps, keeps the usage the turns change, and works out the next round's
demand. The caller owns matchmaking; this module says who negotiates when, and with
what limit.

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

The rounds (up to GROUP_QUOTA_MAX_ALLOCATION_ROUNDS): each is planned afresh from the
usage so far (``plan.plan_round``), then its groups take their turns in its order, a
round-robin step at a time: with a GROUP_QUOTA_ROUND_ROBIN_RATE r, the step n goes r,
2r, ... up to maxdelta and the groups get a turn per step, so groups competing for the
same few slots take them in turns; unset, one step. Each turn's limit is worked out
when it starts (``plan.turn_limit``, with the usage as of then).

After a round, a group that used less than it was allocated asks next round only for
what it uses, freeing the rest for the others; the rounds stop when every group used
its allocation (usage counted up to the allocation) or the rounds run out.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from condorlite.core.groups.plan import RoundPlan, Turn, members, plan_round, turn_limit, turn_of
from condorlite.core.groups.quotas import GroupTree
from condorlite.core.groups.tree import group_of, group_totals
from condorlite.core.policy import Policy
from condorlite.errors import ConfigError


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
            turn = turn_of(tree, plan, group, limit, who, step)
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
