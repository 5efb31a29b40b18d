"""A parallel job's reservation (sge_select_parallel_environment with a reservation,
sge_qeti): the earliest time from which its smallest slot count can be allocated at
every candidate time (now and every step of a diagram), walking back from the last
one; then the most slots that fit at that time (``place``'s module doc).

The walk only asks whether an allocation exists (``_feasible``), which can stop at the
first hosts that give one; the allocation is made once, at the time the walk ends on.
"""

from __future__ import annotations

from condorlite.core.sge.jobs import Job
from condorlite.core.sge.objects import Cell

from .assign import Rooms, fits
from .diagram import INFINITY
from .place import (
    Attempt,
    Placement,
    Room,
    allocate,
    matching_pes,
    slot_counts,
    usable_instances,
)
from .world import Instance, World


def _candidate_times(world: World) -> list[int]:
    """Now and every time a diagram changes after it, latest first (the diagrams'
    points are the debits' starts and ends, kept in ``World.times``)."""
    times = {world.now}
    times.update(t for t in world.times if world.now < t < INFINITY)
    return sorted(times, reverse=True)


def _has_job_consumables(world: World) -> bool:
    """Whether a host or queue instance has a JOB consumable (only the master's
    instance and host give it, so where an allocation starts matters to it). Read
    once per run: the levels' capacities do not change in it."""
    if world.job_consumables is None:
        world.job_consumables = _any_job_consumable(world)
    return world.job_consumables


def _any_job_consumable(world: World) -> bool:
    levels = [*world.hosts.values(), *(i.level for i in world.instances)]
    return any(
        (c := world.complexes.get(name)) is not None and c.consumable == "JOB"
        for level in levels
        for name in level.capacity
    )


def _feasible(
    world: World,
    cell: Cell,
    job: Job,
    pe: str,
    n: int,
    by_host: dict[str, list[Instance]],
    span: int,
    start: int,
    rooms: Rooms | None = None,
) -> bool:
    """Whether ``allocate`` of ``n`` slots from ``start`` finds an allocation, stopping
    at the first hosts that give one. The same levels, amounts and rules as
    ``allocate``: which host comes first does not change whether ``$pe_slots`` finds a
    host with ``n``, a fixed rule ``n / N`` hosts with ``N``, or ``$fill_up`` and
    ``$round_robin`` ``n`` in all; only where a JOB consumable is (the master) would,
    and ``parallel_later`` asks ``allocate`` itself then. ``rooms``: ``most_slots``
    of the job's span, not as the master (``n`` > 0, and a host's ``total`` too),
    kept by the walk for its demands."""
    for level in (world.pes[pe], world.global_level):
        if fits(world, job, level, n, True, span, start) is not None:
            return False
    rule = cell.pes[pe].allocation_rule
    per = int(rule) if rule.isdigit() else 0
    if rule.isdigit() and (per <= 0 or n % per):
        return False
    if not rule.isdigit() and rule not in ("$pe_slots", "$fill_up", "$round_robin"):
        return False
    rooms = rooms or Rooms(world, job, span)
    gathered = 0
    for host, instances in by_host.items():
        total = 0
        for inst in instances:
            k = rooms.most(inst.level, start)
            total += k if k < n else n
        if total <= 0:
            continue
        level = world.hosts.get(host)
        room = total if level is None else min(total, rooms.most(level, start))
        if rule == "$pe_slots":
            if room >= n:
                return True
        elif per:
            gathered += per if room >= per else 0
        else:
            gathered += room
        if gathered >= n and rule != "$pe_slots":
            return True
    return False


def parallel_later(
    world: World, cell: Cell, job: Job, order: list[Instance], span: int
) -> Placement | None:
    """The reservation of a parallel job (module doc). The walk back over the candidate
    times only asks whether an allocation exists (``_feasible``, which stops at the
    first hosts that give one: most candidate times lie where the queues have room);
    the allocation itself is made once, at the time the walk ends on."""
    usable = usable_instances(world, cell, job, order, Attempt([]))
    exact = _has_job_consumables(world)
    by_host: dict[str, list[Instance]] = {}
    for inst in usable:
        by_host.setdefault(inst.host, []).append(inst)
    rooms = Rooms(world, job, span)
    for pe in matching_pes(cell, job):
        counts = slot_counts(job, cell.pes[pe].slots)
        if not counts:
            continue
        best: Placement | None = None
        found: int | None = None
        for t in _candidate_times(world):
            if exact:
                placed = allocate(world, cell, job, pe, counts[0], usable, span, t, Attempt([]))
                if placed is None:
                    break
                best = placed
            elif _feasible(world, cell, job, pe, counts[0], by_host, span, t, rooms):
                found = t
            else:
                break
        at = best.start if found is None and best is not None else found
        room = None if at is None else Room(world, job, usable, span, at)
        if found is not None:
            best = allocate(world, cell, job, pe, counts[0], usable, span, found, Attempt([]),
                            room)
        if best is None:
            continue
        for n in reversed(counts[1:]):  # then as many slots as fit at that time
            more = allocate(world, cell, job, pe, n, usable, span, best.start, Attempt([]),
                            room)
            if more is not None:
                return more
        return best
    return None
