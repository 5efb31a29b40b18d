"""One Grid Engine cycle over condorlite's own state: what ran since the last cycle is
charged to share-tree usage, the runs are brought in line with the input, and the cell
is made ready for the scheduling run (``advance``); then the run's starts are recorded
(``record_starts``). Pure: the state comes in and goes out as ``SgeState``.

A *run* is one task condorlite knows to be running: seen running in the input
(``source`` "input") or started by a cycle of condorlite (``source`` "condorlite").
Per task it keeps the usage already charged (``debited``, Grid Engine's
``UU_debited_job_usage``). At cycle time ``now`` (after ``last`` the previous one):

1. every usage record is decayed to ``now`` (``usage.decayed``), with the ``halftime``
   the last cycle used when sched_conf's changed since (and was not 0): the real
   scheduler decays up to the change with the old half-life;
2. each task of the input is matched with its run:

   * running in the input, with usage figures (``JAT_scaled_usage_list``): charged
     ``max(usage_k - debited_k, 0)`` per type, ``debited`` = its usage (exactly as the
     real scheduler's ``decay_and_sum_usage``); without figures yet: nothing;
   * finished in the input (``JFINISHED``, kept until the scheduler saw it): its
     final figures charged the same way, and its run ends (kept as ``finished``, not
     running, while the input lists it, so it is charged once);
   * pending in the input but started by condorlite: still running, as the input does
     not know it (a site that feeds condorlite's own cycle): its usage is estimated
     from the run itself, ``cpu = slots x (now - start)`` (mem and io 0), charged the
     same way;
   * a run whose task the input no longer has (or has pending again when the input
     had it running): the run ends; what it used after the last cycle is not known and
     is not charged;

3. the charge goes to ``usage.charge_keys``; the records' time becomes ``now``.

A ``now`` before ``last`` (a clock that went back, a cron run that lost the race)
decays and charges nothing and leaves every ``debited`` as it was, so the interval is
charged by the next cycle instead, never twice; runs still start and end.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from condorlite.core.sge import usage as U
from condorlite.core.sge.dispatch import Grant, Resource, Started
from condorlite.core.sge.jobs import JRUNNING, Job, Task
from condorlite.core.sge.objects import Cell
from condorlite.core.sge.queues import RunningGrant

INPUT = "input"
CONDORLITE = "condorlite"
#: A task the input shows finished and that was charged for it: kept (not running)
#: while the input still lists it, so that the same final figures are never charged
#: twice (Grid Engine marks such a task with a ``finished_jobs`` usage entry).
FINISHED = "finished"


@dataclass(frozen=True)
class RunRecord:
    """A running task as the state keeps it (module doc)."""

    job: int
    task: int
    owner: str
    project: str | None
    source: str
    start_time: int
    slots: int
    grants: tuple[Grant, ...] = ()
    resources: tuple[Resource, ...] = ()
    debited: U.UsageVector = U.ZERO


@dataclass(frozen=True)
class SgeState:
    """The Grid Engine part of the state directory: the last cycle's time (None before
    the first), the usage records and the runs."""

    last_cycle: int | None = None
    records: dict[U.UsageKey, U.UsageRecord] = field(default_factory=dict)
    runs: dict[tuple[int, int], RunRecord] = field(default_factory=dict)
    #: sched_conf's ``halftime`` (hours) at the last cycle (None before the first).
    halftime: int | None = None


@dataclass(frozen=True)
class Charge:
    """Usage one task added this cycle, and the records it went to."""

    job: int
    task: int
    owner: str
    delta: U.UsageVector
    keys: tuple[U.UsageKey, ...]


@dataclass(frozen=True)
class Ended:
    job: int
    task: int
    owner: str
    reason: str


@dataclass(frozen=True)
class Advance:
    """What ``advance`` made of the state: the new state (runs not yet holding this
    cycle's starts), the cell to schedule on, and what it charged and ended."""

    state: SgeState
    cell: Cell
    charges: tuple[Charge, ...]
    ended: tuple[Ended, ...]
    clock_behind: int


def advance(state: SgeState, cell: Cell, now: int) -> Advance:
    """Steps 1-3 of the module doc, and the cell as the scheduling run must see it:
    condorlite's own runs running (``overlay``), the usage of the records."""
    last = state.last_cycle
    behind = last - now if last is not None and now < last else 0
    records = dict(state.records)
    halftime = cell.sched_conf.halftime
    if not behind:
        # sgeee.c: a changed halftime decays up to now with the old one (unless it was 0)
        constants = U.decay_constants(cell.sched_conf, state.halftime or halftime)
        records = {k: U.decayed(r, constants, now) for k, r in records.items()}
    done = _reconcile(state.runs, cell, now, charge=not behind)
    for c in done.charges:
        for key in c.keys:
            record = records.get(key) or U.UsageRecord(key, usage_time=now)
            records[key] = U.charged(record, c.delta)
    new = SgeState(now if last is None else max(last, now), records, done.runs,
                   state.halftime if behind else halftime)
    return Advance(new, overlay(cell, done.runs), tuple(done.charges), tuple(done.ended),
                   behind)


@dataclass(frozen=True)
class _Seen:
    """One input task against its run: the run after this input (None: none), the
    usage figures to charge from (None: nothing to charge), why a run ended ("")."""

    run: RunRecord | None
    used: U.UsageVector | None = None
    ended: str = ""


@dataclass
class _Reconciled:
    runs: dict[tuple[int, int], RunRecord] = field(default_factory=dict)
    charges: list[Charge] = field(default_factory=list)
    ended: list[Ended] = field(default_factory=list)


def _reconcile(runs: dict[tuple[int, int], RunRecord], cell: Cell, now: int,
               charge: bool) -> _Reconciled:
    """Step 2 of the module doc for every task of the input, then the runs whose task
    the input no longer has."""
    users, projects = set(cell.users), set(cell.projects)
    out = _Reconciled()
    seen: set[tuple[int, int]] = set()
    slots_of = _slots_by_task(cell)
    for job in cell.jobs:
        for task in job.tasks:
            key = (job.number, task.number)
            seen.add(key)
            found = _observe(runs.get(key), job, task, now, slots_of.get(key, 1))
            run = found.run
            if run is None:
                if found.ended:
                    out.ended.append(Ended(job.number, task.number, job.owner, found.ended))
                continue
            if charge and found.used is not None:
                delta = found.used.growth_over(run.debited)
                run = replace(run, debited=found.used)
                if not delta.zero:
                    keys = U.charge_keys(job.owner, job.project, users, projects)
                    out.charges.append(Charge(job.number, task.number, job.owner, delta,
                                              keys))
            if task.finished and run.source != FINISHED and charge:
                # (a cycle that charges nothing leaves the end to the next one)
                out.ended.append(Ended(job.number, task.number, job.owner, "finished"))
                run = replace(run, source=FINISHED)
            out.runs[key] = run
    for key in sorted(set(runs) - seen):
        gone = runs[key]
        if gone.source != FINISHED:
            out.ended.append(Ended(gone.job, gone.task, gone.owner, "gone from the input"))
    return out


def _observe(run: RunRecord | None, job: Job, task: Task, now: int, slots: int) -> _Seen:
    """How the input shows ``task`` and what that makes of its run (module doc)."""
    measured = U.UsageVector.of(task.usage) if task.usage else None
    if run is not None and run.source == FINISHED:
        # charged for its end already: kept while the input lists it finished
        return _Seen(run if task.finished else None)
    if task.running or task.finished:
        if run is None or run.source != INPUT:
            start = task.start_time or (run.start_time if run else now)
            run = RunRecord(job.number, task.number, job.owner, job.project, INPUT, start,
                            slots, run.grants if run else (), run.resources if run else (),
                            run.debited if run else U.ZERO)
        return _Seen(run, measured)
    if run is None:
        return _Seen(None)
    if run.source == CONDORLITE and task.status == 0:
        # the input does not know condorlite started it: the run's own wall clock
        return _Seen(run, U.UsageVector(cpu=float(run.slots * max(now - run.start_time, 0))))
    return _Seen(None, ended="pending again in the input")


def _slots_by_task(cell: Cell) -> dict[tuple[int, int], int]:
    out: dict[tuple[int, int], int] = {}
    for g in cell.running:
        out[(g.job, g.task)] = out.get((g.job, g.task), 0) + g.slots
    return out


def overlay(cell: Cell, runs: dict[tuple[int, int], RunRecord]) -> Cell:
    """``cell`` with condorlite's own runs that the input still has pending made
    running from their recorded start on their recorded queue instances (so the
    scheduling run books them and does not start them again)."""
    mine = {k: r for k, r in runs.items() if r.source == CONDORLITE}
    if not mine:
        return cell
    jobs = []
    grants = list(cell.running)
    for job in cell.jobs:
        tasks = []
        for task in job.tasks:
            run = mine.get((job.number, task.number))
            if run is not None and task.status == 0:
                task = replace(task, status=JRUNNING, start_time=run.start_time)
                grants += [RunningGrant(run.job, run.task, g.queue_instance, g.slots, i == 0)
                           for i, g in enumerate(run.grants)]
            tasks.append(task)
        jobs.append(replace(job, tasks=tuple(tasks)))
    return replace(cell, jobs=tuple(jobs), running=tuple(grants))


def priced_with(cell: Cell, records: dict[U.UsageKey, U.UsageRecord]) -> Cell:
    """``cell`` with its share-tree usage taken from ``records`` instead of a
    ``share_mon`` file, marked as holding every running task's usage already (the
    cycle charged it), so the ticket calculation adds none on top."""
    if cell.share_tree is None:
        return replace(cell, usage_booked=True)
    rows = U.node_rows(cell.share_tree, records, cell.sched_conf, set(cell.projects))
    return replace(cell, share_usage=rows, usage_booked=True)


def record_starts(state: SgeState, started: tuple[Started, ...], projects: dict[int, str | None],
                  now: int) -> SgeState:
    """``state`` with a run for each task the scheduling run started at ``now``
    (``projects``: each job's project)."""
    runs = dict(state.runs)
    for s in started:
        runs[(s.job, s.task)] = RunRecord(s.job, s.task, s.owner, projects.get(s.job),
                                          CONDORLITE, now, s.slots, s.grants, s.resources)
    return replace(state, runs=runs)
