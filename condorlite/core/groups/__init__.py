"""Accounting groups: the tree from the configuration, quotas and surplus, the group plan.

``tree`` reads GROUP_NAMES and the per-group knobs into a ``GroupTree`` and answers
membership and group order; ``quotas`` is the arithmetic of hierarchical group quotas
(assignment, surplus sharing, allocation); ``plan`` plans a round: its order, its
turns and each turn's limit; ``rounds`` runs a cycle's rounds and their round-robin
steps (HTCondor's ``hgq_negotiate_with_all_groups``) without doing any matching: the
negotiation runs each turn (``core.negotiation.group_cycle``); ``views`` shows a plan's
groups (``userprio --quotas``, ``negotiate --explain``). This package depends
only on the ClassAd language (GROUP_SORT_EXPR) and the policy.
"""

from condorlite.core.groups.quotas import (
    ROOT,
    Allocation,
    GroupNode,
    GroupTree,
    allocate,
    assign_quotas,
)
from condorlite.core.groups.rounds import negotiate_groups
from condorlite.core.groups.tree import build_tree, group_of, group_totals, sort_groups
from condorlite.core.groups.views import GroupView, describe_groups, group_views

__all__ = [
    "ROOT", "Allocation", "GroupNode", "GroupTree", "GroupView", "allocate", "assign_quotas",
    "build_tree", "describe_groups", "group_of", "group_totals", "group_views",
    "negotiate_groups", "sort_groups",
]
