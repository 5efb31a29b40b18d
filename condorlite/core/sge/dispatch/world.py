"""The run's view of the cell: levels of consumables, queue instances, debits.

Consumables live on three levels, each an object with a capacity per resource (its
``complex_values`` entries whose complex is consumable YES or JOB, in configured
order) and a ``Diagram`` per resource:

    G  global      ``qconf -se global`` complex_values
    H  a host      its complex_values
    Q  a queue instance   the queue's complex_values for that host, then ``slots``
                          (queue_conf(5) slots, always a consumable of the instance)
    P  a parallel environment   its ``slots``

A job's contribution to a resource is its hard ``-l`` amount, else the complex's
default (``slots`` defaults to 1); it is debited per slot (consumable YES) or once, on
the master queue only (JOB). A job holds its resources on ``[start, start +
duration)``, ``duration = min(h_rt, s_rt) requested, else default_duration, +
DURATION_OFFSET``; a running job already past that end is held until ``now +
schedule_interval`` (add_job_list_to_schedule).

Queue instances that take no job in this run: states ``d`` disabled, ``s``/``S``
suspended, ``E`` error, ``A`` suspend alarm, ``u`` unknown, ``C``/``D`` calendar,
``o`` orphaned, ``c`` ambiguous configuration; and those over a load threshold, which
the run works out itself (``order.load_alarm``; qstat's ``a`` letter is the
qmaster's view without load adjustment).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from condorlite.core.sge.jobs import Job
from condorlite.core.sge.objects import Cell, Complex
from condorlite.core.sge.queues import QueueConf

from .diagram import DURATION_OFFSET, INFINITY, Diagram, add_offset, amount, end_time

if TYPE_CHECKING:  # the verdicts read the world's instances; the world only holds them
    from .verdicts import Verdicts

#: state letters that keep a queue instance out of the run.
UNAVAILABLE = frozenset("dsSEAuCDoc")


@dataclass
class Level:
    """One object's consumables: ``kind`` G/H/Q/P as the schedule file prints it."""

    kind: str
    name: str
    capacity: dict[str, float] = field(default_factory=dict)
    diagrams: dict[str, Diagram] = field(default_factory=dict)
    #: ``assign.most_slots`` answers from now while nothing is debited here, by (a
    #: job's demands on this level, span) as numbered in ``World.slot_keys``;
    #: ``debit`` empties it
    slots_known: dict[int, int] = field(default_factory=dict)

    def diagram(self, resource: str) -> Diagram:
        # not setdefault: that built a Diagram on every call (millions in a large run)
        found = self.diagrams.get(resource)
        if found is None:
            found = self.diagrams[resource] = Diagram()
        return found

    @functools.cached_property
    def signature(self) -> tuple[str, ...]:
        """The names of its consumables, in order (read once the world is built):
        levels alike in it ask a job for the same amounts (``assign._needs``)."""
        return tuple(self.capacity)


@dataclass
class Instance:
    """A queue instance in the run."""

    name: str
    queue: str
    host: str
    conf: QueueConf
    level: Level
    state: str = ""
    #: its place in the world's list of instances
    position: int = -1

    @property
    def available(self) -> bool:
        return not (set(self.state) & UNAVAILABLE)

    def free_slots(self) -> float:
        d = self.level.diagram("slots")
        return self.level.capacity.get("slots", 0.0) - d.now_used


@dataclass
class World:
    """Everything the run debits: global, hosts, queue instances (in the dump's
    order), PEs; ``schedule_based`` when ``max_reservation`` > 0 (only then Grid
    Engine keeps diagrams and writes the schedule file)."""

    complexes: dict[str, Complex]
    global_level: Level
    hosts: dict[str, Level]
    instances: list[Instance]
    pes: dict[str, Level]
    schedule_based: bool
    now: int
    default_duration: int
    interval: int
    offset: int = DURATION_OFFSET
    #: the times of every point of every diagram (each debit's start and end):
    #: a reservation's candidate times (``later``)
    times: set[int] = field(default_factory=set)
    #: each instance's level by the instance's name
    instance_levels: dict[str, Level] = field(default_factory=dict)
    #: the run's static verdicts (``verdicts.Verdicts``), made at the first question
    verdicts: Verdicts | None = None
    #: whether any queue or host has access lists / project lists (else the static
    #: verdicts do not depend on the job's user / project)
    reads_user: bool = True
    reads_project: bool = True
    #: each (demands, span) asked of ``Level.slots_known``, numbered in order
    slot_keys: dict[tuple, int] = field(default_factory=dict)
    #: whether a host or queue instance has a JOB consumable (``later``), read once
    job_consumables: bool | None = None
    #: what the job being placed needs of each kind of level (``assign._needs``)
    needs: NeedsCache = field(default_factory=lambda: NeedsCache())


@dataclass
class NeedsCache:
    """A job's needs by (level signature, slots, master), for one job at a time: the
    placement of a parallel job asks again for every queue instance at every
    candidate time, and a job's needs depend only on its requests and the kind of
    level. Another job empties it."""

    job: Job | None = None
    found: dict[tuple[tuple[str, ...], int, bool], tuple[tuple[str, float, bool], ...]] = field(
        default_factory=dict)
    #: ``assign.level_reason``'s plans for the job, by kind and level signature
    plans: dict[tuple, object] = field(default_factory=dict)

    def of(self, job: Job) -> dict[tuple[tuple[str, ...], int, bool],
                                   tuple[tuple[str, float, bool], ...]]:
        if self.job is not job:
            self.job, self.found, self.plans = job, {}, {}
        return self.found

    def plans_of(self, job: Job) -> dict[tuple, object]:
        self.of(job)
        return self.plans


def _capacity(
    pairs: tuple[tuple[str, str], ...], complexes: dict[str, Complex]
) -> dict[str, float]:
    out: dict[str, float] = {}
    for name, text in pairs:
        c = complexes.get(name) or _by_shortcut(complexes, name)
        if c is None or c.consumable == "NO":
            continue
        value = amount(text, c.type)
        if value is not None:
            out[c.name] = value
    return out


def _by_shortcut(complexes: dict[str, Complex], name: str) -> Complex | None:
    for c in complexes.values():
        if c.shortcut == name:
            return c
    return None


def _instances(cell: Cell, levels: dict[str, Level]) -> list[Instance]:
    names = list(cell.queue_instances)
    if not names:
        names = [
            f"{q.name}@{h}"
            for q in cell.queues.values()
            for h in q.hostlist
            if not h.startswith("@")
        ]
    out: list[Instance] = []
    for full in names:
        queue, _, host = full.partition("@")
        cq = cell.queues.get(queue)
        if cq is None:
            continue
        conf = cq.conf(host)
        capacity = _capacity(conf.complex_values, cell.complexes)
        capacity["slots"] = float(conf.slots)
        qi = cell.queue_instances.get(full)
        out.append(
            Instance(full, queue, host, conf, Level("Q", full, capacity), qi.state if qi else "",
                     len(out))
        )
        levels.setdefault(host, Level("H", host))
    return out


def build(cell: Cell, now: int) -> World:
    """The levels before any job is debited."""
    conf = cell.sched_conf
    g = cell.hosts.get("global")
    global_level = Level("G", "global", _capacity(g.complex_values, cell.complexes) if g else {})
    hosts = {
        name: Level("H", name, _capacity(h.complex_values, cell.complexes))
        for name, h in cell.hosts.items()
        if name != "global"
    }
    instances = _instances(cell, hosts)
    pes = {name: Level("P", name, {"slots": float(pe.slots)}) for name, pe in cell.pes.items()}
    offset = conf.params.get("DURATION_OFFSET")
    confs = [i.conf for i in instances]
    execs = list(cell.hosts.values())
    reads_user = any(c.user_lists or c.xuser_lists for c in [*confs, *execs])
    reads_project = any(c.projects or c.xprojects for c in [*confs, *execs])
    return World(
        complexes=cell.complexes,
        global_level=global_level,
        hosts=hosts,
        instances=instances,
        pes=pes,
        schedule_based=conf.max_reservation > 0,
        now=now,
        default_duration=INFINITY if conf.default_duration is None else conf.default_duration,
        interval=conf.schedule_interval,
        offset=int(offset) if offset and offset.isdigit() else DURATION_OFFSET,
        reads_user=reads_user,
        reads_project=reads_project,
        instance_levels={i.name: i.level for i in instances},
    )


# --- a job's demands ------------------------------------------------------------------


def request_of(job: Job, name: str) -> float | None:
    for r in job.hard_requests:
        if r.name == name:
            return r.amount
    return None


def contribution(job: Job, c: Complex) -> float:
    """What one slot of ``job`` uses of consumable ``c``: its request or the default."""
    requested = request_of(job, c.name)
    if requested is not None:
        return requested
    return _default(c.default, c.type)


@functools.lru_cache(maxsize=1024)
def _default(text: str, kind: str) -> float:
    return amount(text, kind) or 0.0


def wallclock(job: Job, conf: QueueConf | None = None) -> int | None:
    """``min(h_rt, s_rt)`` requested (job_get_wallclock_limit), with the queue's
    limits for a running job (its JAT_wallclock_limit); None without any."""
    limits = [int(v) for n in ("h_rt", "s_rt") if (v := request_of(job, n)) is not None]
    if conf is not None:
        limits += [v for v in (conf.h_rt, conf.s_rt) if v is not None]
    return min(limits) if limits else None


def duration(world: World, job: Job, conf: QueueConf | None = None) -> int:
    """The span a job holds its resources for in the schedule (module doc)."""
    limit = wallclock(job, conf)
    return add_offset(world.default_duration if limit is None else limit, world.offset)


@dataclass(frozen=True)
class Use:
    """One line of the schedule file: a job's use of one resource of one object."""

    level: str
    object: str
    resource: str
    amount: float


def uses(
    world: World, job: Job, grants: list[tuple[Instance, int]], slots: int, pe: str | None
) -> list[Use]:
    """A job's uses in the schedule file's order: PE, global, then per granted queue
    instance its host and the instance (add_job_utilization)."""
    out: list[Use] = []
    if pe is not None and pe in world.pes:
        out.append(Use("P", pe, "slots", float(slots)))
    out += _level_uses(world, job, world.global_level, slots, True)
    for i, (inst, n) in enumerate(grants):
        host = world.hosts.get(inst.host)
        if host is not None:
            out += _level_uses(world, job, host, n, i == 0)
        out += _level_uses(world, job, inst.level, n, i == 0)
    return out


def _level_uses(world: World, job: Job, level: Level, slots: int, master: bool) -> list[Use]:
    out: list[Use] = []
    for name in level.capacity:
        c = world.complexes.get(name)
        if c is None or c.consumable == "NO":
            continue
        per = contribution(job, c)
        if c.consumable == "JOB":
            if not master:
                continue
            n = 1
        else:
            n = slots
        if per != 0.0:
            out.append(Use(level.kind, level.name, name, per * n))
    return out


def level_of(world: World, use: Use) -> Level:
    if use.level == "G":
        return world.global_level
    if use.level == "H":
        return world.hosts[use.object]
    if use.level == "P":
        return world.pes[use.object]
    return world.instance_levels[use.object]


def debit(world: World, found: list[Use], start: int, span: int, now: bool) -> None:
    """Book ``found`` on ``[start, start + span)`` (diagrams only when schedule
    based) and, for a running or starting job, in the amounts in use now."""
    end = end_time(start, span)
    if world.schedule_based and span > 0 and end > start and found:
        world.times.update((start, end))  # Diagram.add puts a point at each
    for use in found:
        level = level_of(world, use)
        level.slots_known.clear()
        d = level.diagram(use.resource)
        if world.schedule_based and span > 0:
            d.add(start, end, use.amount)
        if now:
            d.now_used += use.amount
