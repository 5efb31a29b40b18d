"""One scheduling run (dispatch_jobs in Grid Engine's scheduler thread).

1. Running tasks are booked, in the order they started: what they hold now, and,
   when schedule based (``max_reservation`` > 0), their span in the diagrams, each a
   ``RUNNING`` line.
2. Queue instances suspended, in error or unknown ("temporarily not available"), then
   those over a load threshold ("overloaded"), then disabled ones leave the run; full
   ones go to ``dis_list`` (reservations only); the rest is ``queue_list``. Each drop
   is a run-wide message ("queue instance ... dropped because it is ...").
3. Held jobs ("Job is in hold state"), jobs waiting for another ("job dropped
   because of job dependencies"), in error, or not due yet (``qsub -a``: "execution
   time not reached") are not tried. Pending jobs are taken in ``prioritise()``
   order; a user with ``maxujobs`` running jobs has the rest dropped ("job dropped
   because of user limitations"). A job reserves when it asks (``-R y``) and fewer
   than ``max_reservation`` reservations were made; it then also sees ``dis_list``.
   Each pending task of a job (at most ``max_pending_tasks_per_job``) is placed now
   (``STARTING`` lines) until one cannot be; that one reserves (``RESERVING`` lines)
   or waits.
4. After a start or a reservation attempt, full instances (said once) and, on the
   granted hosts, those the load adjustment of the jobs started so far puts over a
   threshold (said each time) move from ``queue_list`` to ``dis_list``
   (``lists.QueueLists`` keeps the lists of steps 2 and 4). When
   ``queue_list`` is empty the run stops: later jobs are neither started nor reserved
   (Grid Engine leaves its loop there).

A job's span is ``min(h_rt, s_rt)`` requested, else ``default_duration``, plus the
DURATION_OFFSET (``world.duration``); a job started now must fit over all of it, so
a lower job only backfills when it ends before the reservations ahead of it begin.
A waiting job's reasons are its own; ``qstat -j`` shows the run's messages before them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from condorlite.core.sge.jobs import Job
from condorlite.core.sge.objects import Cell
from condorlite.core.sge.priority import JobPriority, Prioritisation

from .later import parallel_later
from .lists import QueueLists
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
    category,
    parallel_now,
    sequential_later,
    sequential_now,
)
from .tasks import task_order
from .verdicts import Verdicts
from .world import World, build, debit, duration, uses

USER_LIMIT = "job dropped because of user limitations"


class _Run:
    """The state of one run while jobs are taken (module doc)."""

    def __init__(self, cell: Cell, now: int) -> None:
        self.cell, self.now = cell, now
        self.world: World = build(cell, now)
        self.world.verdicts = Verdicts(self.world, cell)
        self.lines: list[str] = [SEPARATOR]
        self.running: Counter[str] = Counter()
        self.started: list[Started] = []
        self.reservations: list[Reservation] = []
        self.waiting: list[Waiting] = []
        self.messages: list[str] = []
        #: queue_list, dis_list, the load corrections and the instance order
        self.lists = QueueLists(cell, self.world, self.messages)
        #: categories turned down for a start now, with the reasons of the job that
        #: was turned down first; those whose reservation failed too (``take``)
        self.rejected: dict[tuple, tuple[str, ...]] = {}
        self.reservation_rejected: set[tuple] = set()

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
                    self.lists.corrections[inst.host] += n * (decay - (self.now - start)) / decay

    def _started_order(self, jobs: dict[int, Job], item: tuple) -> tuple:
        """Running tasks in the order they started: start time, then decreasing prio
        within one run (the scheduler's job list keeps the order of the last change
        to each job), then job and task number."""
        (number, task), grants = item
        job = jobs.get(number)
        start = next((t.start_time for t in job.tasks if t.number == task), 0) if job else 0
        return (start, -max(g.prio for g in grants), number, task)

    # --- jobs -----------------------------------------------------------------------

    def wait(
        self, job: Job, tasks: tuple[int, ...], reasons: Sequence[str], reserved: bool = False
    ) -> None:
        """A job left waiting with its own reasons (a tuple is kept as it is: the jobs
        of a category turned down share their first one's)."""
        self.waiting.append(Waiting(job.number, tasks, job.owner, tuple(reasons), reserved))

    def take(self, job: Job, task: int, rest: tuple[int, ...], reserve: bool) -> str:
        """Place one pending task: ``started``, ``reserved`` or ``waits`` (then the
        job's ``rest`` of tasks wait with the reasons).

        Categories, as the real scheduler keeps them (dispatch_jobs,
        ``sge_reject_category``): once a job of a category (``category``) did not
        start, later jobs of that category are not tried for a start in this run, and
        once one also found no reservation, they are not tried for one either. A run
        only takes resources away (starts and reservations debit, load adjustments
        add), so the attempt would fail again; such a job waits with the first one's
        reasons, as ``schedd_mes_commit`` gives the category's messages to all its
        jobs. On 100,000 jobs this spares tens of thousands of attempts over every
        queue instance."""
        conf = self.cell.sched_conf
        if conf.maxujobs and self.running[job.owner] >= conf.maxujobs:
            self.wait(job, rest, [USER_LIMIT])
            return "waits"
        kind = category(self.world, job)
        turned_down = self.rejected.get(kind)
        reserve = reserve and kind not in self.reservation_rejected
        if turned_down is not None and not reserve:
            self.wait(job, rest, turned_down)
            return "waits"
        if reserve:  # a reservation may use the full (and lately overloaded) ones
            self.lists.open_all()
        order = self.lists.order()
        span = duration(self.world, job)
        attempt = Attempt([])
        if turned_down is None:
            now_place = (parallel_now if job.pe else sequential_now)(
                self.world, self.cell, job, order, span, attempt
            )
            if now_place is not None:
                self.start(job, task, now_place, span)
                self.lists.resplit(now_place.grants)
                return "started"
            turned_down = self.rejected[kind] = tuple(attempt.reasons)
        later = None
        if reserve:
            later_of = parallel_later if job.pe else sequential_later
            later = later_of(self.world, self.cell, job, order, *((span,) if job.pe else ()))
            if later is not None:
                self.reserve(job, task, later, span)
            else:
                self.reservation_rejected.add(kind)
            self.lists.resplit(None if later is None else later.grants)
        self.wait(job, rest, turned_down, later is not None)
        return "waits" if later is None else "reserved"

    def start(self, job: Job, task: int, placed: Placement, span: int) -> None:
        granted = self.book(job, task, placed, span, "STARTING", True)
        self.running[job.owner] += 1
        self.lists.started(placed.grants)
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


def _left_out(row: JobPriority, now: int) -> str:
    """Why the scheduler does not try a pending row at all (split_jobs). The dump
    marks a job waiting for a predecessor as held too (qstat's ``hqw``), so a job with
    predecessors is said to wait for them (``d16_held``)."""
    job = row.job
    if row.state.startswith("E"):
        return "Job is in error state"
    if job.predecessors:
        return "job dropped because of job dependencies"
    if row.state.startswith("h") or job.hold:
        return "Job is in hold state"
    return "execution time not reached"


def schedule(cell: Cell, prioritisation: Prioritisation, now: int) -> Run:
    """One scheduling run over ``cell`` at ``now`` (module doc)."""
    run = _Run(cell, now)
    run.book_running()
    run.lists.split_initial()
    conf = cell.sched_conf
    rows = []
    for row in prioritisation.jobs:
        if _dispatchable(row, now):
            rows.append(row)
        elif not row.running:
            run.wait(row.job, row.tasks or (row.task,), [_left_out(row, now)])
    lists = run.lists
    stopped = not lists.queue_list and (conf.max_reservation == 0 or not lists.dis_list)
    if stopped:
        run.messages.append("All queues dropped because of overload or full")
    reservations, done = 0, set()
    limit = conf.max_pending_tasks_per_job
    for row, task in task_order(cell, prioritisation, rows):
        job = row.job
        if job.number in done:
            continue
        tasks = row.tasks or (row.task,)
        place = tasks.index(task)
        if limit and place >= limit:
            continue
        rest = tasks[place:]
        if stopped:
            run.wait(job, rest, [])
            done.add(job.number)
            continue
        reserve = job.reserve and reservations < conf.max_reservation
        outcome = run.take(job, task, rest, reserve)
        if outcome != "started":
            done.add(job.number)
        reservations += outcome == "reserved"
        stopped = not lists.queue_list
    started = {(s.job, s.task) for s in run.started}
    for row in rows:  # tasks past max_pending_tasks_per_job of jobs still going
        number = row.job.number
        if number in done:  # most of them on a large cell: said already
            continue
        left = tuple([t for t in row.tasks or (row.task,) if (number, t) not in started])
        if left:
            run.wait(row.job, left, [])
    return Run(
        now,
        tuple(run.started),
        tuple(run.reservations),
        tuple(run.waiting),
        tuple(run.lines),
        tuple(run.messages),
    )
