"""A negotiation cycle with accounting groups: ``core.groups.plan`` decides the turns
(``core.groups.rounds`` runs the rounds),
``core.negotiation.negotiator.Cycle`` runs each of them on ONE pool of offers, pure.

``negotiate(slots, jobs, submitters, claims, policy, now)`` is the entry point the CLI
calls. Without GROUP_NAMES it is ``run_cycle`` exactly (same result, no group data).
With groups:

1. the tree (``build_tree``), pool size = the sum of the slot weights, and per
   submitter::

       demand_s = usage_s + sum(weight of s's idle jobs)      (weighted running + idle)
       weight of an idle job = RequestCpus (1 when undefined or not a number; 1 for
                               every job when NEGOTIATOR_USE_SLOT_WEIGHTS is false)

   ``usage_s`` is the accountant's WeightedResourcesUsed: what the submitter holds.
   (HTCondor's schedd reports WeightedRunningJobs + WeightedIdleJobs, where a job
   weighs its request of cores by default.) Idle jobs that already hold a claim
   count as running, not idle.
2. one ``Cycle`` is built on all slots, jobs and claims; ``group_plan.negotiate_groups``
   runs the rounds and calls ``run_turn`` per turn, which runs the fair-share pie among
   ``turn.submitters`` with pool ``min(pool, turn.limit)`` and room
   ``turn.limit - (the turn group's usage now)``. A slot matched in one turn is gone for
   the next; a partitionable slot keeps offering what it has left.
3. the result is the ordinary ``CycleResult`` (matches in the order made, across turns)
   plus ``GroupOutcome``: the first round's views, every turn taken with what it
   matched, the groups' usage after the cycle and the round-robin times to store.

A job waits *at quota* when its group's usage reached its last turn's limit while the
group or an ancestor does not accept surplus
(``GroupOutcome.capped_by``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from condorlite.core import adeval
from condorlite.core.groups.plan import NO_ALLOCATION, Turn
from condorlite.core.groups.quotas import ROOT, GroupTree, assign_quotas
from condorlite.core.groups.rounds import GroupCycle, negotiate_groups
from condorlite.core.groups.tree import build_tree, group_of, group_totals
from condorlite.core.groups.views import GroupView, group_views
from condorlite.core.model import IDLE, Claim, CycleResult, Job, Slot, Submitter
from condorlite.core.negotiation.negotiator import Cycle
from condorlite.core.negotiation.submitter_attrs import GroupFacts
from condorlite.core.policy import Policy


@dataclass(frozen=True)
class TurnRecord:
    """One turn as it ran: the plan's turn, the group's usage when it started, and the
    weight its submitters matched (net of preemptions among them)."""

    turn: Turn
    usage_before: float
    matched: float


@dataclass(frozen=True)
class GroupOutcome:
    """The group side of a grouped cycle (module doc)."""

    tree: GroupTree
    cycle: GroupCycle
    views: tuple[GroupView, ...]
    turns: tuple[TurnRecord, ...]
    usage_after: Mapping[str, float]
    demand: Mapping[str, float]

    def last_turn(self, group: str) -> TurnRecord | None:
        """``group``'s last turn of the cycle (None when it had none)."""
        mine = [r for r in self.turns if r.turn.group == group]
        return mine[-1] if mine else None

    def capped_by(self, group: str) -> str | None:
        """The group that holds ``group`` at its quota, or None.

        ``group`` is at quota when its usage after its last turn reached that turn's
        limit (``usage_before + matched >= limit``: no room was left), or when it never
        got a turn for lack of allocation; the cap is then the nearest of ``group`` and
        its ancestors that does not accept surplus. A group whose whole path accepts
        surplus is never "at quota": it can borrow."""
        if group not in self.tree.nodes:
            return None
        mine = [r for r in self.turns if r.turn.group == group]
        if mine:
            last = mine[-1]
            full = last.usage_before + last.matched >= last.turn.limit
        else:
            full = (group, NO_ALLOCATION) in self.cycle.rounds[-1].skipped
        current: str | None = group
        while full and current is not None:
            node = self.tree.nodes[current]
            if not node.accept_surplus:
                return current
            current = node.parent
        return None


def job_weight(job: Job, policy: Policy) -> float:
    """An idle job's weight for the group demand (module doc)."""
    if not policy.negotiator_use_slot_weights:
        return 1.0
    return _cpus_weight(adeval.attr_value(job.ad, "RequestCpus"))


def _cpus_weight(cpus: object) -> float:
    """RequestCpus as a demand weight: a number >= 0 as a float, anything else 1."""
    if type(cpus) is int:  # the usual literal, without as_float's checks
        return float(cpus) if cpus >= 0 else 1.0
    number = adeval.as_float(cpus)
    return 1.0 if number is None or number < 0 else number


def demand_of(jobs: list[Job], submitters: Mapping[str, Submitter], claims: list[Claim],
              policy: Policy) -> dict[str, float]:
    """Weighted running + idle per submitter (module doc), names sorted, zeros left out.

    Each submitter's figure is summed in job order from its usage, so the floats do
    not depend on how the loop is written."""
    held = {c.job for c in claims if c.job}
    # Group records (no "@") hold their members' usage again: leave them out.
    out = {name: s.usage for name, s in submitters.items() if "@" in name}
    weighted = policy.negotiator_use_slot_weights
    value = adeval.attr_value
    for job in jobs:
        if job.status == IDLE and job.id not in held:
            weight = _cpus_weight(value(job.ad, "RequestCpus")) if weighted else 1.0
            out[job.submitter] = out.get(job.submitter, 0.0) + weight
    return {name: out[name] for name in sorted(out) if out[name] > 0}


def negotiate(
    slots: list[Slot],
    jobs: list[Job],
    submitters: dict[str, Submitter],
    claims: list[Claim],
    policy: Policy,
    now: float,
    rr_time: Mapping[str, float] | None = None,
    keep: list[object] | None = None,
) -> tuple[CycleResult, GroupOutcome | None]:
    """One cycle, with groups when GROUP_NAMES is set (module doc).

    ``keep``, when given, receives the ``Cycle`` itself, for a caller that ends its
    process without freeing what it holds (the CLI, ``cli.main``): the cycle's tables
    are freed one object at a time when the last reference goes, 0.2-0.35 s at 10,000
    slots and seconds at 100,000, which the process's exit does for nothing."""
    if not policy.group_names:
        cycle = Cycle(slots, jobs, submitters, claims, policy, now)
        cycle.run()
        if keep is not None:
            keep.append(cycle)
        return cycle.result(), None
    tree = build_tree(policy)
    pool_size = sum(s.weight for s in slots)
    demand = demand_of(jobs, submitters, claims, policy)
    usage = {name: s.usage for name, s in submitters.items() if "@" in name}
    quotas = assign_quotas(tree, pool_size).quota
    facts = GroupFacts(lambda name: group_of(name, tree), dict(quotas),
                       group_totals(tree, usage))
    cycle = Cycle(slots, jobs, submitters, claims, policy, now, groups=facts)
    if keep is not None:
        keep.append(cycle)
    records: list[TurnRecord] = []

    def group_usage(group: str) -> float:
        return sum(v for name, v in cycle.usage.items()
                   if "@" in name and group_of(name, tree) == group)

    def run_turn(turn: Turn) -> Mapping[str, float]:
        before = group_usage(turn.group)
        regroup = turn.group == ROOT and len(turn.submitter_groups) > 1
        changes = cycle.run_turn(frozenset(turn.submitters), turn.limit,
                                 turn.limit - before, turn.group, regroup)
        matched = sum(changes.get(n, 0.0) for n in turn.submitters)
        records.append(TurnRecord(turn, before, matched))
        return changes

    outcome = negotiate_groups(tree, pool_size, demand, usage, policy, run_turn,
                               rr_time=rr_time)
    result = cycle.result()
    result.stats["group_turns"] = len(records)
    result.stats["group_rounds"] = len(outcome.rounds)
    views = tuple(group_views(tree, outcome.rounds[0]))
    return result, GroupOutcome(tree, outcome, views, tuple(records),
                                dict(outcome.group_usage), demand)
