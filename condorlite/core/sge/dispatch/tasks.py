"""The order pending tasks are taken in (sgeee_sort_jobs, sgeee_resort_pending_jobs).

A job with several pending tasks is priced task by task (as many as the ticket
calculation prices: ``min(max_pending_tasks_per_job, free slots + 1)``), each later
task as if the earlier ones ran, so its tickets fall; once a task is dispatched the
scheduler sorts the job again by its next task's priority, so another job may come in
between (``d17_array_order``: alice's tasks 1 and 2, then bob's job, then her task 3).
That is taking every pending task in the order of its own priority:

    prio(task) = prio(job) - weight_ticket * ntckts(job)
                 + weight_ticket * tickets(task) / max_tickets

(urgency and POSIX priority are the job's); a task past those priced keeps the last
priced figure. Ties: earlier submission, lower job number, lower task number.
"""

from __future__ import annotations

from condorlite.core.sge.objects import Cell
from condorlite.core.sge.priority import JobPriority, Prioritisation
from condorlite.core.sge.urgency import normalize


def task_order(
    cell: Cell, prioritisation: Prioritisation, rows: list[JobPriority]
) -> list[tuple[JobPriority, int]]:
    """Every pending task of ``rows`` (a row per job, in ``prioritise()`` order) in the
    order the scheduler takes them (module doc)."""
    weight = cell.sched_conf.weight_ticket
    arrays = [r for r in rows if len(r.tasks) > 1]
    priced = prioritisation.task_tickets if arrays else {}
    most = prioritisation.max_tickets
    entries = []
    for rank, row in enumerate(rows):
        tasks = row.tasks or (row.task,)
        job = row.job
        if len(tasks) == 1:  # most rows: one task at the job's priority
            entries.append((-row.prio, job.submission_time, job.number, tasks[0], rank))
            continue
        base, prio = row.prio - weight * row.ntckts, row.prio
        for task in tasks:
            if (job.number, task) in priced:
                prio = base + weight * normalize(priced[job.number, task], 0.0, most)
            entries.append((-prio, job.submission_time, job.number, task, rank))
    entries.sort()
    # by index, not ``*_, task, rank`` (which builds a list per entry)
    return [(rows[e[4]], e[3]) for e in entries]
