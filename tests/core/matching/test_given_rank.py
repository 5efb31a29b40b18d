"""The policy ranks of a pair program read the slot's Rank as ``PairProgram._ranked``
has just worked it out (``pair_programs.GIVEN_RANK``, ``partial.specialize``'s
``given``): the default pre-job rank's ``10000000 * My.Rank`` does not run the Rank's
residual again.

Desktops whose Rank names their owner (a residual reading the slot's own literal)
under the default policy: the cycle must decide the same with the given Rank on and
off, as the plain reference cycle does (``run_both``), and only with it on do
programs read the given value."""

from __future__ import annotations

import pytest

from condorlite.core.matching import pair_programs
from condorlite.core.matching.carving import PairProgram
from tests.core.matching._against_reference import run_both
from tests.core.matching.test_own_literals import POLICY, _desktop, _jobs
from tests.core.negotiation.test_equivalence import _fingerprint


def _given_programs(patch: pytest.MonkeyPatch) -> list[PairProgram]:
    """The programs made whose dependent ranks read the given Rank (every program,
    made by ``PairProgram(...)`` or ``PairProgram.of``, is set up by ``_set_up``)."""
    made = PairProgram._set_up
    found: list[PairProgram] = []

    def counting(program, *args, **kwargs):  # type: ignore[no-untyped-def]
        made(program, *args, **kwargs)
        if program.slot_rank_given:
            found.append(program)

    patch.setattr(PairProgram, "_set_up", counting)
    return found


def test_the_given_rank_decides_as_the_rank_run_again(monkeypatch) -> None:
    slots = [_desktop(i) for i in range(24)]
    jobs = _jobs(5)
    results, given = {}, {}
    for on in (True, False):
        with monkeypatch.context() as patch:
            patch.setattr(pair_programs, "GIVEN_RANK", on)
            found = _given_programs(patch)
            _, results[on] = run_both(slots, jobs, POLICY)
        given[on] = len(found)
    assert _fingerprint(results[True]) == _fingerprint(results[False])
    assert given[True] and not given[False]
