"""Fused closures for the commonest node shape in Requirements: a comparison between
attribute references and constants (``TARGET.Memory >= RequestMemory``,
``MY.Cpus > 0``, ``TARGET.Arch == "X86_64"``, ``TARGET.RequestGPUs =?= undefined``).

One closure does both operand lookups and the comparison, instead of three closure
calls. Each operand is one of:

* ``const``: a folded constant (``cache.folded``);
* ``name``: an unscoped reference, read from ``cur``'s own attributes when there;
* ``my``: ``MY.x``, read from ``cur`` when it has no attribute named ``my``;
* ``target``: ``TARGET.x``, read from the other ad of the match when ``cur`` is a
  top-level ad of it with no attribute named ``target``;
* ``fn``: anything else, through its compiled closure.

Whenever a fast read does not apply, the operand takes exactly the general lookup of
``scope.py`` (the same fallbacks as the closures of ``attrrefs.py``), so
the value is always the reference's. The closure source is generated from the operand
kinds and the operator only (attribute names and constants are closure variables,
never source text), one factory per combination, made on first use and kept.
"""

from __future__ import annotations

from collections.abc import Callable

from . import cache
from . import operators as ops
from . import scope as sc
from .ast import AttrRef, Expr, Paren
from .values import Error, Undefined

_COMPARE_OPS = ("==", "!=", "<", "<=", ">", ">=")
_META_OPS = {
    "=?=": "meta_equal",
    "is": "meta_equal",
    "=!=": "meta_not_equal",
    "isnt": "meta_not_equal",
}
FUSABLE_OPS = frozenset(_COMPARE_OPS) | frozenset(_META_OPS)


def operand(node: Expr) -> tuple[str, object]:
    """The kind of an operand and what its closure variable holds."""
    while type(node) is Paren:
        node = node.inner
    value = cache.folded(node)
    if value is not cache.VARIES:
        return "const", value
    if type(node) is AttrRef:
        if node.scope is None:
            return "name", node.name.lower()
        if node.scope in ("my", "target"):
            return node.scope, node.name.lower()
    return "fn", cache.compile_expr(node)


def _read(attrs: str, holder: str, var: str, slot: str) -> list[str]:
    """Lines setting ``var`` from entry ``attrs.get(slot)`` found in ``holder``; the
    caller has the general lookup ready for a missing entry."""
    return [
        f"x = {attrs}.get({slot})",
        "if x is None:",
        "    {miss}",
        "else:",
        "    x = x[1]",
        f"    {var} = consts_get(id(x), VARIES)",
        f"    if {var} is VARIES or env.depth >= MAXD:",
        f"        {var} = eval_found({holder}, {slot}, x, env)",
    ]


def _fetch(kind: str, var: str, slot: str) -> list[str]:
    """Lines computing operand ``var`` (closure variable ``slot``) in function scope."""
    if kind == "const":
        return [f"{var} = {slot}"]
    if kind == "fn":
        return [f"{var} = {slot}(cur, env)"]
    if kind == "name":
        body = _read("attrs", "cur", var, slot)
        body[2] = f"    {var} = unscoped_miss(cur, {slot}, env)"
        return [
            "try:",
            "    attrs = cur._attrs",
            "except AttributeError:",
            "    attrs = NO_ATTRS",
            *body,
        ]
    if kind == "my":
        body = _read("attrs", "cur", var, slot)
        body[2] = f"    {var} = found_in(cur, {slot}, env)"
        return [
            "attrs = getattr(cur, '_attrs', None)",
            "if attrs is None or 'my' in attrs:",
            f"    {var} = select(resolve_unscoped(cur, 'my', env), {slot}, env, cur)",
            "else:",
            *["    " + line for line in body],
        ]
    # target
    body = _read("oattrs", "o", var, slot)
    body[2] = f"    {var} = found_in(o, {slot}, env)"
    return [
        "attrs = getattr(cur, '_attrs', None)",
        "if attrs is None or 'target' in attrs or cur.parent is not None:",
        f"    {var} = select(resolve_unscoped(cur, 'target', env), {slot}, env, cur)",
        "else:",
        "    o = env.other(cur)",
        "    oattrs = None if o is None else getattr(o, '_attrs', None)",
        "    if o is None:",
        f"        {var} = Undefined",
        "    elif oattrs is None:",
        f"        {var} = select(o, {slot}, env, cur)",
        "    else:",
        *["        " + line for line in body],
    ]


def _tail(op: str, right_kind: str, right_value: object) -> list[str]:
    if op in _META_OPS:
        return [f"return {_META_OPS[op]}(a, b)"]
    if right_kind == "const" and type(right_value) is str:
        # b is a constant string; `low` holds it ASCII-lower-cased once.
        return [
            "if type(a) is str and a.isascii():",
            f"    return a.lower() {op} low",
            f"return compare('{op}', a, b)",
        ]
    return [
        "kind = type(a)",
        "if kind is type(b) and (kind is int or kind is float):",
        f"    return a {op} b",
        f"return compare('{op}', a, b)",
    ]


_NAMESPACE: dict[str, object] = {
    "consts_get": cache.consts_get,
    "VARIES": cache.VARIES,
    "MAXD": sc.MAX_DEPTH,
    "eval_found": sc._eval_found,
    "found_in": sc.found_in,
    "unscoped_miss": sc.unscoped_miss,
    "resolve_unscoped": sc.resolve_unscoped,
    "select": sc.select,
    "Undefined": Undefined,
    "Error": Error,
    "NO_ATTRS": {},
    "compare": ops.compare,
    "meta_equal": ops.meta_equal,
    "meta_not_equal": ops.meta_not_equal,
}
_FACTORIES: dict[tuple[str, str, str, bool], Callable[..., cache.Compiled]] = {}


def _factory(op: str, left: str, right: str, str_const: bool) -> Callable[..., cache.Compiled]:
    key = (op, left, right, str_const)
    made = _FACTORIES.get(key)
    if made is not None:
        return made
    lines = [*_fetch(left, "a", "left"), *_fetch(right, "b", "right")]
    lines += _tail(op, right, "" if str_const else None)
    source = "\n".join(
        ["def factory(left, right, low):", "    def fused(cur, env):"]
        + ["        " + line for line in lines]
        + ["    return fused"]
    )
    namespace = dict(_NAMESPACE)
    exec(source, namespace)  # operand kinds and a fixed operator symbol only
    made = namespace["factory"]  # type: ignore[assignment]
    _FACTORIES[key] = made  # type: ignore[assignment]
    return made  # type: ignore[return-value]


def fused_compare(op: str, left_node: Expr, right_node: Expr) -> cache.Compiled | None:
    """A fused closure for ``left op right``, or None when neither operand is an
    attribute reference (then the generic closures are as good)."""
    if op not in FUSABLE_OPS:
        return None
    lkind, lvalue = operand(left_node)
    rkind, rvalue = operand(right_node)
    if lkind in ("const", "fn") and rkind in ("const", "fn"):
        return None
    str_const = rkind == "const" and type(rvalue) is str and op in _COMPARE_OPS
    low = ops.ascii_lower(rvalue) if str_const else None  # type: ignore[arg-type]
    return _factory(op, lkind, rkind, str_const)(lvalue, rvalue, low)
