"""One cycle run both ways, for the matching tests: the optimised ``Cycle`` and the
plain reference cycle (``tests/core/reference``) on the same ads, required to decide
the same (``test_equivalence``'s fingerprint)."""

from __future__ import annotations

import pytest

from condorlite.core.matching.match_table import MatchTable
from condorlite.core.model import Submitter
from condorlite.core.negotiation import negotiator
from condorlite.core.policy import Policy
from tests.core._pool import decoded_texts
from tests.core.negotiation.test_equivalence import _fingerprint
from tests.core.reference import run_reference_cycle

#: the ``--now`` of the generated pools (``genpool.BASE_TIME``)
NOW = 1_700_000_000.0

#: the ``WithinResourceLimits`` a partitionable slot's ``Requirements`` reads, as the
#: matching tests' slots write it
WITHIN_RESOURCE_LIMITS = (
    "MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && MY.Memory > 0 && "
    "TARGET.RequestMemory <= MY.Memory && TARGET.RequestDisk <= MY.Disk")


def ad_text(attrs: dict[str, object]) -> str:
    """The old-form ad of ``attrs`` (each value written as its ClassAd text)."""
    return "\n".join(f"{k} = {v}" for k, v in attrs.items()) + "\n"


def pslot_text(host: str, cpus: object, memory: object, disk: object,
               **attrs: object) -> str:
    """The ad of an unclaimed partitionable slot ``slot1@host`` of ``cpus``, ``memory``
    and ``disk``, as the matching tests write it (``START`` true, ``Requirements``
    ``START && WithinResourceLimits``, Rank 0, weighed by its Cpus); ``attrs`` replace
    or add attributes (values as ClassAd text)."""
    ad = dict(Name=f'"slot1@{host}"', Machine=f'"{host}"', State='"Unclaimed"',
              Activity='"Idle"', PartitionableSlot="true", Cpus=cpus, Memory=memory,
              Disk=disk, Arch='"X86_64"', OpSys='"LINUX"', Start="true",
              Requirements="START && WithinResourceLimits",
              WithinResourceLimits=WITHIN_RESOURCE_LIMITS, Rank="0.0", CurrentRank="0.0",
              SlotWeight="Cpus")
    ad.update(attrs)
    return ad_text(ad)


#: the submitters of ``job_text``'s jobs, by cluster
JOB_USERS = ("alice", "bob", "carol")


def job_text(cluster: int, proc: int, requirements: str, **extra: object) -> str:
    """The ad of idle job ``cluster.proc`` of ``JOB_USERS[cluster % 3]@example.org``
    asking 1 Cpu, 1024 Memory and 1000 Disk, its Requirements ``requirements`` on an
    X86_64 slot, as the static-list tests write it; ``extra`` replaces or adds
    attributes (values as ClassAd text)."""
    attrs = dict(ClusterId=cluster, ProcId=proc,
                 Owner=f'"{JOB_USERS[cluster % 3]}@example.org"', JobStatus=1, JobPrio=0,
                 QDate=1000 + cluster, RequestCpus=1, RequestMemory=1024, RequestDisk=1000,
                 Requirements=f'TARGET.Arch == "X86_64" && {requirements}')
    attrs.update(extra)
    return ad_text(attrs)


def run_both(slot_texts: list[str], job_texts: list[str], policy: Policy,
             subs: dict[str, Submitter] | None = None):
    """The optimised ``Cycle`` (run) and its result, once the reference agreed and some
    job matched. ``subs``: default, every submitter and holder with EUPs 500, 1000,
    ... in name order and no usage."""
    slots, jobs = decoded_texts(slot_texts, job_texts, policy, shared=True)
    if subs is None:
        names = sorted({j.submitter for j in jobs} | {s.remote_user for s in slots
                                                       if s.remote_user})
        subs = {n: Submitter(n, eup=500.0 * (1 + i), usage=0.0) for i, n in enumerate(names)}
    fast = negotiator.Cycle(slots, jobs, subs, [], policy, NOW)
    fast.run()
    result = fast.result()
    assert _fingerprint(result) == _fingerprint(
        run_reference_cycle(slots, jobs, subs, policy, NOW))
    assert result.matches
    return fast, result


class ProgramBuilds:
    """How many residual programs the cycles run after it is made build
    (``MatchTable._new_program`` calls), counted through ``patch``."""

    def __init__(self, patch: pytest.MonkeyPatch) -> None:
        self.count = 0
        made = MatchTable._new_program
        builds = self

        def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
            builds.count += 1
            return made(*args, **kwargs)

        patch.setattr(MatchTable, "_new_program", counting)
