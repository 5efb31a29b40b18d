"""The ticket calculation of one scheduling run: override, functional and share-tree
tickets for every running and pending task, as Grid Engine's ``sge_calc_tickets``.

Order of work (each step's formulas are in its module):

1. Refs: every running task, then up to ``min(max_pending_tasks_per_job,
   free_slots + 1)`` pending tasks of each pending job, in the scheduler's list order
   (``scheduler_order``); each ref's share-tree node (``treesearch.attach``).
2. Running tasks get their tickets together: share tree (``ostt * T`` of their node),
   functional (sums over running jobs), override (``oticket / job_cnt``).
3. Pending tasks get theirs one policy at a time in ``policy_hierarchy`` order (a
   policy named there is *dependent*: it ranks jobs by the tickets of the policies
   before it and passes its own on; policies not named come after, O F S, independent).
4. A task's tickets are ``otckt + ftckt + stckt``; its ``share`` is its tickets over
   the sum of its class (pending or running).
5. The running tasks are then priced again as if nothing were pending (the real
   scheduler's second pass); those are the figures it reports for running jobs.

``max_tickets`` is the largest ticket figure of either pass: ``ntckts`` is tickets over
it (``priority``).
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import attrgetter

from condorlite.core.sge import functional, override, sharetree, treesearch
from condorlite.core.sge.jobs import JIDLE, Job
from condorlite.core.sge.objects import Cell
from condorlite.core.sge.refs import Entities, JobRef


@dataclass(frozen=True)
class TicketRun:
    """What one ticket calculation leaves: every ref with its figures, the largest
    ticket figure, and the share tree as the pending pass saw it (None without one)."""

    refs: tuple[JobRef, ...]
    max_tickets: float
    tree: sharetree.Node | None


def hierarchy(value: str) -> list[tuple[str, bool]]:
    """``sconf_ph_fill_array``: (policy letter, dependent) in the order applied."""
    text = value.strip().upper()
    named = [] if text in ("", "NONE") else [c for c in text if c in "OFS"]
    order = [(c, True) for c in dict.fromkeys(named)]
    order += [(c, False) for c in "OFS" if c not in named]
    return order


def scheduler_order(cell: Cell) -> list[Job]:
    """The scheduler's job list: by job number, except that jobs changed by ``qalter``
    come last, in the order they were changed (``Cell.modified_jobs``; its event mirror
    re-adds a changed job at the end). The order decides which of two equally placed
    jobs of one category gets its tickets first."""
    if not cell.modified_jobs:
        return sorted(cell.jobs, key=_job_number)
    last = {number: i for i, number in enumerate(cell.modified_jobs)}
    return sorted(
        cell.jobs, key=lambda j: (1, last[j.number]) if j.number in last else (0, j.number)
    )


_job_number = attrgetter("number")


@dataclass(frozen=True)
class _Tasks:
    """What both passes take from the cell, found once: the jobs in the scheduler's
    order, their running tasks as (job, task number), in that order, and the jobs
    whose usage the share tree adds (``sharetree.job_usage``)."""

    jobs: list[Job]
    running: list[tuple[Job, int]]
    usage: list[sharetree.JobUsage]

    @classmethod
    def of(cls, cell: Cell) -> _Tasks:
        jobs = scheduler_order(cell)
        running = [
            (job, task.number)
            for job in jobs
            for task in job.tasks
            if task.status and task.running  # status 0: pending (most tasks)
        ]
        usage = sharetree.job_usage(cell) if cell.share_tree is not None else []
        return cls(jobs, running, usage)


def _refs(
    tasks: _Tasks, entities: Entities, limit: int, with_pending: bool, now: int
) -> list[JobRef]:
    """Step 1: the running refs, then (``with_pending``) the first ``limit``
    dispatchable pending tasks of each job: not held, not in error, and not waiting
    for a start time (``qsub -a``) still to come; the real scheduler keeps such jobs
    out of the ticket calculation."""
    ref = entities.ref
    refs = [ref(job, number, queued=False) for job, number in tasks.running]
    if with_pending and limit > 0:
        for job in tasks.jobs:
            if job.hold or job.execution_time > now:
                continue
            if len(job.tasks) == 1:  # the short way for the one-task job (most)
                task = job.tasks[0]
                if task.status == JIDLE and not task.held and not task.error:
                    refs.append(ref(job, task.number, queued=True))
                continue
            numbers = []
            for task in job.tasks:
                # Task.pending inlined (100,000 jobs on a large cell)
                if task.status == JIDLE and not task.held and not task.error:
                    numbers.append(task.number)
                    if len(numbers) == limit:
                        break
            if len(numbers) == 1:
                refs.append(ref(job, numbers[0], queued=True))
            elif numbers:
                refs.extend(entities.refs(job, numbers, queued=True))
    return refs


def _tree(cell: Cell, tasks: _Tasks, refs: list[JobRef], now: int) -> sharetree.Node | None:
    if cell.share_tree is None:
        return None
    root = sharetree.build(cell.share_tree, cell)
    finder = treesearch.Finder(root)
    for ref in refs:
        treesearch.attach(finder, ref)
    sharetree.count_jobs(root)
    sharetree.assign_usage(root, cell, now)
    sharetree.add_job_usage(finder, cell, tasks.usage)
    sharetree.targets(root, cell.sched_conf.compensation_factor)
    return root


def _running(refs: list[JobRef], cell: Cell) -> functional.ShareSums:
    """Step 2 of the module doc; returns the functional share sums of running jobs."""
    conf = cell.sched_conf
    sums = functional.ShareSums()
    running = [r for r in refs if not r.queued]
    if conf.weight_tickets_share > 0:
        sharetree.running_tickets(running, float(conf.weight_tickets_share))
    if conf.weight_tickets_functional > 0:
        for ref in running:
            functional.count_shares(ref, sums, conf.share_functional_shares, add_all=True)
        weights = functional.Weights.of(conf, sums)
        for ref in running:
            functional.price(ref, sums, float(conf.weight_tickets_functional), weights)
    for ref in running:
        override.running_override(ref, conf.share_override_tickets)
    return sums


def _least_slots(ref: JobRef) -> int:
    """The fewest slots a job can run with: 1, or its PE range's first id."""
    return ref.job.pe_range[0].min if ref.job.pe_range else 1


def _pending(
    refs: list[JobRef], cell: Cell, tree: sharetree.Node | None, sums: functional.ShareSums
) -> None:
    """Step 3 of the module doc."""
    conf = cell.sched_conf
    for letter, dependent in hierarchy(conf.policy_hierarchy):
        if letter == "S" and conf.weight_tickets_share > 0 and tree is not None:
            sharetree.pending_tickets(
                tree,
                refs,
                float(conf.weight_tickets_share),
                dependent,
                slots=_least_slots,
            )
        elif letter == "F" and conf.weight_tickets_functional > 0:
            functional.pending_functional(refs, sums, conf, dependent=dependent)
        elif letter == "O":
            override.pending_override(refs, shared=conf.share_override_tickets, dependent=dependent)


def _totals(refs: list[JobRef]) -> float:
    """Step 4: each ref's tickets and share; returns the largest figure (-1 with no
    refs). The sums add in ref order, as a loop per figure would."""
    sums = {True: 0.0, False: 0.0}
    largest: float | None = None
    for ref in refs:
        ref.ticket = ticket = ref.sticket + ref.fticket + ref.oticket
        sums[ref.queued] += ticket
        if largest is None or ticket > largest:  # max(): the first of equals
            largest = ticket
    for ref in refs:
        ref.share = ref.ticket / sums[ref.queued] if ref.ticket > 0 else 0.0
    return -1.0 if largest is None else largest


def _pass(cell: Cell, tasks: _Tasks, now: int, free_slots: int, with_pending: bool) -> TicketRun:
    entities = Entities.of(cell)
    limit = min(cell.sched_conf.max_pending_tasks_per_job, free_slots + 1)
    refs = _refs(tasks, entities, limit, with_pending, now)
    tree = _tree(cell, tasks, refs, now)
    for ref in refs:  # JobRef.count inlined: 150,000 refs on a large cell
        queued = ref.queued
        for entity in (ref.user, ref.project, ref.dept):
            if entity is not None:
                if queued:
                    entity.pending_cnt += 1
                else:
                    entity.job_cnt += 1
    sums = _running(refs, cell)
    if with_pending:
        _pending(refs, cell, tree, sums)
    return TicketRun(tuple(refs), _totals(refs), tree)


def calculate(cell: Cell, now: int, free_slots: int = 0) -> TicketRun:
    """The tickets of every running task and of the pending tasks the scheduler
    considers, at ``now`` (module doc). ``free_slots`` is the number of free slots in
    enabled queue instances (it bounds how many tasks of a pending array job count)."""
    tasks = _Tasks.of(cell)
    first = _pass(cell, tasks, now, free_slots, with_pending=True)
    second = _pass(cell, tasks, now, free_slots, with_pending=False)
    pending = tuple(r for r in first.refs if r.queued)
    max_tickets = max(first.max_tickets, second.max_tickets, 0.0)
    return TicketRun(second.refs + pending, max_tickets, first.tree)
