"""Programs of vectors that hold the slot's own literals run the slot's Requirements
before the job's (``pair_programs.SLOT_FIRST``): a busy desktop's START naming its
owner fails most classes, and then the job's test is never run.

The cycle must decide the same with the order switched on and off, as the plain
reference cycle does (``run_both``), and the slot-first run must evaluate fewer
tests of non-box programs."""

from __future__ import annotations

import pytest

from condorlite.core.matching import carved_lists, pair_programs
from condorlite.core.matching.carving import PairProgram
from tests.core.matching._against_reference import run_both
from tests.core.matching.test_own_literals import POLICY, USERS, _desktop
from tests.core.negotiation.test_equivalence import _fingerprint


class _TestCalls:
    """How many tests the cycle's non-box programs ran, counted by wrapping each
    program's ``tests`` once made (a box runs its ``bounds``, not these)."""

    def __init__(self, patch: pytest.MonkeyPatch) -> None:
        self.count = 0
        self.literal_programs = 0
        made = PairProgram._set_up  # (every program, ``PairProgram(...)`` or ``.of``)
        calls = self

        def counting(program, *args, **kwargs):  # type: ignore[no-untyped-def]
            made(program, *args, **kwargs)
            if program.literals and not program.box:
                calls.literal_programs += 1

            def wrap(test):  # type: ignore[no-untyped-def]
                def counted(vals):  # type: ignore[no-untyped-def]
                    calls.count += 1
                    return test(vals)
                return counted

            program.tests = [wrap(test) for test in program.tests]

        patch.setattr(PairProgram, "_set_up", counting)


def _jobs(per: int) -> list[str]:
    """Jobs whose Requirements read the slot's numbers (a test left in the program)."""
    out = []
    for cluster in range(1, 9):
        owner = USERS[cluster % len(USERS)] if cluster % 4 else "erin"
        out.extend("\n".join(f"{k} = {v}" for k, v in dict(
            ClusterId=cluster, ProcId=proc, Owner=f'"{owner}@example.org"', JobStatus=1,
            JobPrio=0, QDate=1000 + cluster, RequestCpus=1 + cluster % 3,
            RequestMemory=1024 * (1 + cluster % 4), RequestDisk=1000,
            Requirements="TARGET.Memory >= 2 * RequestMemory || TARGET.Cpus > 6",
        ).items()) + "\n" for proc in range(per))
    return out


@pytest.mark.parametrize("idle", [10, 3600])
def test_slot_first_decides_as_job_first_with_fewer_tests(monkeypatch, idle) -> None:
    # (busy desktops: START is the owner test; idle ones: START folded to true)
    slots = [_desktop(i, KeyboardIdle=idle if i % 4 else 10) for i in range(32)]
    jobs = _jobs(6)
    results, counts = {}, {}
    for first in (True, False):
        with monkeypatch.context() as patch:
            patch.setattr(pair_programs, "SLOT_FIRST", first)
            # (the groups whose START fails are otherwise never run at all,
            # ``literal_matches``: the order of the tests is measured without)
            patch.setattr(carved_lists, "MATCHES", False)
            calls = _TestCalls(patch)
            _, results[first] = run_both(slots, jobs, POLICY)
        counts[first] = calls.count
        assert calls.literal_programs
    assert _fingerprint(results[True]) == _fingerprint(results[False])
    assert counts[True] < counts[False]

