"""``MatchTable.pair`` with ``job_holds``: a held group of a part too small for programs, whose
class's ``Requirements`` its type's verdict already decided (passed at the group's
numbers, or every bound surely holding there), is evaluated in full on the slot's
side and the ranks alone. Checked against the plain reference cycle, counted, and
shown to matter: asked where the verdict did not pass, it decides otherwise."""

from __future__ import annotations

import pytest

from condorlite.core.matching import held_walks
from condorlite.core.matching.held_verdicts import HeldVerdicts
from condorlite.core.matching.held_walks import HeldWalks
from condorlite.core.matching.match_table import MatchTable
from tests.core.matching._against_reference import run_both
from tests.core.matching.test_held_walks import JOBS, POLICY, SLOTS


def _count_full_pairs(patch: pytest.MonkeyPatch) -> list[bool]:
    """Record ``job_holds`` of every full pair evaluation."""
    seen: list[bool] = []
    evaluate = MatchTable._evaluate_pair

    def counted(table, job_ad, offer, *, job_holds=False):  # type: ignore[no-untyped-def]
        seen.append(job_holds)
        return evaluate(table, job_ad, offer, job_holds=job_holds)

    patch.setattr(MatchTable, "_evaluate_pair", counted)
    return seen


@pytest.mark.parametrize("sure", [True, False])
def test_held_pairs_decided_by_the_verdict_evaluate_the_slot_side(monkeypatch, sure) -> None:
    # The machine types' parts hold 6 shapes each (no program): their held pairs are
    # evaluated in full, those the verdict passed (or surely holds on) without the
    # job's Requirements; the outcome is the reference's (``run_both``) and the one
    # with every pair asked as before.
    monkeypatch.setattr(held_walks, "SURE_BOXES", sure)
    with monkeypatch.context() as patch:
        seen = _count_full_pairs(patch)
        fast, on = run_both(SLOTS, JOBS, POLICY)
    assert seen.count(True) >= 7 and seen.count(True) == len(seen)
    with monkeypatch.context() as patch:
        patch.setattr(HeldWalks, "__init__", _asking_pair(HeldWalks.__init__, False))
        seen = _count_full_pairs(patch)
        slow, off = run_both(SLOTS, JOBS, POLICY)
    assert not any(seen)
    assert sorted(map(str, off.matches)) == sorted(map(str, on.matches))
    assert slow.mm.evaluations == fast.mm.evaluations


def _asking_pair(init, holds: bool):  # type: ignore[no-untyped-def]
    """``HeldWalks.__init__`` whose walks ask every pair they ask with ``job_holds``
    set to ``holds``, whatever the verdict said."""

    def init_asking(self, held, registry, table, *args) -> None:  # type: ignore[no-untyped-def]
        init(self, held, registry, table, *args)
        pair = table.pair

        def asking(class_id, job_ad, offer, signature=(), *, job_holds=False):  # type: ignore[no-untyped-def]
            return pair(class_id, job_ad, offer, signature, job_holds=holds)

        self._pair = asking

    return init_asking


def test_held_pairs_asked_without_a_verdict_decide_otherwise(monkeypatch) -> None:
    # No verdict (nothing known of the job's Requirements) and every pair asked as
    # one whose Requirements hold: the Windows class matches the Linux slots.
    monkeypatch.setattr(HeldVerdicts, "verdict", lambda self, *args: (None, ()))
    monkeypatch.setattr(HeldWalks, "__init__", _asking_pair(HeldWalks.__init__, True))
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, POLICY)
