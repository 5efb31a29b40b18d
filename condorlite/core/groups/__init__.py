"""Accounting groups: the tree from the configuration, quotas and surplus, the group plan.

``tree`` reads GROUP_NAMES and the per-group knobs into a ``GroupTree`` and answers
membership and group order; ``quotas`` is the arithmetic of hierarchical group quotas
(assignment, surplus sharing, allocation); ``plan`` decides a cycle's group turns and
their limits (HTCondor's ``hgq_negotiate_with_all_groups``) without doing any matching:
the negotiation runs each turn (``core.negotiation.group_cycle``). This package depends
only on the ClassAd language (GROUP_SORT_EXPR) and the policy.
"""

from condorlite.core.groups.plan import GroupView, describe_groups, group_views, negotiate_groups
from condorlite.core.groups.quotas import (
    ROOT,
    Allocation,
    GroupNode,
    GroupTree,
    allocate,
    assign_quotas,
)
from condorlite.core.groups.tree import build_tree, group_of, group_totals, sort_groups

__all__ = [
    "ROOT", "Allocation", "GroupNode", "GroupTree", "GroupView", "allocate", "assign_quotas",
    "build_tree", "describe_groups", "group_of", "group_totals", "group_views",
    "negotiate_groups", "sort_groups",
]
