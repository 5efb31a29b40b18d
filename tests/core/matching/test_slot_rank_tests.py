"""``slot_ranks.StringTest``: a held slot's Rank that compares one name of the job with a
string (``TARGET.Owner == "a"``) is kept per (rank key, the comparison's answer), not
per job numbers. Checked against the plain reference cycle with preemption by
priority off and on, and shown to matter: an answer blind to the job decides
otherwise."""

from __future__ import annotations

import pytest

from condorlite.core import adeval
from condorlite.core.classad import parse_ad
from condorlite.core.matching import slot_ranks
from condorlite.core.matching.slot_ranks import StringTest, _test
from condorlite.core.policy import Policy
from tests.core._pool import UID
from tests.core.matching._against_reference import run_both


def _desktop(n: int, rank: str) -> str:
    # A claimed desktop that prefers its owner's jobs, held by "old" at CurrentRank 0.
    return "\n".join([
        f'Name = "slot1@d{n}"', f'Machine = "d{n}"', "SlotID = 1",
        'State = "Claimed"', 'Activity = "Busy"', "Cpus = 1", "Memory = 2048",
        "Disk = 100000", 'Arch = "X86_64"', 'OpSys = "LINUX"',
        "Requirements = START", "START = true", 'Who = "B"', f"Rank = {rank}",
        "CurrentRank = 0.0", "SlotWeight = Cpus", f'RemoteUser = "old@{UID}"',
        'RemoteOwner = "old"', f"TotalJobRunTime = {100 + n}", ""])


def _job(owner: str, cluster: int, proc: int) -> str:
    return "\n".join([
        f"ClusterId = {cluster}", f"ProcId = {proc}", f'Owner = "{owner}"',
        "JobStatus = 1", "JobPrio = 0", f"QDate = {1000 + cluster}", "RequestCpus = 1",
        "RequestMemory = 1024", "RequestDisk = 1000",
        "Requirements = TARGET.Disk >= RequestDisk", ""])


# Desktops 0-2 prefer "a" (spelled "A": strings compare case-blind), 3-5 "b" (the job
# on the right, the string the slot's Who); four owners of two jobs each.
SLOTS = [*[_desktop(n, '(TARGET.Owner == "A")') for n in range(3)],
         *[_desktop(n, "MY.Who == TARGET.Owner") for n in range(3, 6)]]
JOBS = [_job(owner, c, p) for c, owner in enumerate("abcd", 1) for p in range(2)]


@pytest.mark.parametrize("requirements", ["False", "True"])
def test_string_tests_decide_as_the_reference(requirements: str) -> None:
    policy = Policy(uid_domain=UID, preemption_requirements=requirements)
    fast, result = run_both(SLOTS, JOBS, policy)
    assert result.matches
    values = fast.mm.lists.reasons._shared.values
    if requirements == "False":
        # (two rank keys, each asked by four owners: two answers each)
        assert values and len(values) <= 4
        assert {type(key[1]) for key in values} == {bool}


def test_an_answer_blind_to_the_job_decides_otherwise(monkeypatch) -> None:
    # Every comparison false: the first owner's Rank (0) stands for its own owner's,
    # who then takes no desktop by rank.
    monkeypatch.setattr(slot_ranks, "compare", lambda op, left, right: False)
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, Policy(uid_domain=UID, preemption_requirements="False"))


def _rank(text: str, slot: str = "") -> StringTest | None:
    ad = parse_ad(f"Rank = {text}\nWho = \"b\"\nN = 3\n{slot}")
    return _test(adeval.attr(ad, "Rank"), ad)  # type: ignore[arg-type]


def test_what_is_a_test() -> None:
    assert _rank('TARGET.Owner == "a"') == StringTest("==", "Owner", "a", True)
    assert _rank('(("a" != TARGET.Owner))') == StringTest("!=", "Owner", "a", False)
    assert _rank("TARGET.Owner < Who") == StringTest("<", "Owner", "b", True)
    assert _rank("MY.Who >= TARGET.Owner") == StringTest(">=", "Owner", "b", False)
    # (not a comparison of a job's name with the slot's string)
    assert _rank('TARGET.Owner =?= "a"') is None
    assert _rank('Owner == "a"') is None  # (bare: the job's only if the slot binds none)
    assert _rank("TARGET.Owner == N") is None
    assert _rank("TARGET.Owner == Missing") is None
    assert _rank('TARGET.Owner == "a" && TARGET.X == "b"') is None
    assert _rank("TARGET.Owner == TARGET.Other") is None
