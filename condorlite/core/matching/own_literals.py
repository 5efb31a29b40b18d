"""A slot's own literals that only a comparison with the job reads, made attributes
of their own so that programs can leave them free.

A desktop's ``Rank = TARGET.Owner == "alice"`` and its folded ``START`` (``false ||
TARGET.Owner == "alice"``, ``own_policy``) name its owner. The string is the only
thing that tells alice's desktops from bob's of the same machine type, but it sits
inside an expression, so the two bind ``Rank`` to different expressions and get
different vector statics (``vector_keys.VectorKeys.vector``), hence a residual
program per (class, owner) and a candidate-list visit per owner. A static desktop
likewise made a static part of its own (``static_programs``), evaluated in full for
every class; hoisted, the desktops of one machine type share a part, whose program
reads the owner from the vector (``StaticNumbers`` passes ``Offer.literals``).
A static desktop whose part is too small for programs is evaluated in full, and
there the hoisted reference costs more than the literal (the literal's comparison
is compiled with its operand lowered once): ``unhoist`` puts its ad back as it was
before the rewrite, which evaluates to the same everywhere.

``OwnLiterals.hoist`` rewrites such an operand once per offer, before its first
shape: in the slot's ``Rank``, ``Start`` and ``Requirements``, a string literal
compared (``==``, ``!=``, ``=?=``, ``=!=``, ``is``, ``isnt``) with a ``TARGET.``
reference becomes ``MY.<hidden name>``, and the offer's ad binds the hidden name to
that literal. Every desktop of one machine type then binds those three names to the
same expressions, and the hidden names join the resource vector as values that
carving never changes (``slot_vectors.vector_of``): the static part is one per machine
type, the programs read the literal as they read a resource, and the pair shape,
which keys the vector's values, still tells the owners apart.

Exactness: ``MY.h`` with ``h`` bound to a literal evaluates to that literal wherever
the rewritten expression is evaluated (MY is the ad the expression lives in), so
every evaluation in the offer's ad gives what it gave before. Nothing else can read
a hidden name: it begins with a NUL character, which neither a name nor a quoted
name can hold (``classad.lexer``), so no expression of a job or slot spells it. The
slot's original ad (``Offer.slot.ad``) is untouched. Equal rewritten expressions
(and equal hidden bindings) are one entry for the cycle, so ``first_states`` and the
shape keys' numbering share them.
"""

from __future__ import annotations

from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.classad.ast import AttrRef, Binary, Expr, Literal, Paren
from condorlite.core.matching.offers import Offer

#: The slot expressions rewritten (lower-case).
NAMES = ("rank", "start", "requirements")
#: The first character of every hidden name: no ClassAd text can spell it.
HIDDEN = "\x00"
#: The comparisons whose string operand is made free.
_COMPARISONS = frozenset({"==", "!=", "=?=", "=!=", "is", "isnt"})
#: Deeper expressions are left as they are.
_MAX_DEPTH = 200


class _Rewrite(NamedTuple):
    """One slot expression's rewrite: the expression, its rewritten form, its hidden
    bindings (hidden name -> the cycle's entry; empty: nothing to hoist) and the
    cycle's entry of the rewritten form per spelling of the name, so a slot whose
    expression was met before costs no hash of a tree."""

    expr: Expr
    out: Expr
    hidden: dict[str, tuple[str, Expr]]
    spelled: dict[str, tuple[str, Expr]]


class OwnLiterals:
    """Hoists each offer's own compared literals once (module doc)."""

    def __init__(self) -> None:
        #: (spelling, expression) -> the one entry that stands for it this cycle
        self._entries: dict[tuple[str, Expr], tuple[str, Expr]] = {}
        #: (name, id(expression)) -> its ``_Rewrite``: ads read from files share
        #: expression objects, so most slots find theirs here (the expression is
        #: held, so its id stays its own)
        self._rewrites: dict[tuple[str, int], _Rewrite] = {}
        #: id(a rewritten static offer) -> (the offer, what puts its ad back as it
        #: was before the rewrite: the entries the rewrite replaced, None for a
        #: hidden name it added; or, for an ad that is not ClassAd-lite, that ad)
        self._before: dict[int, tuple[Offer, dict | adeval.ClassAd]] = {}

    def hoist(self, offer: Offer, folded: dict[str, tuple[str, Expr]] | None = None
              ) -> tuple[str, ...]:
        """Rewrite the offer's ``Rank``, ``Start`` and ``Requirements`` (module doc)
        when one of them compares a string literal with the job; the hidden names
        bound, sorted (the ad is copied, never changed). ``folded``: rebindings
        (``OwnPolicy.changes``) the ad is to have first: they are read in its
        place and made in the same copy, so an offer whose ad both change is
        copied once; what ``unhoist`` puts back is the ad with them made."""
        ad = offer.ad
        pending = folded or {}
        table = adeval.table(ad)
        changes: dict[str, tuple[str, Expr]] = {}
        hidden: list[str] = []
        for name in NAMES:
            entry = pending.get(name)
            if entry is None:
                # (a ClassAd-lite ad's table entry, read directly: it holds the
                # spelling ``adeval.spelling`` gives)
                entry = table.get(name) if table is not None else _entry(ad, name)
                if entry is None:
                    continue
            expr = entry[1]
            if type(expr) is Literal:
                continue
            known = self._rewrites.get((name, id(expr)))
            if known is None or known.expr is not expr:
                known = self._rewrites[(name, id(expr))] = self._rewrite(name, expr)
            if not known.hidden:
                continue
            spelled = entry[0] or name
            new = known.spelled.get(spelled)
            if new is None:
                new = (spelled, known.out)
                new = known.spelled[spelled] = self._entries.setdefault(new, new)
            changes[name] = new
            changes.update(known.hidden)
            hidden.extend(known.hidden)
        if not changes:
            if pending:
                offer.ad = adeval.with_entries(ad, pending)
            return ()
        offer.ad = adeval.with_entries(ad, {**pending, **changes} if pending else changes)
        if not offer.partitionable:
            # (the replaced entries, not the whole ad: a copy of a desktop's 6 KB ad
            # for each rewritten one was 100 MB of a 100,000-slot pool)
            if table is None:
                before: dict | adeval.ClassAd = ad if not pending else \
                    adeval.with_entries(ad, pending)
            else:
                before = {name: pending[name] if name in pending else table.get(name)
                          for name in changes}
            self._before[id(offer)] = (offer, before)
        return tuple(sorted(hidden))

    def replaced(self, offer: Offer) -> dict | None:
        """What ``unhoist`` would put back in the offer's ad (the entries ``hoist``
        replaced, None for a name it added), or None when it would do nothing or
        the offer's ad is not ClassAd-lite (``own_rewrites`` shares it between
        offers whose rewrites are the same)."""
        found = self._before.get(id(offer))
        if found is None or found[0] is not offer or type(found[1]) is not dict:
            return None
        return found[1]

    def remember(self, offer: Offer, replaced: dict) -> None:
        """Record ``replaced`` (``replaced`` of an offer rewritten alike) as what
        ``unhoist`` puts back in the offer's ad."""
        self._before[id(offer)] = (offer, replaced)

    def _rewrite(self, name: str, expr: Expr) -> _Rewrite:
        """The rewrite of ``expr`` bound to ``name`` (module doc), its hidden
        bindings already the cycle's entries."""
        found: list[tuple[str, Literal]] = []
        out = _Hoister(HIDDEN + name, found).walk(expr, 0)
        entries = self._entries
        hidden = {bound[0]: entries.setdefault(bound, bound) for bound in found}
        return _Rewrite(expr, out, hidden, {})

    def unhoist(self, offer: Offer) -> None:
        """Put a rewritten static offer's ad back as it was before ``hoist`` (module
        doc: the same value for every evaluation; its shapes stay as they are). An
        offer not rewritten is left alone."""
        found = self._before.pop(id(offer), None)
        if found is not None and found[0] is offer:
            before = found[1]
            # A static offer's ad is the rewritten one until then (nothing carves it),
            # so restoring the replaced entries gives the ad before the rewrite: the
            # same entries in the same order (the hidden names were added last).
            offer.ad = adeval.with_restored(offer.ad, before) if type(before) is dict \
                else before  # type: ignore[assignment]


def _entry(ad: adeval.ClassAd, name: str) -> tuple[str, Expr] | None:
    """(spelling, expression) of ``name`` in an ad that is not ClassAd-lite."""
    expr = adeval.attr(ad, name)
    return None if expr is None else (adeval.spelling(ad, name) or name, expr)


class _Hoister:
    """One expression's rewrite: each hoisted literal gets ``prefix`` and its number
    in walk order as its hidden name, recorded in ``found``."""

    __slots__ = ("found", "prefix")

    def __init__(self, prefix: str, found: list[tuple[str, Literal]]) -> None:
        self.prefix, self.found = prefix, found

    def walk(self, node: Expr, depth: int) -> Expr:
        if depth > _MAX_DEPTH:
            return node
        kind = type(node)
        if kind is Paren:
            inner = self.walk(node.inner, depth + 1)  # type: ignore[attr-defined]
            return node if inner is node.inner else Paren(inner)  # type: ignore[attr-defined]
        if kind is not Binary:
            return node
        left, right = node.left, node.right  # type: ignore[attr-defined]
        if node.op in _COMPARISONS:  # type: ignore[attr-defined]
            if _is_string(left) and _is_target(right):
                return Binary(node.op, self._free(left), right)  # type: ignore[attr-defined, arg-type]
            if _is_string(right) and _is_target(left):
                return Binary(node.op, left, self._free(right))  # type: ignore[attr-defined, arg-type]
            return node
        new_left, new_right = self.walk(left, depth + 1), self.walk(right, depth + 1)
        if new_left is left and new_right is right:
            return node
        return Binary(node.op, new_left, new_right)  # type: ignore[attr-defined]

    def _free(self, literal: Literal) -> AttrRef:
        name = f"{self.prefix}{len(self.found)}"
        self.found.append((name, literal))
        return AttrRef(name, "my", "MY")


def _is_string(node: Expr) -> bool:
    return type(node) is Literal and type(node.value) is str  # type: ignore[attr-defined]


def _is_target(node: Expr) -> bool:
    return type(node) is AttrRef and node.scope == "target"  # type: ignore[attr-defined]
