"""Do a job's resources fit a level (global, a host, a queue instance, a PE), now or
later (sge_select_queue.c's rc_time_by_slots, ri_time_by_slots).

Consumables, for ``n`` slots:

    need  = contribution x n  (x 1, master only, for JOB consumables)
    now:    need <= capacity - used,   used = the most in use on [start, start +
            duration) (the diagram, reservations included, when schedule based; else
            what running and started jobs hold now)
    later:  capacity - need >= 0, from the diagram's ``below(capacity - need)`` on

A level is checked in the scheduler's order: consumables the job does not request
but whose default is not 0 ("for default request it offers only ..."), then the
job's requests in its order (consumables as above, the others as ``static`` compares
them), then ``slots``. The first failure is the reason, as ``qstat -j`` words it:
``(-l license=5) cannot run globally because it offers only gc:license=1.000000``,
with `` due to a reservation`` when only a reservation makes it short. The ``-l``
list is every hard request, sorted by name (``NONE`` without any).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from condorlite.core.sge.jobs import Job
from condorlite.core.sge.objects import Cell

from .diagram import end_time
from .static import request_failure, request_text
from .world import Instance, Level, World, contribution

#: ``most_slots`` without a limit (more than any slot count)
_UNLIMITED = 2**62
_WHERE = {"G": "globally", "H": "at host {name}", "Q": "in queue {name}"}
_DOMINANCE = {"G": "gc", "H": "hc", "Q": "qc", "P": "pc"}


@dataclass(frozen=True)
class Shortfall:
    level: Level
    resource: str
    offered: float
    due_to_reservation: bool = False


def cannot_run(job: Job, kind: str, name: str, why: str) -> str:
    where = _WHERE.get(kind, "in {name}").format(name=f'"{name}"')
    return f"(-l {request_text(job)}) cannot run {where} because {why}"


def offers_only(s: Shortfall) -> str:
    text = f"it offers only {_DOMINANCE.get(s.level.kind, 'gc')}:{s.resource}={s.offered:.6f}"
    return text + (" due to a reservation" if s.due_to_reservation else "")


def shortfall_text(job: Job, s: Shortfall) -> str:
    return cannot_run(job, s.level.kind, s.level.name, offers_only(s))


def _needs(
    world: World, job: Job, level: Level, slots: int, master: bool
) -> list[tuple[str, float]]:
    return [(name, need) for name, need, _ in _demands(world, job, level, slots, master)]


def _demands(
    world: World, job: Job, level: Level, slots: int, master: bool
) -> tuple[tuple[str, float, bool], ...]:
    """``(resource, need, per slot)`` of ``slots`` slots of ``job`` on ``level``, in the
    level's order: consumables with a need, JOB ones (not per slot) on the master only.
    Kept for the job being placed by the level's kind (``world.NeedsCache``)."""
    cache = world.needs.of(job)
    key = (level.signature, slots, master)
    found = cache.get(key)
    if found is not None:
        return found
    out: list[tuple[str, float, bool]] = []
    for name in level.capacity:
        c = world.complexes.get(name)
        if c is None or c.consumable == "NO":
            continue
        if c.consumable == "JOB":
            if not master:
                continue
            n = 1
        else:
            n = slots
        need = contribution(job, c) * n
        if need != 0.0:
            out.append((name, need, c.consumable != "JOB"))
    found = cache[key] = tuple(out)
    return found


def _short(
    world: World, level: Level, name: str, need: float, span: int, start: int | None
) -> Shortfall | None:
    at = world.now if start is None else start
    d = level.diagram(name)
    cap = level.capacity[name]
    used = d.max_over(at, end_time(at, span)) if world.schedule_based else d.now_used
    if need > cap - used:
        return Shortfall(level, name, cap - used, world.schedule_based and need <= cap - d.now_used)
    return None


#: a static step no instance's level refuses (``Verdicts.column`` found none)
_NEVER: tuple[()] = ()


@dataclass(frozen=True)
class _Plan:
    """``level_reason``'s checks for one job on one kind of level, in order: the
    consumables it does not request with a need (``defaults``), then its requests
    (``steps``: the name, its need when the level has it as a consumable with a need,
    else None when the level lacks the name and the request is compared as static
    does, with the value compared, and for a host or instance level the run's column
    of that comparison's answers by instance, ``_NEVER`` when none refuses it), then
    ``slots`` when not requested."""

    defaults: tuple[tuple[str, float], ...]
    steps: tuple[tuple[str, float | None, str, Sequence[str | None] | None], ...]
    slots: float | None


def _plan(world: World, job: Job, kind: str, level: Level | None) -> _Plan:
    cache = world.needs.plans_of(job)
    key = (kind, None if level is None else level.signature)
    found = cache.get(key)
    if isinstance(found, _Plan):
        return found
    needs = dict(_needs(world, job, level, 1, True)) if level is not None else {}
    requested = {r.name for r in job.hard_requests}
    first: dict[str, str] = {}
    for r in job.hard_requests:
        first.setdefault(r.name, r.value)
    steps: list[tuple[str, float | None, str, Sequence[str | None] | None]] = []
    for r in job.hard_requests:
        if r.name in needs:
            steps.append((r.name, needs[r.name], first[r.name], None))
        elif level is None or r.name not in level.capacity:
            column: Sequence[str | None] | None = None
            if world.verdicts is not None and kind in ("H", "Q"):
                column = world.verdicts.column(job, kind, r.name, first[r.name]) or _NEVER
            steps.append((r.name, None, first[r.name], column))
    plan = _Plan(
        tuple((n, need) for n, need in needs.items() if n != "slots" and n not in requested),
        tuple(steps),
        needs["slots"] if "slots" in needs and "slots" not in requested else None,
    )
    cache[key] = plan
    return plan


def level_reason(
    world: World,
    cell: Cell,
    job: Job,
    kind: str,
    level: Level | None,
    inst: Instance | None,
    span: int,
    start: int | None = None,
) -> str | None:
    """Why one slot of a sequential job does not fit a level of kind ``G``, ``H`` or
    ``Q`` (``level`` None: a host without consumables), in the module doc's order.
    The order of checks is worked out once per job and kind of level (``_Plan``); a
    request the level lacks is compared as ``static.request_failure`` does, read from
    the run's kept answers (``verdicts``) when there are some."""
    plan = _plan(world, job, kind, level)
    for resource, need in plan.defaults:
        s = _short(world, level, resource, need, span, start)  # type: ignore[arg-type]
        if s is not None:
            why = "for default request " + offers_only(s)
            return cannot_run(job, kind, _where(kind, inst), why)
    for name, need, value, column in plan.steps:
        if need is not None:
            s = _short(world, level, name, need, span, start)  # type: ignore[arg-type]
            if s is not None:
                return cannot_run(job, kind, _where(kind, inst), offers_only(s))
            continue
        if column is _NEVER:
            continue
        if column is not None and inst is not None:
            why = column[inst.position]
        elif world.verdicts is not None:
            why = world.verdicts.requests.failure(job, kind, inst, name, value)
        else:
            why = request_failure(cell, job, kind, inst, name)
        if why is not None:
            return cannot_run(job, kind, _where(kind, inst), why)
    if plan.slots is not None:
        s = _short(world, level, "slots", plan.slots, span, start)  # type: ignore[arg-type]
        if s is not None:
            return cannot_run(job, kind, _where(kind, inst), offers_only(s))
    return None


class QuickFit:
    """Whether ``level_reason`` of one slot of ``job`` from now says nothing, for the
    levels a sequential job's scan asks (``place.sequential_now``), without its
    words: ``passes`` True means ``level_reason`` returns None; False means ask it
    (for the words, or for the answer when the quick pass cannot tell: a host
    without a level, a request compared without a kept column).

    It says None when every check of the plan (``_plan``) passes, so the order of
    the checks, which decides only the words, does not matter: per kind of level
    the consumables with a need (defaults, requests, slots) are one list, the kept
    columns another. A consumable passes as in ``_short`` (``need <= capacity -
    used``, ``used`` the most on [now, now + span) when schedule based, else what is
    in use now; a resource never debited has none used). Nothing is debited while
    one job is placed, so the plans and the span's end hold for the whole scan."""

    def __init__(self, world: World, job: Job, span: int) -> None:
        self.world, self.job = world, job
        self.end = end_time(world.now, span)
        self.checks: dict[tuple[str, tuple[str, ...]], tuple[tuple, tuple]] = {}

    def _checks(self, kind: str, level: Level) -> tuple[tuple, tuple]:
        plan = _plan(self.world, self.job, kind, level)
        needs = list(plan.defaults)
        needs += [(name, need) for name, need, _, _ in plan.steps if need is not None]
        if plan.slots is not None:
            needs.append(("slots", plan.slots))
        columns = tuple(column for _, need, _, column in plan.steps
                        if need is None and column is not _NEVER)
        return tuple(needs), columns

    def passes(self, kind: str, level: Level | None, inst: Instance) -> bool:
        if level is None:
            return False
        key = (kind, level.signature)
        found = self.checks.get(key)
        if found is None:
            found = self.checks[key] = self._checks(kind, level)
        needs, columns = found
        for column in columns:
            if column is None or column[inst.position] is not None:
                return False
        world, end = self.world, self.end
        diagrams, capacity = level.diagrams, level.capacity
        for name, need in needs:
            d = diagrams.get(name)
            if d is None:  # never debited: nothing used
                left = capacity[name]
            elif world.schedule_based:
                left = capacity[name] - d.max_over(world.now, end)
            else:
                left = capacity[name] - d.now_used
            if need > left:
                return False
        return True


def _where(kind: str, inst: Instance | None) -> str:
    return "global" if inst is None else (inst.host if kind == "H" else inst.name)


def fits(
    world: World,
    job: Job,
    level: Level,
    slots: int,
    master: bool,
    span: int,
    start: int | None = None,
) -> Shortfall | None:
    """None when ``slots`` slots of ``job`` fit on ``level`` from ``start`` (default
    now) for ``span`` seconds (module doc)."""
    for name, need in _needs(world, job, level, slots, master):
        s = _short(world, level, name, need, span, start)
        if s is not None:
            return s
    return None


def earliest(world: World, job: Job, level: Level, slots: int, master: bool) -> int | None:
    """The earliest start on ``level`` from which the job's needs fit for good; None
    when the capacity never suffices."""
    start = world.now
    for name, need in _needs(world, job, level, slots, master):
        threshold = level.capacity[name] - need
        if threshold < 0:
            return None
        start = max(start, level.diagram(name).below(threshold) or world.now)
    return start


def most_slots(
    world: World,
    job: Job,
    level: Level,
    master: bool,
    span: int,
    limit: int,
    start: int | None = None,
) -> int:
    """The most slots (up to ``limit``) of ``job`` that fit on ``level``: per-slot
    needs divide what is left, a JOB consumable (master only) must fit once. (One pass
    over the needs: one slot must fit, as ``fits`` would find, and each per-slot need
    bounds the count.)

    With ``Q`` the least of ``left // need`` over the per-slot needs, the answer is 0
    when a need exceeds what is left, else ``max(0, min(limit, Q))``: the answer
    without a limit, ``most(inf)``, gives every other as ``min(limit, most(inf))``.
    Starting now, it is kept on the level by (demands, span) until the level is
    debited (``Level.slots_known``): a parallel job's bound and allocations ask it of
    every instance, and jobs alike in their demands and run time ask it again (a
    reservation's walk over later times asks each time once: those are not kept)."""
    if limit <= 0:
        return 0
    demands = _demands(world, job, level, 1, master)
    if start is not None and start != world.now:
        most = _most_slots(world, level, demands, start, span)
    else:
        key = _slots_key(world, demands, span)
        most = level.slots_known.get(key)
        if most is None:
            most = level.slots_known[key] = _most_slots(world, level, demands, world.now, span)
    return most if most < limit else limit


def most_slots_each(
    world: World, job: Job, levels: list[Level], master: bool, span: int,
    start: int | None = None,
) -> list[int]:
    """``most_slots`` from ``start`` (default now) without a limit for each of
    ``levels`` (the answer for a limit ``n`` > 0 is ``min(n, this)``): a job's demands
    are looked up once per kind of level; from now the answers are kept on the levels
    as ``most_slots`` keeps them."""
    keys: dict[tuple[str, ...], tuple[tuple[tuple[str, float, bool], ...], int]] = {}
    out = []
    now = world.now
    at = now if start is None else start
    for level in levels:
        found = keys.get(level.signature)
        if found is None:
            demands = _demands(world, job, level, 1, master)
            found = keys[level.signature] = (demands, _slots_key(world, demands, span))
        demands, key = found
        if at != now:
            out.append(_most_slots(world, level, demands, at, span))
            continue
        most = level.slots_known.get(key)
        if most is None:
            most = level.slots_known[key] = _most_slots(world, level, demands, now, span)
        out.append(most)
    return out


def _slots_key(world: World, demands: tuple[tuple[str, float, bool], ...], span: int) -> int:
    """(demands, span) as a small number, the same for the whole run
    (``World.slot_keys``): ``Level.slots_known`` is asked by it for thousands of
    levels per parallel job, where hashing the nested tuple each time cost more than
    the answer."""
    return world.slot_keys.setdefault((demands, span), len(world.slot_keys))


class Rooms:
    """``most_slots`` of one job, not as the master, for one span, at any start and
    without a limit (with a limit ``n`` > 0 it is ``min(n, this)``): the job's
    demands looked up once per kind of level, nothing kept between starts. A
    reservation's walk (``later._feasible``) asks it of instance after instance at
    time after time, where ``most_slots`` would look the demands up each time."""

    def __init__(self, world: World, job: Job, span: int) -> None:
        self.world, self.job, self.span = world, job, span
        self.demands: dict[tuple[str, ...], tuple[tuple[str, float, bool], ...]] = {}

    def most(self, level: Level, start: int) -> int:
        demands = self.demands.get(level.signature)
        if demands is None:
            demands = self.demands[level.signature] = _demands(
                self.world, self.job, level, 1, False)
        return _most_slots(self.world, level, demands, start, self.span)


def _most_slots(
    world: World, level: Level, demands: tuple[tuple[str, float, bool], ...], at: int, span: int
) -> int:
    end = end_time(at, span)
    based = world.schedule_based
    most = _UNLIMITED
    diagrams, capacity = level.diagrams, level.capacity
    for name, need, per_slot in demands:  # half a million times in a large run
        d = diagrams.get(name) or level.diagram(name)
        left = capacity[name] - (d.max_over(at, end) if based else d.now_used)
        if need > left:
            return 0
        if per_slot:
            count = int(left // need + 1e-9)
            if count < most:  # min(most, count)
                most = count
    return max(0, most)
