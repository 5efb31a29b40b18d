"""One job's priority taken apart: what each policy gave it, why, and what would move it.

``explain`` reads the outcome of ``priority.prioritise`` and the cell's objects and
returns the parts, each with the numbers it was made of:

* the weighted sum ``prio = weight_priority * npprior + weight_urgency * nurg +
  weight_ticket * ntckts`` with each product;
* urgency: every resource term, the waiting time and deadline contributions, and the
  range ``nurg`` was normalised over;
* tickets by source: the override tickets of the job's user, project, department and
  the job itself (with ``share_override_tickets`` split), the functional shares the job
  drew on, its share-tree node with its targets and usage;
* its place: the pending jobs ahead of it, the one right ahead, and what would lift it
  past that one: a POSIX priority (``qalter -p``), or override tickets (``qalter -ot``,
  an estimate: more tickets may also raise the maximum ``ntckts`` divides by).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from condorlite.core.sge.objects import Cell
from condorlite.core.sge.priority import PRIORITY_RANGE, JobPriority, Prioritisation
from condorlite.errors import DomainError


@dataclass(frozen=True)
class Source:
    """An entity the job draws tickets or shares from."""

    kind: str  # user | project | department | job
    name: str
    oticket: int
    fshare: int


@dataclass(frozen=True)
class Lift:
    """What would put the job ahead of the one before it."""

    ahead_job: int
    ahead_prio: float
    gap: float
    ppri_needed: int | None
    override_tickets_needed: int | None


@dataclass(frozen=True)
class Explanation:
    row: JobPriority
    weights: dict[str, float]
    products: dict[str, float]
    urgency_range: tuple[float, float]
    max_tickets: float
    sources: tuple[Source, ...]
    conf: dict[str, object]
    position: int | None
    pending: int
    lift: Lift | None


def _sources(cell: Cell, row: JobPriority) -> tuple[Source, ...]:
    job = row.job
    out = []
    user = cell.users.get(job.owner)
    if user is not None:
        out.append(Source("user", user.name, user.oticket, user.fshare))
    project = cell.projects.get(job.project or "")
    if project is not None:
        out.append(Source("project", project.name, project.oticket, project.fshare))
    dept = cell.usersets.get(row.department or "")
    if dept is not None:
        out.append(Source("department", dept.name, dept.oticket, dept.fshare))
    out.append(Source("job", str(job.number), job.override_tickets, job.jobshare))
    return tuple(out)


def _lift(
    result: Prioritisation, row: JobPriority, cell: Cell
) -> tuple[int | None, int, Lift | None]:
    pending = [r for r in result.jobs if not r.running]
    if row.running:
        return None, len(pending), None
    position = next(i for i, r in enumerate(pending) if r is row)
    if position == 0:
        return 1, len(pending), None
    ahead = pending[position - 1]
    gap = ahead.prio - row.prio
    conf = cell.sched_conf
    ppri = None
    if conf.weight_priority > 0:
        need = math.floor(row.job.ppri + gap / conf.weight_priority * PRIORITY_RANGE) + 1
        ppri = need if need <= 1024 else None
    tickets = None
    if conf.weight_ticket > 0 and result.max_tickets > 0:
        tickets = math.ceil(gap / conf.weight_ticket * result.max_tickets) + 1
    lift = Lift(ahead.job.number, ahead.prio, gap, ppri, tickets)
    return position + 1, len(pending), lift


def explain(result: Prioritisation, cell: Cell, job_number: int) -> Explanation:
    """The parts of ``job_number``'s priority (module doc)."""
    rows = result.find(job_number)
    if not rows:
        known = {j.number for j in cell.jobs}
        why = "has no pending or running task" if job_number in known else "is not in the dump"
        raise DomainError(f"job {job_number} {why}")
    row = rows[0]
    conf = cell.sched_conf
    weights = {
        "weight_priority": conf.weight_priority,
        "weight_urgency": conf.weight_urgency,
        "weight_ticket": conf.weight_ticket,
    }
    products = {
        "npprior": conf.weight_priority * row.npprior,
        "nurg": conf.weight_urgency * row.nurg,
        "ntckts": conf.weight_ticket * row.ntckts,
    }
    position, pending, lift = _lift(result, row, cell)
    settings = {
        "policy_hierarchy": conf.policy_hierarchy,
        "weight_tickets_functional": conf.weight_tickets_functional,
        "weight_tickets_share": conf.weight_tickets_share,
        "share_override_tickets": conf.share_override_tickets,
        "share_functional_shares": conf.share_functional_shares,
        "weight_user": conf.weight_user,
        "weight_project": conf.weight_project,
        "weight_department": conf.weight_department,
        "weight_job": conf.weight_job,
        "weight_waiting_time": conf.weight_waiting_time,
        "weight_deadline": conf.weight_deadline,
        "compensation_factor": conf.compensation_factor,
        "halftime": conf.halftime,
    }
    return Explanation(
        row=row,
        weights=weights,
        products=products,
        urgency_range=(result.min_urgency, result.max_urgency),
        max_tickets=result.max_tickets,
        sources=_sources(cell, row),
        conf=settings,
        position=position,
        pending=pending,
        lift=lift,
    )
