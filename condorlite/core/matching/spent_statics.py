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

Answers are shared between requests, exactly: a state that holds some requests holds
any that ask no more at each position, so the last state found to hold any requests
of a static (its witness) is tried before a scan; and once no state holds some
amounts at some positions, none holds requests asking at least as much at the same
positions (``>=``, then the spent amount's ``>``: a NaN on either side shares
nothing), so those are spent without a scan.
"""

from __future__ import annotations

from collections.abc import Collection


class SpentStatics:
    """The (static, literal requests) pairs no state can hold any more."""

    __slots__ = ("_held", "_least", "_spent", "_witness")

    def __init__(self) -> None:
        self._spent: set[tuple] = set()
        #: (static, literal requests) -> the last state found to hold them: a state
        #: never changes, so while it has members the answer is no without a scan
        self._held: dict[tuple, int] = {}
        #: static -> the last state found to hold some requests: tried before a scan,
        #: as requests of other classes are often held by the same large state
        self._witness: dict[int, int] = {}
        #: (static, the positions asked) -> amounts found spent there: requests asking
        #: at least those amounts at those positions are spent too (module doc)
        self._least: dict[tuple, list[tuple[float, ...]]] = {}

    def holds_none(self, static: int, asked: tuple[tuple[int, float], ...],
                   states: Collection[int], left: dict[int, tuple[float, ...]]) -> bool:
        """Whether no state of ``static`` (``states``: its states with members; the last
        one found to hold ``asked`` is looked up there first, then the last found to
        hold any requests) holds every (position, amount) of ``asked``: some amount
        is more than the state has left (``left[state]``, as ``slot_vectors.left``
        reads the amounts). Remembered once true, and then true without a scan for
        requests at the same positions asking as much or more (see the module doc)."""
        key = (static, asked)
        if key in self._spent:
            return True
        held = self._held.get(key)
        if held is not None and held in states:
            return False
        held = self._witness.get(static)
        if held is not None and held in states and _holds(left[held], asked):
            self._held[key] = held
            return False
        least = self._least.get((static, tuple(pos for pos, _ in asked)))
        if least is not None and _dominated(asked, least):
            self._spent.add(key)
            return True
        for state in states:
            have = left[state]
            for pos, amount in asked:
                if amount > have[pos]:
                    break
            else:
                self._held[key] = self._witness[static] = state
                return False
        self.note(static, asked)
        return True

    def known(self, static: int, asked: tuple[tuple[int, float], ...]) -> bool:
        """Whether ``static`` is known to hold ``asked`` in no state."""
        return (static, asked) in self._spent

    def note(self, static: int, asked: tuple[tuple[int, float], ...]) -> None:
        """Record that no state of ``static`` holds ``asked`` (found by a caller that
        tested every state with members)."""
        self._spent.add((static, asked))
        positions = tuple(pos for pos, _ in asked)
        self._least.setdefault((static, positions), []).append(
            tuple(amount for _, amount in asked))


def _holds(have: tuple[float, ...], asked: tuple[tuple[int, float], ...]) -> bool:
    """Whether a state with ``have`` left holds every (position, amount) of ``asked``
    (``>`` as ``holds_none`` tests it: a NaN amount rules nothing out)."""
    return not any(amount > have[pos] for pos, amount in asked)


def _dominated(asked: tuple[tuple[int, float], ...], least: list[tuple[float, ...]]) -> bool:
    """Whether ``asked`` asks at least one of ``least``'s spent amounts at each of
    its positions (``>=``: a NaN on either side is never at least, so never spent
    this way)."""
    for amounts in least:
        for (_, amount), spent in zip(asked, amounts, strict=True):
            if not amount >= spent:
                break
        else:
            return True
    return False
