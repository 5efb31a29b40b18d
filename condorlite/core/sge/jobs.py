"""Grid Engine's jobs and their tasks as the scheduler sees them (``qstat -xml -j '*'``).

Read by ``condorlite.store.sge_cell`` and never changed afterwards; part of a ``Cell``
(``objects.py``). Names follow Grid Engine's own: ``ppri`` the POSIX priority
(-1023..1024) that qstat prints, not the ``JB_priority`` (ppri + 1024) the XML carries.

Invariants the reader guarantees: ``Job.tasks`` holds every task the scheduler can see,
in task order: the materialised ones of ``JB_ja_tasks`` (running, finished) and the
pending ones that ``queue_instances.xml`` lists, with their holds (``qstat -xml -j``
prints neither ``JB_ja_*_h_ids`` nor the holds, and ``JB_ja_structure`` keeps the ids of
tasks that have finished and gone); a dump without ``queue_instances.xml`` gets
``JB_ja_structure`` less the materialised tasks, none held. A task's state is its
``JAT_status`` (the constants below), never a string. Times are epoch seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypeVar

T = TypeVar("T")

#: The ``JAT_status`` of a pending task (``JIDLE`` in Grid Engine's headers).
JIDLE = 0
#: The ``JAT_status`` of a running task (``JRUNNING`` in Grid Engine's headers).
JRUNNING = 128
#: ``JAT_status`` of a transferring task (``JTRANSFERING``, 0x200 in ``sge_job.h``;
#: 0x40 is ``JQUEUED``); the scheduler treats it as running.
JTRANSFERING = 0x200
#: ``JAT_status`` of a task that has finished but that the qmaster still keeps until
#: the scheduler has seen it end (``JFINISHED``): neither running nor pending.
JFINISHED = 0x10000


def construct(cls: type[T], fields: dict[str, Any]) -> T:
    """An instance of the frozen dataclass ``cls`` holding ``fields``, made without its
    generated ``__init__`` (which sets each field through ``object.__setattr__``: 3.8 us
    for a ``Job``, 0.4 s for 100,000 of them; this takes a third of that). For the
    readers and passes that make one object per job.

    Invariant the caller keeps: ``fields`` names every field of ``cls`` and nothing
    else (the classes made this way have no ``__post_init__``); the instance is then
    equal to ``cls(**fields)`` in every respect (``tests/sge``: the fast reader's jobs
    equal the careful reader's, made by ``__init__``)."""
    obj = object.__new__(cls)
    object.__setattr__(obj, "__dict__", fields)
    return obj


@dataclass(frozen=True)
class ResourceRequest:
    """One ``-l name=value`` of a job, as ``qstat -xml -j`` gives it (``CE_stringval``,
    ``CE_doubleval``); ``name`` is the complex's full name."""

    name: str
    value: str
    amount: float


@dataclass(frozen=True)
class SlotRange:
    """One ``RN_min``/``RN_max``/``RN_step`` range (PE slot ranges, array task ids)."""

    min: int
    max: int
    step: int = 1

    def values(self) -> range:
        return range(self.min, self.max + 1, max(1, self.step))


@dataclass(frozen=True)
class Task:
    """One array task of a job. ``status`` is ``JAT_status`` (128 running, 0x10000
    finished) or 0 for a pending task; ``start_time`` 0 when pending; ``usage`` the
    task's scaled usage (``JAT_scaled_usage_list``: cpu, mem, io, iow, vmem, maxvmem,
    and for a finished task the accounting figures) when the dump carries it."""

    number: int
    status: int = 0
    start_time: int = 0
    usage: dict[str, float] = field(default_factory=dict)
    #: pending but held: a user, operator or system hold (qhold, qsub -h), an array
    #: hold, or a predecessor not finished (-hold_jid); qstat's ``h`` state letter.
    held: bool = False
    #: pending in error state (qstat's ``E``): the scheduler does not dispatch it.
    error: bool = False

    @property
    def running(self) -> bool:
        return self.status in (JRUNNING, JTRANSFERING)

    @property
    def finished(self) -> bool:
        return self.status == JFINISHED

    @property
    def pending(self) -> bool:
        """Waiting and dispatchable as far as holds and errors go (``JB_execution_time``
        is the job's own field)."""
        return self.status == JIDLE and not self.held and not self.error


@dataclass(frozen=True)
class Job:
    """One job of ``qstat -xml -j '*'``.

    ``ppri`` is the POSIX priority qstat prints (``JB_priority`` - 1024);
    ``deadline`` 0 when none; ``project``/``department`` None when the job has none
    (qstat prints NA); ``pe_range`` empty without a PE; ``tasks`` as the module doc says.
    """

    number: int
    name: str
    owner: str
    group: str
    submission_time: int
    project: str | None = None
    department: str | None = None
    ppri: int = 0
    deadline: int = 0
    override_tickets: int = 0
    jobshare: int = 0
    hard_requests: tuple[ResourceRequest, ...] = ()
    soft_requests: tuple[ResourceRequest, ...] = ()
    hard_queues: tuple[str, ...] = ()
    pe: str | None = None
    pe_range: tuple[SlotRange, ...] = ()
    reserve: bool = False
    tasks: tuple[Task, ...] = ()
    hold: bool = False
    #: ``qsub -a``: not to be started before this time (0: no such time).
    execution_time: int = 0
    #: ``qsub -hold_jid``: the jobs this one waits for (``JB_jid_predecessor_list``).
    predecessors: tuple[int, ...] = ()

    @property
    def is_array(self) -> bool:
        return len(self.tasks) > 1 or any(t.number != 1 for t in self.tasks)
