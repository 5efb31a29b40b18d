"""The working state of one ticket calculation: entities with job counts, job refs.

Grid Engine computes tickets over *job refs*: one per running task and one per pending
task it considers (at most ``min(max_pending_tasks_per_job, free_slots + 1)`` per job),
running refs first, then pending refs in job-number order. Each ref points to the
job's user, project and department *entities* (only those that exist as objects; a
job's owner with no user object has no user entity) and to its share-tree node.

An entity counts the jobs that are *active* for the ticket policies: ``job_cnt`` counts
running refs, and, while the pending calculations run, the pending refs already
"considered running" one by one; ``pending_cnt`` counts pending refs. These counters
are the only state the policies share, and this module's ``TicketRun`` owns them for
the length of one calculation (never longer).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, NamedTuple

from condorlite.core.sge.jobs import Job
from condorlite.core.sge.objects import Cell

if TYPE_CHECKING:  # sharetree builds on refs; a ref only points at a node
    from condorlite.core.sge.sharetree import Node

#: The department of a user no department lists.
DEFAULT_DEPARTMENT = "defaultdepartment"


@dataclass(eq=False, slots=True)
class Entity:
    """A user, project or department as the ticket policies see it."""

    kind: str
    name: str
    fshare: int
    oticket: int
    job_cnt: int = 0
    pending_cnt: int = 0


class OverridePart(NamedTuple):
    """Override tickets a job got from one source (``kind`` user, project,
    department or job)."""

    kind: str
    name: str
    tickets: float


class FunctionalParts(NamedTuple):
    """A job's functional tickets by category, each already weighted."""

    user: float = 0.0
    project: float = 0.0
    department: float = 0.0
    job: float = 0.0


class TreePart(NamedTuple):
    """The share-tree level that priced a job last: its node, that node's target
    (``stt`` for pending jobs, ``ostt`` for running ones) and the job's fraction of it."""

    node: str
    target: float
    fraction: float


NO_FUNCTIONAL = FunctionalParts()


@dataclass(eq=False, slots=True)
class JobRef:
    """One task in one ticket calculation, with the tickets it has got so far.

    ``tickets`` accumulates the tickets of the policies that later (dependent) policies
    build on (``policy_hierarchy``); ``ticket`` is the final sum of the three sources.
    ``user_fshare``/``project_fshare``/``dept_fshare``/``job_fshare`` are the shares the
    functional policy last gave this ref while pricing it (working figures of
    ``functional.price``; a pending ref that takes its category's figures keeps none).
    """

    job: Job
    task: int
    queued: bool
    user: Entity | None
    project: Entity | None
    dept: Entity | None
    department: str | None = None
    node: Node | None = None
    tickets: float = 0.0
    sticket: float = 0.0
    fticket: float = 0.0
    oticket: float = 0.0
    ticket: float = 0.0
    share: float = 0.0
    #: Where the tickets came from, for ``explain``: override tickets by source
    #: (kind, name, tickets); functional tickets by category (user, project,
    #: department, job), weighted; the share-tree level that priced the job last
    #: (node path, its target, the job's fraction of it).
    override_parts: tuple[OverridePart, ...] = ()
    functional_parts: FunctionalParts = NO_FUNCTIONAL
    sharetree_part: TreePart | None = None
    user_fshare: float = 0.0
    project_fshare: float = 0.0
    dept_fshare: float = 0.0
    job_fshare: float = 0.0

    @property
    def entities(self) -> tuple[Entity | None, Entity | None, Entity | None]:
        return (self.user, self.project, self.dept)

    def count(self, queued: bool, step: int = 1) -> None:
        """``sge_set_job_cnts``/``sge_unset_job_cnts``: add ``step`` to the running
        (``queued`` False) or pending counters of this ref's entities."""
        for entity in self.entities:
            if entity is None:
                continue
            if queued:
                entity.pending_cnt += step
            else:
                entity.job_cnt += step

    def sort_key(self) -> tuple[int, int, int]:
        """Seniority: earlier submission, then lower job number, then lower task."""
        return (self.job.submission_time, self.job.number, self.task)


@dataclass
class Entities:
    """Every user, project and department of the cell as a fresh ``Entity``."""

    users: dict[str, Entity] = field(default_factory=dict)
    projects: dict[str, Entity] = field(default_factory=dict)
    depts: dict[str, Entity] = field(default_factory=dict)
    dept_entries: dict[str, frozenset[str]] = field(default_factory=dict)

    @classmethod
    def of(cls, cell: Cell) -> Entities:
        return cls(
            users={n: Entity("user", n, u.fshare, u.oticket) for n, u in cell.users.items()},
            projects={
                n: Entity("project", n, p.fshare, p.oticket) for n, p in cell.projects.items()
            },
            depts={
                n: Entity("department", n, d.fshare, d.oticket) for n, d in cell.departments.items()
            },
            dept_entries={n: frozenset(d.entries) for n, d in cell.departments.items()},
        )

    def ref(self, job: Job, task: int, queued: bool) -> JobRef:
        """A ref for ``job``'s task ``task`` pointing at its existing entities."""
        department = job.department or self.department_of(job)
        return JobRef(
            job=job,
            task=task,
            queued=queued,
            user=self.users.get(job.owner),
            project=self.projects.get(job.project) if job.project else None,
            dept=self.depts.get(department),
            department=department,
        )

    def refs(self, job: Job, tasks: list[int], queued: bool) -> list[JobRef]:
        """``ref`` for each of ``tasks``, the job's entities looked up once."""
        department = job.department or self.department_of(job)
        user = self.users.get(job.owner)
        project = self.projects.get(job.project) if job.project else None
        dept = self.depts.get(department)
        return [JobRef(job, task, queued, user, project, dept, department) for task in tasks]

    def department_of(self, job: Job) -> str:
        """The department of a job the dump gives none for: the first department
        (in name order) listing the owner or ``@group``, else ``defaultdepartment``, as
        the qmaster assigns it at submission (``qstat -xml -j`` does not print it)."""
        for name in sorted(self.dept_entries):
            entries = self.dept_entries[name]
            if job.owner in entries or f"@{job.group}" in entries:
                return name
        return DEFAULT_DEPARTMENT
