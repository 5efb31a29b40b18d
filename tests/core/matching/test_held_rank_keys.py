"""A held slot's ``Rank`` of a class is kept per *rank key* (``Reasons.rank_key``: the
slot's bindings of what its Rank reaches), not per pair shape: held dynamic slots that
differ only in their own ``Disk`` share it. Checked against the plain reference cycle
with preemption by priority on and off, and shown to matter: a rank key that ignored
the Rank's own bindings would decide otherwise."""

from __future__ import annotations

import pytest

from condorlite.core.matching.reasons import Reasons
from condorlite.core.policy import Policy
from tests.core._pool import UID
from tests.core.matching._against_reference import run_both


def _held(n: int, bonus: int, current: float) -> str:
    # Claimed dynamic slots of one machine: each its own Disk (its own pair shape, the
    # job reading TARGET.Disk), a Rank reading the job and the slot's own Bonus.
    return "\n".join([
        f'Name = "slot1_{n}@m1"', 'Machine = "m1"', "SlotID = 1", f"SlotID_{n} = 1",
        'SlotType = "Dynamic"', "DynamicSlot = true",
        'State = "Claimed"', 'Activity = "Busy"', "Cpus = 1", "Memory = 2048",
        f"Disk = {100000 + 137 * n}", 'Arch = "X86_64"', 'OpSys = "LINUX"',
        "Requirements = START", "START = true", f"Bonus = {bonus}",
        "Rank = TARGET.JobPrio + Bonus", f"CurrentRank = {current}", "SlotWeight = Cpus",
        f'RemoteUser = "old{n % 2}@{UID}"', f'RemoteOwner = "old{n % 2}"',
        f"TotalJobRunTime = {100 + n}", ""])


def _job(proc: int, prio: int) -> str:
    return "\n".join([
        "ClusterId = 1", f"ProcId = {proc}", 'Owner = "new"', "JobStatus = 1",
        f"JobPrio = {prio}", "QDate = 1000", "RequestCpus = 1", "RequestMemory = 1024",
        "RequestDisk = 1000", "Requirements = TARGET.Disk >= RequestDisk", ""])


# Slots 0-3 have Bonus 0 and CurrentRank 6: a job of JobPrio 5 does not beat them by
# rank; slots 4-7 have Bonus 3: it does (8 > 6).
SLOTS = [_held(n, 0 if n < 4 else 3, 6.0) for n in range(8)]
JOBS = [_job(0, 5), _job(1, 5), _job(2, 7)]


@pytest.mark.parametrize("requirements", ["False", "True"])
def test_held_slots_of_own_disks_decide_as_the_reference(requirements: str) -> None:
    policy = Policy(uid_domain=UID, preemption_requirements=requirements)
    fast, result = run_both(SLOTS, JOBS, policy)
    held = [o for o in fast.offers if o.holder is not None]
    assert len({o.pair_shape for o in held}) == 8  # (each its own Disk)
    reasons = fast.mm.lists.reasons
    assert len({reasons.rank_key(o) for o in held}) == 2  # (Bonus 0 or 3)
    assert result.matches


def test_a_rank_key_blind_to_the_ranks_own_bindings_decides_otherwise(monkeypatch) -> None:
    # Every held slot one rank key: the first slot's Rank (Bonus 0) stands for all, so
    # no slot is taken by rank preemption: the reference disagrees.
    monkeypatch.setattr(Reasons, "rank_key", lambda self, offer: 1)
    policy = Policy(uid_domain=UID, preemption_requirements="False")
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, policy)
