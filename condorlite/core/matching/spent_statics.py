"""Partitionable slot statics left too small for a request, passed over for good.

Carving only ever lowers a state's amounts (``offers.Fits.requested_in``'s invariant: it
binds ``left - amount`` with ``0 <= amount <= left``), and the states of a vector
static (``Matchmaker._groups``) come only from its own slots and their carvings. So
once no state of a static holds a request's literal amounts (for some resource the
amount asked is more than the state has left, the test of ``offers.requested`` and
of a program's fixed requests), no state of it ever will: a list of a class asking
those amounts needs neither the class's program for the static nor a walk of its
states (``RequestLists._by_shape``), and the class's cost floor no piece of it
(``PieceCosts.floor``).

Only literal integer or real requests count (``pair_programs.job_params``): a request that
reads the slot can ask less of a smaller state. A NaN amount is more than nothing,
as ``>`` answers, so it never rules a state out.
"""

from __future__ import annotations

from collections.abc import Collection


class SpentStatics:
    """The (static, literal requests) pairs no state can hold any more."""

    __slots__ = ("_held", "_spent")

    def __init__(self) -> None:
        self._spent: set[tuple] = set()
        #: (static, literal requests) -> the last state found to hold them: a state
        #: never changes, so while it has members the answer is no without a scan
        self._held: dict[tuple, int] = {}

    def holds_none(self, static: int, asked: tuple[tuple[int, float], ...],
                   states: Collection[int], left: dict[int, tuple[float, ...]]) -> bool:
        """Whether no state of ``static`` (``states``: its states with members; the last
        one found to hold ``asked`` is looked up there first) holds
        every (position, amount) of ``asked``: some amount is more than the state has
        left (``left[state]``, as ``slot_vectors.left`` reads the amounts). Remembered once
        true (see the module doc)."""
        key = (static, asked)
        if key in self._spent:
            return True
        held = self._held.get(key)
        if held is not None and held in states:
            return False
        for state in states:
            have = left[state]
            for pos, amount in asked:
                if amount > have[pos]:
                    break
            else:
                self._held[key] = state
                return False
        self._spent.add(key)
        return True

    def known(self, static: int, asked: tuple[tuple[int, float], ...]) -> bool:
        """Whether ``static`` is known to hold ``asked`` in no state."""
        return (static, asked) in self._spent

    def note(self, static: int, asked: tuple[tuple[int, float], ...]) -> None:
        """Record that no state of ``static`` holds ``asked`` (found by a caller that
        tested every state with members)."""
        self._spent.add((static, asked))
