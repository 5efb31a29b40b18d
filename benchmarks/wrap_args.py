"""Arguments by name for the counting scripts' wrappers of engine methods.

The counting scripts (``held_walk_counts.py``, ``held_lazy_count.py`` and the like)
wrap private methods of the engine to count what they do. Those methods gain and lose
parameters as the engine changes; a wrapper that spells the parameters out stops
working at the first new one (five scripts did at once when ``HeldWalks._walk``,
``_pairs_of`` and ``ListWalk.pick`` each gained one). A wrapper takes ``*args,
**kwargs`` instead, passes the call through whole, and reads the arguments it counts
by name from ``Named``, which binds them to the wrapped method's own signature.
A wrapper that another wrapper may wrap in turn is made with ``functools.wraps`` of
the method, so ``inspect.signature`` (which follows ``__wrapped__``) still gives the
method's parameters.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable


class Named:
    """``Named(method)(self, *args, **kwargs)``: the call's arguments by parameter
    name (defaults filled in), as ``method`` would receive them; the signature is
    read once, when the wrapper is installed."""

    __slots__ = ("_signature",)

    def __init__(self, method: Callable) -> None:
        self._signature = inspect.signature(method)

    def __call__(self, *args: object, **kwargs: object) -> dict[str, object]:
        bound = self._signature.bind(*args, **kwargs)
        bound.apply_defaults()
        return bound.arguments
