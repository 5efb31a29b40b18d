"""What an ad's own literal attributes decide in one of its expressions, folded in.

``fold_own(expr, ad, keep)`` gives an expression whose value, evaluated in ``ad`` (a
top-level ad: ``MY`` is ``ad``), equals the value of ``expr`` there for every TARGET
and every ``now``. It is ``expr`` with

1. every reference to an attribute that ``ad`` binds to a literal (``x`` or ``MY.x``:
   each is looked up in ``ad`` first, and ``ad`` has it) replaced by
   that literal, except the names in ``keep`` (lower-case: those the caller will
   rebind later, such as a partitionable slot's resources);
2. then, bottom-up, every operator node whose operands are all literals replaced by
   its value (``cache.folded``, the evaluator's own constant folding), a
   parenthesised literal by the literal;
3. and ``a && b`` or ``a || b`` with one literal operand replaced by a literal when
   the operator gives that one value whatever the other operand is. That is probed,
   not assumed: the operator is evaluated with the other operand set to one value of
   every kind (true, false, undefined, error, integers, reals, strings, a list), and
   ``&&`` and ``||`` look at nothing of an operand but its kind and truth. So
   ``true || x`` and ``false && x`` fold, ``false || x`` and ``x && false`` do not
   (``false || "a"`` is error, ``error && false`` is error).

Nothing else changes: calls (``time()``, ``eval()``), conditionals, selects and
subscripts keep their shape with their operands folded; a record literal is left whole
(inside one, a name resolves to the record first). An untouched subtree is returned
as the same node, so an expression with nothing to fold is ``expr`` itself.

Why: a startd's ``START`` reads the machine's own per-slot numbers (``KeyboardIdle >
15 * 60 || TARGET.Owner == "alice"``). Folded per slot, it is ``true`` on every idle
desktop and ``false || TARGET.Owner == "alice"`` on alice's busy ones, so slots that
differ only in such numbers stop differing in what matching reads.

Steps 2 and 3 depend only on the operator and its literal operands' types and values,
so a caller folding many ads (one per slot of a pool) hands in a ``FoldMemo`` that
keeps their outcomes for its own lifetime (a cycle): without it each slot's
``KeyboardIdle > 15 * 60 || ...`` compiles and evaluates the same probes again.

A name the fold reads only to compare it with integer constants (``KeyboardIdle`` in
``KeyboardIdle > 15 * 60``: ``decisions``) matters to the fold, when the ad binds it to
an integer literal, only by what those comparisons give (``outcomes``): each folds to
the literal of Python's comparison and the integer appears nowhere else in the output.
So a caller folding many ads may key its folds on those outcomes instead of the
integers (``own_policy``: one fold per owner and outcome, not per desktop).

Invariant: ``evaluate(fold_own(e, ad, keep), ad, target, now=n) ==
evaluate(e, ad, target, now=n)`` for every ``target`` and ``n``, while the attributes
of ``ad`` that were folded keep their values (``tests/classad/test_folding.py``). An
expression nested deeper than ``MAX_DEPTH`` is returned as it is.
"""

from __future__ import annotations

import operator
from typing import NamedTuple

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
    Select,
    Subscript,
    Unary,
)
from condorlite.core.classad.cache import VARIES, folded
from condorlite.core.classad.evaluator import evaluate
from condorlite.core.classad.values import Error, Undefined

#: Deeper expressions are left as they are (hostile ads nest thousands deep).
MAX_DEPTH = 200

#: One operand of each kind ``&&`` and ``||`` tell apart (module doc, step 3).
_PROBES = (
    Literal(True), Literal(False), Literal(Undefined), Literal(Error), Literal(0),
    Literal(1), Literal(0.0), Literal(2.5), Literal(""), Literal("x"), ListExpr(()),
)
_SCALARS = (bool, int, float, str)
#: The comparisons ``_constant`` makes of two integers without compiling them.
_COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
            "==": operator.eq, "!=": operator.ne}
#: ... of integers within ClassAd's 64 bits
_BOUND = 2 ** 63
#: "not in the memo" (a memo's value may be None)
_UNSEEN = object()


class _TooDeep(Exception):
    pass


class _ReadsAd(Exception):
    """An operand that ``decisions`` takes for a constant looked a name up."""


class _NoAd:
    """The ad ``decisions`` folds a comparison's other operand in: any lookup fails,
    so an operand that folds to a literal is one whatever the ad."""

    def lookup(self, name: str) -> None:
        raise _ReadsAd(name)


class Decision(NamedTuple):
    """One comparison the fold makes of a name's integer with a constant
    (``decisions``): ``op`` (a ``_COMPARE`` key) of (the name's value, ``constant``)
    when ``name_left``, else of (``constant``, the value)."""

    op: str
    constant: int
    name_left: bool


class FoldMemo:
    """What steps 2 and 3 decided, by operator and literal operands (module doc): the
    outcome of a fold is a function of (operator, which side is literal, the literals'
    types and values) alone. Keys hold a float by its ``repr`` (``-0.0`` and ``0.0``
    are equal Python values that ``1 / x`` tells apart; every NaN is one key). Lives
    as long as its owner (``OwnPolicy``: one cycle)."""

    __slots__ = ("constant", "decided")

    def __init__(self) -> None:
        #: (operator, left key, right key) -> the literal a Binary of two literals
        #: folds to, or None when it stays as it is
        self.constant: dict[tuple, Literal | None] = {}
        #: (operator, literal on the left, the literal's key) -> the literal an
        #: ``&&``/``||`` with that literal operand is whatever the other, or None
        self.decided: dict[tuple, Literal | None] = {}


def _key(value: object) -> tuple:
    """A literal's value as a memo key: by type, a float by its text (``FoldMemo``)."""
    return (type(value), repr(value) if type(value) is float else value)


def fold_own(expr: Expr, ad: object, keep: frozenset[str] = frozenset(),
             memo: FoldMemo | None = None) -> Expr:
    """``expr`` with what ``ad``'s own literal attributes decide folded in (module doc);
    ``memo``: outcomes of steps 2 and 3 shared between calls (a fresh one if None)."""
    if getattr(ad, "parent", None) is not None:
        return expr  # a nested ad: its names resolve through its parents too
    try:
        return _Folder(ad, keep, FoldMemo() if memo is None else memo).fold(expr, 0)
    except _TooDeep:
        return expr


class _Folder:
    __slots__ = ("ad", "keep", "memo")

    def __init__(self, ad: object, keep: frozenset[str], memo: FoldMemo) -> None:
        self.ad, self.keep, self.memo = ad, keep, memo

    def fold(self, node: Expr, depth: int) -> Expr:
        if depth > MAX_DEPTH:
            raise _TooDeep
        kind = type(node)
        if kind is AttrRef:
            return self._ref(node)  # type: ignore[arg-type]
        if kind is Binary:
            return self._binary(node, depth)  # type: ignore[arg-type]
        if kind is Unary:
            operand = self.fold(node.operand, depth + 1)  # type: ignore[attr-defined]
            out = node if operand is node.operand else Unary(node.op, operand)  # type: ignore[attr-defined]
            return _constant(out) if type(operand) is Literal else out
        if kind is Paren:
            inner = self.fold(node.inner, depth + 1)  # type: ignore[attr-defined]
            if type(inner) is Literal:
                return inner
            return node if inner is node.inner else Paren(inner)  # type: ignore[attr-defined]
        if kind is Conditional:
            parts = [self.fold(p, depth + 1)
                     for p in (node.cond, node.then, node.otherwise)]  # type: ignore[attr-defined]
            return node if _same(parts, (node.cond, node.then, node.otherwise)) else (  # type: ignore[attr-defined]
                Conditional(*parts))
        if kind is Elvis:
            parts = [self.fold(p, depth + 1) for p in (node.left, node.right)]  # type: ignore[attr-defined]
            return node if _same(parts, (node.left, node.right)) else Elvis(*parts)  # type: ignore[attr-defined]
        if kind is Call:
            args = [self.fold(a, depth + 1) for a in node.args]  # type: ignore[attr-defined]
            return node if _same(args, node.args) else Call(node.name, tuple(args))  # type: ignore[attr-defined]
        if kind is Select:
            base = self.fold(node.base, depth + 1)  # type: ignore[attr-defined]
            return node if base is node.base else Select(base, node.name)  # type: ignore[attr-defined]
        if kind is Subscript:
            parts = [self.fold(p, depth + 1) for p in (node.base, node.index)]  # type: ignore[attr-defined]
            return node if _same(parts, (node.base, node.index)) else Subscript(*parts)  # type: ignore[attr-defined]
        if kind is ListExpr:
            items = [self.fold(i, depth + 1) for i in node.items]  # type: ignore[attr-defined]
            return node if _same(items, node.items) else ListExpr(tuple(items))  # type: ignore[attr-defined]
        return node  # a literal, a record literal (module doc), anything else

    def _ref(self, node: AttrRef) -> Expr:
        if node.scope not in (None, "my"):
            return node
        name = node.name.lower()
        if name in self.keep:
            return node
        bound = self.ad.lookup(name)  # type: ignore[attr-defined]
        return bound if type(bound) is Literal else node

    def _binary(self, node: Binary, depth: int) -> Expr:
        left = self.fold(node.left, depth + 1)
        right = self.fold(node.right, depth + 1)
        out = node if left is node.left and right is node.right else Binary(node.op, left, right)
        lit_left, lit_right = type(left) is Literal, type(right) is Literal
        if lit_left and lit_right:
            key = (node.op, _key(left.value), _key(right.value))  # type: ignore[attr-defined]
            found = self.memo.constant.get(key, _UNSEEN)
            if found is _UNSEEN:
                folded_out = _constant(out)
                found = self.memo.constant[key] = (
                    folded_out if type(folded_out) is Literal else None)
            return out if found is None else found
        if node.op in ("&&", "||") and (lit_left or lit_right):
            known = left if lit_left else right
            key = (node.op, lit_left, _key(known.value))  # type: ignore[attr-defined]
            found = self.memo.decided.get(key, _UNSEEN)
            if found is _UNSEEN:
                decided = _decided(out, lit_left)
                found = self.memo.decided[key] = (
                    decided if type(decided) is Literal else None)
            return out if found is None else found
        return out


def decisions(expr: Expr, keep: frozenset[str] = frozenset(),
              memo: FoldMemo | None = None) -> dict[str, tuple[Decision, ...]]:
    """The lower-case names ``fold_own(expr, ad, keep)`` reads only as an operand of
    comparisons (``<`` ... ``!=``) whose other operand folds, reading no name, to an
    integer literal within 64 bits: each name with those comparisons, in the order of
    the walk. For an ad binding such a name to an integer literal within 64 bits, the
    fold is a function of ``outcomes`` of it (module doc); a name referenced anywhere
    else (alone, under another operator, in parentheses) is left out. The walk is the
    fold's own (``_Folder.fold``'s kinds of node; it does not look into what the fold
    leaves whole). {} for an expression deeper than ``MAX_DEPTH``."""
    found: dict[str, list[Decision]] = {}
    elsewhere: set[str] = set()
    folder = _Folder(_NoAd(), keep, FoldMemo() if memo is None else memo)
    try:
        _collect(expr, folder, found, elsewhere, 0)
    except _TooDeep:
        return {}
    return {name: tuple(tests) for name, tests in found.items() if name not in elsewhere}


def outcomes(tests: tuple[Decision, ...], value: object) -> tuple[bool, ...] | None:
    """What ``tests`` (``decisions`` of one name) give for the name bound to a literal
    of ``value``; None unless ``value`` is an integer (not a bool) within 64 bits, the
    values whose comparisons ``_constant`` folds as Python's."""
    if type(value) is not int or not -_BOUND < value < _BOUND:
        return None
    return tuple(_COMPARE[test.op](value, test.constant) if test.name_left
                 else _COMPARE[test.op](test.constant, value) for test in tests)


class Regions(NamedTuple):
    """``outcomes`` of one name's ``decisions`` by the region of the integers its value
    lies in (``regions``): ``cuts`` are the tests' constants, sorted and distinct; for
    an integer ``v`` (not a bool) with ``-bound < v < bound``,
    ``outcomes[bisect_left(cuts, v) + bisect_right(cuts, v)]`` is ``outcomes(tests,
    v)`` (region ``2 i`` lies between ``cuts[i - 1]`` and ``cuts[i]``, ``2 i + 1`` is
    ``cuts[i]`` itself; None for a region holding no such integer)."""

    cuts: tuple[int, ...]
    outcomes: tuple[tuple[bool, ...] | None, ...]
    bound: int


def regions(tests: tuple[Decision, ...]) -> Regions:
    """The ``Regions`` of ``tests`` (``decisions`` of one name): each test compares the
    value with one of ``cuts``, so its outcome is that of the sign of ``v - cut``, the
    same for every value of a region; each region's outcomes are worked out once,
    at one integer in it."""
    cuts = tuple(sorted({test.constant for test in tests}))
    found: list[tuple[bool, ...] | None] = []
    below = None
    for cut in cuts:
        # (between two adjacent integers there is no region)
        found.append(outcomes(tests, cut - 1) if below is None or cut - 1 > below else None)
        found.append(outcomes(tests, cut))
        below = cut
    found.append(outcomes(tests, 0 if below is None else below + 1))
    return Regions(cuts, tuple(found), _BOUND)


def _collect(node: Expr, folder: _Folder, found: dict[str, list[Decision]],
             elsewhere: set[str], depth: int) -> None:
    """``decisions``' walk: the kinds of node ``_Folder.fold`` descends into."""
    if depth > MAX_DEPTH:
        raise _TooDeep
    kind = type(node)
    depth += 1
    if kind is AttrRef:
        if node.scope in (None, "my") and node.name.lower() not in folder.keep:  # type: ignore[attr-defined]
            elsewhere.add(node.name.lower())  # type: ignore[attr-defined]
        return
    if kind is Binary:
        if node.op in _COMPARE and (  # type: ignore[attr-defined]
                _compared(node.left, node.right, True, node.op, folder, found, depth)  # type: ignore[attr-defined]
                or _compared(node.right, node.left, False, node.op, folder, found, depth)):  # type: ignore[attr-defined]
            return
        parts: tuple = (node.left, node.right)  # type: ignore[attr-defined]
    elif kind is Unary:
        parts = (node.operand,)  # type: ignore[attr-defined]
    elif kind is Paren:
        parts = (node.inner,)  # type: ignore[attr-defined]
    elif kind is Conditional:
        parts = (node.cond, node.then, node.otherwise)  # type: ignore[attr-defined]
    elif kind is Elvis:
        parts = (node.left, node.right)  # type: ignore[attr-defined]
    elif kind is Call:
        parts = node.args  # type: ignore[attr-defined]
    elif kind is Select:
        parts = (node.base,)  # type: ignore[attr-defined]
    elif kind is Subscript:
        parts = (node.base, node.index)  # type: ignore[attr-defined]
    elif kind is ListExpr:
        parts = node.items  # type: ignore[attr-defined]
    else:
        return  # what the fold leaves whole reads nothing of the ad
    for part in parts:
        _collect(part, folder, found, elsewhere, depth)


def _compared(ref: Expr, other: Expr, name_left: bool, op: str, folder: _Folder,
              found: dict[str, list[Decision]], depth: int) -> bool:
    """Whether ``ref`` is a name the fold looks up and ``other`` folds, reading no
    name, to an integer literal within 64 bits; if so, the comparison is recorded."""
    if type(ref) is not AttrRef or ref.scope not in (None, "my"):  # type: ignore[attr-defined]
        return False
    name = ref.name.lower()  # type: ignore[attr-defined]
    if name in folder.keep:
        return False
    try:
        constant = folder.fold(other, depth)
    except _ReadsAd:
        return False
    value = constant.value if type(constant) is Literal else None  # type: ignore[attr-defined]
    if type(value) is not int or not -_BOUND < value < _BOUND:
        return False
    found.setdefault(name, []).append(Decision(op, value, name_left))
    return True


def _same(new: list[Expr], old: tuple[Expr, ...]) -> bool:
    return all(a is b for a, b in zip(new, old, strict=True))


def _constant(node: Expr) -> Expr:
    """``node`` (an operator on literals) as the literal of its value, when that value
    is one a literal holds; else ``node``. A comparison of two integers is Python's
    (the evaluator's value for them), not compiled: each desktop's ``KeyboardIdle >
    900`` is a memo key of its own."""
    if type(node) is Binary and node.op in _COMPARE:  # type: ignore[attr-defined]
        left, right = node.left, node.right  # type: ignore[attr-defined]
        if (type(left) is Literal and type(right) is Literal and type(left.value) is int
                and type(right.value) is int and -_BOUND < left.value < _BOUND
                and -_BOUND < right.value < _BOUND):
            return Literal(_COMPARE[node.op](left.value, right.value))  # type: ignore[attr-defined]
    value = folded(node)
    return node if value is VARIES or not _holdable(value) else Literal(value)


def _holdable(value: object) -> bool:
    """Whether a literal holds ``value`` (a scalar, undefined or error; no list)."""
    return type(value) in _SCALARS or value is Undefined or value is Error


def _decided(node: Binary, known_left: bool) -> Expr:
    """``node`` (``&&`` or ``||`` with one literal operand) as a literal when its value
    is the same whatever the other operand is (module doc, step 3); else ``node``."""
    values = set()
    for probe in _PROBES:
        trial = (Binary(node.op, node.left, probe) if known_left
                 else Binary(node.op, probe, node.right))
        value = evaluate(trial)  # (no ad is read: both operands are literals)
        values.add((type(value), value))
        if len(values) > 1:
            return node
    (_, value), = values
    return Literal(value) if _holdable(value) else node
