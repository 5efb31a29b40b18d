"""The names a policy expression can read of the slot and job ads, worked out once
from its tree, for ``preq_verdicts``.

``static_reads(expr)`` is the sorted tuple of lower-cased names an evaluation of
``expr`` with MY = slot and TARGET = job can look up in either ad, or None where that
cannot be said from the tree alone. It is every name of an ``AttrRef`` (a bare name
is looked up in the slot, then the job; ``MY.x`` and ``TARGET.x`` also look up the
scope's own name first, so ``my`` and ``target`` are included for them), and it is
None when the tree reaches an ad by another road: a ``PARENT.`` or absolute
(``.x``) reference, a selection or subscript (``a.b``, ``a["b"]``: a record's names),
a nested record, a lazy built-in other than ``ifThenElse`` (``eval`` reads names
named by a string, the time functions read the clock), or a function not registered
(``functions.REGISTRY``). Every non-lazy registered built-in is a function of its
arguments' values.

So when every name of the answer is bound in both ads to a literal or not bound at
all, the evaluation reads those bindings and nothing else (a literal reads nothing),
and two (slot, job) pairs that bind them alike evaluate alike. Names are kept in
both ads, which keys more than needed, never less.
"""

from __future__ import annotations

from condorlite.core.classad.ast import (
    AttrRef,
    Binary,
    Call,
    Conditional,
    Elvis,
    Expr,
    ListExpr,
    Literal,
    Paren,
    Unary,
)
from condorlite.core.classad.functions import REGISTRY

#: the scopes whose references read the slot or the job (or the scope's own name)
_AD_SCOPES = (None, "my", "target")

#: the one lazy built-in that only picks among its arguments
_LAZY_KEPT = frozenset({"ifthenelse"})


def static_reads(expr: Expr | None) -> tuple[str, ...] | None:
    """The names ``expr`` can read of either ad, sorted and lower-cased, or None when
    the tree reads by a road other than a plain name (module doc). The walk is
    iterative: a deep tree cannot reach Python's recursion limit."""
    if expr is None:
        return None
    found: set[str] = set()
    stack: list[Expr] = [expr]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is Literal:
            continue
        if kind is AttrRef:
            scope = node.scope  # type: ignore[attr-defined]
            if scope not in _AD_SCOPES:
                return None
            found.add(node.name.lower())  # type: ignore[attr-defined]
            if scope is not None:
                found.add(scope)
        elif kind is Paren:
            stack.append(node.inner)  # type: ignore[attr-defined]
        elif kind is Unary:
            stack.append(node.operand)  # type: ignore[attr-defined]
        elif kind is Binary or kind is Elvis:
            stack.append(node.left)  # type: ignore[attr-defined]
            stack.append(node.right)  # type: ignore[attr-defined]
        elif kind is Conditional:
            stack.extend((node.cond, node.then, node.otherwise))  # type: ignore[attr-defined]
        elif kind is ListExpr:
            stack.extend(node.items)  # type: ignore[attr-defined]
        elif kind is Call:
            lname = node.name.lower()  # type: ignore[attr-defined]
            spec = REGISTRY.get(lname)
            if spec is None or (spec.lazy and lname not in _LAZY_KEPT):
                return None
            stack.extend(node.args)  # type: ignore[attr-defined]
        else:  # Select, Subscript, RecordExpr, or a node kind not known here
            return None
    return tuple(sorted(found))
