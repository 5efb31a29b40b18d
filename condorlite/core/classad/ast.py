"""The ClassAd expression tree: frozen dataclasses, one per syntactic form.

The tree keeps what HTCondor's unparser needs to print an expression back as it was
written: parentheses are a node (``Paren``), attribute references keep their spelling
and their scope prefix, and literals keep their kind. Evaluation never changes a node's
fields (it only compiles it once, ``cache.py``), so a parsed expression can be shared
between ads and cached.

Operators are stored as their canonical text (``"+"``, ``"=?="``, ``"is"`` ...); the
parser maps ``is``/``isnt`` spellings case-insensitively to ``"is"``/``"isnt"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import copysign


class Expr:
    """Base of every node. Nodes are immutable and hashable.

    Facts worked out from a node are kept on it (``Cached``), each set once and absent
    until then: ``_fn`` and ``_folded``, its compiled closure and folded value (the
    compile cache, ``cache.py``), and ``_names``, the names it refers to
    (``refs.names``). They are not fields, so equality, hashing, printing and pickling
    ignore them, and they live and die with the node. A ``Literal`` keeps none: its
    folded value is its value and it names nothing (see there)."""

    __slots__ = ()


class Cached(Expr):
    """Base of every node but ``Literal``: the slots of the facts ``Expr`` describes."""

    __slots__ = ("_fn", "_folded", "_names")


@dataclass(frozen=True, slots=True)
class Literal(Expr):
    """A literal: bool, int, float, str, or the Undefined/Error singletons.

    Two literals are equal only when they are interchangeable in the language: values
    of one Python type that are equal, and for reals the same sign of zero. Python's
    own ``1 == 1.0 == True`` and ``0.0 == -0.0`` would merge what ClassAds tell apart
    (``isInteger``, ``isReal``, ``=?=``, ``string()``, ``1 / -0.0``), and equal trees
    are taken as one (jobs with equal attributes share a match class). The hash is the
    value's: equal literals have equal hashes.

    A literal keeps no facts of its own (``Expr``): its folded value is its value
    (``_folded`` reads the ``value`` slot) and it names nothing (``_names``), and its
    closure is made when asked for (``_fn``). Ads hold millions
    of literals no other ad shares (a job's Args, a slot's KFlops): 48 bytes each
    instead of 64."""

    value: object

    def __eq__(self, other: object) -> bool:
        if type(other) is not Literal:
            return NotImplemented
        a, b = self.value, other.value
        if type(a) is not type(b):
            return False
        if type(a) is float and a == 0.0:
            return b == 0.0 and copysign(1.0, a) == copysign(1.0, b)  # type: ignore[arg-type]
        return a == b


def _literal_fn(literal: Literal) -> object:
    """A literal's closure (``cache.compile_expr``), made when asked for."""
    value = literal.value
    return lambda cur, env: value


# (set on the class ``dataclass`` made: ``slots=True`` makes a new one)
Literal._folded = Literal.value  # type: ignore[attr-defined]
Literal._names = frozenset()  # type: ignore[attr-defined]
Literal._fn = property(_literal_fn)  # type: ignore[attr-defined]


@dataclass(frozen=True, slots=True)
class AttrRef(Cached):
    """A bare attribute name, optionally with a scope prefix.

    ``scope`` is None for ``Name``, or one of ``"my"``, ``"target"``, ``"parent"`` for
    ``MY.Name`` / ``TARGET.Name`` / ``PARENT.Name`` (stored lower-case; ``prefix`` keeps
    the spelling for printing), or ``"absolute"`` for the leading-dot form ``.Name``.
    ``name`` keeps its spelling; lookups compare it case-insensitively.
    """

    name: str
    scope: str | None = None
    prefix: str | None = None


@dataclass(frozen=True, slots=True)
class Select(Cached):
    """``base.name`` where base is an arbitrary expression (e.g. a nested ad)."""

    base: Expr
    name: str


@dataclass(frozen=True, slots=True)
class Subscript(Cached):
    """``base[index]``: list element by integer, or record attribute by string."""

    base: Expr
    index: Expr


@dataclass(frozen=True, slots=True)
class Unary(Cached):
    """``op operand`` with op one of ``- + ! ~``."""

    op: str
    operand: Expr


@dataclass(frozen=True, slots=True)
class Binary(Cached):
    """``left op right`` for every binary operator, including ``&&`` and ``||``."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Conditional(Cached):
    """``cond ? then : otherwise``."""

    cond: Expr
    then: Expr
    otherwise: Expr


@dataclass(frozen=True, slots=True)
class Elvis(Cached):
    """``left ?: right``: left unless it is undefined (or error), then right."""

    left: Expr
    right: Expr


@dataclass(frozen=True, slots=True)
class Paren(Cached):
    """``( inner )``, kept so the expression prints back as written."""

    inner: Expr


@dataclass(frozen=True, slots=True)
class Call(Cached):
    """``name(args...)``; ``name`` keeps its spelling, lookup is case-insensitive."""

    name: str
    args: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class ListExpr(Cached):
    """``{ a, b, ... }``."""

    items: tuple[Expr, ...]


@dataclass(frozen=True, slots=True)
class RecordExpr(Cached):
    """``[ a = 1; b = 2 ]``: a nested ad literal, attributes in written order."""

    attrs: tuple[tuple[str, Expr], ...]
