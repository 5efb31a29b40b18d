"""Which attribute names an expression refers to, found by walking its tree.

``references(expr)`` returns a frozenset of ``(scope, name)`` pairs, name lower-cased
(ClassAd names are case-insensitive) and scope as the parser stored it: ``None`` for a
bare name, ``"my"``, ``"target"``, ``"parent"`` or ``"absolute"``. ``Select`` nodes whose
base is an attribute reference contribute the base's reference; names inside a nested
record literal are included too, so the answer may be a superset of what an evaluation
reads but never a subset (autoclustering relies on that: missing a name would merge jobs
that match differently, an extra name only splits an autocluster in two).

The walk is iterative (a stack, not recursion), so deeply nested expressions cannot hit
Python's recursion limit.
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
    RecordExpr,
    Select,
    Subscript,
    Unary,
)

Ref = tuple[str | None, str]


def children(node: Expr) -> tuple[Expr, ...]:
    """The direct sub-expressions of ``node``, left to right."""
    match node:
        case Literal() | AttrRef():
            return ()
        case Select(base=base):
            return (base,)
        case Subscript(base=base, index=index):
            return (base, index)
        case Unary(operand=operand):
            return (operand,)
        case Binary(left=left, right=right):
            return (left, right)
        case Conditional(cond=cond, then=then, otherwise=otherwise):
            return (cond, then, otherwise)
        case Elvis(left=left, right=right):
            return (left, right)
        case Paren(inner=inner):
            return (inner,)
        case Call(args=args):
            return args
        case ListExpr(items=items):
            return items
        case RecordExpr(attrs=attrs):
            return tuple(value for _, value in attrs)
    return ()


def references(expr: Expr | None) -> frozenset[Ref]:
    """Every ``(scope, lower-cased name)`` the expression refers to."""
    if expr is None:
        return frozenset()
    found: set[Ref] = set()
    stack: list[Expr] = [expr]
    while stack:
        node = stack.pop()
        if isinstance(node, AttrRef):
            found.add((node.scope, node.name.lower()))
            continue
        stack.extend(children(node))
    return frozenset(found)


def names(expr: Expr | None) -> frozenset[str]:
    """The lower-cased names the expression refers to, whatever their scope.

    Worked out once per node and kept on it (the ``_names`` slot of ``ast.Expr``, set
    once, never a field): ads read from files share their expression objects, so a
    cycle asks for the names of the same few hundred nodes for thousands of ads, and
    the answer is a fact about an immutable node that lives and dies with it."""
    if expr is None:
        return _NO_NAMES
    try:
        return expr._names  # type: ignore[attr-defined]
    except AttributeError:
        found = frozenset(name for _, name in references(expr))
        _set(expr, "_names", found)
        return found


_NO_NAMES: frozenset[str] = frozenset()
_set = object.__setattr__  # the nodes are frozen dataclasses; the slot is not a field


def and_chain(node: Expr) -> list[Expr]:
    """The operands of a left-leaning ``&&`` chain, in evaluation order; parentheses
    around a left operand are transparent (``(a && b) && c`` is the same chain)."""
    operands: list[Expr] = []
    while True:
        while type(node) is Paren:
            node = node.inner
        if type(node) is not Binary or node.op != "&&":
            operands.append(node)
            break
        operands.append(node.right)
        node = node.left
    operands.reverse()
    return operands
