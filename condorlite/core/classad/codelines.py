"""The Python text of one expression's generated function (``codegen.py`` compiles it).

The closures of ``compiler.py`` cost one Python call per node. For the expression an
attribute holds (a Requirements, a Rank) this module writes the whole tree as one
function: attribute reads, comparisons, arithmetic, ``&& || ?: ?:`` (elvis) and
``ifThenElse`` become straight-line code on local variables; any other node (a
function call, a list, a record, a selection, a subscript, ``PARENT.x``, ``.x``) is a
call to its compiled closure. Every rule is the one ``compiler.py`` and
``reference.py`` implement; the tests run all three on the same corpus.

Attribute reads assume the common situation, checked once on entry (the prologue):
``cur`` is an ad (it has ``_attrs``); for ``MY.x``, it has no attribute named ``my``;
for ``TARGET.x``, it is a top-level ad of a match (MY or TARGET), with no attribute
named ``target``, and the other ad of the match is an ad. If any check fails, the
function hands the evaluation to the closure version (``slow``), which takes the
general lookups.

The text depends only on the tree's shape: names, constants and closures are
parameters of the factory (``Source.values``), so identical shapes (every job's
Requirements, say) give one text. No expression text ever reaches the generated
text; the names it uses besides its parameters are ``NAMESPACE``'s.
"""

from __future__ import annotations

from typing import NamedTuple

from . import cache
from . import operators as ops
from . import scope as sc
from .ast import AttrRef, Binary, Call, Conditional, Elvis, Expr, Literal, Paren, Unary
from .functions import REGISTRY
from .refs import and_chain
from .values import Error, Undefined, wrap_int64

MAX_NODES = 120
"""Larger expressions stay closures (generated functions grow with the tree)."""

_COMPARE = frozenset({"==", "!=", "<", "<=", ">", ">="})
_META = {"=?=": "meta_equal", "is": "meta_equal", "=!=": "meta_not_equal", "isnt": "meta_not_equal"}
_INT_ARITH = frozenset({"+", "-", "*"})
_OTHER_ARITH = frozenset({"/", "%"})


class _TooBig(Exception):
    """The tree has more than ``MAX_NODES`` nodes."""


class _Writer:
    """Accumulates lines, parameters (with their values) and the scopes used."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.params: list[str] = []
        self.values: list[object] = []
        self.temps = 0
        self.nodes = 0
        self.scopes: set[str] = set()

    def param(self, value: object) -> str:
        name = f"p{len(self.params)}"
        self.params.append(name)
        self.values.append(value)
        return name

    def temp(self) -> str:
        self.temps += 1
        return f"t{self.temps}"

    def emit(self, indent: int, *lines: str) -> None:
        """Append lines (an item may itself hold several lines) at ``indent``."""
        pad = "    " * indent
        self.lines.append(pad + "\n".join(lines).replace("\n", "\n" + pad))


def _read(w: _Writer, ind: int, var: str, attrs: str, holder: str, miss: list[str], p: str) -> None:
    """``var`` = attribute ``p`` read from ``attrs`` (held by ``holder``); ``miss``:
    the lines (setting ``var``) for a name ``attrs`` lacks."""
    w.emit(ind, f"x = {attrs}.get({p})", "if x is None:")
    w.emit(ind + 1, *miss)
    w.emit(ind, "else:")
    w.emit(ind + 1, _found(var, holder, p))


_FOUND = """x = x[1]
if type(x) is Literal:
    {var} = x.value
else:
    h = getattr(x, '_folded', UNCOMPILED)
    if h is UNCOMPILED or env.depth >= FAST_DEPTH:
        {var} = eval_found({holder}, {p}, x, env)
    elif h is not VARIES:
        {var} = h
    elif env.steps >= MAX_STEPS:
        {var} = eval_found({holder}, {p}, x, env)
    else:
        env.steps += 1
        env.depth += 1
        {var} = x._fn({holder}, env)
        env.depth -= 1"""


def _found(var: str, holder: str, p: str) -> str:
    """``var`` = the value of entry ``x`` held by ``holder``: a literal (always a
    scalar, undefined or error) or a folded constant at once; any other expression
    evaluated in ``holder`` as ``scope._eval_found`` does in an unguarded run
    (which it calls when the expression is not compiled yet, or at ``FAST_DEPTH``,
    where it gives up)."""
    return _FOUND.format(var=var, holder=holder, p=p)


def _gen(w: _Writer, node: Expr, ind: int) -> str:
    """Emit code computing ``node``; returns the expression (a temp or a parameter)
    holding its value."""
    w.nodes += 1
    if w.nodes > MAX_NODES:
        raise _TooBig
    while type(node) is Paren:
        node = node.inner
    value = cache.folded(node)
    if value is not cache.VARIES:
        return w.param(value)
    kind = type(node)
    if kind is AttrRef and node.scope in (None, "my", "target"):
        return _gen_ref(w, node, ind)
    if kind is Binary:
        if node.op == "&&":
            return _gen_and(w, node, ind)
        if node.op == "||":
            return _gen_or(w, node, ind)
        if (
            node.op in _COMPARE
            or node.op in _META
            or node.op in _INT_ARITH
            or node.op in _OTHER_ARITH
        ):
            return _gen_binary(w, node, ind)
    if kind is Conditional:
        return _gen_choice(w, node.cond, node.then, node.otherwise, ind)
    if kind is Call and node.name.lower() == "ifthenelse" and len(node.args) == 3:
        spec = REGISTRY.get("ifthenelse")
        if spec is not None and spec.lazy:
            return _gen_choice(w, *node.args, ind)
    if kind is Elvis:
        left = _gen(w, node.left, ind)
        out = w.temp()
        w.emit(ind, f"if {left} is Undefined:")
        right = _gen(w, node.right, ind + 1)
        w.emit(ind, f"    {out} = {right}", "else:", f"    {out} = {left}")
        return out
    fn = w.param(cache.compile_expr(node))
    out = w.temp()
    w.emit(ind, f"{out} = {fn}(cur, env)")
    return out


def _gen_ref(w: _Writer, node: AttrRef, ind: int) -> str:
    lname = node.name.lower()
    p = w.param(lname)
    out = w.temp()
    if node.scope is None:
        w.scopes.add("other")
        if lname in sc.SPECIAL_NAMES:
            miss = [f"{out} = unscoped_miss(cur, {p}, env)"]
        else:
            # Not in cur (a top-level ad of the match): the other ad's own attribute,
            # else undefined (an ordinary name is nothing special anywhere).
            miss = [
                "if oattrs is None:",
                f"    {out} = unscoped_miss(cur, {p}, env)",
                "else:",
                f"    x = oattrs.get({p})",
                "    if x is None:",
                f"        {out} = Undefined",
                "    else:",
                "        " + _found(out, "o", p).replace("\n", "\n        "),
            ]
        _read(w, ind, out, "attrs", "cur", miss, p)
    elif node.scope == "my":
        w.scopes.add("my")
        _read(w, ind, out, "attrs", "cur", [f"{out} = found_in(cur, {p}, env)"], p)
    else:
        w.scopes.update(("other", "target"))
        _read(w, ind, out, "oattrs", "o", [f"{out} = found_in(o, {p}, env)"], p)
    return out


def _gen_binary(w: _Writer, node: Binary, ind: int) -> str:
    """A comparison, ``=?=``-like test or arithmetic: both operands computed first (the
    operators are strict or compare whole values), then the operation, with a direct
    path for the operand types the right-hand constant (if any) makes likely."""
    op = node.op
    a = _gen(w, node.left, ind)
    right = cache.folded(node.right)
    b = _gen(w, node.right, ind)
    out = w.temp()
    if op in _META:
        _emit_meta(w, ind, op, a, b, right, out)
    elif op in _INT_ARITH or op in _OTHER_ARITH:
        _emit_arith(w, ind, op, a, b, out)
    else:
        _emit_compare(w, ind, op, a, b, right, out)
    return out


def _emit_meta(w: _Writer, ind: int, op: str, a: str, b: str, right: object, out: str) -> None:
    """``out = a =?= b`` (or ``=!=``, ``is``, ``isnt``); ``right``: b's folded value."""
    negate = "not " if _META[op] == "meta_not_equal" else ""
    if right is Undefined or right is Error:
        # x =?= undefined: same type means the same singleton.
        w.emit(ind, f"{out} = {a} is {negate}{b}")
    elif type(right) in (bool, int, float, str):
        # Different types are never identical; a scalar of the same type is by ==.
        kind = w.param(type(right))
        w.emit(ind, f"{out} = {negate}(type({a}) is {kind} and {a} == {b})")
    else:
        w.emit(ind, f"{out} = {_META[op]}({a}, {b})")


def _emit_arith(w: _Writer, ind: int, op: str, a: str, b: str, out: str) -> None:
    """``out = a op b`` for ``+ - * / %``: integers directly where Python's result is
    the ClassAd one, everything else through ``operators.arithmetic``."""
    if op == "/":
        # Non-negative by positive integers: C's truncation is Python's floor here.
        w.emit(
            ind,
            f"if type({a}) is int and type({b}) is int and {a} >= 0 and {b} > 0:",
            f"    {out} = {a} // {b}",
            "else:",
            f"    {out} = arithmetic('/', {a}, {b})",
        )
    elif op in _OTHER_ARITH:
        w.emit(ind, f"{out} = arithmetic('{op}', {a}, {b})")
    else:
        w.emit(
            ind,
            f"if type({a}) is int and type({b}) is int:",
            f"    {out} = {a} {op} {b}",
            f"    if not -0x8000000000000000 <= {out} <= 0x7FFFFFFFFFFFFFFF:",
            f"        {out} = wrap({out})",
            "else:",
            f"    {out} = arithmetic('{op}', {a}, {b})",
        )


def _emit_compare(w: _Writer, ind: int, op: str, a: str, b: str, right: object,
                  out: str) -> None:
    """``out = a op b`` for ``== != < <= > >=``; ``right``: b's folded value, whose
    type picks the direct path (anything else goes through ``operators.compare``)."""
    if type(right) is str:
        low = w.param(ops.ascii_lower(right))
        w.emit(
            ind,
            f"if type({a}) is str and {a}.isascii():",
            f"    {out} = {a}.lower() {op} {low}",
            "else:",
            f"    {out} = compare('{op}', {a}, {b})",
        )
    elif type(right) in (int, float):
        # Against an int (float) constant, an int (float) operand compares directly.
        kind = w.param(type(right))
        w.emit(
            ind,
            f"if type({a}) is {kind}:",
            f"    {out} = {a} {op} {b}",
            "else:",
            f"    {out} = compare('{op}', {a}, {b})",
        )
    else:
        w.emit(
            ind,
            f"k = type({a})",
            f"if k is type({b}) and (k is int or k is float):",
            f"    {out} = {a} {op} {b}",
            "else:",
            f"    {out} = compare('{op}', {a}, {b})",
        )


def _gen_and(w: _Writer, node: Binary, ind: int) -> str:
    """A left-leaning chain ``acc = acc && next``: ``next`` is evaluated unless ``acc``
    is false or a number equal to zero (then the chain is false)."""
    operands = and_chain(node)
    acc = w.temp()
    first = _gen(w, operands[0], ind)
    w.emit(ind, f"{acc} = {first}")
    for operand in operands[1:]:
        w.emit(ind, f"if {acc} is True or ({acc} is not False and bool_equiv({acc}) is not False):")
        b = _gen(w, operand, ind + 1)
        # true && b is b for a boolean, undefined or error b, all a logical operand gives.
        same = f"{acc} is True" if _logical(operand) else f"{acc} is True and type({b}) is bool"
        w.emit(
            ind,
            f"    if {same}:",
            f"        {acc} = {b}",
            "    else:",
            f"        {acc} = logical_and({acc}, {b})",
            f"elif {acc} is not False:",
            f"    {acc} = False",
        )
    return acc


def _logical(node: Expr) -> bool:
    """Whether ``node``'s value is always a boolean, undefined or error: a comparison,
    ``=?=``-like test, ``!``, or an ``&&``/``||`` (whose results are all of these)."""
    while type(node) is Paren:
        node = node.inner
    if type(node) is Binary:
        return node.op in _COMPARE or node.op in _META or node.op in ("&&", "||")
    return type(node) is Unary and node.op == "!"


def _gen_or(w: _Writer, node: Binary, ind: int) -> str:
    a = _gen(w, node.left, ind)
    out = w.temp()
    w.emit(ind, f"if {a} is True or bool_equiv({a}) is True:", f"    {out} = True", "else:")
    b = _gen(w, node.right, ind + 1)
    w.emit(
        ind,
        f"    if {a} is False and type({b}) is bool:",
        f"        {out} = {b}",
        "    else:",
        f"        {out} = logical_or({a}, {b})",
    )
    return out


def _gen_choice(w: _Writer, cond: Expr, then: Expr, otherwise: Expr, ind: int) -> str:
    """``cond ? then : otherwise`` (also ``ifThenElse``): a branch when ``cond`` stands
    for a boolean, undefined for undefined, error for anything else."""
    c = _gen(w, cond, ind)
    out = w.temp()
    w.emit(ind, f"ch = {c} if type({c}) is bool else bool_equiv({c})", "if ch is True:")
    a = _gen(w, then, ind + 1)
    w.emit(ind, f"    {out} = {a}", "elif ch is False:")
    b = _gen(w, otherwise, ind + 1)
    w.emit(
        ind, f"    {out} = {b}", "else:", f"    {out} = Undefined if {c} is Undefined else Error"
    )
    return out


_PROLOGUE_MY = ["if 'my' in attrs:", "    return slow(cur, env)"]
# o, oattrs: the other ad of the match and its attributes, when cur and it are the two
# top-level ads of the match (oattrs None otherwise: the general lookups apply).
_PROLOGUE_OTHER = [
    "oattrs = None",
    "if cur.parent is None:",
    "    if cur is env.my:",
    "        o = env.target",
    "    elif cur is env.target:",
    "        o = env.my",
    "    else:",
    "        o = None",
    "    if o is not None:",
    "        oattrs = getattr(o, '_attrs', None)",
    "        if oattrs is not None and o.parent is not None:",
    "            oattrs = None",
]
_PROLOGUE_TARGET = ["if oattrs is None or 'target' in attrs:", "    return slow(cur, env)"]

#: The names the generated text uses besides its parameters and locals: a factory is
#: ``exec``'d in a copy of this.
NAMESPACE: dict[str, object] = {
    "Env": sc.Env,
    "UNCOMPILED": cache.UNCOMPILED,
    "FAST_DEPTH": sc.FAST_DEPTH,
    "Literal": Literal,
    "VARIES": cache.VARIES,
    "MAXD": sc.MAX_DEPTH,
    "eval_found": sc._eval_found,
    "MAX_STEPS": sc.MAX_STEPS,
    "found_in": sc.found_in,
    "unscoped_miss": sc.unscoped_miss,
    "Undefined": Undefined,
    "Error": Error,
    "compare": ops.compare,
    "arithmetic": ops.arithmetic,
    "wrap": wrap_int64,
    "meta_equal": ops.meta_equal,
    "meta_not_equal": ops.meta_not_equal,
    "bool_equiv": ops.bool_equiv,
    "logical_and": ops.logical_and,
    "logical_or": ops.logical_or,
}


class Source(NamedTuple):
    """One expression's generated code: ``text`` defines ``factory(slow, p0, p1, ...)``
    returning ``generated(cur, env)``; ``values`` are ``p0, p1, ...`` in order."""

    text: str
    values: list[object]


def write(node: Expr) -> Source | None:
    """The generated code for ``node``, or None when code generation does not pay (a
    plain reference or constant, a tree too big)."""
    w = _Writer()
    try:
        result = _gen(w, node, 2)  # inside factory() and generated()
    except (_TooBig, RecursionError):
        return None
    if not w.lines:  # a constant: the closure is as good
        return None
    # Only unguarded (fast) evaluations, whose depth stays below MAX_DEPTH, run the
    # generated code, so a constant's value needs no depth check; contexts of another
    # kind (built-ins derive some) take the closures.
    prologue = [
        "if env.active is not None or type(env) is not Env:",
        "    return slow(cur, env)",
        "try:",
        "    attrs = cur._attrs",
        "except AttributeError:",
        "    return slow(cur, env)",
    ]
    if "my" in w.scopes:
        prologue += _PROLOGUE_MY
    if "other" in w.scopes:
        prologue += _PROLOGUE_OTHER
    if "target" in w.scopes:
        prologue += _PROLOGUE_TARGET
    params = ", ".join(["slow", *w.params])
    source = "\n".join(
        [f"def factory({params}):", "    def generated(cur, env):"]
        + ["        " + line for line in prologue]
        + w.lines
        + [f"        return {result}", "    return generated"]
    )
    return Source(source, w.values)
