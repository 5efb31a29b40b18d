"""Whole-expression compilation: one generated Python function per attribute expression.

``codelines.write`` gives the function's text (what each node becomes, the prologue
that checks the common situation, the rules); this module compiles that text, once
per distinct text, and binds each expression's values to it. Every rule is the one
``compiler.py`` and ``reference.py`` implement; the tests run all three on the same
corpus.

Generated source depends only on the tree's shape: names, constants and closures are
parameters of a factory, so identical shapes (every job's Requirements, say) share one
``exec``'d factory, kept in ``_FACTORIES``. No expression text ever reaches ``exec``.
"""

from __future__ import annotations

from collections.abc import Callable

from . import cache
from .ast import Expr
from .codelines import NAMESPACE, write

#: Generated source text -> its compiled factory. A pure memo keyed by immutable text
#: (the node's values are the factory's arguments, not part of the text), like ``re``'s
#: own cache of patterns, so it may outlive a cycle: what it holds is right for any
#: node that generates that text. It stays because it pays: on the realistic pools at
#: 1,000 x 10,000 (``benchmarks/RESULTS.md``, 2026-11-26) the static mix's 37 and the
#: partitionable mix's 98 generations compile only 13 texts each (expressions that
#: differ only in literals share one), and one compile costs 1.2-1.4 ms, so without it
#: their cycles (1.3 and 2.6 s) pay about 30 and 110 ms more. Bounded: cleared whole at
#: ``_FACTORY_LIMIT`` texts.
_FACTORIES: dict[str, Callable[..., cache.Compiled]] = {}
_FACTORY_LIMIT = 5_000


def generate(node: Expr, slow: cache.Compiled) -> cache.Compiled | None:
    """The generated function for ``node`` (``slow``: its closure, for the unusual
    situations), or None when code generation does not pay (a plain reference or
    constant, a tree too big)."""
    written = write(node)
    if written is None:
        return None
    source = written.text
    factory = _FACTORIES.get(source)
    if factory is None:
        namespace = dict(NAMESPACE)
        try:
            exec(compile(source, "<classad codegen>", "exec"), namespace)
        except (SyntaxError, RecursionError, MemoryError):
            return None
        factory = namespace["factory"]  # type: ignore[assignment]
        if len(_FACTORIES) >= _FACTORY_LIMIT:
            _FACTORIES.clear()
        _FACTORIES[source] = factory  # type: ignore[assignment]
    return factory(slow, *written.values)  # type: ignore[misc]
