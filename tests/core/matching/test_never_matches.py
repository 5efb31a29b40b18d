"""A class whose ``Requirements`` hold in no state of a partitionable static gets no
program for it, by a verdict shared between statics (``never_matches``): worked out
for a static of one slot (a slot whose ``Rank`` names its owner), used by every
static that binds what it read alike, lone or shared.

Each case runs the cycle with the verdicts and with them switched off (every verdict
"may match": each static's program made, or its states evaluated in full), requires
both to decide as the plain reference cycle does, and the verdicts to have spared
programs and to have been shared between statics.
"""

from __future__ import annotations

import pytest

from condorlite.core.matching.never_matches import NeverMatches
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import (
    WITHIN_RESOURCE_LIMITS,
    ProgramBuilds,
    ad_text,
    run_both,
)
from tests.core.negotiation.test_equivalence import _fingerprint

POLICY = Policy(uid_domain="example.org")
USERS = ("alice", "bob", "carol")
#: machine types: (Arch, OpSys, HasSingularity or None for unbound)
TYPES = [('"X86_64"', '"LINUX"', "true"), ('"aarch64"', '"LINUX"', "false"),
         ('"X86_64"', '"WINDOWS"', None)]


def _pslot(i: int, lone: bool) -> str:
    arch, opsys, singularity = TYPES[i % len(TYPES)]
    # A lone slot's Rank names its own owner inside a call, which ``own_literals``
    # does not free (a static of its own); the others share their machine type's.
    attrs = dict(Name=f'"slot1@m{i}"', Machine=f'"m{i}"', State='"Unclaimed"',
                 Activity='"Idle"', PartitionableSlot="true", Cpus=8, Memory=16384,
                 Disk=100000, Arch=arch, OpSys=opsys, Start="true",
                 Requirements="START && WithinResourceLimits",
                 WithinResourceLimits=WITHIN_RESOURCE_LIMITS,
                 Rank=f'ifThenElse(TARGET.Owner == "owner{i}", 1, 0)' if lone else "0.0",
                 CurrentRank="0.0",
                 SlotWeight="Cpus")
    if singularity is not None:
        attrs["HasSingularity"] = singularity
    return ad_text(attrs)


def _job(cluster: int, proc: int, requirements: str, **extra: object) -> str:
    attrs = dict(ClusterId=cluster, ProcId=proc, Owner=f'"{USERS[cluster % 3]}"', JobStatus=1,
                 JobPrio=0, QDate=1000 + cluster, RequestCpus=1 + cluster % 2,
                 RequestMemory=1024 * (1 + cluster % 3), RequestDisk=1000,
                 Requirements=requirements)
    attrs.update(extra)
    return ad_text(attrs)


#: job Requirements: on Arch alone, on two names, on a name some slots leave unbound
#: (undefined there: never true), on the resources too (a verdict reading them keeps
#: only the other names), one that reads a job attribute, and one every slot holds
REQUIREMENTS = [
    'TARGET.Arch == "X86_64"',
    'TARGET.Arch == "aarch64" && TARGET.OpSys == "LINUX"',
    'TARGET.HasSingularity && TARGET.Memory >= RequestMemory',
    'TARGET.OpSys == "WINDOWS" && TARGET.Cpus >= 2 * RequestCpus',
    'TARGET.Arch == MyArch',
    'TARGET.Memory >= RequestMemory',
]


def _jobs(per: int) -> list[str]:
    out = []
    for c, requirements in enumerate(REQUIREMENTS, start=1):
        extra = {"MyArch": '"aarch64"'} if "MyArch" in requirements else {}
        out.extend(_job(c, p, requirements, **extra) for p in range(per))
    return out


@pytest.mark.parametrize(("n_slots", "lone_every"), [(18, 2), (24, 3)])
def test_never_matching_statics_get_no_program(monkeypatch, n_slots, lone_every):
    slots = [_pslot(i, lone=i % lone_every == 0) for i in range(n_slots)]
    jobs = _jobs(4)
    builds = ProgramBuilds(monkeypatch)
    fast, result = run_both(slots, jobs, POLICY)
    with_verdicts = builds.count
    never = fast.mm.table._never
    # shared: fewer verdicts worked out than (class, static) pairs answered never
    answered = sum(1 for p in fast.mm.table.programs.values() if p is not None and p.never)
    assert 0 < never.made < answered
    builds.count = 0
    with monkeypatch.context() as patch:
        patch.setattr(NeverMatches, "never",
                      lambda self, klass, job_ad, slot_ad, vector, work_out=True: False)
        _, plain_result = run_both(slots, jobs, POLICY)
    assert builds.count > with_verdicts
    assert _fingerprint(plain_result) == _fingerprint(result)
