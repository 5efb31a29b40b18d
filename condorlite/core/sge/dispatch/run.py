"""One scheduling run (dispatch_jobs in Grid Engine's scheduler thread).

1. Running tasks are booked: what they hold now, and, when schedule based
   (``max_reservation`` > 0), their span in the diagrams, each a ``RUNNING`` line.
2. Queue instances in an unavailable state are dropped (a run-wide message each);
   those without a free slot are kept for reservations only.
3. Pending jobs are taken in ``prioritise()`` order; a user with ``maxujobs`` running
   jobs has the rest dropped ("job dropped because of user limitations"). A job
   reserves when it asks (``-R y``) and fewer than ``max_reservation`` reservations
   were made. Each pending task of a job (at most ``max_pending_tasks_per_job``) is
   placed now (``STARTING`` lines) until one cannot be; that one reserves
   (``RESERVING`` lines) or waits.
4. After each job, when no queue instance has a free slot left the run stops: later
   jobs are neither started nor reserved (Grid Engine leaves its loop there).

A job's span is ``min(h_rt, s_rt)`` requested, else ``default_duration``, plus the
DURATION_OFFSET (``world.duration``); a job started now must fit over all of it, so
a lower job only backfills when it ends before the reservations ahead of it begin.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from condorlite.core.sge.objects import Cell, Job
from condorlite.core.sge.priority import JobPriority, Prioritisation

from . import order as ordering
from .outcome import (
    SEPARATOR,
    Grant,
    Reservation,
    Resource,
    Run,
    ScheduleLine,
    Started,
    Waiting,
)
from .place import (
    Attempt,
    Placement,
    parallel_later,
    parallel_now,
    sequential_later,
    sequential_now,
)
from .world import Instance, World, build, debit, duration, uses

USER_LIMIT = "job dropped because of user limitations"
_DROPPED = {
    "d": "disabled",
    "s": "suspended",
    "S": "suspended",
    "E": "in error state",
    "C": "disabled",
    "D": "disabled",
}


class _Run:
    """The state of one run while jobs are taken (module doc)."""

    def __init__(self, cell: Cell, now: int) -> None:
        self.cell, self.now = cell, now
        self.world: World = build(cell, now)
        self.lines: list[str] = [SEPARATOR]
        self.running: Counter[str] = Counter()
        self.corrections: Counter[str] = Counter()
        self.started: list[Started] = []
        self.reservations: list[Reservation] = []
        self.waiting: list[Waiting] = []
        self.messages: list[str] = []
        self.alarmed: set[str] = set()

    # --- booking ------------------------------------------------------------------

    def book(
        self, job: Job, task: int, placed: Placement, span: int, state: str, now: bool
    ) -> tuple[Resource, ...]:
        found = uses(self.world, job, placed.grants, placed.slots, placed.pe)
        debit(self.world, found, placed.start, span, now)
        if self.world.schedule_based and span > 0:
            shown = min(span, 2**32 - 1 - placed.start)
            self.lines += [
                ScheduleLine(
                    job.number,
                    task,
                    state,
                    placed.start,
                    shown,
                    u.level,
                    u.object,
                    u.resource,
                    u.amount,
                ).text()
                for u in found
            ]
        return tuple(Resource(u.level, u.object, u.resource, u.amount) for u in found)

    def book_running(self) -> None:
        jobs = {j.number: j for j in self.cell.jobs}
        by_name = {i.name: i for i in self.world.instances}
        grouped: dict[tuple[int, int], list] = {}
        for g in self.cell.running:
            grouped.setdefault((g.job, g.task), []).append(g)
        for (number, task), grants in sorted(
            grouped.items(), key=lambda kv: self._started_order(jobs, kv)
        ):
            job = jobs.get(number)
            insts = [
                (by_name[g.queue_instance], g.slots)
                for g in sorted(grants, key=lambda g: not g.master)
                if g.queue_instance in by_name
            ]
            if job is None or not insts:
                continue
            start = next((t.start_time for t in job.tasks if t.number == task), self.now)
            span = duration(self.world, job, insts[0][0].conf)
            if start + span <= self.now:
                span = self.now - start + self.world.interval
            slots = sum(n for _, n in insts)
            self.book(job, task, Placement(insts, slots, start, job.pe), span, "RUNNING", True)
            self.running[job.owner] += 1
            decay = self.cell.sched_conf.load_adjustment_decay_time
            if decay and self.now - start <= decay:
                for inst, n in insts:
                    self.corrections[inst.host] += n * (decay - (self.now - start)) / decay

    def _started_order(self, jobs: dict[int, Job], item: tuple) -> tuple:
        """Running tasks in the order they started: start time, then decreasing prio
        within one run (the scheduler's job list keeps the order of the last change
        to each job), then job and task number."""
        (number, task), grants = item
        job = jobs.get(number)
        start = next((t.start_time for t in job.tasks if t.number == task), 0) if job else 0
        return (start, -max(g.prio for g in grants), number, task)

    # --- queue instances ----------------------------------------------------------

    def usable(self) -> list[Instance]:
        """Instances that take jobs in this run, in the order they are tried."""
        instances = [i for i in self.world.instances if i.available and i.name not in self.alarmed]
        values = {
            h: ordering.host_value(self.cell, h, self.corrections[h])
            for h in {i.host for i in instances}
        }
        return ordering.ranked(self.cell, instances, values)

    def drop_messages(self) -> None:
        """Run-wide messages, in the scheduler's order: overloaded instances, then
        disabled or otherwise unavailable ones, then full ones."""
        self.check_load(self.world.instances)
        for inst in self.world.instances:
            if inst.name in self.alarmed:
                continue
            letters = [c for c in inst.state if c in _DROPPED]
            if letters:
                self.messages.append(
                    f'queue instance "{inst.name}" dropped because it is {_DROPPED[letters[0]]}'
                )
            elif not inst.available:
                self.messages.append(
                    f'queue instance "{inst.name}" dropped because it is temporarily not available'
                )
        for inst in self.world.instances:
            if inst.available and inst.name not in self.alarmed and inst.free_slots() <= 0:
                self.messages.append(f'queue instance "{inst.name}" dropped because it is full')

    def check_load(self, instances: list[Instance]) -> None:
        """Drop the instances over a load threshold (with the load adjustment of the
        jobs started so far), each with its message."""
        for inst in instances:
            if inst.name in self.alarmed or not inst.conf.load_thresholds:
                continue
            why = ordering.load_alarm(
                self.cell, inst.host, inst.conf.load_thresholds, self.corrections[inst.host]
            )
            if why is not None:
                self.alarmed.add(inst.name)
                self.messages.append(
                    f'queue instance "{inst.name}" dropped because it is overloaded: {why}'
                )

    # --- jobs -----------------------------------------------------------------------

    def wait(
        self, job: Job, tasks: tuple[int, ...], reasons: list[str], reserved: bool = False
    ) -> None:
        """A job left waiting; the run-wide messages are put before its own reasons
        when the run ends (qstat -j shows the messages of the whole run)."""
        self.waiting.append(Waiting(job.number, tasks, job.owner, tuple(reasons), reserved))

    def note_full(self) -> None:
        """A queue instance that has just been filled is dropped with a message."""
        for inst in self.world.instances:
            text = f'queue instance "{inst.name}" dropped because it is full'
            out = not inst.available or inst.name in self.alarmed
            if not out and inst.free_slots() <= 0 and text not in self.messages:
                self.messages.append(text)

    def take(self, row: JobPriority, reserve: bool) -> bool:
        """Place the row's tasks; True when it made a reservation."""
        job, conf = row.job, self.cell.sched_conf
        tasks = row.tasks or (row.task,)
        limit = conf.max_pending_tasks_per_job or len(tasks)
        span = duration(self.world, job)
        for k, task in enumerate(tasks[:limit]):
            if conf.maxujobs and self.running[job.owner] >= conf.maxujobs:
                self.wait(job, tuple(tasks[k:]), [USER_LIMIT])
                return False
            order = [i for i in self.usable() if i.free_slots() > 0]
            if k and not order:  # the run stops once the queues are full (module doc)
                self.wait(job, tuple(tasks[k:]), [])
                return False
            attempt = Attempt([])
            now_place = (parallel_now if job.pe else sequential_now)(
                self.world, self.cell, job, order, span, attempt
            )
            if now_place is not None:
                self.start(job, task, now_place, span)
                continue
            later = None
            if reserve:
                later_of = parallel_later if job.pe else sequential_later
                later = later_of(
                    self.world, self.cell, job, self.usable(), *((span,) if job.pe else ())
                )
            if later is not None:
                self.reserve(job, task, later, span)
            self.wait(job, tuple(tasks[k:]), attempt.reasons, later is not None)
            return later is not None
        return False

    def start(self, job: Job, task: int, placed: Placement, span: int) -> None:
        granted = self.book(job, task, placed, span, "STARTING", True)
        self.note_full()
        self.running[job.owner] += 1
        for inst, n in placed.grants:
            self.corrections[inst.host] += n
        hosts = {inst.host for inst, _ in placed.grants}
        self.check_load([i for i in self.world.instances if i.host in hosts and i.available])
        self.started.append(
            Started(
                job.number,
                task,
                job.owner,
                placed.pe,
                placed.slots,
                _grants(placed),
                placed.start,
                span,
                granted,
            )
        )

    def reserve(self, job: Job, task: int, placed: Placement, span: int) -> None:
        granted = self.book(job, task, placed, span, "RESERVING", False)
        self.reservations.append(
            Reservation(
                job.number,
                task,
                job.owner,
                placed.pe,
                placed.slots,
                _grants(placed),
                placed.start,
                span,
                granted,
            )
        )


def _grants(placed: Placement) -> tuple[Grant, ...]:
    return tuple(Grant(i.name, i.host, n) for i, n in placed.grants)


def _dispatchable(row: JobPriority, now: int) -> bool:
    job = row.job
    return not row.running and row.state == "qw" and not job.hold and job.execution_time <= now


def schedule(cell: Cell, prioritisation: Prioritisation, now: int) -> Run:
    """One scheduling run over ``cell`` at ``now`` (module doc)."""
    run = _Run(cell, now)
    run.book_running()
    run.drop_messages()
    conf = cell.sched_conf
    rows = [r for r in prioritisation.jobs if _dispatchable(r, now)]
    reservations = 0
    free = any(i.free_slots() > 0 for i in run.usable())
    stopped = not free and (conf.max_reservation == 0 or not run.usable())
    if stopped:
        run.messages.append("All queues dropped because of overload or full")
    for row in rows:
        if stopped:
            run.wait(row.job, row.tasks or (row.task,), [])
            continue
        reserve = row.job.reserve and reservations < conf.max_reservation
        reservations += run.take(row, reserve)
        stopped = not any(i.free_slots() > 0 for i in run.usable())
    return Run(
        now,
        tuple(run.started),
        tuple(run.reservations),
        tuple(replace(w, reasons=tuple(run.messages) + w.reasons) for w in run.waiting),
        tuple(run.lines),
        tuple(run.messages),
    )
