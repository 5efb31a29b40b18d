"""Can a job run on a queue instance, now or later (sge_select_queue.c's checks).

Static checks (never in this run): the hard queue list (``-q``: cluster queue,
``queue@host`` or a wildcard pattern), the PE in the queue's ``pe_list``, the
queue's user_lists/xuser_lists and projects/xprojects, ``BATCH`` in qtype, and each
non-consumable hard request against the queue's own value (``qname``, ``hostname``,
``h_rt``/``s_rt`` limits) or the host's load value or complex value, compared as
``request RELOP offer`` (``<=``: the offer must be at least the request).

Consumables, level by level (global, host, queue instance), for ``n`` slots:

    need  = contribution x n  (x 1, master only, for JOB consumables)
    now:    need <= capacity - used,   used = the most in use on [now, now + duration)
            (the diagram, reservations included, when schedule based; else what
            running and started jobs hold now)
    later:  capacity - need >= 0, from the diagram's ``below(capacity - need)`` on

A shortfall says what the level offers, as ``qstat -j`` words it:
``(-l license=5) cannot run globally because it offers only gc:license=1.000000``.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

from condorlite.core.sge.objects import Cell, Job

from .diagram import amount, end_time
from .world import Instance, Level, World, contribution

_WHERE = {"G": "globally", "H": "at host {name}", "Q": "in queue {name}"}
_DOMINANCE = {"G": "gc", "H": "hc", "Q": "qc", "P": "pc"}


@dataclass(frozen=True)
class Shortfall:
    level: Level
    resource: str
    offered: float
    due_to_reservation: bool = False


def request_text(job: Job) -> str:
    """The job's hard requests as qstat -j prints them in a reason: ``a=1,b=2``."""
    return ",".join(f"{r.name}={r.value}" for r in job.hard_requests)


def shortfall_text(job: Job, s: Shortfall) -> str:
    where = _WHERE.get(s.level.kind, "in {name}").format(name=f'"{s.level.name}"')
    text = (
        f"({'-l ' + request_text(job)}) cannot run {where} because it offers only "
        f"{_DOMINANCE.get(s.level.kind, 'gc')}:{s.resource}={s.offered:.6f}"
    )
    return text + (" due to a reservation" if s.due_to_reservation else "")


def _needs(
    world: World, job: Job, level: Level, slots: int, master: bool
) -> list[tuple[str, float]]:
    out: list[tuple[str, float]] = []
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
            out.append((name, need))
    return out


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
    at = world.now if start is None else start
    for name, need in _needs(world, job, level, slots, master):
        d = level.diagram(name)
        cap = level.capacity[name]
        used = d.max_over(at, end_time(at, span)) if world.schedule_based else d.now_used
        if need > cap - used:
            return Shortfall(
                level, name, cap - used, world.schedule_based and need <= cap - d.now_used
            )
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
    """The most slots (up to ``limit``) of ``job`` that fit on ``level``."""
    n = limit
    while n > 0 and fits(world, job, level, n, master, span, start) is not None:
        n -= 1
    return n


# --- static matching ----------------------------------------------------------------


def in_hard_queue_list(job: Job, inst: Instance) -> bool:
    if not job.hard_queues:
        return True
    for pattern in job.hard_queues:
        queue, at, host = pattern.partition("@")
        if not fnmatch.fnmatchcase(inst.queue, queue or "*"):
            continue
        if at and not fnmatch.fnmatchcase(inst.host, host or "*"):
            continue
        return True
    return False


def _member(cell: Cell, lists: tuple[str, ...], job: Job) -> bool:
    for name in lists:
        us = cell.usersets.get(name)
        if us and (job.owner in us.entries or f"@{job.group}" in us.entries):
            return True
    return False


def static_reason(cell: Cell, job: Job, inst: Instance) -> str | None:
    """Why ``job`` can never run in ``inst`` (cluster queue checks, then requests);
    None when it may."""
    conf, cq = inst.conf, f'"{inst.queue}"'
    if not in_hard_queue_list(job, inst):
        return f"cannot run in queue {cq} because it is not contained in its hard queue list (-q)"
    if job.pe is not None and not any(fnmatch.fnmatchcase(p, job.pe) for p in conf.pe_list):
        return f'cannot run in queue {cq} because PE "{job.pe}" is not in pe list'
    if job.pe is None and "BATCH" not in conf.qtype:
        return f'cannot run in queue instance "{inst.name}" because it is not of type batch'
    if (conf.user_lists and not _member(cell, conf.user_lists, job)) or _member(
        cell, conf.xuser_lists, job
    ):
        return f"has no permission for cluster queue {cq}"
    project = job.project
    if conf.projects and project not in conf.projects:
        what = f"(project {project})" if project else "(no project)"
        return f"{what} does not have the correct project to run in cluster queue {cq}"
    if project and project in conf.xprojects:
        return (
            f"(project {project}) is not allowed to run in cluster queue {cq} based on "
            f"the excluded project list"
        )
    return _request_reason(cell, job, inst)


def _offer(cell: Cell, inst: Instance, name: str) -> tuple[str, str] | None:
    """(dominance, value) of a non-consumable attribute for ``inst``."""
    conf = inst.conf
    fixed = {"qname": inst.queue, "hostname": inst.host, "seq_no": str(conf.seq_no)}
    if name in fixed:
        return "qf", fixed[name]
    if name in ("h_rt", "s_rt"):
        limit = getattr(conf, name)
        return "qf", "infinity" if limit is None else str(limit)
    for n, v in conf.complex_values:
        if n == name:
            return "qf", v
    host = cell.hosts.get(inst.host)
    if host is not None:
        for n, v in host.complex_values:
            if n == name:
                return "hf", v
        if name in host.load_values:
            return "hl", host.load_values[name]
    g = cell.hosts.get("global")
    if g is not None:
        for n, v in g.complex_values:
            if n == name:
                return "gf", v
    return None


def _compare(relop: str, request: str, offer: str, kind: str) -> bool:
    if kind in ("STRING", "CSTRING", "RESTRING", "HOST"):
        fold = kind != "STRING"
        r, o = (request.lower(), offer.lower()) if fold else (request, offer)
        match = any(fnmatch.fnmatchcase(o, part) for part in r.split("|"))
        return match if relop != "!=" else not match
    req, off = amount(request, kind), amount(offer, kind)
    if req is None or off is None:
        return False
    return {
        "==": req == off,
        "!=": req != off,
        "<=": req <= off,
        "<": req < off,
        ">=": req >= off,
        ">": req > off,
    }.get(relop, False)


def _request_reason(cell: Cell, job: Job, inst: Instance) -> str | None:
    for r in job.hard_requests:
        c = cell.complexes.get(r.name)
        if c is None or c.consumable != "NO":
            continue
        offer = _offer(cell, inst, r.name)
        if offer is None:
            return (
                f'(-l {request_text(job)}) cannot run in queue "{inst.name}" because '
                f"job requests unknown resource ({r.name})"
            )
        if not _compare(c.relop, r.value, offer[1], c.type):
            return (
                f'(-l {request_text(job)}) cannot run in queue "{inst.name}" because '
                f"it offers only {offer[0]}:{r.name}={offer[1]}"
            )
    return None
