"""The compile cache: each expression node's closure, built once and kept on the node.

``compile_expr(node)`` is the closure ``fn(cur, env) -> value`` of ``node`` (``cur`` the
ad the expression is evaluated in, ``env`` a ``scope.Env``); ``folded(node)`` its value
when it is a constant (``VARIES`` otherwise). Entries are made by the compiler
(``compiler.build``, ``build_root`` for the whole expression of an attribute), which
``compiler.py`` installs here when it is imported (``install_builder``): the compiler
builds closures that look names up (``scope.py``), and a lookup compiles the attribute it
finds through this cache, so the cache is the one place both depend on and it depends
on neither. The package ``__init__`` imports the compiler, so the builder is installed
before any evaluation.

Where the entries live: in two slots every node has (``ast.Expr``), ``_fn`` (the
closure) and ``_folded`` (the folded value or ``VARIES``), set once, ``_fn`` first, so
a node whose ``_folded`` is set has its closure too. A node is immutable and its
closure a pure function of it, so the entry is a fact about the node: it lives and
dies with the node, whoever holds it (an ad read by one command, a residual program
of one cycle), and no table keyed by ``id`` outlives the objects it describes. The
slots are not fields: equality, hashing, printing and pickling ignore them.
"""

from __future__ import annotations

from collections.abc import Callable

from .ast import Expr

Compiled = Callable[["object", "object"], object]
"""A compiled node: ``fn(cur, env) -> value`` (``env`` a ``scope.Env``)."""

VARIES = object()
"""The folded value of a node whose value depends on the context (see ``folded``)."""

UNCOMPILED = object()
"""What ``getattr(node, "_folded", UNCOMPILED)`` gives for a node not compiled yet."""

_set = object.__setattr__  # the nodes are frozen dataclasses; the slots are not fields


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


def compile_node(node: Expr, root: bool = False) -> Compiled:
    """Compile ``node`` unless it is compiled, and give its closure. A *root* (the whole
    expression of an attribute, or of an ``evaluate`` call) is compiled by
    ``compiler.build_root``: closures first, one generated function once it has been
    evaluated a few times. Whichever way a node is compiled first stays."""
    try:
        return node._fn  # type: ignore[attr-defined]
    except AttributeError:
        pass
    fn, value = (_BUILDER.root if root else _BUILDER.node)(node)
    _set(node, "_fn", fn)
    _set(node, "_folded", value)
    return fn


def compile_expr(node: Expr) -> Compiled:
    """The closure ``fn(cur, env) -> value`` for ``node``, built once (``compiler.py``)
    and kept on the node."""
    try:
        return node._fn  # type: ignore[attr-defined]
    except AttributeError:
        return compile_node(node)


def replace_compiled(node: Expr, fn: Compiled) -> None:
    """Swap in a faster closure for ``node`` (same values)."""
    _set(node, "_fn", fn)


def folded(node: Expr) -> object:
    """The value of a constant node (literals and operators only, scalar result),
    computed once; ``VARIES`` for any other node."""
    try:
        return node._folded  # type: ignore[attr-defined]
    except AttributeError:
        compile_node(node)
        return node._folded  # type: ignore[attr-defined]
