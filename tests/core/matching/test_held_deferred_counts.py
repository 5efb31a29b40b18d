"""The counts of a class's deferred held groups (``HeldGroups.deferred_counts``): the
literal-Rank plan's part worked out once per submitter and shared by every class's
list, the class's own groups after it. Checked, on a cycle with claimed slots of
several holders (the submitter among them) and with preemption by priority on and off,
against the plain count of every deferred group, and against the reference cycle."""

from __future__ import annotations

import random

import pytest

from condorlite.core.matching import held_counts
from condorlite.core.matching.candidates import HeldGroup
from condorlite.core.matching.held_groups import HeldGroups
from condorlite.core.policy import Policy
from tests.core._pool import UID
from tests.core.matching._against_reference import run_both


def _held(n: int, rank: str, current: float, holder: str) -> str:
    return "\n".join([
        f'Name = "slot1_{n}@m{n % 3}"', f'Machine = "m{n % 3}"', "SlotID = 1",
        f"SlotID_{n} = 1", 'SlotType = "Dynamic"', "DynamicSlot = true",
        'State = "Claimed"', 'Activity = "Busy"', "Cpus = 1", "Memory = 2048",
        f"Disk = {100000 + 211 * n}", 'Arch = "X86_64"', 'OpSys = "LINUX"',
        "Requirements = START", "START = true", f"Rank = {rank}",
        f"CurrentRank = {current}", "SlotWeight = Cpus",
        f'RemoteUser = "{holder}@{UID}"', f'RemoteOwner = "{holder}"',
        f"TotalJobRunTime = {100 + n}", ""])


def _job(proc: int, owner: str, prio: int, disk: int) -> str:
    return "\n".join([
        "ClusterId = 1", f"ProcId = {proc}", f'Owner = "{owner}"', "JobStatus = 1",
        f"JobPrio = {prio}", "QDate = 1000", "RequestCpus = 1", "RequestMemory = 1024",
        f"RequestDisk = {disk}", "Requirements = TARGET.Disk >= RequestDisk", ""])


HOLDERS = ["new", "old", "new", "other", "old", "new"]
SLOTS = ([_held(n, "0", 0.0, h) for n, h in enumerate(HOLDERS)]
         + [_held(10 + n, "TARGET.JobPrio", 10.0, h) for n, h in enumerate(HOLDERS)]
         + [_held(20, "TARGET.JobPrio", 1.0, "old")])
# (a job whose Disk no slot has is rejected: its reason reads the deferred counts)
JOBS = [_job(0, "new", 5, 1000), _job(1, "new", 3, 10**9), _job(2, "old", 2, 1000),
        _job(3, "other", 7, 10**9)]


def _checked(monkeypatch) -> list[int]:
    """Wrap ``deferred_counts`` to compare each answer with the plain count."""
    seen: list[int] = []
    real = HeldGroups.deferred_counts

    def checked(self, deferred, submitter):
        counts = real(self, deferred, submitter)
        assert counts == held_counts.deferred_counts_of(deferred, submitter)
        seen.append(len(counts))
        return counts
    monkeypatch.setattr(HeldGroups, "deferred_counts", checked)
    return seen


@pytest.mark.parametrize("requirements", ["False", "True"])
def test_deferred_counts_are_the_plain_counts(monkeypatch, requirements: str) -> None:
    seen = _checked(monkeypatch)
    policy = Policy(uid_domain=UID, preemption_requirements=requirements)
    _, result = run_both(SLOTS, JOBS, policy)
    if requirements == "False":
        assert seen and max(seen) > 0
    assert result.matches


def test_a_literal_part_blind_to_the_submitter_is_caught(monkeypatch) -> None:
    _checked(monkeypatch)
    monkeypatch.setattr(
        HeldGroups, "_literal_part",
        lambda self, literal, submitter: held_counts.deferred_counts_of(literal, "-"))
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, Policy(uid_domain=UID, preemption_requirements="False"))


class _Held:
    def __init__(self, holder: str) -> None:
        self.holder, self.current_rank = holder, 0.0


class _First:
    def __init__(self, pair_shape: int) -> None:
        self.pair_shape = pair_shape


def test_deferred_counts_of_every_submitter_from_one_pass():
    """``DeferredCounts.of`` is ``_counts`` for every submitter, groups emptied or
    left by their holders included; a submitter holding none of the offers gets the
    one shared list."""
    rng = random.Random(5)
    for _ in range(200):
        deferred = []
        for _ in range(rng.randint(0, 25)):
            group = HeldGroup()
            offers = [_Held(rng.choice("abcd")) for _ in range(rng.randint(0, 4))]
            for offer in offers:
                group.add(offer)
            for offer in offers[:rng.randint(0, len(offers))]:
                group.remove(offer)
            deferred.append((_First(len(deferred)), group))
        counts = held_counts.DeferredCounts(deferred)
        for submitter in "abcdef":
            listed = counts.of(submitter)
            assert listed == held_counts.deferred_counts_of(deferred, submitter)
            # each group of the list found by its position in ``base``, and none else
            at = listed.positions()
            assert sorted(at.values()) == list(range(len(counts.base)))
            found = [listed.entry(at[first.pair_shape]) for first, _ in deferred
                     if first.pair_shape in at]
            assert [e for e in found if e is not None] == listed
        assert counts.of("e") is counts.of("f") is counts.base
