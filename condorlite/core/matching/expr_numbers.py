"""Expressions numbered by structural equality, so keys are tuples of small ints.

``Canon.number(expr)`` is equal for two expressions exactly when they are the same
ClassAd expression (``typed_key``), 0 for an absent binding; numbers count from 1 in
the order expressions are first seen by one ``Canon``. ``Canon.key(ad, names)`` is the
tuple of the numbers of an ad's bindings of ``names``, ``entry_key`` the same
remembered by the identities of the ad's table entries. One ``Canon`` serves one
grouping or one cycle's shape keys (``autocluster``, ``significant``); it holds every
object it numbered, so an ``id`` it keeps cannot be reused while it lives.
"""

from __future__ import annotations

from math import copysign

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Expr, Literal
from condorlite.core.entry_keys import entry_key


def typed_key(expr: Expr) -> tuple:
    """A key equal for two expressions exactly when they are the same ClassAd
    expression: the tree (whose equality is Python's, so ``1``, ``1.0`` and ``true``
    are one literal, as are ``0.0`` and ``-0.0``) with the type of each literal, in
    the order of a walk, and the sign of each real (``=?=``, ``isInteger`` and
    ``string`` tell those apart)."""
    types: list[object] = []
    stack: list[object] = [expr]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is Literal:
            value = node.value  # type: ignore[attr-defined]
            types.append(kind if type(value) is not float else copysign(1.0, value))
            types.append(type(value))
        elif kind is tuple:
            stack.extend(node)  # type: ignore[arg-type]
        elif isinstance(node, Expr):
            # a node's fields, in order (a dataclass's ``__match_args__``)
            stack.extend(getattr(node, name) for name in kind.__match_args__)  # type: ignore[attr-defined]
    return (expr, tuple(types))


class Canon:
    """Numbers expressions by structural equality, hashing each distinct object once.

    ``number(expr)`` is equal for two expressions exactly when they are the same
    ClassAd expression (``typed_key``; 0 for an absent binding). The readers intern
    expression texts, so a queue of 100,000 jobs holds a few hundred distinct
    objects: keying by object identity first makes a job's key a tuple of small ints
    instead of a hash of trees.
    The objects are held, so an id cannot be reused while the numbering lives.
    """

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[Expr, int]] = {}
        self._by_value: dict[Expr, int] = {}
        #: names tuple -> {entry ids -> (entries, key)}; ``_memos`` finds that dict
        #: by the identity of the names tuple (callers pass the same tuple again)
        self._by_names: dict[tuple[str, ...], dict[tuple, tuple[tuple, tuple]]] = {}
        self._memos: dict[int, tuple[tuple[str, ...], dict]] = {}

    def number(self, expr: Expr | None) -> int:
        if expr is None:
            return 0
        found = self._by_id.get(id(expr))
        if found is not None:
            return found[1]
        number = self._by_value.setdefault(typed_key(expr), len(self._by_value) + 1)
        self._by_id[id(expr)] = (expr, number)
        return number

    def key(self, ad: ClassAd, names: tuple[str, ...]) -> tuple[int, ...]:
        """The numbers of the ad's bindings of ``names`` (lower-cased), in order."""
        entries = adeval.table(ad)
        if entries is None:
            return tuple([self.number(adeval.attr(ad, name)) for name in names])
        # The per-job hot loop of ``build``: straight table reads, no lower-casing.
        by_id, number, get = self._by_id, self.number, entries.get
        out = []
        for name in names:
            entry = get(name)
            if entry is None:
                out.append(0)
                continue
            found = by_id.get(id(entry[1]))
            out.append(found[1] if found is not None else number(entry[1]))
        return tuple(out)

    def entry_key(self, ad: ClassAd, names: tuple[str, ...]) -> tuple[int, ...]:
        """``key``, remembered by the identities of the ad's table entries: the
        readers share one (spelling, expression) entry between every ad holding the
        same line, so most jobs' keys come from one C-level pass of lookups. The
        entries are held with the answer, so their ids stay theirs."""
        entries = adeval.table(ad)
        if entries is None:
            return self.key(ad, names)
        # ``names`` and the entries are held in the memos, so their ids stay theirs
        memo = self._memos.get(id(names))
        if memo is None:
            memo = self._memos[id(names)] = (names, self._by_names.setdefault(names, {}))
        ids = entry_key(entries, names)
        found = memo[1].get(ids)
        if found is None:
            found = memo[1][ids] = (tuple(map(entries.get, names)), self.key(ad, names))
        return found[1]
