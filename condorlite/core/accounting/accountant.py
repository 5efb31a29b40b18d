"""The accountant: per-submitter records and their pure updates (HTCondor's Accountant.cpp).

Everything here is pure: ``now`` is an argument, nothing is printed or stored, and every
function returns a NEW ``AccountantState`` (or ``Record``) instead of mutating its
arguments, so a caller can compute a "what would it look like at ``now``" view for
display without writing anything.

Formulas (per record, at an update ``now`` with ``TimePassed = now - LastUpdateTime``)::

    TimePassed == 0   -> nothing changes
    TimePassed <  0   -> LastUpdateTime = now, no decay (the clock went backwards)
    beta                      = 0.5 ** (TimePassed / PRIORITY_HALFLIFE)
    RecentUsage               = ResourcesUsed + UnchargedTime / TimePassed
    WeightedRecentUsage       = WeightedResourcesUsed + WeightedUnchargedTime / TimePassed
    Priority                  = max(0.5, max(0.5, Priority) * beta
                                         + WeightedRecentUsage * (1 - beta))
    AccumulatedUsage         += ResourcesUsed * TimePassed + UnchargedTime
    WeightedAccumulatedUsage += WeightedResourcesUsed * TimePassed + WeightedUnchargedTime
    BeginUsageTime            = now   if AccumulatedUsage > 0 and it was never set
    LastUsageTime             = now   if RecentUsage > 0
    UnchargedTime = WeightedUnchargedTime = 0

    EffectivePriority (EUP)   = max(0.5, Priority) * PriorityFactor

A state that has never been updated (``last_update_time is None``) takes ``now`` as its
baseline on its first update without decaying anything, so priorities set before the
first update survive it.

Charging between updates (``add_match``, ``remove_match``) is ``charges``'s.

Accounting groups (only when GROUP_NAMES configures at least one group). Every group,
and the root ``<none>``, has its own record named after the group (no ``@``). With
``G`` the submitter's group (``groups.tree.group_of``) and ``w`` the slot weight::

    add_match     charges the submitter AND record G as above (ResourcesUsed,
                  WeightedResourcesUsed, uncharged times); then
                  HierWeightedResourcesUsed += w on G and on each dotted prefix of G
                  (``a.b.c`` -> ``a.b.c``, ``a.b``, ``a``; ``<none>`` only itself)
    remove_match  the reverse, each figure floored at 0
    update        a record with HierWeightedResourcesUsed > 0 decays towards it
                  instead of its own WeightedRecentUsage:
                  Priority = max(0.5, max(0.5, Priority) * beta + Hier * (1 - beta))
                  (HTCondor's UpdateOnePriority: the whole subtree's usage at the
                  update, without the uncharged time); accumulated usage stays the
                  record's own.

So a group's RUP follows its subtree's usage while its ResourcesUsed and
WeightedResourcesUsed count only its own submitters' slots. ``update_priorities`` also
creates the record of any configured group (and ``<none>``) that has none yet, as
HTCondor's accountant keeps one per group.

Factor of a new record (HTCondor's GetPriorityFactor, first rule that applies):
a group record -> its ``GROUP_PRIO_FACTOR_<g>`` else DEFAULT_PRIO_FACTOR;
``nice-user.`` prefix -> NICE_USER_PRIO_FACTOR; a configured ``GROUP_PRIO_FACTOR_<g>``
for its accounting group -> that; ACCOUNTANT_LOCAL_DOMAIN set and different from the
name's domain -> REMOTE_PRIO_FACTOR; else DEFAULT_PRIO_FACTOR.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from condorlite.core.groups.quotas import ROOT, GroupTree
from condorlite.core.groups.tree import build_tree, group_of
from condorlite.core.policy import Policy
from condorlite.errors import UsageError

#: The best (lowest) real priority a submitter can have.
MIN_PRIORITY = 0.5
#: The smallest priority factor HTCondor accepts.
MIN_PRIORITY_FACTOR = 1.0
#: Prefix HTCondor gives the submitter of ``nice_user`` jobs.
NICE_USER_PREFIX = "nice-user."
#: Accounting-group name of submitters that belong to no configured group: the root of
#: the group tree.
NO_GROUP = ROOT

_USER_AT_DOMAIN = re.compile(r"^[^@\s]+@[^@\s]+$")
#: Characters no submitter name may hold: C0 and C1 controls and DEL (a name is data,
#: printed to terminals; an escape sequence in it would be run by the terminal).
CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


@dataclass(frozen=True, slots=True)
class Record:
    """One accountant record (HTCondor's ``Customer.<name>`` ad), snake_case fields.

    ``priority`` is the real user priority (RUP); times are epoch seconds with 0 meaning
    "never"; ``ceiling`` -1 means unlimited, ``floor`` 0 means none.
    ``hier_weighted_resources_used`` is kept on group records only: the weight of every
    slot held in the group's subtree.
    """

    name: str
    priority: float = MIN_PRIORITY
    priority_factor: float = 1000.0
    resources_used: int = 0
    weighted_resources_used: float = 0.0
    uncharged_time: float = 0.0
    weighted_uncharged_time: float = 0.0
    accumulated_usage: float = 0.0
    weighted_accumulated_usage: float = 0.0
    begin_usage_time: float = 0.0
    last_usage_time: float = 0.0
    ceiling: int = -1
    floor: int = 0
    is_accounting_group: bool = False
    accounting_group: str = NO_GROUP
    hier_weighted_resources_used: float = 0.0


@dataclass(frozen=True, slots=True)
class ClaimRow:
    """A slot held by a job, as the store keeps it for the negotiator.

    ``weight`` is the slot weight charged to ``submitter`` since ``start_time``;
    ``extra`` holds any further attributes as JSON-ready data.
    """

    slot: str
    job: str
    submitter: str
    weight: float
    start_time: float
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class AccountantState:
    """All records plus the global LastUpdateTime (None until the first update)."""

    last_update_time: float | None
    records: dict[str, Record] = field(default_factory=dict)


# -- names and factors -------------------------------------------------------------------


def domain_of(name: str) -> str:
    """The part after the last ``@`` (empty for a group record)."""
    return name.rpartition("@")[2] if "@" in name else ""


def group_tree(policy: Policy) -> GroupTree:
    """The group tree of ``policy`` (``groups.build_tree``), built once per policy object
    and kept on it (``Policy.derived``)."""
    return policy.derived(build_tree)


def has_groups(policy: Policy) -> bool:
    """True when GROUP_NAMES configures at least one valid group."""
    return len(group_tree(policy).order) > 1


def assigned_group(name: str, policy: Policy) -> tuple[str, bool]:
    """(accounting group, is_accounting_group) of a record name, as HTCondor maps it.

    A name without ``@`` is a group record: its group is itself when configured, else
    ``<none>`` (a defunct group). For ``g1.g2.user@dom`` the dotted prefix is walked
    down the configured groups (case-insensitively) as far as they are defined
    (``groups.tree.group_of``); a user with no defined group belongs to ``<none>``.
    """
    return group_of(name, group_tree(policy)), "@" not in name


def initial_factor(name: str, policy: Policy) -> float:
    """The priority factor a new record gets (rules in the module docstring)."""
    group, is_group = assigned_group(name, policy)
    factors = {g.lower(): f for g, f in policy.group_prio_factor.items()}
    if is_group:
        return factors.get(group.lower(), policy.default_prio_factor)
    if name.startswith(NICE_USER_PREFIX):
        return policy.nice_user_prio_factor
    if group != NO_GROUP and group.lower() in factors:
        return factors[group.lower()]
    local = policy.accountant_local_domain
    if local and local != domain_of(name):
        return policy.remote_prio_factor
    return policy.default_prio_factor


def new_record(name: str, policy: Policy, now: float) -> Record:
    """A fresh record for ``name``: RUP 0.5, the factor of ``initial_factor``.

    ``now`` is accepted for symmetry with the other updates; a new record has no usage,
    so no time is set on it.
    """
    del now
    group, is_group = assigned_group(name, policy)
    return Record(
        name=name,
        priority_factor=initial_factor(name, policy),
        is_accounting_group=is_group,
        accounting_group=group,
    )


def parse_submitter_name(name: str, policy: Policy) -> str:
    """Validate a name given to an edit: ``user@domain`` or a configured group name
    (``<none>`` too once groups are configured: it has a record then).

    Returns the name as stored (a group name takes its configured spelling).
    """
    text = name.strip()
    if CONTROL.search(text):
        raise UsageError(f"invalid submitter name {name!r}: it holds control characters")
    if _USER_AT_DOMAIN.match(text):
        return text
    tree = group_tree(policy)
    group = tree.canonical(text)
    if group is not None and (group != NO_GROUP or has_groups(policy)):
        return group
    known = ", ".join(tree.order[1:]) if has_groups(policy) else "none configured"
    raise UsageError(
        f"invalid submitter name {name!r}: expected user@domain (e.g. alice@example.org) "
        f"or a group named in GROUP_NAMES ({known})"
    )


def effective_priority(record: Record) -> float:
    """EUP = max(0.5, RUP) x factor."""
    return max(MIN_PRIORITY, record.priority) * record.priority_factor


# -- time passing --------------------------------------------------------------------------


def _age(rec: Record, now: float, passed: float, beta: float) -> Record:
    recent = rec.resources_used + rec.uncharged_time / passed
    w_recent = rec.weighted_resources_used + rec.weighted_uncharged_time / passed
    if rec.hier_weighted_resources_used > 0:
        # A group decays with its whole subtree's usage (HTCondor's UpdateOnePriority).
        w_recent = rec.hier_weighted_resources_used
    prio = max(MIN_PRIORITY, max(MIN_PRIORITY, rec.priority) * beta + w_recent * (1 - beta))
    acc = rec.accumulated_usage + rec.resources_used * passed + rec.uncharged_time
    w_acc = (
        rec.weighted_accumulated_usage
        + rec.weighted_resources_used * passed
        + rec.weighted_uncharged_time
    )
    begin = now if acc > 0 and rec.begin_usage_time == 0 else rec.begin_usage_time
    last = now if recent > 0 else rec.last_usage_time
    # Built field by field rather than with replace(): this runs once per record per
    # update, and replace() costs several times more.
    return Record(
        rec.name, prio, rec.priority_factor, rec.resources_used, rec.weighted_resources_used,
        0.0, 0.0, acc, w_acc, begin, last, rec.ceiling, rec.floor, rec.is_accounting_group,
        rec.accounting_group, rec.hier_weighted_resources_used,
    )


def update_priorities(state: AccountantState, policy: Policy, now: float) -> AccountantState:
    """Decay every record to ``now`` and charge the usage since the last update.

    Records of configured groups that are missing are created first (module docstring).
    A ``now`` earlier than the last update changes nothing and keeps the last update
    time (the interval up to it was charged already).
    """
    state = _with_group_records(state, policy, now)
    last = state.last_update_time
    if last is None:
        return replace(state, last_update_time=now)
    if now < last:
        # A clock that went back (or a cron run that lost the race for the lock):
        # charge and decay nothing, and keep the later time, so that the interval up
        # to it is never charged twice.
        return state
    passed = now - last
    if passed == 0:
        return state
    beta = 0.5 ** (passed / policy.priority_halflife)
    records = {name: _age(rec, now, passed, beta) for name, rec in state.records.items()}
    return AccountantState(last_update_time=now, records=records)


def _with_group_records(state: AccountantState, policy: Policy, now: float) -> AccountantState:
    if not has_groups(policy):
        return state
    missing = [g for g in group_tree(policy).order if g not in state.records]
    if not missing:
        return state
    records = dict(state.records)
    for name in missing:
        records[name] = new_record(name, policy, now)
    return AccountantState(state.last_update_time, records)


def priority_at(state: AccountantState, policy: Policy, name: str, now: float) -> Record | None:
    """The record of ``name`` as an update at ``now`` would leave it; nothing is written."""
    rec = state.records.get(name)
    if rec is None:
        return None
    single = AccountantState(state.last_update_time, {name: rec})
    return update_priorities(single, policy, now).records[name]


def _with(state: AccountantState, rec: Record) -> AccountantState:
    records = dict(state.records)
    records[rec.name] = rec
    return AccountantState(state.last_update_time, records)
