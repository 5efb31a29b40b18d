"""Claimed desktops whose ``Rank`` names their owner share their machine type's static
part (``static_programs``): the default ``NEGOTIATOR_PRE_JOB_RANK`` reads the job there
(``My.Rank``), so it joins the pair's names with what else it reads, the holder's
``RemoteOwner``; left free in the part's vector like an own literal (``HOLDER``), it no
longer makes each holder's desktops a part of their own. Checked against the plain
reference cycle, with a pre-job rank that reads the holder's name itself; with the
vector's holder read wrong, the programs decide otherwise."""

from __future__ import annotations

import pytest

from condorlite.core.matching import static_programs
from condorlite.core.matching.slot_vectors import VectorNumbers, vector_of
from condorlite.core.policy import DEFAULT_PRE_JOB_RANK, Policy
from tests.core.matching._against_reference import ad_text, run_both
from tests.core.matching.test_held_walks import (
    assert_held_vectors_as_their_ads_give,
    held_vectors_run,
)

UID = "example.org"
USERS = ("alice", "bob", "carol", "dave")
HOLDERS = ("old0", "old1", "old2", "old3")
#: the new submitter (the best priority, ``run_both``) preempts the old ones
POLICY = Policy(uid_domain=UID,
                preemption_requirements="RemoteUserPrio > SubmitterUserPrio * 1.2")
#: a pre-job rank that prefers old1's slots by the holder's name (the value read)
BY_HOLDER = Policy(uid_domain=UID,
                   preemption_requirements="RemoteUserPrio > SubmitterUserPrio * 1.2",
                   negotiator_pre_job_rank=DEFAULT_PRE_JOB_RANK
                   + ' + 100000000 * (RemoteOwner == "old1")')


def _desktop(i: int) -> str:
    holder = HOLDERS[i % len(HOLDERS)]
    # a claimed static slot each, its own Disk (its own pair shape); its Rank names
    # its owner, so the pre-job rank reads the job in it
    return ad_text(dict(
        Name=f'"slot1@desk{i}"', Machine=f'"desk{i}"', State='"Claimed"',
        Activity='"Busy"', Cpus=4, Memory=8192, Disk=50000 + 1000 * i,
        Arch='"X86_64"', OpSys='"LINUX"', KeyboardIdle=3600,
        Start='(KeyboardIdle > 15 * 60) || (TARGET.Owner == "nobody")',
        Requirements="START", Rank=f'TARGET.Owner == "{USERS[i % len(USERS)]}"',
        CurrentRank="0.0", SlotWeight="Cpus", RemoteUser=f'"{holder}@{UID}"',
        RemoteOwner=f'"{holder}"', TotalJobRunTime=100 + i))


def _job(proc: int) -> str:
    return ad_text(dict(
        ClusterId=1, ProcId=proc, Owner='"new"', JobStatus=1, JobPrio=0, QDate=1000,
        RequestCpus=1, RequestMemory=1024, RequestDisk=60000,
        Requirements='TARGET.OpSys == "LINUX" && TARGET.Disk >= RequestDisk'))


SLOTS = [_desktop(i) for i in range(40)]
JOBS = [_job(p) for p in range(6)]


def _held_parts(fast) -> tuple[set[int], int]:  # type: ignore[no-untyped-def]
    numbers = fast.mm.table._numbers
    held = [o for o in fast.offers if o.holder is not None]
    parts = {numbers.of(o).static for o in held if numbers.of(o) is not None}
    return parts, sum(numbers.of(o) is not None for o in held)


@pytest.mark.parametrize("policy", [POLICY, BY_HOLDER])
def test_held_desktops_share_their_types_part_and_decide_as_the_reference(
        monkeypatch, policy: Policy) -> None:
    # (a part of desktops gets programs from SHARED_LITERALS pair shapes; 40 here)
    monkeypatch.setattr(static_programs, "SHARED_LITERALS", 16)
    fast, result = run_both(SLOTS, JOBS, policy)
    parts, programmed = _held_parts(fast)
    # one part for the 40 desktops of four holders, their pairs by its programs
    assert len(parts) == 1 and programmed == len(SLOTS)
    numbers = fast.mm.table._numbers
    offer = next(o for o in fast.offers if o.holder is not None)
    assert static_programs.HOLDER in numbers.of(offer).names
    assert len(result.matches) == len(JOBS)
    if policy is BY_HOLDER:
        # the pre-job rank's preference read from each slot's own holder
        assert all(m.slot in {f"slot1@desk{i}" for i in range(1, 40, 4)}
                   for m in result.matches)


def test_without_the_holder_free_each_holders_desktops_are_a_part(monkeypatch) -> None:
    monkeypatch.setattr(static_programs, "SHARED_LITERALS", 16)
    monkeypatch.setattr(static_programs, "HOLDER", "NoSuchName")
    fast, _ = run_both(SLOTS, JOBS, POLICY)
    parts, programmed = _held_parts(fast)
    # (four parts of ten shapes, below the threshold: no programs)
    assert not parts and programmed == 0


def test_a_holder_read_wrong_from_the_vector_decides_otherwise(monkeypatch) -> None:
    monkeypatch.setattr(static_programs, "SHARED_LITERALS", 16)

    def first_holder(ad, names, literals=()):  # type: ignore[no-untyped-def]
        vector = vector_of(ad, names, literals)
        if vector is None or static_programs.HOLDER not in vector.index:
            return vector
        vals = list(vector.vals)
        vals[vector.index[static_programs.HOLDER]] = "old0"
        vector.vals = tuple(vals)
        return vector

    class FirstHolder(VectorNumbers):  # (the static offers' maker only)
        def of(self, ad, literals=()):  # type: ignore[no-untyped-def]
            return first_holder(ad, self._resource_names, literals)

    monkeypatch.setattr(static_programs, "VectorNumbers", FirstHolder)
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, BY_HOLDER)


def test_held_vectors_are_the_parts_vectors_less_their_own_literals(monkeypatch) -> None:
    # The held verdicts leave the resources free: each held desktop's vector is its
    # part's (``StaticNumbers``: resources, then the holder) less the holder, not
    # worked out again from the ad; the same names, numbers and index as the ad's.
    monkeypatch.setattr(static_programs, "SHARED_LITERALS", 16)
    run = held_vectors_run(monkeypatch, SLOTS, JOBS, POLICY)
    vectors = run.verdicts._vectors
    assert len(vectors) == len(SLOTS)
    assert all(run.statics[seq].literals for seq in vectors)
    assert all(static_programs.HOLDER not in vector.names for vector in vectors.values())
    assert_held_vectors_as_their_ads_give(run)
