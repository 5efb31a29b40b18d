"""A literal static's states take the pre-job rank their pair result would evaluate
from their key (``literal_states``, ``PairProgram.run_fitted``'s ``given``).

Every item ``LiteralStates`` reads is keyed by the class's exact -pre-job rank at its
state, so a program whose one dependent rank that is no constant is the pre-job rank
(``PairProgram.given_rank``) does not evaluate it there: its outcome is made with the
key's value. The cycle case wraps ``run_fitted`` to compare each outcome given the
rank with the one evaluated in full at the same state, signs of zero included, with
job ranks that read the state and requirements that leave bounds, and the decisions
with the order on and off against the plain reference cycle.
"""

from __future__ import annotations

import math

import pytest

from condorlite.core.matching import carved_lists, static_orders
from condorlite.core.matching.candidates import PRE
from condorlite.core.matching.carving import PairProgram
from condorlite.core.matching.literal_states import LiteralStates
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import run_both
from tests.core.matching.test_own_literals import USERS, _desktop
from tests.core.negotiation.test_equivalence import _fingerprint

POLICY = Policy(uid_domain="example.org")


def _slots(count: int) -> list[str]:
    # (memory varies within a type, so the ranks of one type's desktops differ)
    return [_desktop(i, Memory=8192 + 512 * (i % 7)) for i in range(count)]


def _jobs(per: int) -> list[str]:
    """Jobs of each owner and of none; ranked by Memory or not; some requiring more
    Memory than they take (a box with a bound: the rank is not given)."""
    out = []
    for cluster in range(1, 9):
        owner = USERS[cluster % len(USERS)] if cluster % 4 else "erin"
        requirements = "TARGET.Arch == \"X86_64\""
        if cluster % 3 == 0:
            requirements += " && TARGET.Memory >= 9000"
        out.extend("\n".join(f"{k} = {v}" for k, v in dict(
            ClusterId=cluster, ProcId=proc, Owner=f'"{owner}@example.org"', JobStatus=1,
            JobPrio=0, QDate=1000 + cluster, RequestCpus=1 + cluster % 3,
            RequestMemory=1024 * (1 + cluster % 4), RequestDisk=1000,
            Rank="Memory" if cluster % 2 else "0.0",
            Requirements=requirements).items()) + "\n" for proc in range(per))
    return out


def _same(given: tuple, full: tuple) -> bool:
    """Two outcomes equal, their ranks' signs of zero (and NaN) alike."""
    def alike(x: float, y: float) -> bool:
        return (x != x and y != y) or (x == y and math.copysign(1.0, x) == math.copysign(1.0, y))
    if not given[0] or not full[0]:
        return given == full
    return (alike(given[1], full[1]) and alike(given[2], full[2])
            and list(given[3]) == list(full[3])
            and all(alike(given[3][k], full[3][k]) for k in given[3])
            and given[4] == full[4])


@pytest.mark.parametrize(("count", "per"), [(48, 6), (80, 12)])
def test_a_given_pre_job_rank_gives_the_full_runs_outcome(monkeypatch, count, per):
    monkeypatch.setattr(static_orders, "ORDER_MIN", 1)
    # (the busy desktops' groups that cannot match a class are otherwise left out of
    # its walk before any order is asked for, ``literal_matches``)
    monkeypatch.setattr(carved_lists, "MATCHES", False)
    seen = {"given": 0}
    run_fitted = PairProgram.run_fitted

    def checked(program, vals, as_rank, given=None):  # type: ignore[no-untyped-def]
        out = run_fitted(program, vals, as_rank, given)
        if given is not None:
            assert program.given_rank(PRE)
            assert _same(out, run_fitted(program, vals, as_rank))
            seen["given"] += 1
        return out

    monkeypatch.setattr(PairProgram, "run_fitted", checked)
    slots, jobs = _slots(count), _jobs(per)
    _, result = run_both(slots, jobs, POLICY)
    assert seen["given"]
    monkeypatch.setattr(carved_lists, "ORDERED", False)
    _, walked = run_both(slots, jobs, POLICY)
    assert _fingerprint(result) == _fingerprint(walked)


def test_the_given_rank_is_asked_once_per_make(monkeypatch):
    # (what ``LiteralStates._run`` relies on: the answer is the program's, so one
    # call per source, at its first run, stands for every item of it)
    monkeypatch.setattr(static_orders, "ORDER_MIN", 1)
    monkeypatch.setattr(carved_lists, "MATCHES", False)
    calls = {"make": 0, "asked": 0}
    make, given_rank = LiteralStates._make, PairProgram.given_rank

    def counted_make(source, count, last):  # type: ignore[no-untyped-def]
        calls["make"] += 1
        make(source, count, last)

    def counted(program, name):  # type: ignore[no-untyped-def]
        calls["asked"] += 1
        return given_rank(program, name)

    monkeypatch.setattr(LiteralStates, "_make", counted_make)
    monkeypatch.setattr(PairProgram, "given_rank", counted)
    run_both(_slots(48), _jobs(6), POLICY)
    assert calls["make"] and calls["asked"] <= calls["make"]
