"""Planning a group round: who negotiates in each group's turn, and with what limit.

HTCondor's ``hgq_negotiate_with_all_groups``, pure, the planning half: one allocation
round's quotas, allocation, group order and turns (``plan_round``), and the limit of a
turn at a round-robin step (``turn_limit``). Running the rounds (their turns, the usage
they change, the next round's demand) is ``rounds.negotiate_groups``; the views of a
plan (``userprio --quotas``, ``negotiate --explain``) are ``views``.

A round: allocate (``quotas.allocate``) from the groups' demands; with autoregroup the
root's quota and allocation become the whole pool; sort the groups (GROUP_SORT_EXPR on
usage at the start of the round, ``<none>`` last); then each group in order gets a
turn, unless its allocation is 0 ("zero slots allocated") or it has no submitters ("no
submitters"). A turn's limit::

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
quota. The ``<none>`` turn includes, with autoregroup, the submitters of every group
that autoregroups: their second chance, capped by the pool only.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from condorlite.core.groups.quotas import ROOT, Allocation, GroupTree, allocate, assign_quotas
from condorlite.core.groups.tree import (
    group_of,
    group_totals,
    order_by_keys,
    sort_expression,
    sort_keys,
)
from condorlite.core.policy import Policy

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
        turns.append(turn_of(tree, draft, group, limit, who, 1))
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


def turn_of(tree, plan: RoundPlan, group: str, limit: float, who, step: int) -> Turn:
    """``group``'s turn of ``plan`` at round-robin step ``step``, with ``limit``."""
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
