"""A held pair's dependent ranks, worked out at their first read.

A held walk (``held_walks``) runs the class key's program of a shared static part at
each held group's numbers, and each run that matches evaluated the policy ranks that
read the pair (the default ``NEGOTIATOR_PRE_JOB_RANK``, its four arithmetic steps and
the slot's Rank: the largest cost of a held pair). Counted on the 10k static mix
(``benchmarks/held_rank_reads.py``): of 31,326 such results, 15,924 are never read: a
list keeps the group's entries only when the slot Rank beats its ``CurrentRank`` or
the policy allows it, and a rank-only list never settles the rest.

``DeferredRanks`` is the dependent dict of such a result, empty until something reads
it: then ``PairProgram.dependent_of`` fills it with exactly the dict the run would
have made (same program, same vector and params, the slot's Rank already appended
when given), once. Rules:

* every way of reading a dict fills it first: a subscript of a missing key
  (``__missing__``; once filled, a subscript is plain ``dict``'s, at no extra cost),
  ``in``, ``get``, ``items``/``keys``/``values``, iteration (so ``dict()`` and
  ``{**ranks}`` copy through it), equality, ``copy`` and ``repr``; ``len`` and truth
  are the number of dependent ranks, known without evaluating;
* nothing writes to it (pair results' dicts are only read);
* a filled dict is not the program's shared dict of those values
  (``PairProgram.dependents``) but equal to it.

(``lazy_ranks.LazyRanks`` is the same idea for a slot's job-independent ranks, a key
at a time; here one evaluation gives them all, and a filled dict reads as a plain one.)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any


class DeferredRanks(dict):
    """The dependent ranks of one matching run, filled at the first read (module doc):
    ``fill(full, as_rank)`` gives the dict; ``size`` is how many keys it has."""

    __slots__ = ("_as_rank", "_fill", "_full", "_size")

    def __init__(self, fill: Callable[[Sequence[object], Callable[[object], float]], dict],
                 full: Sequence[object], as_rank: Callable[[object], float], size: int
                 ) -> None:
        super().__init__()
        self._fill: Callable | None = fill
        self._full: Sequence[object] | None = full
        self._as_rank: Callable | None = as_rank
        self._size = size

    def _filled(self) -> None:
        fill = self._fill
        if fill is not None:
            self._fill = None
            dict.update(self, fill(self._full, self._as_rank))
            self._full = self._as_rank = None

    def __missing__(self, key: object) -> Any:
        if self._fill is None:
            raise KeyError(key)
        self._filled()
        return dict.__getitem__(self, key)

    def __len__(self) -> int:
        return self._size

    def __contains__(self, key: object) -> bool:
        self._filled()
        return dict.__contains__(self, key)

    def get(self, key: object, default: object = None) -> Any:  # type: ignore[override]
        self._filled()
        return dict.get(self, key, default)

    def items(self):  # type: ignore[override]
        self._filled()
        return dict.items(self)

    def keys(self):  # type: ignore[override]
        self._filled()
        return dict.keys(self)

    def values(self):  # type: ignore[override]
        self._filled()
        return dict.values(self)

    def __iter__(self):  # type: ignore[override]
        self._filled()
        return dict.__iter__(self)

    def __eq__(self, other: object) -> bool:
        self._filled()
        if isinstance(other, DeferredRanks):
            other._filled()
        return dict.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]

    def copy(self) -> dict:  # type: ignore[override]
        self._filled()
        return dict(dict.items(self))

    def __repr__(self) -> str:
        self._filled()
        return dict.__repr__(self)
