"""The counts of a class's deferred held groups (``HeldGroups.deferred_counts``): a
``DeferredList`` whose counts are worked out when read, as of the list's making;
the literal-Rank plan's list shared by the submitters that hold none of its offers.
Checked, on a cycle with claimed slots of several holders (the submitter among them)
and with preemption by priority on and off, against the plain count of every deferred
group at the making and again when the list is read later, and against the reference
cycle; and on random groups that gain and lose offers after lists are made."""

from __future__ import annotations

import random

import pytest

from condorlite.core.matching.held_counts import DeferredLists
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


def plain_counts(deferred: list, submitter: str) -> list:
    """(first offer, offers not the submitter's own) of each group of ``deferred``
    with any, in order, counted now."""
    counts = []
    for first, group in deferred:
        count = group.total - group.by_holder.get(submitter, 0)
        if count:
            counts.append((first, count))
    return counts


def _checked(monkeypatch) -> list[int]:
    """Wrap ``deferred_counts`` to compare each answer with the plain count at its
    making, and each list made before with its plain count then, at every later
    call."""
    seen: list[int] = []
    made: list[tuple] = []
    real = HeldGroups.deferred_counts

    def checked(self, deferred, submitter):
        counts = real(self, deferred, submitter)
        for earlier, plain in made:
            assert list(earlier) == plain
        plain = plain_counts(deferred, submitter)
        assert list(counts) == plain
        made.append((counts, plain))
        seen.append(len(plain))
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


def test_a_literal_list_shared_with_its_holders_is_caught(monkeypatch) -> None:
    _checked(monkeypatch)
    # (slots of literal Ranks alone: every class is given the literal-Rank plan's list)
    free = "\n".join(line for line in _held(30, "0", 0.0, "new").splitlines()
                     if not line.startswith(("Remote", "State", "Activity")))
    literal = [_held(n, "0", 0.0, h) for n, h in enumerate(HOLDERS)] + [free + "\n"]
    run_both(literal, JOBS, Policy(uid_domain=UID, preemption_requirements="False"))
    monkeypatch.setattr(DeferredLists, "_holders_of", lambda self, deferred, epoch: set())
    with pytest.raises(AssertionError):
        run_both(literal, JOBS, Policy(uid_domain=UID, preemption_requirements="False"))


class _Held:
    def __init__(self, pair_shape: int, holder: str) -> None:
        self.pair_shape, self.holder, self.current_rank = pair_shape, holder, 0.0


def test_counts_as_of_the_making_while_groups_change():
    """A list made at some epoch reads, at any later time, the plain counts of its
    making, however many offers have joined or left its groups since; a submitter
    holding none of the literal list's offers shares one list of it."""
    rng = random.Random(5)
    for _ in range(100):
        held = HeldGroups([])
        offers = [_Held(rng.randrange(8), rng.choice("abcd")) for _ in range(rng.randint(0, 30))]
        out: list = []
        made: list[tuple] = []
        for step in range(60):
            if offers and rng.random() < 0.6:
                offer = offers.pop(rng.randrange(len(offers)))
                held.add(offer)
                out.append(offer)
            elif out:
                held.remove(out.pop(rng.randrange(len(out))))
            deferred = [(first, held.groups[first.pair_shape]) for first in
                        {offer.pair_shape: offer for offer in out}.values()]
            if step % 3 == 0:
                held._literal = (held.epoch, (deferred, [], {}))
            for submitter in "abcde":
                listed = held.deferred_counts(deferred, submitter)
                made.append((listed, plain_counts(deferred, submitter)))
            for listed, plain in made:
                assert list(listed) == plain
                at = listed.positions()
                assert [e for first, _ in listed._source.groups
                        if (e := listed.entry(at[first.pair_shape])) is not None] == plain
