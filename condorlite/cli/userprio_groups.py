"""The group views of ``condorlite userprio``: group rows, their figures and their order.

What HTCondor's ``condor_userprio`` does with the accountant's group ads
(``user_prio.cpp``: CollectInfo, ProcessInfo), from condorlite's own state:

* **figures**: each configured group (and ``<none>``) gets a row from its accountant
  record plus the quota columns of ``core.groups.views.describe_groups``. The pool size
  comes from the last negotiation cycle's history row (``data["cycle"]["pool_weight"]``),
  else from the sum of the top-level groups' static quotas; the demand ("Weighted
  Requested") from that row's ``data["demand"]`` (submitter -> weighted running + idle
  jobs) when a cycle stored it, else from the weighted slots in use. ``notes`` says
  which, above the table.
* **group ids**: ``<none>`` is 0, the other groups 1, 2, ... in name order; a user takes
  its group's id. ``--grouprollup`` replaces a group's usage figures by the sums over
  its subtree (begin = earliest, last = latest usage time), and its priority by 0.
* **layout** (``arrange``): hierarchical by default, unless only priority columns are
  asked for, no group data exists, or every row shown belongs to ``<none>``; then the
  group-only quota columns are dropped too unless ``--quotas``/``--surplus`` asked for
  them. Only group-only columns asked for: users are hidden (still counted).
* **order**: hierarchical: groups by id (``<none>`` last when a group autoregroups),
  or by display order when priorities or usage are shown (the group sort key, or the
  group's usage, respectively), each group followed by its users in column-1 order;
  ``--grouporder``: groups first in tree (breadth-first) order, then users; flat:
  column-1 order, groups among the users, ``<none>`` shown only with another group.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from condorlite.cli.userprio_table import (
    BY_QUOTA,
    NO_SURPLUS,
    PRIORITY,
    PRIORITY_FLAGS,
    QUOTA_FLAGS,
    REGROUP,
    RES_USED,
    WT_RES_USED,
    Layout,
    Row,
    column1_key,
)
from condorlite.core.accounting import NO_GROUP, Record, effective_priority
from condorlite.core.groups.quotas import GroupTree
from condorlite.core.groups.tree import FLT_MAX, build_tree
from condorlite.core.groups.views import GroupView, describe_groups
from condorlite.core.policy import Policy

FROM_CYCLE, FROM_QUOTAS, FROM_USAGE = "last_negotiation_cycle", "static_quotas", "usage"


@dataclass(frozen=True)
class GroupContext:
    """The tree, one view per group, and where the pool size and demand came from."""

    tree: GroupTree
    views: Mapping[str, GroupView]
    ids: Mapping[str, int]
    pool_size: float
    pool_source: str
    demand_source: str
    global_surplus: str

    def notes(self) -> list[str]:
        """The lines above the table saying where the quota figures come from."""
        pool = f"{self.pool_size:.10g}"
        if self.pool_source == FROM_CYCLE:
            where = "Pool size: " + pool + " weighted slots (last negotiation cycle)"
        else:
            where = ("Pool size: " + pool + " weighted slots (sum of the static quotas of "
                     "the top-level groups: no negotiation cycle yet)")
        asked = ("Requested: weighted running + idle jobs of the last negotiation cycle"
                 if self.demand_source == FROM_CYCLE
                 else "Requested: weighted slots in use (no job demand recorded)")
        return [where, asked]


def surplus_name(view: GroupView) -> str:
    """HTCondor's SurplusPolicy of a group: Regroup, ByQuota or no."""
    if view.autoregroup:
        return REGROUP
    return BY_QUOTA if view.accept_surplus else NO_SURPLUS


def group_context(
    policy: Policy, records: Mapping[str, Record], last_cycle: dict[str, Any] | None
) -> GroupContext:
    """Quotas, allocation and order of every group (module docstring)."""
    tree = build_tree(policy)
    usage = {n: r.weighted_resources_used for n, r in records.items() if "@" in n}
    data = _dict((last_cycle or {}).get("data"))
    pool = _dict(data.get("cycle")).get("pool_weight")
    if isinstance(pool, int | float) and not isinstance(pool, bool) and pool >= 0:
        pool_size, pool_source = float(pool), FROM_CYCLE
    else:
        tops = tree.nodes[NO_GROUP].children
        pool_size = sum(tree.nodes[g].config_quota for g in tops if tree.nodes[g].is_static)
        pool_source = FROM_QUOTAS
    demand_data = data.get("demand")
    if isinstance(demand_data, dict):
        demand = {str(k): float(v) for k, v in demand_data.items()
                  if isinstance(v, int | float) and not isinstance(v, bool)}
        demand_source = FROM_CYCLE
    else:
        demand, demand_source = dict(usage), FROM_USAGE
    _tree, _plan, views = describe_groups(policy, pool_size, demand, usage)
    others = sorted(g for g in tree.order if g != NO_GROUP)
    ids = {NO_GROUP: 0, **{g: i + 1 for i, g in enumerate(others)}}
    regroup = any(v.autoregroup for v in views)
    return GroupContext(tree, {v.name: v for v in views}, ids, pool_size, pool_source,
                        demand_source, REGROUP if regroup else BY_QUOTA)


def _dict(value: object) -> dict:
    # History rows are JSON written by other commands: read them defensively.
    return value if isinstance(value, dict) else {}


def _rollup(tree: GroupTree, records: Mapping[str, Record], group: str) -> Record:
    """The group's record with its usage figures summed over its subtree."""
    members = [records[g] for g in tree.subtree(group) if g in records]
    own = records[group]
    begins = [r.begin_usage_time for r in members if r.begin_usage_time > 0]
    lasts = [r.last_usage_time for r in members if r.last_usage_time > 0]
    return replace(
        own,
        priority=0.0,
        resources_used=sum(r.resources_used for r in members),
        weighted_resources_used=sum(r.weighted_resources_used for r in members),
        accumulated_usage=sum(r.accumulated_usage for r in members),
        weighted_accumulated_usage=sum(r.weighted_accumulated_usage for r in members),
        begin_usage_time=min(begins, default=0.0),
        last_usage_time=max(lasts, default=0.0),
    )


def build_rows(
    chosen: list[Record], all_records: Mapping[str, Record], ctx: GroupContext | None,
    rollup: bool,
) -> list[Row]:
    """One row per chosen record, with group ids and group figures when groups exist."""
    rows = []
    for rec in chosen:
        group = rec.accounting_group
        if ctx is None:
            rows.append(_plain_row(rec))
            continue
        gid = ctx.ids.get(group, 0)
        order = {"group_id": gid, "group_sort_key": ctx.views[group].sort_key,
                 "group_usage": _usage_of(ctx, all_records, group, rollup)}
        view = ctx.views.get(rec.name) if rec.is_accounting_group else None
        if view is None:
            rows.append(replace(_plain_row(rec), group=group, **order))
            continue
        shown = _rollup(ctx.tree, all_records, rec.name) if rollup else rec
        row = _plain_row(shown)
        eup = 0.0 if rollup else effective_priority(rec)
        rows.append(replace(
            row, effective_priority=eup, group=rec.name, **order,
            index=ctx.tree.order.index(rec.name), effective_quota=view.effective_quota,
            config_quota=view.config_quota, subtree_quota=view.subtree_quota,
            surplus=surplus_name(view), requested=view.requested, sort_key=view.sort_key,
        ))
    return rows


def _usage_of(ctx: GroupContext, records: Mapping[str, Record], group: str,
              rollup: bool) -> float:
    if group not in records:
        return 0.0
    rec = _rollup(ctx.tree, records, group) if rollup else records[group]
    return rec.weighted_accumulated_usage


def _plain_row(rec: Record) -> Row:
    return Row(
        rec.name, effective_priority(rec), rec.priority_factor, rec.weighted_resources_used,
        rec.weighted_accumulated_usage, rec.begin_usage_time, rec.last_usage_time,
        rec.ceiling, rec.floor, rec.is_accounting_group, rec.accounting_group,
    )


@dataclass(frozen=True)
class Arranged:
    """The rows to print in order, every row that passed the usage filter (in the same
    order; the name column and footer count them), the final columns, the layout."""

    shown: list[Row]
    visible: list[Row]
    flags: frozenset[str]
    layout: Layout


def arrange(
    rows: list[Row], flags: frozenset[str], *, hierarchical: bool | None, group_order: bool,
    dash_quota: bool, ctx: GroupContext | None,
) -> Arranged:
    """HTCondor's ProcessInfo on rows that already passed the usage filter (module
    docstring). ``hierarchical`` None: the default (hierarchical when possible)."""
    hier = hierarchical is not False and not group_order
    dash_hier = hierarchical is not None or group_order
    hide_groups = False
    if not flags - PRIORITY_FLAGS:
        hier = hier if dash_hier else False
        hide_groups = not hier
    all_in_none = not any(r.group_id > 0 for r in rows)
    if ctx is None or all_in_none:
        hier = False
    if (hide_groups or all_in_none) and not dash_quota:
        flags = flags - QUOTA_FLAGS
    hide_users = bool(flags & QUOTA_FLAGS) and not flags - QUOTA_FLAGS
    global_surplus = ctx.global_surplus if ctx is not None else ""
    if hier:
        ordered = _hier_order(rows, flags, none_last=global_surplus == REGROUP)
    elif group_order:
        ordered = sorted(rows, key=lambda r: (0, r.index, ()) if r.is_group
                         else (1, 0, column1_key(r, flags)))
    else:
        ordered = sorted(rows, key=lambda r: column1_key(r, flags))
    other_groups = not hide_groups and any(r.is_group and r.group_id for r in rows)
    shown = []
    for row in ordered:
        if not row.is_group:
            if not hide_users:
                shown.append(row)
        elif not hide_groups and (hier or row.group_id or other_groups):
            shown.append(row)
    return Arranged(shown, ordered, flags, Layout(hier, hide_users, global_surplus))


def _hier_order(rows: list[Row], flags: frozenset[str], none_last: bool) -> list[Row]:
    """Groups by display order (or id), each followed by its users."""

    def display_order(r: Row) -> float:
        if PRIORITY in flags:
            return FLT_MAX if r.group_sort_key is None else r.group_sort_key
        if flags & {RES_USED, WT_RES_USED}:
            return r.group_usage / 3600.0
        return 0.0

    def key(r: Row) -> tuple:
        return (none_last and r.group_id == 0, display_order(r), r.group_id, not r.is_group,
                column1_key(r, flags))

    return sorted(rows, key=key)
