"""A job's final priority and the order the scheduler takes jobs in (sge_priority(5)).

    prio = weight_priority * npprior + weight_urgency * nurg + weight_ticket * ntckts

    npprior = (ppri + 1024) / 2048                 the POSIX priority on 0..1
    nurg    = (urg - min urg) / (max urg - min urg) over every running and pending job
    ntckts  = tickets / max tickets                 (the real scheduler's minimum is 0)

each 0.5 when its range is narrower than 1e-6. ``nurg`` and ``npprior`` are 0.5 when
their weight is 0 and ``report_pjob_tickets`` is false (the scheduler then skips them).
Pending jobs are taken in decreasing ``prio``, then earlier submission, then lower job
number (``sgeee_sort_jobs``); running jobs are listed first, by job number, as qstat
lists them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import NamedTuple

from condorlite.core.sge import tickets as ticket_calc
from condorlite.core.sge.jobs import JIDLE, Job, Task, construct
from condorlite.core.sge.objects import Cell
from condorlite.core.sge.refs import (
    NO_FUNCTIONAL,
    Entities,
    FunctionalParts,
    JobRef,
    OverridePart,
    TreePart,
)
from condorlite.core.sge.sharetree import Node
from condorlite.core.sge.urgency import EPSILON, Urgencies, Urgency, urgency_slots

#: The range of ``JB_priority`` (ppri + 1024) that npprior normalises over.
PRIORITY_RANGE = 2048


@dataclass(frozen=True)
class JobPriority:
    """One task's figures as ``qstat -ext -urg -pri`` shows them, at full precision."""

    job: Job
    task: int
    running: bool
    prio: float
    nurg: float
    npprior: float
    ntckts: float
    urgency: Urgency
    tickets: float
    otckt: float
    ftckt: float
    stckt: float
    share: float
    department: str | None
    node: str | None
    #: qstat's state letters: ``r``, ``qw``, ``hqw`` (held or waiting for a
    #: predecessor), ``Eqw`` (error).
    state: str = "qw"
    #: Where its tickets came from (``refs``): override by source, functional by
    #: category, the share-tree level that priced it.
    override_parts: tuple[OverridePart, ...] = ()
    functional_parts: FunctionalParts = NO_FUNCTIONAL
    sharetree_part: TreePart | None = None
    #: When a running task started (None for pending rows).
    start_time: int | None = None
    #: The task ids this row stands for (qstat groups a job's pending tasks that share
    #: their figures into one line).
    tasks: tuple[int, ...] = ()

    @property
    def ovrts(self) -> int:
        """The job's own override tickets (``qalter -ot``), qstat's ``ovrts``."""
        return self.job.override_tickets


@dataclass(frozen=True)
class Prioritisation:
    """The outcome of the policies for a cell at one time."""

    now: int
    jobs: tuple[JobPriority, ...]
    max_tickets: float
    min_urgency: float
    max_urgency: float
    tree: Node | None
    #: The tickets of every pending task the calculation priced, by (job, task): the
    #: rows group a job's pending tasks, dispatch takes them one by one.
    task_tickets: dict[tuple[int, int], float] = field(default_factory=dict)

    def find(self, number: int) -> list[JobPriority]:
        return [j for j in self.jobs if j.job.number == number]


def free_slots(cell: Cell) -> int:
    """The free slots of the queue instances the scheduler may use (none disabled,
    suspended, in error, alarm or unknown state): they bound how many tasks of a
    pending array job are priced (``tickets``)."""
    return sum(
        max(0, q.slots_total - q.slots_used)
        for q in cell.queue_instances.values()
        if not q.state
    )


def prioritise(
    cell: Cell, now: int, free: int | None = None, npprior_over_jobs: bool = False
) -> Prioritisation:
    """Every policy at ``now``: urgency, tickets, the weighted priority and the order.
    ``free`` overrides the free slots the dump's queue instances show (``free_slots``).

    ``npprior_over_jobs`` normalises ppri min-max over the jobs, as the seed's N1GE 6.1
    manual does in its example (1.08000/0.10500/0.00500), instead of over -1024..1024
    as SoGE 8.1.9 does."""
    conf = cell.sched_conf
    run = ticket_calc.calculate(cell, now, free_slots(cell) if free is None else free)
    calculator = Urgencies(cell.complexes, cell.pes, conf.weight_waiting_time, conf.weight_deadline)
    urgencies: dict[int, tuple[Urgency, float]] = {}  # job number -> (urgency, its urg)
    for ref in run.refs:
        number = ref.job.number
        if number not in urgencies:
            urgency = calculator.of(ref.job, now)
            urgencies[number] = (urgency, urgency.urg)
    values = [urg for _, urg in urgencies.values()]
    low, high = (min(values), max(values)) if values else (0.0, 0.0)
    do_nurg = conf.weight_urgency != 0 or conf.report_pjob_tickets
    do_nprio = conf.weight_priority != 0 or conf.report_pjob_tickets
    p_low, p_high = 0, PRIORITY_RANGE
    if npprior_over_jobs and run.refs:
        ppris = [r.job.ppri + 1024 for r in run.refs]
        p_low, p_high = min(ppris), max(ppris)
    rows = _Rows(
        urgencies,
        low,
        _normalised(low, high, do_nurg),
        p_low,
        _normalised(p_low, p_high, do_nprio),
        _normalised(0.0, run.max_tickets, True),
        conf.weight_urgency,
        conf.weight_ticket,
        conf.weight_priority,
    )
    running = [rows.make(ref, (ref.task,)) for ref in run.refs if not ref.queued]
    running.sort(key=_running_order)
    best, priced = _best_refs(run.refs)
    pending = _grouped(cell, best, rows, now)
    # decreasing prio, then earlier submission, lower job number, task: two stable
    # sorts with C keys (equal prio keep the first sort's order)
    pending.sort(key=_seniority)
    pending.sort(key=_prio, reverse=True)
    return Prioritisation(
        now, tuple(running + pending), run.max_tickets, low, high, run.tree, priced
    )


_running_order = attrgetter("job.number", "task")
_number = attrgetter("number")
_seniority = attrgetter("job.submission_time", "job.number", "task")
_prio = attrgetter("prio")


def _best_refs(
    refs: tuple[JobRef, ...],
) -> tuple[dict[int, JobRef], dict[tuple[int, int], float]]:
    """Each job's pending ref with most tickets (the first of equals, in ref order):
    the one whose figures its row shows (``_grouped``); and every pending ref's
    tickets by (job, task)."""
    best: dict[int, JobRef] = {}
    priced: dict[tuple[int, int], float] = {}
    for ref in refs:
        if ref.queued:
            number = ref.job.number
            ticket = ref.ticket
            priced[number, ref.task] = ticket
            held = best.get(number)
            if held is None or ticket > held.ticket:
                best[number] = ref
    return best, priced


class _Normalised(NamedTuple):
    """``urgency.normalize`` over one range with its tests done once: ``flat`` is what
    every value gets (0.5 on a range narrower than ``EPSILON``, or when the figure is
    skipped), else None and ``v`` normalises to ``(v - low) / span``, the operations of
    ``normalize`` (so the same bits)."""

    flat: float | None
    span: float


def _normalised(low: float, high: float, wanted: bool) -> _Normalised:
    span = high - low
    return _Normalised(0.5 if not wanted or span < EPSILON else None, span)


class _Rows:
    """Makes rows: one ref's figures (module doc) in a ``JobPriority``; the
    normalisations' range tests are done once (``_normalised``): 100,000 rows on a
    large cell."""

    def __init__(
        self,
        urgencies: dict[int, tuple[Urgency, float]],
        u_low: float,
        u_norm: _Normalised,
        p_low: int,
        p_norm: _Normalised,
        t_norm: _Normalised,
        w_urgency: float,
        w_ticket: float,
        w_priority: float,
    ) -> None:
        self.urgencies = urgencies
        self.u_low, (self.u_flat, self.u_span) = u_low, u_norm
        self.p_low, (self.p_flat, self.p_span) = p_low, p_norm
        self.t_flat, self.t_span = t_norm
        self.w_urgency, self.w_ticket, self.w_priority = w_urgency, w_ticket, w_priority

    def make(self, ref: JobRef, tasks: tuple[int, ...]) -> JobPriority:
        """The row of ``ref`` standing for ``tasks`` (its own task for a running ref;
        a job's ready tasks for its best-priced pending ref)."""
        job = ref.job
        urgency, urg = self.urgencies[job.number]
        nurg = self.u_flat
        if nurg is None:
            nurg = (urg - self.u_low) / self.u_span
        npprior = self.p_flat
        if npprior is None:
            npprior = (job.ppri + 1024 - self.p_low) / self.p_span
        ticket = ref.ticket
        ntckts = self.t_flat
        if ntckts is None:
            ntckts = (ticket - 0.0) / self.t_span
        prio = self.w_urgency * nurg + self.w_ticket * ntckts + self.w_priority * npprior
        node = ref.node
        queued = ref.queued
        return construct(JobPriority, {  # one per row: 100,000 on a large cell
            "job": job,
            "task": tasks[0],
            "running": not queued,
            "prio": prio,
            "nurg": nurg,
            "npprior": npprior,
            "ntckts": ntckts,
            "urgency": urgency,
            "tickets": ticket,
            "otckt": ref.oticket,
            "ftckt": ref.fticket,
            "stckt": ref.sticket,
            "share": ref.share,
            "department": ref.department,
            "node": node.path if node is not None else None,
            "state": "qw" if queued else "r",
            "override_parts": ref.override_parts,
            "functional_parts": ref.functional_parts,
            "sharetree_part": ref.sharetree_part,
            "start_time": None if queued else _started(ref),
            "tasks": tasks,
        })


def _grouped(
    cell: Cell, best: dict[int, JobRef], rows: _Rows, now: int
) -> list[JobPriority]:
    """The pending rows as qstat shows them: one row per job for its dispatchable
    pending tasks, with the figures of its best-priced task ``best`` (the scheduler
    keeps those in the job's template, and tasks past the per-job limit have no others);
    held, error and not-yet-due tasks with every figure 0, as the scheduler leaves them
    out of its calculation. (A pending task the qmaster has enrolled, e.g. a rescheduled
    one, is a line of its own in qstat; the dump does not say which are.)"""
    out: list[JobPriority] = []
    entities: Entities | None = None  # made when a job has tasks left out
    for job in sorted(cell.jobs, key=_number):
        # Task.pending of a waiting task inlined, with a short way for the one-task job
        # (100,000 jobs on a large cell, most of one task)
        tasks = job.tasks
        due = not job.hold and job.execution_time <= now
        if len(tasks) == 1:
            task = tasks[0]
            if task.status != JIDLE:
                continue  # nothing pending: no row but its running one
            waiting: Sequence[Task] = tasks
            ready = (task.number,) if due and not task.held and not task.error else ()
        else:
            waiting = [t for t in tasks if t.status == JIDLE]
            if not waiting:
                continue
            ready = tuple([t.number for t in waiting if not t.held and not t.error]) if due else ()
        ref = best.get(job.number)
        if ready and ref is not None:
            out.append(rows.make(ref, ready))
        if len(ready) == len(waiting):
            continue  # nothing left out
        if entities is None:
            entities = Entities.of(cell)
        out.extend(_left_out(job, waiting, ready, cell, entities))
    return out


def _left_out(
    job: Job, waiting: Sequence[Task], ready: tuple[int, ...], cell: Cell, entities: Entities
) -> list[JobPriority]:
    """The rows of a job's waiting tasks the calculation left out, every figure 0."""
    out = []
    for state, ids in _excluded(waiting, ready):
        zero = Urgency(0.0, 0.0, 0.0, urgency_slots(job, cell.pes), ())
        department = job.department or entities.department_of(job)
        out.append(
            JobPriority(
                job, ids[0], False, 0.0, 0.0, 0.0, 0.0, zero, 0.0, 0.0, 0.0, 0.0, 0.0,
                department, None, state, ids,
            )
        )
    return out


def _excluded(waiting: Sequence[Task], ready: tuple[int, ...]) -> list[tuple[str, tuple[int, ...]]]:
    """The left-out tasks grouped by qstat state (``hqw``, ``Eqw``, ``qw``)."""
    groups: dict[str, list[int]] = {}
    for task in waiting:
        if task.number in ready:
            continue
        state = "Eqw" if task.error else "hqw" if task.held else "qw"
        groups.setdefault(state, []).append(task.number)
    return [(state, tuple(ids)) for state, ids in groups.items()]


def _started(ref: JobRef) -> int | None:
    for task in ref.job.tasks:
        if task.number == ref.task:
            return task.start_time
    return None
