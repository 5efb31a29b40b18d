"""The compile cache: each expression node's closure, built once and kept by node identity.

``compile_expr(node)`` is the closure ``fn(cur, env) -> value`` of ``node`` (``cur`` the
ad the expression is evaluated in, ``env`` a ``scope.Env``); ``folded(node)`` its value
when it is a constant (``VARIES`` otherwise). Entries are made by the compiler
(``compiler.build``, ``build_root`` for the whole expression of an attribute), which
``compiler.py`` installs here when it is imported (``install_builder``): the compiler
builds closures that look names up (``scope.py``), and a lookup compiles the attribute it
finds through this cache, so the cache is the one place both depend on and it depends
on neither. The package ``__init__`` imports the compiler, so the builder is installed
before any evaluation.

Invariant: an entry keeps its node alive, so an ``id`` found in ``_CACHE`` (or in
``_CONSTS``, the constant entries only, cleared with it) is a live node's. The cache is
cleared whole when it reaches ``_CACHE_LIMIT`` entries.
"""

from __future__ import annotations

from collections.abc import Callable

from .ast import Expr

Compiled = Callable[["object", "object"], object]
"""A compiled node: ``fn(cur, env) -> value`` (``env`` a ``scope.Env``)."""

VARIES = object()
"""The folded value of a node whose value depends on the context (see ``folded``)."""

# id(node) -> (node, closure, folded value or VARIES). The node is kept alive in the
# entry, so its id cannot be reused while the entry exists.
_CACHE: dict[int, tuple[Expr, Compiled, object]] = {}
_CACHE_LIMIT = 200_000

# id(node) -> folded value, for the constant nodes in _CACHE only (cleared with it), so
# an id found here is a live node's: the attribute reads check it with one dict access.
_CONSTS: dict[int, object] = {}
consts_get = _CONSTS.get


class _Builder:
    """The compiler's two entry points, installed by ``compiler.py`` (``install_builder``):
    ``node(expr)`` and ``root(expr)`` each give ``(closure, folded value or VARIES)``."""

    __slots__ = ("node", "root")

    def __init__(self) -> None:
        self.node: Callable[[Expr], tuple[Compiled, object]] = _no_builder
        self.root: Callable[[Expr], tuple[Compiled, object]] = _no_builder


def _no_builder(node: Expr) -> tuple[Compiled, object]:
    raise RuntimeError("condorlite.core.classad.compiler was not imported")


_BUILDER = _Builder()


def install_builder(build: Callable[[Expr], tuple[Compiled, object]],
                    build_root: Callable[[Expr], tuple[Compiled, object]]) -> None:
    """Make ``build``/``build_root`` (``compiler.py``) what the cache compiles with."""
    _BUILDER.node = build
    _BUILDER.root = build_root


def _entry(node: Expr, root: bool = False) -> tuple[Expr, Compiled, object]:
    """The cache entry of ``node``, made on first use. A *root* (the whole expression
    of an attribute, or of an ``evaluate`` call) is compiled by ``compiler.build_root``:
    closures first, one generated function once it has been evaluated a few times."""
    hit = _CACHE.get(id(node))
    if hit is not None and hit[0] is node:
        return hit
    fn, value = (_BUILDER.root if root else _BUILDER.node)(node)
    if len(_CACHE) >= _CACHE_LIMIT:
        _CACHE.clear()
        _CONSTS.clear()
    hit = (node, fn, value)
    _CACHE[id(node)] = hit
    if value is not VARIES:
        _CONSTS[id(node)] = value
    return hit


def compile_expr(node: Expr) -> Compiled:
    """The closure ``fn(cur, env) -> value`` for ``node``, built once (``compiler.py``)
    and cached by node identity."""
    hit = _CACHE.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    return _entry(node)[1]


def replace_compiled(node: Expr, fn: Compiled) -> None:
    """Swap in a faster closure for ``node`` (same values), if it is still cached."""
    hit = _CACHE.get(id(node))
    if hit is not None and hit[0] is node:
        _CACHE[id(node)] = (node, fn, hit[2])


def folded(node: Expr) -> object:
    """The value of a constant node (literals and operators only, scalar result),
    computed once; ``VARIES`` for any other node."""
    return _entry(node)[2]
