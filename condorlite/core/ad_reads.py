"""What evaluating an expression in one ad alone may read, and a bound on its steps:
the static part of the reading pass's ad screen (``ad_screen.py``), worked out from
expression trees and an ad's table, never by evaluating.

* ``Reads`` / ``reads_of``: the names an evaluation in the ad alone may look up;
  ``closure``: those names followed through the ad's bindings, transitively;
  ``within``: whether a binding leads the closure only to names already keyed.
* ``shape_of`` / ``step_bound``: an upper bound on the attribute evaluations of the
  worst of ``PROBED``, so that the runaway probe can be skipped where the budget
  (``scope.MAX_STEPS``) provably holds.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from math import inf
from typing import NamedTuple

from condorlite.core.adeval import PROBED
from condorlite.core.classad.ast import (
    AttrRef,
    Binary,
    Call,
    Conditional,
    Elvis,
    Expr,
    Literal,
    Paren,
    Select,
    Subscript,
    Unary,
)
from condorlite.core.classad.refs import children, references
from condorlite.core.classad.scope import MAX_STEPS

#: Built-ins that may read attributes whose names are computed at run time.
_DYNAMIC_CALLS = frozenset({"eval", "evalineachcontext", "countmatches"})


class Reads(NamedTuple):
    """The names an expression's evaluation in an ad alone (no TARGET) may look up
    there: ``plain`` always (a bare, ``MY.``, ``PARENT.`` or absolute name, and the
    scope word ``my`` or ``parent``, which is looked up first: an ad may bind it);
    ``targeted`` (the ``TARGET.`` names) only when the ad binds ``target``, from
    whose value they are selected; without a match and without that binding,
    ``TARGET.x`` is undefined and reads nothing. ``computed``: the expression holds
    a call of a built-in in ``_DYNAMIC_CALLS`` or a subscript, which may read names
    computed at run time. ``direct``: ``plain`` and every name of any scope: the
    pattern check reads the ad's bindings of all the names a probed attribute
    refers to (``runaway_verdict``), so a probed attribute's ``direct`` are keyed."""

    plain: frozenset[str]
    targeted: frozenset[str]
    computed: bool
    direct: frozenset[str]


def reads_of(expr: Expr) -> Reads:
    """``Reads`` of ``expr`` (from ``refs.references``)."""
    plain: set[str] = set()
    targeted: set[str] = set()
    for scope, name in references(expr):
        if scope == "target":
            targeted.add(name)
            continue
        plain.add(name)
        if scope is not None and scope != "absolute":
            plain.add(scope)
    if targeted:
        plain.add("target")
    return Reads(frozenset(plain), frozenset(targeted), computed(expr),
                 frozenset(plain | targeted))


def within(reads: Reads, probed: bool, targeted: bool, keyed: frozenset[str]) -> bool:
    """Whether the names a binding leads the closure to are all in ``keyed``: a probed
    attribute's ``direct`` names, another's ``plain`` and, when the ad binds
    ``target``, ``targeted`` ones."""
    if probed:
        return reads.direct <= keyed
    return reads.plain <= keyed and (not targeted or reads.targeted <= keyed)


def closure(table: dict, start: Iterable[str], reads: Callable[[Expr], Reads]
             ) -> frozenset[str]:
    """``start``, every name the table's bindings of them refer to (``Reads.direct``:
    what the pattern check reads) and every name those bindings may read
    (``Reads``), transitively."""
    seen: set[str] = set()
    todo = list(start)
    for name in start:
        entry = table.get(name)
        if entry is not None:
            todo.extend(reads(entry[1]).direct)
    targeted = "target" in table
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        entry = table.get(name)
        if entry is not None:
            found = reads(entry[1])
            todo.extend(found.plain)
            if targeted:
                todo.extend(found.targeted)
    return frozenset(seen)


#: Nodes that evaluate each operand at most once per evaluation of the node.
_ONCE = frozenset({Literal, AttrRef, Unary, Binary, Paren, Conditional, Elvis})
#: Bindings that would make a scope word (``MY.x``, ``TARGET.x``, ``PARENT.x``) select
#: from a value of the ad's own instead of the ad (or nothing).
_SCOPE_WORDS = ("my", "target", "parent")


def shape_of(expr: Expr) -> tuple[tuple[str, int], ...] | None:
    """How many times ``expr`` refers to each name that an evaluation in an ad alone
    may look up (``TARGET.`` names left out: they read nothing there unless the ad
    binds ``target``, which ``step_bound`` excludes), sorted by name; None when it
    holds a node outside ``_ONCE`` (a call, a list, a record, a select...)."""
    counts: dict[str, int] = {}
    stack = [expr]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind not in _ONCE:
            return None
        if kind is AttrRef:
            if node.scope != "target":  # type: ignore[attr-defined]
                name = node.name.lower()  # type: ignore[attr-defined]
                counts[name] = counts.get(name, 0) + 1
            continue
        stack.extend(children(node))
    return tuple(sorted(counts.items()))


def step_bound(table: dict, shape: Callable[[Expr], tuple | None]) -> float:
    """An upper bound on the attribute evaluations (``scope.MAX_STEPS``'s steps) of
    the worst of ``PROBED`` evaluated alone in the ad whose table this is: a bound
    name costs 0 when absent or a literal (a constant: no step), else 1 plus, for
    each reference in its expression (``shape``), that name's cost: every node of
    ``_ONCE`` evaluates an operand at most once, and a conditional or a
    short-circuit only fewer. Infinite (no bound) when a binding holds another node,
    on a circular reference, past a depth of 100, or when the ad binds a scope word."""
    if any(word in table for word in _SCOPE_WORDS):
        return inf
    memo: dict[str, float] = {}
    return max(_steps(table, name, shape, memo, set(), 0) for name in PROBED)


def _steps(table: dict, name: str, shape: Callable[[Expr], tuple | None],
           memo: dict[str, float], active: set[str], depth: int) -> float:
    known = memo.get(name)
    if known is not None:
        return known
    entry = table.get(name)
    if entry is None or type(entry[1]) is Literal:
        return 0
    refs = shape(entry[1])
    if refs is None or name in active or depth > 100:
        return inf
    active.add(name)
    total: float = 1
    for ref, count in refs:
        total += count * _steps(table, ref, shape, memo, active, depth + 1)
        if total > MAX_STEPS:
            break
    active.discard(name)
    memo[name] = total
    return total


def computed(expr: object) -> bool:
    """Whether ``expr`` holds a call of a built-in in ``_DYNAMIC_CALLS`` or a subscript
    or select (a name computed at run time)."""
    stack = [expr]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is Subscript or kind is Select or (
                kind is Call and node.name.lower() in _DYNAMIC_CALLS):  # type: ignore[attr-defined]
            return True
        stack.extend(children(node))  # type: ignore[arg-type]
    return False
