"""The views of a group plan: each group's quotas, demand, allocation, usage and sort key.

What ``condor_userprio -quotas`` (``cli/userprio_groups``) and ``negotiate --explain``
show of the groups: the first round's plan (``plan.plan_group_negotiation``) as one
``GroupView`` per group, in the tree's breadth-first order. Nothing here changes a plan.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from condorlite.core.groups.plan import RoundPlan, plan_group_negotiation
from condorlite.core.groups.quotas import GroupTree
from condorlite.core.groups.tree import build_tree
from condorlite.core.policy import Policy


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
