"""Accounting groups: the tree from the configuration, membership, and group order.

``build_tree(policy)`` reads GROUP_NAMES and the per-group knobs into a ``GroupTree``
(``core.groups.quotas``), as HTCondor's ``hgq_construct_tree`` does:

* names are case-insensitive and sorted that way before the tree is built, so a
  parent always comes before its children and the children of a node are in
  case-insensitive name order (ties by exact spelling); the tree's ``order`` is
  breadth-first from the root ``<none>``;
* ``a.b`` is the child ``b`` of group ``a``; a group whose parent is not configured, a
  duplicate (case-insensitively), and a group named ``<none>`` are ignored and reported
  in ``tree.problems``;
* GROUP_QUOTA_<g> (weighted slots) makes a static quota and wins over
  GROUP_QUOTA_DYNAMIC_<g> (a fraction of the parent's quota); a group with neither has
  quota 0 (reported) and can still take surplus;
* GROUP_ACCEPT_SURPLUS_<g> / GROUP_AUTOREGROUP_<g> default to GROUP_ACCEPT_SURPLUS /
  GROUP_AUTOREGROUP; the root always accepts surplus, and autoregroups when any group
  does.

``group_of(submitter, tree)``: ``g1.g2.user@domain`` belongs to the deepest configured
group along ``g1``, ``g1.g2`` (case-insensitive); a name without a dot before the ``@``
belongs to ``<none>``; a name without ``@`` is a group (itself if configured, else
``<none>``).

``sort_keys`` / ``sort_groups``: GROUP_SORT_EXPR is evaluated on an ad per group with
``AccountingGroup``, ``GroupQuota``, ``GroupResourcesAllocated`` and
``GroupResourcesInUse``; a value that is not a number gives FLT_MAX (HTCondor's
fallback; NaN too, so the order stays total). Groups negotiate by ascending key, ties by
name (case-insensitive, then exact), with ``<none>`` always last. The default expression
is HTCondor's starvation order: ``GroupResourcesInUse / GroupQuota``, groups without
quota after those with one.
"""

from __future__ import annotations

from collections.abc import Mapping

from condorlite.core.classad import ClassAd, ClassAdSyntaxError, evaluate, parse_expr
from condorlite.core.classad.ast import Expr
from condorlite.core.groups.quotas import ROOT, Allocation, GroupNode, GroupTree
from condorlite.core.policy import Policy
from condorlite.errors import ConfigError

#: HTCondor's default GROUP_SORT_EXPR (param_info): starvation order, <none> last.
DEFAULT_GROUP_SORT_EXPR = (
    'ifThenElse(AccountingGroup =?= "<none>", 3.4e+38, '
    "ifThenElse(GroupQuota > 0, GroupResourcesInUse / GroupQuota, 3.3e+38))"
)
#: Sort key of a group whose GROUP_SORT_EXPR is not a number (C's FLT_MAX).
FLT_MAX = 3.4028234663852886e38


def build_tree(policy: Policy) -> GroupTree:
    """The group tree the policy describes (rules in the module docstring)."""
    problems: list[str] = []
    names = _configured_names(policy.group_names, problems)
    quota = _lower_keys(policy.group_quota)
    dynamic = _lower_keys(policy.group_quota_dynamic)
    accept = _lower_keys(policy.group_accept_surplus_by_group)
    regroup = _lower_keys(policy.group_autoregroup_by_group)
    prio = _lower_keys(policy.group_prio_factor)

    children: dict[str, list[str]] = {ROOT: []}
    parent_of: dict[str, str] = {}
    index: dict[str, str] = {}
    for name in names:
        prefix, dot, _leaf = name.rpartition(".")
        parent = index.get(prefix.lower()) if dot else ROOT
        if parent is None or not _leaf:
            problems.append(f"group {name!r} ignored: its parent group {prefix!r} is not "
                            "configured in GROUP_NAMES")
            continue
        index[name.lower()] = name
        parent_of[name] = parent
        children[parent].append(name)
        children[name] = []

    nodes: dict[str, GroupNode] = {}
    order = _breadth_first(children)
    any_regroup = False
    for name in order[1:]:
        key = name.lower()
        config_quota, is_static = _quota_of(name, quota.get(key), dynamic.get(key), problems)
        node = GroupNode(
            name=name,
            parent=parent_of[name],
            depth=name.count(".") + 1,
            children=tuple(children[name]),
            config_quota=config_quota,
            is_static=is_static,
            accept_surplus=accept.get(key, policy.group_accept_surplus),
            autoregroup=regroup.get(key, policy.group_autoregroup),
            prio_factor=prio.get(key),
        )
        any_regroup = any_regroup or node.autoregroup
        nodes[name] = node
    any_regroup = any_regroup or policy.group_autoregroup
    nodes[ROOT] = GroupNode(ROOT, None, 0, tuple(children[ROOT]), 0.0, False, True, any_regroup)
    accepting = policy.group_accept_surplus or any(
        nodes[n].accept_surplus for n in order[1:])
    return GroupTree(
        nodes={n: nodes[n] for n in order},
        order=tuple(order),
        problems=tuple(problems),
        allow_oversubscription=policy.negotiator_allow_quota_oversubscription,
        global_accept_surplus=accepting,
        autoregroup=any_regroup,
        _index={n.lower(): n for n in order},
    )


def _configured_names(raw: tuple[str, ...], problems: list[str]) -> list[str]:
    """GROUP_NAMES without blanks, the reserved root name and case-insensitive
    duplicates, sorted case-insensitively (ties by exact spelling)."""
    seen: dict[str, str] = {}
    for name in (n.strip() for n in raw):
        if not name:
            continue
        if name.lower() == ROOT.lower():
            problems.append(f"group name {ROOT!r} is reserved for the root group: ignored")
        elif name.lower() in seen:
            problems.append(f"group {name!r} ignored: duplicate of {seen[name.lower()]!r}")
        else:
            seen[name.lower()] = name
    return sorted(seen.values(), key=lambda n: (n.lower(), n))


def _lower_keys(mapping: Mapping[str, object]) -> dict:
    return {str(k).lower(): v for k, v in mapping.items()}


def _quota_of(name, static, dynamic, problems: list[str]) -> tuple[float, bool]:
    """(config quota, is static): static wins; dynamic is clamped to 0..1."""
    if static is not None:
        if static < 0:
            problems.append(f"GROUP_QUOTA_{name} is negative: read as 0")
        return max(0.0, float(static)), True
    if dynamic is not None:
        if not 0 <= dynamic <= 1:
            problems.append(f"GROUP_QUOTA_DYNAMIC_{name} is outside 0..1: clamped")
        return min(1.0, max(0.0, float(dynamic))), False
    problems.append(f"group {name!r} has no GROUP_QUOTA or GROUP_QUOTA_DYNAMIC: quota 0 "
                    "(it can still take surplus)")
    return 0.0, False


def _breadth_first(children: Mapping[str, list[str]]) -> list[str]:
    order, todo = [], [ROOT]
    while todo:
        current = todo.pop(0)
        order.append(current)
        todo.extend(children[current])
    return order


def group_of(submitter: str, tree: GroupTree) -> str:
    """The group ``submitter`` belongs to (rules in the module docstring)."""
    if "@" not in submitter:
        return tree.canonical(submitter) or ROOT
    local = submitter.rpartition("@")[0]
    prefix, dot, _user = local.rpartition(".")
    if not dot:
        return ROOT
    current = ROOT
    for part in prefix.split("."):
        step = tree.canonical(part if current == ROOT else f"{current}.{part}")
        if step is None:
            break
        current = step
    return current


def group_totals(tree: GroupTree, per_submitter: Mapping[str, float]) -> dict[str, float]:
    """Sum a per-submitter figure (usage, demand) per group; every group is a key.

    Group records (names without ``@``) are skipped: a group's own record holds the
    sum of its submitters' figures, so counting it too would count them twice.
    """
    totals = dict.fromkeys(tree.order, 0.0)
    for name, amount in sorted(per_submitter.items()):
        if "@" in name:
            totals[group_of(name, tree)] += float(amount)
    return totals


def sort_expression(policy: Policy) -> Expr:
    """GROUP_SORT_EXPR parsed (HTCondor's default when unset)."""
    text = policy.group_sort_expr or DEFAULT_GROUP_SORT_EXPR
    try:
        return parse_expr(text)
    except ClassAdSyntaxError as exc:
        raise ConfigError(f"GROUP_SORT_EXPR: {exc}") from exc


def sort_keys(
    tree: GroupTree,
    quota: Mapping[str, float],
    allocated: Mapping[str, float],
    usage: Mapping[str, float],
    expr: Expr,
) -> dict[str, float]:
    """GROUP_SORT_EXPR's value per group (FLT_MAX when it is not a number)."""
    keys = {}
    for name in tree.order:
        ad = ClassAd(
            AccountingGroup=name,
            GroupQuota=float(quota.get(name, 0.0)),
            GroupResourcesAllocated=float(allocated.get(name, 0.0)),
            GroupResourcesInUse=float(usage.get(name, 0.0)),
        )
        keys[name] = _number(evaluate(expr, ad))
    return keys


def _number(value: object) -> float:
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float) and value == value:  # NaN is not a number here
        return float(value)
    return FLT_MAX


def order_by_keys(tree: GroupTree, keys: Mapping[str, float]) -> list[str]:
    """Groups by ascending key, ties by name (case-insensitive, then exact), root last."""
    others = sorted((n for n in tree.order if n != ROOT),
                    key=lambda n: (keys[n], n.lower(), n))
    return [*others, ROOT]


def sort_groups(
    tree: GroupTree, allocation: Allocation, usage: Mapping[str, float], policy: Policy
) -> list[str]:
    """The negotiation order of the groups for ``allocation`` and the groups' current
    usage (their own records' weighted usage)."""
    keys = sort_keys(tree, allocation.quotas.quota, allocation.allocated,
                     _by_group(tree, usage), sort_expression(policy))
    return order_by_keys(tree, keys)


def _by_group(tree: GroupTree, values: Mapping[str, float]) -> dict[str, float]:
    out = dict.fromkeys(tree.order, 0.0)
    for name, amount in values.items():
        out[tree.canonical(name) or ROOT] += float(amount)
    return out
