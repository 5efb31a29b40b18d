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
from dataclasses import dataclass
from pathlib import Path

#: One ad: attribute name -> value, in the order the ad prints them.
Ad = list[tuple[str, object]]

BASE_TIME = 1_700_000_000  # a fixed "now" so that the files never depend on the clock
DOMAIN = "example.org"
CONDOR_VERSION = "$CondorVersion: 24.0.4 2025-02-05 BuildID: 781123 PackageID: 24.0.4-1 $"

WITHIN_RESOURCE_LIMITS = (
    "MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && MY.Memory > 0 && "
    "TARGET.RequestMemory <= MY.Memory && MY.Disk > 0 && TARGET.RequestDisk <= MY.Disk && "
    "(TARGET.RequestGPUs =?= undefined || MY.GPUs >= TARGET.RequestGPUs)"
)


class Expr(str):
    """An attribute value that is an expression, printed unquoted (``/Expr()/`` in JSON)."""

    __slots__ = ()


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
    round-robin; empty means no AccountingGroup attribute on any job."""

    slots: int
    jobs: int
    submitters: int = 10
    autoclusters: int = 50
    seed: int = 0
    claimed_fraction: float = 0.15
    groups: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        for name in ("slots", "jobs", "autoclusters"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0")
        if self.submitters < 1:
            raise ValueError("submitters must be >= 1")
        if self.jobs and self.autoclusters < 1:
            raise ValueError("autoclusters must be >= 1 when there are jobs")
        if not 0.0 <= self.claimed_fraction <= 1.0:
            raise ValueError("claimed_fraction must be within [0, 1]")


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
    return shapes


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


class _SlotMaker:
    """Turns one machine into its slot ads (a stateful helper so the generator stays short)."""

    def __init__(self, spec: PoolSpec, rng: random.Random) -> None:
        self.spec = spec
        self.rng = rng
        self.users = submitter_names(spec)

    def _claimant(self) -> tuple[str, str | None]:
        i = self.rng.randrange(len(self.users))
        group = self.spec.groups[i % len(self.spec.groups)] if self.spec.groups else None
        return self.users[i], group

    def _tail(self, load: float) -> Ad:
        return [("LoadAvg", round(load, 3)), ("MyCurrentTime", BASE_TIME),
                ("LastHeardFrom", BASE_TIME)]

    def machine(self, mt: MachineType, host: str) -> Iterator[Ad]:
        if mt.static_slots:
            yield from self._static(mt, host)
        else:
            yield from self._partitionable(mt, host)

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
    shapes = job_shapes(spec)
    users = submitter_names(spec)
    qdate0 = BASE_TIME - 7 * 86_400
    for n, (user, shape_index, procs) in enumerate(_clusters(spec, len(shapes), rng), start=1):
        group = spec.groups[user % len(spec.groups)] if spec.groups else None
        prio = rng.choice((0, 0, 0, 0, 0, 0, 5, -5, 10))
        qdate = qdate0 + 7 * n
        for proc in range(procs):
            yield _job_ad(spec, users[user], group, shapes[shape_index], n, proc, qdate, prio)


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


def write_pool(spec: PoolSpec, out_dir: Path, fmt: str = "old") -> PoolFiles:
    """Write ``slots.<ext>`` and ``jobs.<ext>`` into ``out_dir`` (created if needed), and
    ``groups.toml`` when the spec has groups."""
    out_dir.mkdir(parents=True, exist_ok=True)
    ext = "ads" if fmt == "old" else "json"
    slots_path, jobs_path = out_dir / f"slots.{ext}", out_dir / f"jobs.{ext}"
    n_slots = write_ads(generate_slots(spec), slots_path, fmt)
    n_jobs = write_ads(generate_jobs(spec), jobs_path, fmt)
    config = None
    if spec.groups:
        config = out_dir / "groups.toml"
        config.write_text(group_config(spec.groups), encoding="utf-8")
    return PoolFiles(slots_path, jobs_path, n_slots, n_jobs, config)


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
    args = parser.parse_args(argv)
    try:
        spec = PoolSpec(
            slots=args.slots, jobs=args.jobs, submitters=args.submitters,
            autoclusters=args.autoclusters, seed=args.seed,
            claimed_fraction=args.claimed_fraction,
            groups=groups_from_args(args.groups, args.group_tree),
        )
    except ValueError as exc:
        parser.error(str(exc))
    files = write_pool(spec, args.out, args.format)
    print(f"{files.slots} slots -> {files.slots_path}")
    print(f"{files.jobs} jobs -> {files.jobs_path}")
    if files.config_path is not None:
        print(f"{len(spec.groups)} groups -> {files.config_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
