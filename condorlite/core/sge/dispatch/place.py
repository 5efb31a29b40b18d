"""Placing one job: now, or as a reservation (sge_sequential_assignment,
sge_select_parallel_environment).

Sequential job (1 slot). Now: the global level must fit first (else the job cannot
start in this run at all); then the first queue instance, in the run's order, whose
static checks pass and whose host and instance fit. Reservation: over every queue
instance that takes jobs (full ones included), the start is the latest of the
global, host and instance ``earliest`` times; the earliest start wins, ties the
first in order.

Parallel job. The PE request may be a pattern: the matching PEs in the dump's order.
Now: the slot counts of the ``-pe`` range from the largest down (capped by the PE's
slots); the first count that can be allocated wins. Reservation: the smallest count
of the range fixes the start, the earliest time ``T`` such that an allocation exists
at every candidate time from ``T`` on (candidate times: now and every step of a
diagram), walking back from the last candidate as sge_qeti does; then the largest
count that can be allocated at ``T`` is reserved. Allocation of ``n`` slots at
``t`` over the usable instances (static checks pass, PE and global level fit ``n``):
per host the most slots its host level takes, per instance the most its own level
takes, then by ``allocation_rule``:

    $pe_slots    all n on the first host that has n
    N (integer)  N on each of the first n / N hosts that have N (n a multiple of N)
    $fill_up     hosts in order, each as many as it has, until n
    $round_robin one slot per host per round, hosts in order, until n

The first granted instance is the master (JOB consumables are debited there only):
on the first host the instances are taken in order and each goes to the front of the
grant list, so the last one taken there is the master (``d18_pe_two_queues``: 2 slots
of all.q, then 1 of q_b, which is the master and listed first).
"""

from __future__ import annotations

import fnmatch
import itertools
import operator
from dataclasses import dataclass, field

from condorlite.core.sge.jobs import Job
from condorlite.core.sge.objects import Cell

from .assign import (
    QuickFit,
    Shortfall,
    earliest,
    fits,
    level_reason,
    most_slots,
    most_slots_each,
    shortfall_text,
)
from .diagram import INFINITY
from .rules import by_rule, master_first, offered
from .verdicts import KindVerdicts, Verdicts
from .world import Instance, World


@dataclass
class Placement:
    """Where a job goes: ``grants`` are (instance, slots), the master first."""

    grants: list[tuple[Instance, int]]
    slots: int
    start: int
    pe: str | None = None


@dataclass
class Attempt:
    """The reasons collected while trying (qstat -j wording), in order, once each."""

    reasons: list[str]
    #: per PE, the slots the last allocation tried could gather
    offered: dict[str, int] = field(default_factory=dict)
    #: the reasons, as a set (a failed parallel job can give one per host)
    known: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        self.known.update(self.reasons)

    def add(self, text: str) -> None:
        if text not in self.known:
            self.known.add(text)
            self.reasons.append(text)


def _shortfall(attempt: Attempt, job: Job, s: Shortfall) -> None:
    attempt.add(shortfall_text(job, s))


def category(world: World, job: Job) -> tuple:
    """What placing ``job`` reads of it (Grid Engine's job category: jobs alike in it
    fit, or do not, in the same places): its owner and group when an access list
    exists, its project when a project list does, its PE and range, ``-q`` and its
    hard and soft requests (amounts, and so its run time, included)."""
    return (
        (job.owner, job.group) if world.reads_user else (),
        job.project if world.reads_project else None,
        job.pe,
        job.pe_range,
        job.hard_queues,
        job.hard_requests,
        job.soft_requests,
    )


def static_verdicts(world: World, cell: Cell, job: Job) -> KindVerdicts:
    """The static verdicts (``static.static_failure``) of jobs of ``job``'s kind, by
    instance, each worked out once in a run (``verdicts``)."""
    if world.verdicts is None:
        world.verdicts = Verdicts(world, cell)
    return world.verdicts.of(job)


def sequential_now(
    world: World, cell: Cell, job: Job, order: list[Instance], span: int, attempt: Attempt
) -> Placement | None:
    """The global level first (its failure ends the attempt), then per instance: the
    cluster queue, the host (static, then its level), the instance level, and a
    request no level offers. A cluster queue or a host that fails is skipped for the
    rest of the job's instances, without further messages."""
    why = level_reason(world, cell, job, "G", world.global_level, None, span)
    if why is not None:
        attempt.add(why)
        return None
    skip_queues: set[str] = set()
    skip_hosts: set[str] = set()
    kind = static_verdicts(world, cell, job)  # the static parts, kept (``verdicts``)
    quick = QuickFit(world, job, span)  # level_reason's None, without its words
    hosts, host_fits = world.hosts, set()
    for inst in order:
        if inst.queue in skip_queues or inst.host in skip_hosts:
            continue
        why = kind.queue_said(inst)
        if why is not None:
            skip_queues.add(inst.queue)
            attempt.add(why)
            continue
        if inst.host not in host_fits:  # the host's answer holds for its other instances
            host = hosts.get(inst.host)
            why = kind.host_said(inst.host) or (
                None if quick.passes("H", host, inst)
                else level_reason(world, cell, job, "H", host, inst, span))
            if why is not None:
                skip_hosts.add(inst.host)
                attempt.add(why)
                continue
            host_fits.add(inst.host)
        why = None if quick.passes("Q", inst.level, inst) else level_reason(
            world, cell, job, "Q", inst.level, inst, span)
        name = None if why else kind.unknown(inst)
        if name is not None:
            why = (
                f'(-l {kind.text}) cannot run in queue "{inst.name}" because job '
                f"requests unknown resource ({name})"
            )
        if why is not None:
            attempt.add(why)
            continue
        return Placement([(inst, 1)], 1, world.now)
    return None


def sequential_later(world: World, cell: Cell, job: Job, order: list[Instance]) -> Placement | None:
    t_global = earliest(world, job, world.global_level, 1, True)
    if t_global is None:
        return None
    best: Placement | None = None
    verdicts = static_verdicts(world, cell, job)
    for inst in order:
        if verdicts.of(inst) is not None:
            continue
        times = [t_global]
        for level in (world.hosts.get(inst.host), inst.level):
            if level is not None:
                times.append(earliest(world, job, level, 1, True))
        if any(t is None for t in times):
            continue
        start = max(t for t in times if t is not None)
        if start < INFINITY and (best is None or start < best.start):
            best = Placement([(inst, 1)], 1, start)
    return best


# --- parallel jobs --------------------------------------------------------------------


def matching_pes(cell: Cell, job: Job) -> list[str]:
    return [name for name in cell.pes if fnmatch.fnmatchcase(name, job.pe or "")]


def slot_counts(job: Job, pe_slots: int) -> list[int]:
    values = {n for r in job.pe_range for n in r.values() if 0 < n <= pe_slots}
    if not values and job.pe_range:
        values = {n for r in job.pe_range for n in range(r.min, min(r.max, pe_slots) + 1) if n > 0}
    return sorted(values)


def allocate(
    world: World,
    cell: Cell,
    job: Job,
    pe: str,
    n: int,
    usable: list[Instance],
    span: int,
    start: int,
    attempt: Attempt,
    now: Room | None = None,
) -> Placement | None:
    """``n`` slots of ``job`` in ``pe`` from ``start`` over the instances that pass
    the static checks (module doc), or None; ``now``: what ``usable`` and their hosts
    take from its start, read once for the attempt (used when that is ``start``)."""
    for level in (world.pes[pe], world.global_level):
        s = fits(world, job, level, n, True, span, start)
        if s is not None:
            _shortfall(attempt, job, s)
            attempt.offered[pe] = most_slots(world, job, level, True, span, n, start)
            return None
    if now is not None and now.start != start:
        now = None
    hosts: dict[str, list[tuple[Instance, int]]] = {}
    each = None if now is None else now.each
    asked = 0  # up to the master (the first instance with room), each asked itself
    while asked < len(usable) and (not hosts or each is None):
        inst = usable[asked]
        k = most_slots(world, job, inst.level, not hosts, span, n, start)
        if k > 0:
            hosts.setdefault(inst.host, []).append((inst, k))
        asked += 1
    if each is not None:  # the rest from ``now``
        for inst, k in zip(usable[asked:], each[asked:], strict=True):
            if k > 0:  # k capped at n: most_slots with the limit n
                hosts.setdefault(inst.host, []).append((inst, k if k < n else n))
    room: dict[str, int] = {}
    for host, items in hosts.items():
        level = world.hosts.get(host)
        total = 0
        for _, k in items:
            total += k
        if level is None:
            room[host] = total
        elif room and now is not None:  # not the master's host
            room[host] = min(total, now.hosts[host])
        else:
            room[host] = most_slots(world, job, level, not room, span, total, start)
    rule = cell.pes[pe].allocation_rule
    wanted = by_rule(rule, n, room)
    if wanted is None:
        attempt.offered[pe] = offered(rule, n, room)
        return None
    return Placement(master_first(wanted, hosts), n, start, pe)


_POSITION = operator.attrgetter("position")
_LEVEL = operator.attrgetter("level")


def usable_instances(
    world: World, cell: Cell, job: Job, order: list[Instance], attempt: Attempt
) -> list[Instance]:
    """The instances that pass the static checks, each refusal's reason added once."""
    verdicts = static_verdicts(world, cell, job).all()
    # map and compress rather than comprehensions: a parallel job's attempt reads
    # every instance (2,250 at 1,000 hosts) twice
    said = list(map(verdicts.__getitem__, map(_POSITION, order)))
    for reason in dict.fromkeys(said):  # the distinct reasons, in order
        if reason is not None:
            attempt.add(reason)
    return list(itertools.compress(order, map(operator.is_, said, itertools.repeat(None))))


class Room:
    """What each usable instance (``each``, in their order) and each of their hosts
    with a level (``hosts``) take of a job from ``start`` (default now), without a
    limit and not as the master (``assign.most_slots_each``; ``most_slots`` with a
    limit ``n`` is ``min(n, this)``). Nothing is debited while one job is placed, so
    the bound and every allocation of the attempt at that start read the same (now;
    or a reservation's time, where ``later`` tries every slot count); read at the
    first need (an attempt the PE or the global level already turns down needs
    none)."""

    def __init__(
        self, world: World, job: Job, usable: list[Instance], span: int,
        start: int | None = None,
    ) -> None:
        self.start = world.now if start is None else start
        self._asked = (world, job, usable, span)
        self._each: list[int] | None = None
        self._hosts: dict[str, int] = {}

    def _read(self) -> list[int]:
        world, job, usable, span = self._asked
        self._each = most_slots_each(world, job, list(map(_LEVEL, usable)), False, span,
                                     self.start)
        levels = [(h, lv) for h in dict.fromkeys(i.host for i in usable)
                  if (lv := world.hosts.get(h)) is not None]
        found = most_slots_each(world, job, [lv for _, lv in levels], False, span, self.start)
        self._hosts = {h: k for (h, _), k in zip(levels, found, strict=True)}
        return self._each

    @property
    def each(self) -> list[int]:
        return self._each if self._each is not None else self._read()

    @property
    def hosts(self) -> dict[str, int]:
        if self._each is None:
            self._read()
        return self._hosts


def _bound(
    world: World, cell: Cell, job: Job, pe: str, usable: list[Instance], span: int, limit: int,
    now: Room, least: int,
) -> int:
    """At most how many slots ``pe`` could allocate now (an upper bound that spares
    trying every count of a wide range). Only which counts it admits matters: when
    the PE and global levels admit none (``most < least``), neither does the bound,
    whatever the hosts hold, and they are not read."""
    most = min(
        most_slots(world, job, world.pes[pe], True, span, limit),
        most_slots(world, job, world.global_level, True, span, limit),
    )
    if most < least:
        return most
    room: dict[str, int] = {}
    for inst, k in zip(usable, now.each, strict=True):
        room[inst.host] = room.get(inst.host, 0) + (0 if limit <= 0 else min(limit, k))
    levels = now.hosts
    for host, total in room.items():
        if host in levels:
            room[host] = 0 if total <= 0 else min(total, levels[host])
    rule = cell.pes[pe].allocation_rule
    if rule == "$pe_slots":
        by_rule = max(room.values(), default=0)
    elif rule.isdigit():
        by_rule = int(rule) * sum(1 for k in room.values() if k >= int(rule))
    else:
        by_rule = sum(room.values())
    return min(most, by_rule)


def parallel_now(
    world: World, cell: Cell, job: Job, order: list[Instance], span: int, attempt: Attempt
) -> Placement | None:
    usable = usable_instances(world, cell, job, order, attempt)
    now = Room(world, job, usable, span)
    for pe in matching_pes(cell, job):
        counts = slot_counts(job, cell.pes[pe].slots)
        if not counts:
            continue
        tried = counts  # one count is tried whatever the bound
        if len(counts) > 1:
            bound = _bound(world, cell, job, pe, usable, span, counts[-1], now, counts[0])
            tried = [n for n in reversed(counts) if n <= bound] or counts[:1]
        for n in tried:
            placed = allocate(world, cell, job, pe, n, usable, span, world.now, attempt, now)
            if placed is not None:
                return placed
        if pe in attempt.offered:
            attempt.add(
                f'cannot run in PE "{pe}" because it only offers {attempt.offered[pe]} slots'
            )
    if not matching_pes(cell, job):
        attempt.add("no matching pe found")
    return None
