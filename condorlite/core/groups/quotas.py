"""Hierarchical group quotas: the tree, quota assignment and slot allocation (HGQ).

This is the arithmetic of HTCondor's hierarchical group quotas (``GroupEntry``:
``hgq_assign_quotas``, ``hgq_fairshare``, ``hgq_allocate_surplus``,
``hgq_recover_remainders``, ``hgq_round_robin``), pure and deterministic. Building the
tree from the configuration, membership, ordering and the negotiation plan live in
``condorlite.core.groups.tree``. All amounts are in weighted slots (SLOT_WEIGHT units).

Quota assignment, top-down from the root ``<none>`` receiving Q = pool size. A node
receiving subtree quota Q (Q <= 0: the node and its whole subtree keep quota 0)::

    S  = sum of its static children's GROUP_QUOTA       D = sum of dynamic fractions
    Sa = S if oversubscription is allowed else min(S, Q)   (static quotas go first)
    Da = max(0, Q - Sa)                                     (dynamic ones share the rest)
    static child c:   q_c = GROUP_QUOTA_c * Sa / (S if S > 0 else 1)
    dynamic child c:  q_c = GROUP_QUOTA_DYNAMIC_c * Da / max(D, 1)
    subtree_quota(c) = q_c, recursively
    quota(node) = Q                    oversubscription allowed and node is not the root
                = max(0, Q - sum q_c)  otherwise (the root always: no double counting)

Allocation for demands r (weighted running + idle jobs), bottom-up:

* fair share: ``a_n = min(r_n, quota_n)``, the node's unused quota ``quota_n - a_n`` is
  surplus; an internal node adds its children's leftover surplus to its own.
* its subtree request ``R_n`` = its own unmet request + the ``R_c`` of each child that
  accepts surplus. A child that does not accept surplus keeps its unmet request to
  itself: no surplus from outside ever enters its subtree (the hard cap).
* the node shares its surplus "on equal footing" among itself and its accepting
  children: if surplus >= R_n everyone gets what it asked for; otherwise in proportion
  to subtree quota (the node itself weighing with its own quota), repeatedly, capping
  each at its request, and what is left goes in equal parts to the zero-quota ones.
  Each child then shares what it received down its own subtree the same way. What no
  one here wants goes up to the parent.
* without slot weights (NEGOTIATOR_USE_SLOT_WEIGHTS false) fractional allocations are
  cut to whole slots and the fractions pooled again, bottom-up, and dealt out one slot
  at a time (round robin): groups that were served longest ago first (``rr_time``), then
  larger subtree quota, then larger request, then tree position.

Invariants (tested): ``0 <= allocated_g <= r_g``; ``sum(allocated) + unallocated ==
sum(quota)``; without oversubscription ``sum(quota) == pool`` (for pool > 0) and a group
that does not accept surplus never has more allocated in its subtree than its subtree
quota; without slot weights and with whole demands every allocation is whole.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

ROOT = "<none>"
"""The root group, where every submitter without a configured group belongs (the
accountant's ``NO_GROUP``)."""


@dataclass(frozen=True)
class GroupNode:
    """One configured group (or the root). ``children`` are in the tree's order:
    case-insensitive name order, as HTCondor sorts GROUP_NAMES before building."""

    name: str
    parent: str | None
    depth: int
    children: tuple[str, ...]
    config_quota: float
    is_static: bool
    accept_surplus: bool
    autoregroup: bool
    prio_factor: float | None = None


@dataclass(frozen=True)
class GroupTree:
    """The group hierarchy. ``order`` is breadth-first from the root, children in order.

    ``global_accept_surplus`` is GROUP_ACCEPT_SURPLUS or any group accepting surplus;
    ``autoregroup`` is true when any group autoregroups (the root then negotiates with
    the whole pool). ``problems`` lists what the configuration got wrong and how it was
    read (a group with a missing parent is ignored, for one).
    """

    nodes: Mapping[str, GroupNode]
    order: tuple[str, ...]
    problems: tuple[str, ...] = ()
    allow_oversubscription: bool = True
    global_accept_surplus: bool = False
    autoregroup: bool = False
    _index: Mapping[str, str] = field(default_factory=dict, repr=False)

    @property
    def root(self) -> GroupNode:
        return self.nodes[ROOT]

    def canonical(self, name: str) -> str | None:
        """The configured spelling of group ``name`` (case-insensitive), or None."""
        if name in self.nodes:
            return name
        return self._index.get(name.lower())

    def node(self, name: str) -> GroupNode:
        """The node of group ``name``; unknown names raise KeyError."""
        found = self.canonical(name)
        if found is None:
            raise KeyError(name)
        return self.nodes[found]

    def subtree(self, name: str) -> list[str]:
        """``name`` and all its descendants, breadth-first."""
        out, todo = [], [self.node(name).name]
        while todo:
            current = todo.pop(0)
            out.append(current)
            todo.extend(self.nodes[current].children)
        return out


@dataclass(frozen=True)
class Quotas:
    """Effective quota (what the group alone may use) and subtree quota per group."""

    quota: Mapping[str, float]
    subtree_quota: Mapping[str, float]
    pool_size: float


@dataclass(frozen=True)
class Allocation:
    """One allocation: ``allocated`` per group, surplus nobody wanted, the demand it was
    computed from, and the groups the round robin served (their ``rr_time`` becomes
    now, with the groups whose demand was met)."""

    quotas: Quotas
    requested: Mapping[str, float]
    allocated: Mapping[str, float]
    unallocated: float
    round_robin: frozenset[str] = frozenset()
    unmet: Mapping[str, float] = field(default_factory=dict)


def assign_quotas(tree: GroupTree, pool_size: float) -> Quotas:
    """Quotas for every group from the pool size (formulas in the module docstring)."""
    quota = dict.fromkeys(tree.order, 0.0)
    subtree = dict.fromkeys(tree.order, 0.0)
    _assign(tree, ROOT, max(0.0, float(pool_size)), quota, subtree)
    return Quotas(quota, subtree, float(pool_size))


def _assign(tree: GroupTree, name: str, given: float, quota: dict, subtree: dict) -> None:
    if given <= 0:
        return
    subtree[name] = given
    kids = [tree.nodes[c] for c in tree.nodes[name].children]
    static_sum = sum(k.config_quota for k in kids if k.is_static)
    dynamic_sum = sum(k.config_quota for k in kids if not k.is_static)
    oversub = tree.allow_oversubscription
    static_given = static_sum if oversub else min(static_sum, given)
    dynamic_given = max(0.0, given - static_given)
    static_norm = static_sum if static_sum > 0 else 1.0
    dynamic_norm = max(dynamic_sum, 1.0)
    children_total = 0.0
    for kid in kids:
        if kid.is_static:
            share = kid.config_quota * (static_given / static_norm)
        else:
            share = kid.config_quota * (dynamic_given / dynamic_norm)
        share = max(0.0, share)
        _assign(tree, kid.name, share, quota, subtree)
        children_total += share
    own = given if oversub and name != ROOT else given - children_total
    quota[name] = max(0.0, own)


@dataclass
class _Work:
    """Mutable per-group figures while one allocation is computed."""

    quota: float
    subtree_quota: float
    accept: bool
    requested: float
    allocated: float = 0.0
    subtree_requested: float = 0.0
    rr_time: float = 0.0
    subtree_rr_time: float = 0.0
    served: bool = False


def allocate(
    tree: GroupTree,
    quotas: Quotas,
    demand: Mapping[str, float],
    *,
    weighted_slots: bool = True,
    rr_time: Mapping[str, float] | None = None,
) -> Allocation:
    """Share the quotas among the groups' demands (module docstring).

    ``demand`` is keyed by group name (case-insensitive); names the tree does not know
    count for ``<none>``, as HTCondor maps undefined groups to the root. ``rr_time`` is
    when each group was last served by the round robin (default 0 for all); it only
    matters when ``weighted_slots`` is false.
    """
    requested = _demand_by_group(tree, demand)
    times = rr_time or {}
    work = {
        name: _Work(
            quota=quotas.quota[name],
            subtree_quota=quotas.subtree_quota[name],
            accept=tree.nodes[name].accept_surplus,
            requested=requested[name],
            rr_time=float(times.get(name, 0.0)),
        )
        for name in tree.order
    }
    left = _fairshare(tree, work, ROOT)
    if not weighted_slots:
        left += _recover_remainders(tree, work, ROOT)
    return Allocation(
        quotas=quotas,
        requested=requested,
        allocated={n: work[n].allocated for n in tree.order},
        unallocated=max(0.0, left),
        round_robin=frozenset(n for n in tree.order if work[n].served),
        unmet={n: work[n].requested for n in tree.order},
    )


def _demand_by_group(tree: GroupTree, demand: Mapping[str, float]) -> dict[str, float]:
    out = dict.fromkeys(tree.order, 0.0)
    for name, amount in sorted(demand.items()):
        group = tree.canonical(name) or ROOT
        out[group] += max(0.0, float(amount))
    return out


def _fairshare(tree: GroupTree, work: dict[str, _Work], name: str) -> float:
    """Allocate min(request, quota) bottom-up and pass surplus around; returns the
    surplus this subtree could not use."""
    me = work[name]
    me.allocated = min(me.requested, me.quota)
    me.requested -= me.allocated
    me.subtree_requested = me.requested
    surplus = me.quota - me.allocated
    for child in tree.nodes[name].children:
        surplus += _fairshare(tree, work, child)
        if work[child].accept:
            me.subtree_requested += work[child].subtree_requested
    if not tree.nodes[name].children:
        return surplus
    return _share_surplus(tree, work, name, surplus)


def _members(tree: GroupTree, work: dict[str, _Work], name: str) -> list[tuple[str, float, float]]:
    """(group, weight, request) for the children of ``name`` and then ``name`` itself,
    which takes part as if it accepted surplus, weighing with its own quota."""
    out = []
    for child in tree.nodes[name].children:
        w = work[child]
        out.append((child, w.subtree_quota, w.subtree_requested if w.accept else 0.0))
    me = work[name]
    out.append((name, me.quota, me.requested))
    return out


def _share_surplus(tree: GroupTree, work: dict[str, _Work], name: str, surplus: float) -> float:
    """hgq_allocate_surplus: share ``surplus`` within the subtree of ``name``."""
    me = work[name]
    if surplus <= 0:
        return 0.0
    if me.subtree_requested <= 0:
        return surplus
    members = _members(tree, work, name)
    wanted = [max(0.0, req) for _, _, req in members]
    total_wanted = me.subtree_requested
    if surplus >= total_wanted:
        given = wanted
        surplus -= total_wanted
        total_wanted = 0.0
    else:
        given = [0.0] * len(members)
        weights = [w for _, w, _ in members]
        surplus, total_wanted = _proportional(weights, wanted, given, surplus, total_wanted)
        surplus, total_wanted = _proportional(None, wanted, given, surplus, total_wanted)
    for (child, _, _), amount in zip(members[:-1], given[:-1], strict=True):
        if amount > 0:
            _share_surplus(tree, work, child, amount)
    me.allocated += given[-1]
    me.requested -= given[-1]
    me.subtree_requested = total_wanted
    return surplus


def _proportional(weights, wanted, given, surplus, total_wanted):
    """hgq_allocate_surplus_loop: deal ``surplus`` in proportion to ``weights`` (equal
    parts when None) among members still wanting, capping each at what it wants, until
    the surplus is gone or nobody with a weight wants more. Each pass either places
    all the surplus or satisfies at least one member, so it ends."""
    while surplus > 0:
        norm = sum((1.0 if weights is None else weights[j]) for j, w in enumerate(wanted) if w > 0)
        if norm <= 0:
            break
        never_capped = True
        dealt = 0.0
        for j, want in enumerate(wanted):
            if want <= 0:
                continue
            part = surplus * ((1.0 if weights is None else weights[j]) / norm)
            if part > want:
                part = want
                never_capped = False
            given[j] += part
            wanted[j] -= part
            dealt += part
        surplus -= dealt
        total_wanted -= dealt
        # Floating-point crumbs: when nobody was capped the whole surplus was placed.
        if never_capped or surplus < 0:
            surplus = 0.0
    return surplus, total_wanted


def _recover_remainders(tree: GroupTree, work: dict[str, _Work], name: str) -> float:
    """hgq_recover_remainders: cut allocations to whole slots, pool the fractions and
    deal them again by round robin, bottom-up; returns what is left."""
    me = work[name]
    surplus = me.allocated - math.floor(me.allocated)
    me.allocated -= surplus
    me.requested += surplus
    me.allocated = float(math.floor(0.5 + me.allocated))
    me.requested = float(math.floor(0.5 + me.requested))
    me.subtree_requested = me.requested
    me.subtree_rr_time = me.rr_time if me.requested > 0 else math.inf
    for child in tree.nodes[name].children:
        surplus += _recover_remainders(tree, work, child)
        kid = work[child]
        if kid.accept:
            me.subtree_requested += kid.subtree_requested
            if kid.subtree_requested > 0:
                me.subtree_rr_time = min(me.subtree_rr_time, kid.subtree_rr_time)
    if not tree.nodes[name].children:
        return surplus
    return _round_robin(tree, work, name, surplus)


def _round_robin(tree: GroupTree, work: dict[str, _Work], name: str, surplus: float) -> float:
    """hgq_round_robin: deal whole slots of ``surplus`` within the subtree of ``name``,
    at most an even part per member and pass, in the member order of the module doc."""
    me = work[name]
    me.subtree_requested = float(math.floor(me.subtree_requested))
    if me.subtree_requested <= 0 or surplus < 1:
        return surplus
    kids = tree.nodes[name].children
    members = [*kids, name]
    wanted, rr_keys = [], []
    for j, member in enumerate(members):
        w = work[member]
        is_me = member == name
        want = w.requested if is_me else (w.subtree_requested if w.accept else 0.0)
        wanted.append(max(0.0, want))
        when = w.rr_time if is_me else w.subtree_rr_time
        weight = w.quota if is_me else w.subtree_quota
        rr_keys.append((when, -weight, -want, j))
    order = [key[3] for key in sorted(rr_keys)]
    given = [0.0] * len(members)
    total_wanted = me.subtree_requested
    outstanding = sum(1 for want in wanted if want > 0)
    while surplus >= 1 and total_wanted > 0:
        each = math.inf if outstanding == 0 else max(1.0, math.floor(surplus / outstanding))
        outstanding, dealt = 0, 0.0
        for j in order:
            if wanted[j] <= 0:
                continue
            part = min(wanted[j], each)
            given[j] += part
            wanted[j] -= part
            dealt += part
            surplus -= part
            total_wanted -= part
            work[members[j]].served = True
            if wanted[j] > 0:
                outstanding += 1
            if surplus < each:
                break
        if dealt < 1:
            break
    for child, amount in zip(kids, given[:-1], strict=True):
        if amount > 0:
            _round_robin(tree, work, child, amount)
    me.allocated += given[-1]
    me.requested -= given[-1]
    me.subtree_requested = total_wanted
    return surplus
