"""Small builders of slot and job ads for the negotiation tests."""

from __future__ import annotations

from condorlite.core.ad_decoder import job_from_ad, slot_from_ad
from condorlite.core.classad import parse_ad, parse_ads
from condorlite.core.policy import Policy
from condorlite.store.adfiles import read_ads

UID = "example.org"


def ad(**attrs: object):
    """An ad from keyword attributes; str values are expression text, use repr for strings."""
    text = "\n".join(f"{k} = {v}" for k, v in attrs.items())
    return parse_ad(text) if text else parse_ad("")


def slot(name: str, *, state: str = "Unclaimed", user: str | None = None, policy=None,
         index: int = 0, **extra: object):
    attrs: dict[str, object] = dict(
        Name=f'"{name}"', Machine=f'"{name.split("@")[-1]}"', State=f'"{state}"',
        Activity='"Busy"' if user else '"Idle"', Cpus=1, Memory=2048, Disk=100000,
        Arch='"X86_64"', OpSys='"LINUX"', Requirements="START", START="true",
        Rank="0.0", CurrentRank="0.0", SlotWeight="Cpus",
    )
    if user:
        attrs["RemoteUser"] = f'"{user}"'
        attrs["RemoteOwner"] = f'"{user}"'
    attrs.update(extra)
    return slot_from_ad(ad(**attrs), policy or Policy(uid_domain=UID), index)


def job(cluster: int, proc: int, owner: str, *, policy=None, index: int = 0, **extra: object):
    attrs: dict[str, object] = dict(
        ClusterId=cluster, ProcId=proc, Owner=f'"{owner}"', JobStatus=1, JobPrio=0,
        QDate=1000 + cluster, RequestCpus=1, RequestMemory=1024, RequestDisk=1000,
        Requirements='(TARGET.Arch == "X86_64") && (TARGET.Memory >= RequestMemory)',
    )
    attrs.update(extra)
    return job_from_ad(ad(**attrs), policy or Policy(uid_domain=UID), index)


def user(name: str) -> str:
    return f"{name}@{UID}"


def decoded_pool(files, policy: Policy, shared: bool):
    """The slots and jobs of a ``genpool.write_pool`` result. ``shared``: read through
    ``read_ads`` (interned expressions shared between ads, as in production); else
    each ad parsed on its own."""
    if shared:
        slot_ads = [x.ad for x in read_ads([str(files.slots_path)])]
        job_ads = [x.ad for x in read_ads([str(files.jobs_path)])]
    else:
        slot_ads = [parse_ad(t) for t in files.slots_path.read_text().split("\n\n") if t]
        job_ads = [parse_ad(t) for t in files.jobs_path.read_text().split("\n\n") if t]
    slots = [slot_from_ad(a, policy, i) for i, a in enumerate(slot_ads)]
    jobs = [job_from_ad(a, policy, i) for i, a in enumerate(job_ads)]
    return slots, jobs


def decoded_texts(slot_texts: list[str], job_texts: list[str], policy: Policy,
                  shared: bool):
    """Slots and jobs of ad texts: ``shared``, parsed as one file each (equal lines
    share expression objects, as the readers make them); else each ad on its own."""
    if shared:
        slot_ads = list(parse_ads("\n".join(slot_texts)))
        job_ads = list(parse_ads("\n".join(job_texts)))
    else:
        slot_ads, job_ads = map(parse_ad, slot_texts), map(parse_ad, job_texts)
    slots = [slot_from_ad(a, policy, i) for i, a in enumerate(slot_ads)]
    jobs = [job_from_ad(a, policy, i) for i, a in enumerate(job_ads)]
    return slots, jobs
