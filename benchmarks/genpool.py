#!/usr/bin/env python3
"""Seeded generator of HTCondor-like pools (slot ads) and queues (job ads).

The output looks like what ``condor_status -long`` / ``-json`` and ``condor_q -long`` /
``-json`` print, so the negotiator reads generated pools through the same code path
as real dumps.

Pool
    Machines are drawn from ``MACHINE_TYPES`` (weighted, seeded): partitionable
    machines (one ``PartitionableSlot`` ad plus a few claimed ``Dynamic`` slots carved
    out of it) and static machines (``slot1`` .. ``slotN``, some of them claimed).
    Every slot carries the modern ``Requirements = START && WithinResourceLimits``.
    Exactly ``slots`` ads are produced: the last machine is cut short if needed.

Queue
    ``autoclusters`` distinct job shapes are drawn (weighted towards small jobs,
    without replacement) from the product of requirement variants x RequestCpus x
    RequestMemory x RequestDisk x Rank; when more shapes are asked for than the
    product holds, later layers add 64 MB steps to RequestMemory, so every shape is
    distinct in its significant attributes and the queue holds exactly
    ``autoclusters`` autoclusters (when ``jobs >= autoclusters``). Each shape belongs
    to one submitter (shape k -> submitter k mod S when K >= S, else submitter i uses
    shape i mod K). Every shape gets at least one job; the rest are spread by seeded
    log-normal weights (largest-remainder rounding, ties by shape index). A shape's
    jobs are split into clusters of 1..200 procs; clusters get ClusterIds in a seeded
    submission order and QDates one second apart. All jobs are idle (JobStatus 1).

Groups
    ``groups`` names accounting groups (dotted names are subgroups); submitter i
    submits in group i mod G. ``group_tree(fanouts)`` names a tree breadth first:
    ``(2, 4, 5)`` gives g1, g2, then g1.s1 .. g2.s4, then g1.s1.t1 .. g2.s4.t5, 2 + 8 + 40
    = 50 groups in 3 levels. With groups, ``write_pool`` also writes ``groups.toml``
    (``group_config``): GROUP_NAMES, each group's GROUP_QUOTA_DYNAMIC = 1 / (its number
    of siblings, itself included) and GROUP_ACCEPT_SURPLUS = true.

Real pools (issue 18; every property off by default, and then the files are what they
always were; each property draws from its own seeded stream)
    ``realistic``: slot ads of ~160 attributes and job ads of ~85 (``realads.py``),
    sorted by name as ``-long`` prints them; what matchmaking reads stays the
    generator's. ``unique``: per-slot KFlops, Mips, LoadAvg, KeyboardIdle,
    EnteredCurrentState, per-machine free disk (TotalDisk). ``rank_fraction``: that
    fraction of shapes ranks on one of ``rank_on`` (``UNIQUE_RANKS``), the rest on
    ``NEUTRAL_RANKS``. ``partitionable_fraction``: each machine partitionable with that
    chance, else static. ``owner_start_fraction``: desktops whose ``Start`` reads
    KeyboardIdle and ``TARGET.Owner`` (``OWNER_START``, ``OWNER_RANK``).
    ``disk_share``: a slot's Disk is its share of the machine's free disk, read at its
    own moment. ``preemption_requirements``: the knob in ``pool.toml`` and spread
    submitter priorities in ``userprio.ads`` (``submitter_records``).

Determinism: the same ``PoolSpec`` gives byte-identical files; only ``random.Random
(seed)`` instances are used, never the global generator or the clock.

Usage::

    python benchmarks/genpool.py --slots 10000 --jobs 100000 --submitters 100 \\
        --autoclusters 500 --format old --out /tmp/pool

writes ``/tmp/pool/slots.ads`` and ``/tmp/pool/jobs.ads`` (``.json`` with --format json).
"""

from __future__ import annotations

import argparse
import itertools
import json
import math
import random
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import realads  # a sibling script, not an installed package
from realads import Ad, Expr

BASE_TIME = 1_700_000_000  # a fixed "now" so that the files never depend on the clock
DOMAIN = "example.org"
CONDOR_VERSION = "$CondorVersion: 24.0.4 2025-02-05 BuildID: 781123 PackageID: 24.0.4-1 $"

WITHIN_RESOURCE_LIMITS = (
    "MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && MY.Memory > 0 && "
    "TARGET.RequestMemory <= MY.Memory && MY.Disk > 0 && TARGET.RequestDisk <= MY.Disk && "
    "(TARGET.RequestGPUs =?= undefined || MY.GPUs >= TARGET.RequestGPUs)"
)


@dataclass(frozen=True)
class MachineType:
    """One kind of execute machine. Memory in MB, disk in KB (as HTCondor reports them)."""

    prefix: str
    weight: float
    arch: str
    opsys_and_ver: str
    cpus: int
    memory: int
    disk: int
    kflops: int
    gpus: int = 0
    cuda_capability: float | None = None
    static_slots: int = 0  # 0 = one partitionable slot; N = N static slots
    singularity: bool = True

    @property
    def mips(self) -> int:
        """The Dhrystone figure of the type (real ratios of KFlops to Mips are ~100)."""
        return self.kflops // 100


MACHINE_TYPES: tuple[MachineType, ...] = (
    MachineType("cpu-a", 40, "X86_64", "AlmaLinux9", 64, 256_000, 1_800_000_000, 2_900_000),
    MachineType("mem-b", 10, "X86_64", "AlmaLinux9", 32, 512_000, 900_000_000, 2_600_000),
    MachineType("arm-c", 12, "aarch64", "AlmaLinux9", 48, 192_000, 900_000_000, 2_100_000),
    MachineType(
        "gpu-d", 6, "X86_64", "AlmaLinux9", 32, 384_000, 1_800_000_000, 3_100_000,
        gpus=4, cuda_capability=8.0,
    ),
    MachineType(
        "gpu-e", 4, "X86_64", "CentOS7", 32, 128_000, 400_000_000, 1_900_000,
        gpus=4, cuda_capability=7.0, static_slots=4, singularity=False,
    ),
    MachineType(
        "old-f", 18, "X86_64", "CentOS7", 8, 32_000, 200_000_000, 1_500_000,
        static_slots=8, singularity=False,
    ),
    MachineType(
        "ubu-g", 10, "X86_64", "Ubuntu22", 16, 64_000, 400_000_000, 2_400_000,
        static_slots=16,
    ),
)

# -- job shapes ------------------------------------------------------------------

_BASE_REQS = (
    '(TARGET.Arch == "{arch}") && (TARGET.OpSys == "LINUX") && '
    "(TARGET.Disk >= RequestDisk) && (TARGET.Memory >= RequestMemory) && "
    "(TARGET.Cpus >= RequestCpus) && (TARGET.HasFileTransfer)"
)
#: name -> (Requirements, GPUs requested). The texts follow condor_submit's defaults.
REQUIREMENT_VARIANTS: tuple[tuple[str, str, int], ...] = (
    ("x86", _BASE_REQS.format(arch="X86_64"), 0),
    ("x86-el9", _BASE_REQS.format(arch="X86_64") + ' && (TARGET.OpSysAndVer == "AlmaLinux9")', 0),
    ("arm", _BASE_REQS.format(arch="aarch64"), 0),
    (
        "any-arch",
        '((TARGET.Arch == "X86_64") || (TARGET.Arch == "aarch64")) && '
        '(TARGET.OpSys == "LINUX") && (TARGET.Disk >= RequestDisk) && '
        "(TARGET.Memory >= RequestMemory) && (TARGET.Cpus >= RequestCpus) && "
        "(TARGET.HasFileTransfer)",
        0,
    ),
    ("singularity", _BASE_REQS.format(arch="X86_64") + " && (TARGET.HasSingularity)", 0),
    (
        "gpu",
        _BASE_REQS.format(arch="X86_64")
        + " && (TARGET.GPUs >= RequestGPUs) && (TARGET.CUDACapability >= 7.0)",
        1,
    ),
)
RANK_VARIANTS: tuple[str, ...] = (
    "0.0",
    "TARGET.KFlops",
    "TARGET.Memory",
    '(TARGET.OpSysAndVer == "AlmaLinux9") * 100',
)
#: The unique per-slot attributes a ranked autocluster may rank on (``rank_fraction``).
UNIQUE_RANKS: tuple[str, ...] = ("KFlops", "Mips", "-LoadAvg", "Memory")
#: With ``rank_fraction`` set, the autoclusters that do not rank on a unique attribute
#: take the rank of this list at the index of the one ``RANK_VARIANTS`` gave them (so
#: shapes stay distinct): each reads attributes with a few values per machine type.
NEUTRAL_RANKS: tuple[str, ...] = (
    "0.0",
    '(TARGET.Arch == "X86_64") * 10',
    "(TARGET.HasSingularity =?= true) * 10",
    '(TARGET.OpSysAndVer == "AlmaLinux9") * 100',
)
REQUEST_CPUS = (1, 2, 4, 8, 16)
REQUEST_MEMORY = (1024, 2048, 3072, 4096, 8192, 16384, 32768)
REQUEST_DISK = (1_000_000, 4_000_000, 20_000_000)


@dataclass(frozen=True)
class JobShape:
    """The significant attributes of one autocluster."""

    requirements: str
    rank: str
    cpus: int
    memory: int
    disk: int
    gpus: int


@dataclass(frozen=True)
class PoolSpec:
    """What to generate. ``groups`` (accounting group names) are handed to submitters
    round-robin; empty means no AccountingGroup attribute on any job.

    The real-pool properties (module doc, "Real pools") are off by default, and then
    the files are byte for byte what they were before the properties existed."""

    slots: int
    jobs: int
    submitters: int = 10
    autoclusters: int = 50
    seed: int = 0
    claimed_fraction: float = 0.15
    groups: tuple[str, ...] = ()
    realistic: bool = False  # ~160-attribute slot ads, ~85-attribute job ads
    unique: bool = False  # per-slot KFlops, Mips, LoadAvg, KeyboardIdle, free disk...
    rank_fraction: float | None = None  # autoclusters ranking on UNIQUE_RANKS
    rank_on: tuple[str, ...] = UNIQUE_RANKS
    partitionable_fraction: float | None = None  # None: the machine type decides
    owner_start_fraction: float = 0.0  # machines whose START reads KeyboardIdle, Owner
    disk_share: bool = False  # Disk = the slot's share of the machine's free disk
    preemption_requirements: str = ""  # written to the pool's config with priorities

    def __post_init__(self) -> None:
        for name in ("slots", "jobs", "autoclusters"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0")
        if self.submitters < 1:
            raise ValueError("submitters must be >= 1")
        if self.jobs and self.autoclusters < 1:
            raise ValueError("autoclusters must be >= 1 when there are jobs")
        for name in ("claimed_fraction", "rank_fraction", "partitionable_fraction",
                     "owner_start_fraction"):
            value = getattr(self, name)
            if value is not None and not 0.0 <= value <= 1.0:
                raise ValueError(f"{name} must be within [0, 1]")
        if not self.rank_on or not set(self.rank_on) <= set(UNIQUE_RANKS):
            raise ValueError(f"rank_on must name some of {', '.join(UNIQUE_RANKS)}")

    @property
    def slot_properties(self) -> bool:
        """True when a slot property is on (the slots then go through ``_Realism``)."""
        return (self.realistic or self.unique or self.partitionable_fraction is not None
                or self.owner_start_fraction > 0 or self.disk_share)


def submitter_names(spec: PoolSpec) -> list[str]:
    """Owner names ``u001`` ... (zero-padded to the width of the count)."""
    width = max(3, len(str(spec.submitters)))
    return [f"u{i:0{width}d}" for i in range(1, spec.submitters + 1)]


def _shape_weight(req: tuple[str, str, int], cpus: int, memory: int, disk: int) -> float:
    """Small single-core jobs are common, big and GPU jobs rarer (a typical HTC queue)."""
    weight = 1.0 / cpus / math.sqrt(memory / 1024) / math.sqrt(disk / 1_000_000)
    return weight * (0.3 if req[2] else 1.0)


def job_shapes(spec: PoolSpec) -> list[JobShape]:
    """Exactly ``spec.autoclusters`` distinct shapes, seeded weighted sampling without
    replacement (key = u ** (1/w), largest first; ties cannot matter since u is a float
    from one seeded stream and the sort also carries the combination index)."""
    rng = random.Random(f"{spec.seed}:shapes")
    combos = list(itertools.product(REQUIREMENT_VARIANTS, RANK_VARIANTS, REQUEST_CPUS,
                                    REQUEST_MEMORY, REQUEST_DISK))
    keyed = []
    for index, (req, _rank, cpus, memory, disk) in enumerate(combos):
        weight = _shape_weight(req, cpus, memory, disk)
        keyed.append((-(rng.random() ** (1.0 / weight)), index))
    order = [index for _key, index in sorted(keyed)]
    shapes: list[JobShape] = []
    for k in range(spec.autoclusters):
        layer, pos = divmod(k, len(order))
        req, rank, cpus, memory, disk = combos[order[pos]]
        shapes.append(JobShape(req[1], rank, cpus, memory + 64 * layer, disk, req[2]))
    if spec.rank_fraction is not None:
        shapes = _unique_ranks(spec, shapes)
    return shapes


def rank_text(attribute: str, qualified: bool) -> str:
    """``Rank`` on one of ``UNIQUE_RANKS``: ``TARGET.KFlops`` or the textbook
    ``KFlops`` (unqualified: the job has no such attribute, so it is the slot's);
    ``-LoadAvg`` prefers the least loaded slot."""
    sign, name = ("-", attribute[1:]) if attribute.startswith("-") else ("", attribute)
    return f"{sign}TARGET.{name}" if qualified else f"{sign}{name}"


def _unique_ranks(spec: PoolSpec, shapes: list[JobShape]) -> list[JobShape]:
    """Exactly round(rank_fraction x K) shapes (a seeded sample) rank on an attribute
    of ``spec.rank_on``; the others take ``NEUTRAL_RANKS``. A shape that became equal
    to an earlier one takes 64 MB more memory until it is distinct."""
    rng = random.Random(f"{spec.seed}:ranks")
    ranked = set(rng.sample(range(len(shapes)), round(spec.rank_fraction * len(shapes))))
    out: list[JobShape] = []
    seen: set[JobShape] = set()
    for k, shape in enumerate(shapes):
        if k in ranked:
            rank = rank_text(rng.choice(spec.rank_on), rng.random() < 0.5)
        else:
            rank = NEUTRAL_RANKS[RANK_VARIANTS.index(shape.rank)]
        shape = replace(shape, rank=rank)
        while shape in seen:
            shape = replace(shape, memory=shape.memory + 64)
        seen.add(shape)
        out.append(shape)
    return out


def _apportion(total: int, weights: list[float]) -> list[int]:
    """Integers summing to ``total``, each >= 1 when total >= len(weights), proportional
    to the weights otherwise (largest remainder; ties by lower index)."""
    n = len(weights)
    if n == 0:
        return []
    base = [1] * n if total >= n else [0] * n
    rest = total - sum(base)
    wsum = sum(weights)
    exact = [rest * w / wsum for w in weights]
    counts = [b + math.floor(e) for b, e in zip(base, exact, strict=True)]
    left = total - sum(counts)
    by_remainder = sorted(range(n), key=lambda i: (-(exact[i] - math.floor(exact[i])), i))
    for i in by_remainder[:left]:
        counts[i] += 1
    return counts


# -- slots -----------------------------------------------------------------------


def _slot_common(mt: MachineType, host: str) -> Ad:
    ad: Ad = [
        ("MyType", "Machine"),
        ("TargetType", "Job"),
        ("Machine", host),
        ("Arch", mt.arch),
        ("OpSys", "LINUX"),
        ("OpSysAndVer", mt.opsys_and_ver),
        ("CondorVersion", CONDOR_VERSION),
        ("FileSystemDomain", host),
        ("UidDomain", DOMAIN),
        ("HasFileTransfer", True),
        ("HasSingularity", mt.singularity),
        ("KFlops", mt.kflops),
        ("TotalCpus", mt.cpus),
        ("TotalMemory", mt.memory),
        ("DetectedCpus", mt.cpus),
        ("DetectedMemory", mt.memory),
    ]
    if mt.gpus:
        ad += [("TotalGPUs", mt.gpus), ("CUDACapability", mt.cuda_capability)]
    return ad


def _slot_policy() -> Ad:
    return [
        ("Start", True),
        ("Requirements", Expr("START && WithinResourceLimits")),
        ("WithinResourceLimits", Expr(WITHIN_RESOURCE_LIMITS)),
        ("Rank", 0.0),
        ("CurrentRank", 0.0),
        ("SlotWeight", Expr("Cpus")),
    ]


def _claim_attrs(user: str, group: str | None, start: int) -> Ad:
    remote = f"{group}.{user}@{DOMAIN}" if group else f"{user}@{DOMAIN}"
    ad: Ad = [
        ("State", "Claimed"),
        ("Activity", "Busy"),
        ("RemoteOwner", remote),
        ("RemoteUser", remote),
    ]
    if group:
        ad.append(("AccountingGroup", remote))
    ad += [
        ("EnteredCurrentActivity", start),
        ("JobStart", start),
        ("TotalJobRunTime", BASE_TIME - start),
    ]
    return ad


def _idle_attrs(rng: random.Random) -> Ad:
    entered = BASE_TIME - rng.randrange(60, 86_400)
    return [("State", "Unclaimed"), ("Activity", "Idle"), ("EnteredCurrentActivity", entered)]


def _get(ad: Ad, name: str) -> object:
    return next((value for key, value in ad if key == name), None)


def _set(ad: Ad, name: str, value: object) -> None:
    """Replace the value of ``name`` in place, or append it."""
    for i, (key, _value) in enumerate(ad):
        if key == name:
            ad[i] = (name, value)
            return
    ad.append((name, value))


@dataclass(frozen=True)
class _Machine:
    """What the slots of one machine share (``_Realism``)."""

    mt: MachineType
    host: str
    number: int  # the machine's position in the pool (for its address)
    free_disk: int  # KB free on the execute partition, as the startd reports TotalDisk
    keyboard: int  # seconds since the console was last used
    owner: str | None  # the desktop owner of an owner-START machine


#: A desktop owner's policy (HTCondor manual, "desktop" policies): run jobs when the
#: keyboard has been idle for 15 minutes, the owner's own jobs at any time; prefer them.
OWNER_START = '(KeyboardIdle > 15 * 60) || (TARGET.Owner == "{owner}")'
OWNER_RANK = 'TARGET.Owner == "{owner}"'


class _Realism:
    """The real-pool slot properties (module doc, "Real pools"): each draws from its own
    seeded stream, created only when the property is on, so that the default pool
    consumes exactly the random numbers it always did."""

    def __init__(self, spec: PoolSpec) -> None:
        self.spec = spec
        self.users = submitter_names(spec)
        self.layout = random.Random(f"{spec.seed}:layout")
        self.numbers = random.Random(f"{spec.seed}:unique")
        self.owners = random.Random(f"{spec.seed}:owners")
        self.disk = random.Random(f"{spec.seed}:disk")
        self.filler = random.Random(f"{spec.seed}:filler")
        self.machines = 0
        self.running = 0  # running jobs seen in claimed slots (their JobIds)

    def machine_type(self, mt: MachineType) -> MachineType:
        """With ``partitionable_fraction``: a partitionable machine with that chance,
        else static slots (one per GPU, else one per 4 cores)."""
        fraction = self.spec.partitionable_fraction
        if fraction is None:
            return mt
        if self.layout.random() < fraction:
            return replace(mt, static_slots=0)
        return mt if mt.static_slots else replace(mt, static_slots=mt.gpus or mt.cpus // 4)

    def machine(self, mt: MachineType, host: str) -> _Machine:
        self.machines += 1
        spec = self.spec
        free, keyboard = mt.disk, 14 * 86_400
        if spec.unique:
            free = int(mt.disk * self.numbers.uniform(0.35, 0.98))
            keyboard = self.numbers.randrange(86_400, 60 * 86_400)
        owner = None
        if spec.owner_start_fraction and self.owners.random() < spec.owner_start_fraction:
            owner = self.users[self.owners.randrange(len(self.users))]
            # somebody is at the desktop a third of the time
            keyboard = (self.owners.randrange(0, 900) if self.owners.random() < 1 / 3
                        else self.owners.randrange(900, 5 * 86_400))
        return _Machine(mt, host, self.machines, free, keyboard, owner)

    def finish(self, ad: Ad, m: _Machine) -> Ad:
        """The slot ad with the properties applied, in place of the generator's values."""
        spec, mt = self.spec, m.mt
        claimed = _get(ad, "State") == "Claimed"
        if spec.disk_share:  # the slot's part of the free disk, read at its own update
            share = int(m.free_disk * (_get(ad, "Disk") / mt.disk))
            _set(ad, "Disk", share - self.disk.randrange(0, max(1, share // 100)))
        keyboard = m.keyboard
        if spec.unique:
            rng = self.numbers
            _set(ad, "KFlops", int(mt.kflops * rng.uniform(0.85, 1.1)))
            _set(ad, "Mips", int(mt.mips * rng.uniform(0.85, 1.1)))
            load = _get(ad, "LoadAvg") or 0.0
            _set(ad, "LoadAvg", round(load * rng.uniform(0.85, 1.05) + rng.uniform(0, 0.3), 4))
            keyboard += rng.randrange(0, 600)  # each slot's own update time
            entered = _get(ad, "EnteredCurrentActivity") - rng.randrange(0, 86_400)
            _set(ad, "EnteredCurrentState", entered)
            _set(ad, "TotalDisk", m.free_disk)
        if spec.unique or m.owner or spec.realistic:
            _set(ad, "KeyboardIdle", keyboard)
            _set(ad, "ConsoleIdle", keyboard)
        if m.owner:
            _set(ad, "Start", Expr(OWNER_START.format(owner=m.owner)))
            _set(ad, "Rank", Expr(OWNER_RANK.format(owner=m.owner)))
            mine = claimed and str(_get(ad, "RemoteOwner")).startswith(f"{m.owner}@")
            _set(ad, "CurrentRank", 1.0 if mine else 0.0)
            _set(ad, "MachineOwner", m.owner)
        if spec.realistic:
            ad = self._filled(ad, m, claimed)
        return ad

    def _filled(self, ad: Ad, m: _Machine, claimed: bool) -> Ad:
        mt, rng = m.mt, self.filler
        if claimed:
            self.running += 1
            start = _get(ad, "JobStart")
            ad = realads.fill(ad, realads.claim_extras(
                rng, job_id=f"{self.spec.jobs + self.running}.0", start=start,
                now=BASE_TIME, submit_host=f"submit01.{DOMAIN}"))
        ad = realads.fill(ad, [("Mips", mt.mips)])
        n = m.number
        ad = realads.fill(ad, realads.slot_extras(
            rng, host=m.host, ip=f"10.{n >> 16 & 255}.{n >> 8 & 255}.{n & 255}",
            arch=mt.arch, opsys=mt.opsys_and_ver, cpus=mt.cpus, memory=mt.memory,
            disk=m.free_disk, gpus=mt.gpus, slots=mt.static_slots or 1, busy=claimed,
            entered=_get(ad, "EnteredCurrentActivity"), now=BASE_TIME))
        return realads.ordered(ad)


class _SlotMaker:
    """Turns one machine into its slot ads (a stateful helper so the generator stays short)."""

    def __init__(self, spec: PoolSpec, rng: random.Random) -> None:
        self.spec = spec
        self.rng = rng
        self.users = submitter_names(spec)
        self.realism = _Realism(spec) if spec.slot_properties else None

    def _claimant(self) -> tuple[str, str | None]:
        i = self.rng.randrange(len(self.users))
        group = self.spec.groups[i % len(self.spec.groups)] if self.spec.groups else None
        return self.users[i], group

    def _tail(self, load: float) -> Ad:
        return [("LoadAvg", round(load, 3)), ("MyCurrentTime", BASE_TIME),
                ("LastHeardFrom", BASE_TIME)]

    def machine(self, mt: MachineType, host: str) -> Iterator[Ad]:
        realism = self.realism
        if realism is not None:
            mt = realism.machine_type(mt)
        ads = self._static(mt, host) if mt.static_slots else self._partitionable(mt, host)
        if realism is None:
            yield from ads
            return
        facts = realism.machine(mt, host)
        for ad in ads:
            yield realism.finish(ad, facts)

    def _static(self, mt: MachineType, host: str) -> Iterator[Ad]:
        n = mt.static_slots
        for slot_id in range(1, n + 1):
            ad = [("Name", f"slot{slot_id}@{host}"), *_slot_common(mt, host),
                  ("SlotType", "Static"), ("SlotID", slot_id),
                  ("Cpus", mt.cpus // n), ("Memory", mt.memory // n), ("Disk", mt.disk // n)]
            if mt.gpus:
                ad.append(("GPUs", mt.gpus // n))
            ad += _slot_policy()
            if self.rng.random() < self.spec.claimed_fraction:
                user, group = self._claimant()
                ad += _claim_attrs(user, group, BASE_TIME - self.rng.randrange(60, 172_800))
                load = float(mt.cpus // n)
            else:
                ad += _idle_attrs(self.rng)
                load = 0.0
            yield ad + self._tail(load)

    def _partitionable(self, mt: MachineType, host: str) -> Iterator[Ad]:
        children: list[Ad] = []
        free_cpus, free_mem, free_disk, free_gpus = mt.cpus, mt.memory, mt.disk, mt.gpus
        # Claimed dynamic slots: a claimed fraction f of the machine on average.
        while self.rng.random() < self.spec.claimed_fraction * 2 and len(children) < 6:
            cpus = self.rng.choice((1, 1, 2, 4, 8))
            mem = cpus * self.rng.choice((1024, 2048, 4096))
            disk = 4_000_000 * cpus
            gpus = 1 if free_gpus and self.rng.random() < 0.5 else 0
            if cpus > free_cpus or mem > free_mem or disk > free_disk:
                break
            free_cpus, free_mem, free_disk, free_gpus = (
                free_cpus - cpus, free_mem - mem, free_disk - disk, free_gpus - gpus)
            user, group = self._claimant()
            ad = [("Name", f"slot1_{len(children) + 1}@{host}"), *_slot_common(mt, host),
                  ("SlotType", "Dynamic"), ("DynamicSlot", True), ("SlotID", 1),
                  ("Cpus", cpus), ("Memory", mem), ("Disk", disk)]
            if mt.gpus:
                ad.append(("GPUs", gpus))
            ad += _slot_policy()
            ad += _claim_attrs(user, group, BASE_TIME - self.rng.randrange(60, 172_800))
            children.append(ad + self._tail(float(cpus)))
        pslot = [("Name", f"slot1@{host}"), *_slot_common(mt, host),
                 ("SlotType", "Partitionable"), ("PartitionableSlot", True), ("SlotID", 1),
                 ("Cpus", free_cpus), ("Memory", free_mem), ("Disk", free_disk),
                 ("TotalSlotCpus", mt.cpus), ("TotalSlotMemory", mt.memory),
                 ("TotalSlotDisk", mt.disk)]
        if mt.gpus:
            pslot += [("GPUs", free_gpus), ("TotalSlotGPUs", mt.gpus)]
        pslot += [("NumDynamicSlots", len(children))]
        pslot += _slot_policy() + _idle_attrs(self.rng)
        yield pslot + self._tail(float(mt.cpus - free_cpus))
        yield from children


def generate_slots(spec: PoolSpec) -> Iterator[Ad]:
    """Exactly ``spec.slots`` slot ads, machine by machine."""
    rng = random.Random(f"{spec.seed}:slots")
    maker = _SlotMaker(spec, rng)
    weights = [mt.weight for mt in MACHINE_TYPES]
    counters = {mt.prefix: 0 for mt in MACHINE_TYPES}
    produced = 0
    while produced < spec.slots:
        mt = rng.choices(MACHINE_TYPES, weights=weights)[0]
        counters[mt.prefix] += 1
        host = f"{mt.prefix}{counters[mt.prefix]:05d}.{DOMAIN}"
        for ad in maker.machine(mt, host):
            if produced == spec.slots:
                return
            produced += 1
            yield ad


# -- jobs ------------------------------------------------------------------------


def _shape_owners(spec: PoolSpec, n_shapes: int) -> list[list[int]]:
    """For each submitter, the indices of the shapes it submits."""
    owned: list[list[int]] = [[] for _ in range(spec.submitters)]
    if n_shapes >= spec.submitters:
        for k in range(n_shapes):
            owned[k % spec.submitters].append(k)
    else:
        for i in range(spec.submitters):
            owned[i].append(i % n_shapes)
    return owned


def _clusters(spec: PoolSpec, n_shapes: int, rng: random.Random) -> list[tuple[int, int, int]]:
    """(submitter index, shape index, procs) per cluster, in submission order."""
    owned = _shape_owners(spec, n_shapes)
    pairs = [(i, k) for i, ks in enumerate(owned) for k in ks]
    weights = [rng.lognormvariate(0.0, 1.0) for _ in pairs]
    counts = _apportion(spec.jobs, weights)
    clusters = []
    for (user, shape), count in zip(pairs, counts, strict=True):
        while count > 0:
            procs = min(count, rng.randint(1, 200))
            clusters.append((user, shape, procs))
            count -= procs
    rng.shuffle(clusters)
    return clusters


def _job_ad(spec: PoolSpec, owner: str, group: str | None, shape: JobShape,
            cluster: int, proc: int, qdate: int, prio: int) -> Ad:
    ad: Ad = [
        ("MyType", "Job"),
        ("TargetType", "Machine"),
        ("ClusterId", cluster),
        ("ProcId", proc),
        ("GlobalJobId", f"submit01.{DOMAIN}#{cluster}.{proc}#{qdate}"),
        ("Owner", owner),
        ("User", f"{owner}@{DOMAIN}"),
    ]
    if group:
        ad.append(("AccountingGroup", f"{group}.{owner}"))
    ad += [
        ("JobUniverse", 5),
        ("JobStatus", 1),
        ("QDate", qdate),
        ("EnteredCurrentStatus", qdate),
        ("JobPrio", prio),
        ("NiceUser", False),
        ("RequestCpus", shape.cpus),
        ("RequestMemory", shape.memory),
        ("RequestDisk", shape.disk),
    ]
    if shape.gpus:
        ad.append(("RequestGPUs", shape.gpus))
    ad += [
        ("ShouldTransferFiles", "YES"),
        ("Requirements", Expr(shape.requirements)),
        ("Rank", Expr(shape.rank) if shape.rank != "0.0" else 0.0),
        ("Cmd", f"/home/{owner}/bin/run.sh"),
        ("Iwd", f"/home/{owner}/work/{cluster}"),
    ]
    return ad


def generate_jobs(spec: PoolSpec) -> Iterator[Ad]:
    """Exactly ``spec.jobs`` idle job ads in ClusterId.ProcId order."""
    if spec.jobs == 0:
        return
    rng = random.Random(f"{spec.seed}:jobs")
    filler = random.Random(f"{spec.seed}:jobfiller") if spec.realistic else None
    shapes = job_shapes(spec)
    users = submitter_names(spec)
    qdate0 = BASE_TIME - 7 * 86_400
    for n, (user, shape_index, procs) in enumerate(_clusters(spec, len(shapes), rng), start=1):
        group = spec.groups[user % len(spec.groups)] if spec.groups else None
        prio = rng.choice((0, 0, 0, 0, 0, 0, 5, -5, 10))
        qdate = qdate0 + 7 * n
        cluster_seed = filler.getrandbits(32) if filler is not None else 0
        for proc in range(procs):
            ad = _job_ad(spec, users[user], group, shapes[shape_index], n, proc, qdate, prio)
            if filler is not None:
                ad = realads.ordered(realads.fill(ad, realads.job_extras(
                    filler, owner=users[user], cluster=n, proc=proc, qdate=qdate,
                    procs=procs, submit_host=f"submit01.{DOMAIN}",
                    cluster_seed=cluster_seed)))
            yield ad


# -- writers ---------------------------------------------------------------------


def _old_value(value: object) -> str:
    if isinstance(value, Expr):
        return str(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    text = str(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


def _json_value(value: object) -> str:
    if isinstance(value, Expr):
        # condor_status -json writes expressions as "\/Expr(...)\/" strings.
        return '"\\/Expr(' + json.dumps(str(value), ensure_ascii=False)[1:-1] + ')\\/"'
    return json.dumps(value, ensure_ascii=False)


def write_ads(ads: Iterable[Ad], path: Path, fmt: str) -> int:
    """Stream ads to ``path`` in ``old`` (``-long``) or ``json`` (``-json``) layout.
    Returns the number of ads written."""
    if fmt not in ("old", "json"):
        raise ValueError(f"unknown format {fmt!r} (old or json)")
    count = 0
    with path.open("w", encoding="utf-8", newline="\n") as out:
        for ad in ads:
            if fmt == "old":
                out.write("\n" if count else "")
                out.writelines(f"{name} = {_old_value(value)}\n" for name, value in ad)
            else:
                out.write("[\n" if count == 0 else ",\n")
                body = ",\n".join(f'  "{name}": {_json_value(value)}' for name, value in ad)
                out.write("{\n" + body + "\n}\n")
            count += 1
        if fmt == "json":
            out.write("]\n" if count else "[\n]\n")
    return count


@dataclass(frozen=True)
class PoolFiles:
    slots_path: Path
    jobs_path: Path
    slots: int
    jobs: int
    config_path: Path | None = None
    priorities_path: Path | None = None  # condor_userprio -long, for ``condorlite import``


_TREE_PREFIXES = "gst"


def group_tree(fanouts: Iterable[int]) -> tuple[str, ...]:
    """Group names of a tree with the given fan-out per level, breadth first (module
    doc); level k's names use the letter ``"gst"[k]`` (``u`` onwards past three)."""
    names: list[str] = []
    level: list[str] = [""]
    for depth, fanout in enumerate(fanouts):
        if fanout < 1:
            raise ValueError("every fan-out must be >= 1")
        letter = _TREE_PREFIXES[depth] if depth < len(_TREE_PREFIXES) else chr(ord("u") + depth - 3)
        level = [f"{parent}.{letter}{i}" if parent else f"{letter}{i}"
                 for parent in level for i in range(1, fanout + 1)]
        names += level
    return tuple(names)


def group_config(groups: Iterable[str]) -> str:
    """The ``groups.toml`` text for ``groups`` (module doc). Keys are quoted: group
    names hold dots, which TOML would read as tables."""
    names = list(groups)
    parent = {g: g.rsplit(".", 1)[0] if "." in g else "" for g in names}
    siblings: dict[str, int] = {}
    for g in names:
        siblings[parent[g]] = siblings.get(parent[g], 0) + 1
    lines = [
        "# Generated by benchmarks/genpool.py: a group tree with dynamic quotas.",
        f'UID_DOMAIN = "{DOMAIN}"',
        "GROUP_NAMES = [" + ", ".join(f'"{g}"' for g in names) + "]",
        "GROUP_ACCEPT_SURPLUS = true",
    ]
    lines += [f'"GROUP_QUOTA_DYNAMIC_{g}" = {1.0 / siblings[parent[g]]!r}' for g in names]
    return "\n".join(lines) + "\n"


def config_name(spec: PoolSpec) -> str | None:
    """The pool's config file: ``groups.toml`` with groups only, ``pool.toml`` when the
    spec sets a negotiator knob (groups, if any, in it too), else none."""
    if spec.preemption_requirements:
        return "pool.toml"
    return "groups.toml" if spec.groups else None


def pool_config(spec: PoolSpec) -> str:
    """The text of the pool's config file (``config_name``)."""
    if not spec.preemption_requirements:
        return group_config(spec.groups)
    lines = ["# Generated by benchmarks/genpool.py: the pool's negotiator knobs.",
             f'UID_DOMAIN = "{DOMAIN}"',
             f"PREEMPTION_REQUIREMENTS = {json.dumps(spec.preemption_requirements)}"]
    if spec.groups:
        lines += group_config(spec.groups).splitlines()[2:]
    return "\n".join(lines) + "\n"


def submitter_records(spec: PoolSpec) -> Iterator[Ad]:
    """One ``condor_userprio -allusers -long`` record per submitter, with priorities
    spread over three and a half decades (seeded), so that a PREEMPTION_REQUIREMENTS
    comparing ``RemoteUserPrio`` with ``SubmitterUserPrio`` has both answers."""
    rng = random.Random(f"{spec.seed}:priorities")
    for i, user in enumerate(submitter_names(spec)):
        group = spec.groups[i % len(spec.groups)] if spec.groups else None
        name = f"{group}.{user}@{DOMAIN}" if group else f"{user}@{DOMAIN}"
        real = round(0.5 * 10 ** rng.uniform(0.0, 3.5), 3)
        used = float(rng.randrange(0, 50_000_000))
        yield [("Name", name), ("Priority", round(real * 1000.0, 3)),
               ("PriorityFactor", 1000.0), ("RealPriority", real),
               ("ResourcesUsed", 0), ("WeightedResourcesUsed", 0.0),
               ("AccumulatedUsage", used), ("WeightedAccumulatedUsage", used),
               ("BeginUsageTime", BASE_TIME - 90 * 86_400),
               ("LastUsageTime", BASE_TIME - rng.randrange(0, 86_400)),
               ("LastUpdate", BASE_TIME)]


def write_pool(spec: PoolSpec, out_dir: Path, fmt: str = "old") -> PoolFiles:
    """Write ``slots.<ext>`` and ``jobs.<ext>`` into ``out_dir`` (created if needed), the
    config file ``config_name`` names, and with PREEMPTION_REQUIREMENTS the submitters'
    priorities as ``userprio.ads``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    ext = "ads" if fmt == "old" else "json"
    slots_path, jobs_path = out_dir / f"slots.{ext}", out_dir / f"jobs.{ext}"
    n_slots = write_ads(generate_slots(spec), slots_path, fmt)
    n_jobs = write_ads(generate_jobs(spec), jobs_path, fmt)
    config = priorities = None
    if (name := config_name(spec)) is not None:
        config = out_dir / name
        config.write_text(pool_config(spec), encoding="utf-8")
    if spec.preemption_requirements:
        priorities = out_dir / "userprio.ads"
        write_ads(submitter_records(spec), priorities, "old")
    return PoolFiles(slots_path, jobs_path, n_slots, n_jobs, config, priorities)


def groups_from_args(flat: str, tree: str) -> tuple[str, ...]:
    if tree:
        try:
            fanouts = [int(x) for x in tree.split(",") if x.strip()]
        except ValueError as exc:
            raise ValueError(f"bad --group-tree {tree!r}: want fan-outs like 2,4,5") from exc
        return group_tree(fanouts)
    return tuple(g for g in flat.split(",") if g)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slots", type=int, required=True, help="number of slot ads")
    parser.add_argument("--jobs", type=int, required=True, help="number of idle job ads")
    parser.add_argument("--submitters", type=int, default=10)
    parser.add_argument("--autoclusters", type=int, default=50)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--claimed-fraction", type=float, default=0.15)
    parser.add_argument("--groups", default="", help="comma-separated accounting groups")
    parser.add_argument("--group-tree", default="",
                        help="fan-out per level of a generated group tree, e.g. 2,4,5 "
                             "(50 groups in 3 levels); replaces --groups")
    parser.add_argument("--format", choices=("old", "json"), default="old")
    parser.add_argument("--out", type=Path, required=True, help="output directory")
    add_property_arguments(parser)
    args = parser.parse_args(argv)
    try:
        spec = PoolSpec(
            slots=args.slots, jobs=args.jobs, submitters=args.submitters,
            autoclusters=args.autoclusters, seed=args.seed,
            claimed_fraction=args.claimed_fraction,
            groups=groups_from_args(args.groups, args.group_tree),
            **property_fields(args),
        )
    except ValueError as exc:
        parser.error(str(exc))
    files = write_pool(spec, args.out, args.format)
    print(f"{files.slots} slots -> {files.slots_path}")
    print(f"{files.jobs} jobs -> {files.jobs_path}")
    if files.config_path is not None:
        print(f"config -> {files.config_path}")
    if files.priorities_path is not None:
        print(f"{spec.submitters} submitter priorities -> {files.priorities_path}")
    return 0


def add_property_arguments(parser: argparse.ArgumentParser) -> None:
    """The flags of the real-pool properties (``PoolSpec``; all off by default)."""
    group = parser.add_argument_group("real-pool properties (each independent; off by default)")
    group.add_argument("--realistic", action="store_true",
                       help="slot ads of ~160 attributes, job ads of ~85 (realads.py)")
    group.add_argument("--unique-numbers", action="store_true",
                       help="KFlops, Mips, LoadAvg, KeyboardIdle, EnteredCurrentState and "
                            "the machine's free disk (TotalDisk) differ slot by slot")
    group.add_argument("--rank-fraction", type=float, default=None, metavar="F",
                       help="this fraction of autoclusters rank on a unique attribute "
                            "(--rank-on), the others on few-valued ones")
    group.add_argument("--rank-on", default=",".join(UNIQUE_RANKS), metavar="ATTRS",
                       help="what the ranked autoclusters rank on (default: %(default)s)")
    group.add_argument("--partitionable-fraction", type=float, default=None, metavar="F",
                       help="this fraction of machines is partitionable, the rest static "
                            "(default: the machine type decides)")
    group.add_argument("--owner-start-fraction", type=float, default=0.0, metavar="F",
                       help="this fraction of machines has an owner's START "
                            "(KeyboardIdle, TARGET.Owner) and Rank")
    group.add_argument("--disk-share", action="store_true",
                       help="Disk = the slot's share of the machine's free disk")
    group.add_argument("--preemption-requirements", default="", metavar="EXPR",
                       help="PREEMPTION_REQUIREMENTS for the pool's config (pool.toml), "
                            "with spread submitter priorities (userprio.ads)")


def property_fields(args: argparse.Namespace) -> dict[str, object]:
    """``PoolSpec`` keyword arguments from ``add_property_arguments``' flags."""
    return dict(
        realistic=args.realistic, unique=args.unique_numbers,
        rank_fraction=args.rank_fraction,
        rank_on=tuple(a.strip() for a in args.rank_on.split(",") if a.strip()),
        partitionable_fraction=args.partitionable_fraction,
        owner_start_fraction=args.owner_start_fraction, disk_share=args.disk_share,
        preemption_requirements=args.preemption_requirements,
    )


if __name__ == "__main__":
    sys.exit(main())
