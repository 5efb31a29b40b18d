"""A held slot's job-independent policy ranks, each worked out when first read.

Which policy ranks read nothing of the job is known from a slot's walk; their values
are read only when an entry of the slot is made (``candidates.make_entry``), and a held
slot is listed only by preemption: by rank, when its ``Rank`` prefers the job to the
one running, or by priority, when ``PREEMPTION_REQUIREMENTS`` lets it. In a pool that
does neither, most held slots are never listed, and their ranks, which read literals
of their own (``TotalJobRunTime``, ``RemoteUserPrio``) and so are shared with no other
slot, are worked out for nothing. ``LazyRanks`` holds the keys from the start (tests
of which ranks are independent, ``key in ranks``, answer at once) and works a value
out on its first read, by subscript, which is how every reader reads one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

_PENDING = object()


class LazyRanks(dict):
    """The independent ranks of one slot: ``compute(key)`` gives a rank's value, asked
    once per key, on its first read. Equal to a plain dict of the same values."""

    __slots__ = ("_compute",)

    def __init__(self, keys: Iterable[str], compute: Callable[[str], float]) -> None:
        super().__init__(dict.fromkeys(keys, _PENDING))
        self._compute = compute

    def __getitem__(self, key: str) -> float:
        value = dict.__getitem__(self, key)
        if value is _PENDING:
            value = self._compute(key)
            dict.__setitem__(self, key, value)
        return value

    def get(self, key: str, default: object = None) -> object:  # type: ignore[override]
        return self[key] if key in self else default  # noqa: SIM401 (self.get is this)

    def resolved(self) -> dict[str, float]:
        """Every value worked out, as a plain dict."""
        return {key: self[key] for key in self}

    def values(self):  # type: ignore[override]
        return self.resolved().values()

    def items(self):  # type: ignore[override]
        return self.resolved().items()

    def __iter__(self):
        # (a dict subclass with an iterator of its own is copied by ``dict()`` and
        # ``{**ranks}`` through its keys and subscripts, so a copy gets the values)
        return iter(dict.keys(self))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazyRanks):
            other = other.resolved()
        return self.resolved() == other if isinstance(other, dict) else NotImplemented

    def __ne__(self, other: object) -> bool:
        equal = self.__eq__(other)
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return repr(self.resolved())

    def copy(self) -> dict[str, float]:  # type: ignore[override]
        return self.resolved()
