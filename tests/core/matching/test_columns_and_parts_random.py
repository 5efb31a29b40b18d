"""Random pools for rank columns and static parts, held to the reference cycle.

Each seed draws a small pool whose slots bind the names jobs rank on to integers,
reals, strings, nothing, or expressions over carved resources; whose ``START`` may
read those names, the job's ``Owner`` or the job's ``Rank``; whose ``Disk`` is an
integer, a real or an expression; some of them partitionable, some claimed. Jobs rank
on those names in many ways (plainly, through their own bindings, with a carved
resource, with ``SubmitterUserPrio``, on a name they bind themselves, on a string, on
an error) and their ``Requirements`` compare with, compute with, or test the type of
``Disk``, or read their own ``Rank``. The optimised cycle and the plain reference must
decide the same (``test_equivalence``'s fingerprint), with programs for static parts
forced on from the second shape (``static_programs.SHARED``) so that the small pools
reach them.
"""

from __future__ import annotations

import random

import pytest

from condorlite.core.matching import static_programs
from condorlite.core.model import Submitter
from condorlite.core.negotiation import negotiator
from condorlite.core.policy import Policy
from tests.core._pool import decoded_texts
from tests.core.matching._against_reference import ad_text
from tests.core.negotiation.test_equivalence import _fingerprint
from tests.core.reference import run_reference_cycle

NOW = 1_700_000_000.0
OWNERS = ("alice", "bob", "carol", "dave")

_NUMBER = [lambda r: r.randint(500, 3000), lambda r: float(r.randint(500, 3000)),
           lambda r: repr("fast"), lambda r: None, lambda r: "Memory / 4",
           lambda r: "Cpus * 100 + 7"]
_START = ["true", "KFlops > 1500", '(KeyboardIdle > 600) || (TARGET.Owner == "{owner}")',
          "TARGET.RequestDisk < MY.Disk", "TARGET.Rank > 1000 || TARGET.Rank == 0",
          "isInteger(MY.Disk)"]
_RANK = ["TARGET.KFlops", "KFlops", "Mips", "-LoadAvg", "KFlops + Memory / 1000.0",
         "TARGET.KFlops * SubmitterUserPrio", "W * Mips", "KFlops", '"fast"',
         "1 / 0", "TARGET.NoSuchThing", "MY.KFlops"]
_REQUIREMENTS = ["TARGET.Memory >= RequestMemory", "TARGET.Disk >= RequestDisk",
                 "isInteger(TARGET.Disk) && TARGET.Memory >= RequestMemory",
                 "TARGET.Disk % 3 != 1", "MY.Rank > 1000 || TARGET.Cpus > 1",
                 "TARGET.Arch == \"X86_64\""]


def _slot(r: random.Random, i: int, start_choices: list[str]) -> str:
    partitionable = r.random() < 0.35
    claimed = not partitionable and r.random() < 0.25
    owner = r.choice(OWNERS)
    attrs: dict[str, object] = dict(
        Name=f'"slot{i}@m{i // 3}"', Machine=f'"m{i // 3}"',
        State='"Claimed"' if claimed else '"Unclaimed"',
        Activity='"Busy"' if claimed else '"Idle"',
        Cpus=8 if partitionable else r.choice((1, 2)),
        Memory=16384 if partitionable else r.choice((2048, 4096)),
        Disk=r.choice((r.randint(10000, 90000), f"{r.randint(10000, 90000)}.0",
                       "Memory * 10")),
        Arch=r.choice(('"X86_64"', '"X86_64"', '"aarch64"')), OpSys='"LINUX"',
        Requirements="START", START=r.choice(start_choices).format(owner=f"{owner}@example.org"),
        Rank=r.choice(("0.0", "TARGET.JobPrio")), CurrentRank="0.0", SlotWeight="Cpus",
        KeyboardIdle=r.choice((0, 900, 1200)), Mips=r.randint(100, 900),
        LoadAvg=f"{r.randint(0, 20) / 10!r}")
    kflops = r.choice(_NUMBER)(r)
    if kflops is not None:
        attrs["KFlops"] = kflops
    if partitionable:
        attrs.update(PartitionableSlot="true", SlotType='"Partitionable"')
    if claimed:
        holder = r.choice(OWNERS)
        attrs.update(RemoteUser=f'"{holder}@example.org"', RemoteOwner=f'"{holder}@example.org"',
                     RemoteUserPrio=500.0 * (OWNERS.index(holder) + 1))
    return ad_text(attrs)


def _job(r: random.Random, cluster: int, proc: int, variant: dict[str, object]) -> str:
    attrs: dict[str, object] = dict(
        ClusterId=cluster, ProcId=proc, Owner=f'"{variant["owner"]}@example.org"', JobStatus=1,
        JobPrio=variant["prio"], QDate=1000 + cluster, RequestCpus=variant["cpus"],
        RequestMemory=variant["memory"], RequestDisk=variant["disk"],
        Requirements=variant["requirements"], Rank=variant["rank"], W=3)
    if variant["own_kflops"]:
        attrs["KFlops"] = 42
    return ad_text(attrs)


def _variant(r: random.Random, requirements: list[str]) -> dict[str, object]:
    return dict(owner=r.choice(OWNERS), prio=r.choice((0, 0, 5)), cpus=r.choice((1, 1, 2)),
                memory=r.choice((1024, 3000)), disk=r.choice((1000, 30000)),
                requirements=r.choice(requirements), rank=r.choice(_RANK),
                own_kflops=r.random() < 0.15)


@pytest.mark.parametrize("seed", range(24))
def test_random_pools_decide_as_the_reference(monkeypatch, seed):
    monkeypatch.setattr(static_programs, "SHARED", 2)
    r = random.Random(seed)
    # (a third of the seeds let a slot's START or a job's Requirements read a job's
    # Rank, which turns columns off for the whole cycle; the others keep them on)
    readers = seed % 3 == 0
    starts = _START if readers else [s for s in _START if "Rank" not in s]
    requirements = _REQUIREMENTS if readers else [q for q in _REQUIREMENTS if "Rank" not in q]
    slots = [_slot(r, i, starts) for i in range(r.randint(12, 30))]
    variants = [_variant(r, requirements) for _ in range(r.randint(4, 9))]
    jobs = [_job(r, c, p, v) for c, v in enumerate(variants, 1) for p in range(r.randint(2, 6))]
    policy = Policy(uid_domain="example.org",
                    negotiator_pre_job_rank=r.choice(("0", Policy().negotiator_pre_job_rank)),
                    preemption_requirements=r.choice(
                        ("false", "RemoteUserPrio > SubmitterUserPrio * 1.2")))
    slot_objs, job_objs = decoded_texts(slots, jobs, policy, shared=True)
    subs = {f"{n}@example.org": Submitter(f"{n}@example.org", eup=500.0 * (i + 1),
                                          usage=float(i))
            for i, n in enumerate(OWNERS)}
    fast = negotiator.Cycle(slot_objs, job_objs, subs, [], policy, NOW)
    fast.run()
    assert _fingerprint(fast.result()) == _fingerprint(
        run_reference_cycle(slot_objs, job_objs, subs, policy, NOW))
