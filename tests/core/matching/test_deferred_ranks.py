"""A held pair's dependent ranks worked out at their first read (``deferred_ranks``,
``held_walks.DEFER_RANKS``): the dict reads as the one the run would have made, by
every way of reading it, and is worked out once; the held desktops' cycle
(``test_held_desktops``: claimed desktops under priority preemption, a pre-job rank
that reads the slot's Rank and the holder) decides the same with deferral on and off,
as the plain reference does; a deferred dict filled wrong decides otherwise."""

from __future__ import annotations

import pytest

from condorlite.core.matching import carving, held_walks, static_programs
from condorlite.core.matching.deferred_ranks import DeferredRanks
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import run_both
from tests.core.matching.test_held_desktops import BY_HOLDER, JOBS, POLICY, SLOTS
from tests.core.negotiation.test_equivalence import _fingerprint

RANKS = {"PreJobRank": 12.5, "PostJobRank": -3.0}


def _deferred(calls: list[int]) -> DeferredRanks:
    def fill(full, as_rank):  # type: ignore[no-untyped-def]
        calls.append(1)
        assert full == (1, 2) and as_rank is float
        return dict(RANKS)

    return DeferredRanks(fill, (1, 2), float, len(RANKS))


def test_length_and_truth_need_no_fill() -> None:
    calls: list[int] = []
    ranks = _deferred(calls)
    assert len(ranks) == 2 and ranks and not calls


@pytest.mark.parametrize("read", [
    lambda r: r["PreJobRank"], lambda r: "PreJobRank" in r, lambda r: r.get("PostJobRank"),
    lambda r: list(r.items()), lambda r: list(r.keys()), lambda r: list(r.values()),
    lambda r: list(r), lambda r: dict(r), lambda r: {**r}, lambda r: r == RANKS,
    lambda r: RANKS == r,  # noqa: SIM300 (the plain dict on the left: reflected)
    lambda r: r != RANKS, lambda r: r.copy(), lambda r: repr(r),
    lambda r: tuple(r.items()),
])
def test_every_read_sees_the_whole_dict_filled_once(read) -> None:  # type: ignore[no-untyped-def]
    calls: list[int] = []
    ranks = _deferred(calls)
    eager = dict(RANKS)
    assert read(ranks) == read(eager)
    assert ranks == eager and ranks["PostJobRank"] == -3.0 and dict(ranks) == eager
    assert calls == [1]
    with pytest.raises(KeyError):
        ranks["NoSuchRank"]
    assert ranks.get("NoSuchRank", 7) == 7 and "NoSuchRank" not in ranks and calls == [1]


def test_a_missing_key_read_first_fills_and_still_raises() -> None:
    calls: list[int] = []
    ranks = _deferred(calls)
    with pytest.raises(KeyError):
        ranks["NoSuchRank"]
    assert calls == [1] and ranks["PreJobRank"] == 12.5


def _made(patch: pytest.MonkeyPatch) -> list[DeferredRanks]:
    """The deferred dicts the held walks' program runs make."""
    found: list[DeferredRanks] = []

    class Counted(DeferredRanks):
        __slots__ = ()

        def __init__(self, *args) -> None:  # type: ignore[no-untyped-def]
            super().__init__(*args)
            found.append(self)

    patch.setattr(carving, "DeferredRanks", Counted)
    return found


@pytest.mark.parametrize("policy", [POLICY, BY_HOLDER])
def test_held_desktops_decide_the_same_deferred_or_not(monkeypatch, policy: Policy) -> None:
    monkeypatch.setattr(static_programs, "SHARED_LITERALS", 16)
    results, made = {}, {}
    for on in (True, False):
        with monkeypatch.context() as patch:
            patch.setattr(held_walks, "DEFER_RANKS", on)
            found = _made(patch)
            _, results[on] = run_both(SLOTS, JOBS, policy)
        made[on] = found
    assert _fingerprint(results[True]) == _fingerprint(results[False])
    assert made[True] and not made[False]
    # (read for the entries made)
    assert any(r._fill is None for r in made[True])


def test_a_deferred_dict_filled_wrong_decides_otherwise(monkeypatch) -> None:
    monkeypatch.setattr(static_programs, "SHARED_LITERALS", 16)
    plain = DeferredRanks.__init__

    def wrong(self, fill, full, as_rank, size):  # type: ignore[no-untyped-def]
        def negated(full, as_rank):  # type: ignore[no-untyped-def]
            return {key: -value for key, value in fill(full, as_rank).items()}

        plain(self, negated, full, as_rank, size)

    monkeypatch.setattr(DeferredRanks, "__init__", wrong)
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, BY_HOLDER)
