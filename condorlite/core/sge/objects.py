"""Grid Engine's objects as the scheduler sees them: the input of every policy.

These are read from a cell dump by ``condorlite.store.sge_cell`` (the verbatim output
of ``qconf -s...``, ``sge_share_mon`` and ``qstat -xml``) and never change afterwards.
Names follow Grid Engine's own: ``fshare``/``oticket`` as ``qconf -suser`` prints them,
sched_conf keys as sched_conf(5) names them, ``ppri`` the POSIX priority (-1023..1024)
that qstat prints, not the ``JB_priority`` (ppri + 1024) the XML carries.

Invariants the reader guarantees: names are unique within their kind; a share-tree
node's children are in the order of the dump; ``Job.tasks`` holds every task the
scheduler can see, in task order: the materialised ones of ``JB_ja_tasks`` (running,
finished) and the pending ones that ``queue_instances.xml`` lists, with their holds
(``qstat -xml -j`` prints neither ``JB_ja_*_h_ids`` nor the holds, and
``JB_ja_structure`` keeps the ids of tasks that have finished and gone); a dump without
``queue_instances.xml`` gets ``JB_ja_structure`` less the materialised tasks, none held.
Times are epoch seconds.
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
class SchedConf:
    """``qconf -ssconf``: the keys the policies read, typed; every key as text in ``raw``.

    Times (``halftime`` in hours, ``schedule_interval`` ...) keep Grid Engine's units:
    ``halftime`` is hours as sched_conf(5) says; ``default_duration`` seconds or None for
    INFINITY.
    """

    raw: dict[str, str]
    algorithm: str = "default"
    schedule_interval: int = 15
    maxujobs: int = 0
    queue_sort_method: str = "load"
    job_load_adjustments: str = "np_load_avg=0.50"
    load_adjustment_decay_time: int = 450
    load_formula: str = "np_load_avg"
    schedd_job_info: str = "false"
    params: dict[str, str] = field(default_factory=dict)
    halftime: int = 168
    usage_weight_list: dict[str, float] = field(
        default_factory=lambda: {"cpu": 1.0, "mem": 0.0, "io": 0.0}
    )
    compensation_factor: float = 5.0
    weight_user: float = 0.25
    weight_project: float = 0.25
    weight_department: float = 0.25
    weight_job: float = 0.25
    weight_tickets_functional: int = 0
    weight_tickets_share: int = 0
    share_override_tickets: bool = True
    share_functional_shares: bool = True
    max_functional_jobs_to_schedule: int = 200
    report_pjob_tickets: bool = True
    max_pending_tasks_per_job: int = 50
    halflife_decay_list: str = "none"
    policy_hierarchy: str = "OFS"
    weight_ticket: float = 0.01
    weight_waiting_time: float = 0.0
    weight_deadline: float = 3600000.0
    weight_urgency: float = 0.1
    weight_priority: float = 1.0
    max_reservation: int = 0
    default_duration: int | None = None


@dataclass(frozen=True)
class Complex:
    """One line of ``qconf -sc``. ``type`` is upper case (INT, DOUBLE, MEMORY, TIME,
    STRING, CSTRING, RESTRING, HOST, BOOL); ``consumable`` is YES, NO or JOB;
    ``requestable`` YES, NO or FORCED; ``default`` as printed."""

    name: str
    shortcut: str
    type: str
    relop: str
    requestable: str
    consumable: str
    default: str
    urgency: float


@dataclass(frozen=True)
class User:
    """``qconf -suser``."""

    name: str
    oticket: int = 0
    fshare: int = 0
    delete_time: int = 0
    default_project: str | None = None


@dataclass(frozen=True)
class Project:
    """``qconf -sprj``."""

    name: str
    oticket: int = 0
    fshare: int = 0
    acl: tuple[str, ...] = ()
    xacl: tuple[str, ...] = ()


@dataclass(frozen=True)
class Userset:
    """``qconf -su``: an access list, a department (``DEPT`` in ``types``), or both."""

    name: str
    types: frozenset[str] = frozenset({"ACL"})
    fshare: int = 0
    oticket: int = 0
    entries: tuple[str, ...] = ()

    @property
    def is_department(self) -> bool:
        return "DEPT" in self.types


@dataclass(frozen=True)
class ParallelEnvironment:
    """``qconf -sp``. ``urgency_slots`` is ``min``, ``max``, ``avg`` or a number as text;
    ``allocation_rule`` is ``$pe_slots``, ``$fill_up``, ``$round_robin`` or a number."""

    name: str
    slots: int = 0
    user_lists: tuple[str, ...] = ()
    xuser_lists: tuple[str, ...] = ()
    allocation_rule: str = "$pe_slots"
    control_slaves: bool = False
    job_is_first_task: bool = True
    urgency_slots: str = "min"


@dataclass(frozen=True)
class ShareTreeNode:
    """A node of ``qconf -sstree``. ``type`` is 0 for a user tree, 1 for a project tree
    (as the dump prints it); leaves name users, projects, or ``default``."""

    id: int
    name: str
    type: int
    shares: int
    children: tuple[ShareTreeNode, ...] = ()


@dataclass(frozen=True)
class ShareUsage:
    """One row of ``sge_share_mon -c 1 -h -n``: a node's usage as the qmaster keeps it.

    ``node`` is the node's path as share_mon prints it (``/``, ``/P1/alice``); ``usage``
    the combined decayed usage; ``cpu``/``mem``/``io`` the decayed figures; ``ltcpu``,
    ``ltmem``, ``ltio`` the long-term (never decayed) ones; ``usage_time`` when the
    qmaster last decayed them.
    """

    node: str
    user: str
    project: str
    shares: int
    job_count: int
    level_percent: float
    total_percent: float
    long_target_share: float
    short_target_share: float
    actual_share: float
    usage: float
    cpu: float
    mem: float
    io: float
    ltcpu: float
    ltmem: float
    ltio: float
    curr_time: int = 0
    usage_time: int = 0


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


@dataclass(frozen=True)
class Cell:
    """Everything a cell dump holds, keyed by name where the kind has names.

    ``now`` is the dump's ``now`` file (the scheduler run's time) or None; commands let
    ``--now`` override it. ``share_tree`` is None without a share tree; ``share_usage``
    is keyed by node path.
    """

    sched_conf: SchedConf
    complexes: dict[str, Complex]
    users: dict[str, User]
    projects: dict[str, Project]
    usersets: dict[str, Userset]
    pes: dict[str, ParallelEnvironment]
    jobs: tuple[Job, ...]
    share_tree: ShareTreeNode | None = None
    share_usage: dict[str, ShareUsage] = field(default_factory=dict)
    now: int | None = None
    warnings: tuple[str, ...] = ()
    #: Jobs changed by ``qalter`` since the scheduler last loaded its job list, in the
    #: order they were changed (the dump's optional ``modified_jobs`` file): the
    #: scheduler's pending list holds them after every other job, in that order.
    modified_jobs: tuple[int, ...] = ()
    #: dispatch (``hosts``, ``queues``, ``queue_instances.xml`` with
    #: ``queue_resources.xml``, ``running.xml``, ``global_conf``); empty when absent.
    hosts: dict[str, ExecHost] = field(default_factory=dict)
    queues: dict[str, ClusterQueue] = field(default_factory=dict)
    queue_instances: dict[str, QueueInstance] = field(default_factory=dict)
    running: tuple[RunningGrant, ...] = ()
    global_conf: dict[str, str] = field(default_factory=dict)
    #: ``share_usage`` already holds every running task's usage up to the run's time
    #: (it comes from condorlite's own cycle, which charged them), so the ticket
    #: calculation must not add the tasks' usage on top (``sharetree.add_job_usage``).
    usage_booked: bool = False

    @property
    def departments(self) -> dict[str, Userset]:
        return {name: u for name, u in self.usersets.items() if u.is_department}


# --- dispatch: hosts, queues, queue instances, running grants ---------------------------


@dataclass(frozen=True)
class ExecHost:
    """``qconf -se``: the ``global`` pseudo host or an execution host.

    ``complex_values`` keeps the configured order (the schedule file lists a level's
    consumables in it); values are text as printed (``license=5``, ``mem=4G``).
    ``load_values`` are the host's reported loads as text; ``load_scaling`` the factors
    sge_host_conf(5) applies to them.
    """

    name: str
    complex_values: tuple[tuple[str, str], ...] = ()
    load_values: dict[str, str] = field(default_factory=dict)
    load_scaling: dict[str, float] = field(default_factory=dict)
    processors: int = 0
    user_lists: tuple[str, ...] = ()
    xuser_lists: tuple[str, ...] = ()
    projects: tuple[str, ...] = ()
    xprojects: tuple[str, ...] = ()


@dataclass(frozen=True)
class QueueConf:
    """One cluster queue's settings as they apply on one host (``[host=value]``
    overrides of ``qconf -sq`` applied). ``h_rt``/``s_rt`` are seconds or None for
    INFINITY; ``load_thresholds`` and ``complex_values`` keep their order."""

    seq_no: int = 0
    slots: int = 1
    load_thresholds: tuple[tuple[str, str], ...] = ()
    complex_values: tuple[tuple[str, str], ...] = ()
    pe_list: tuple[str, ...] = ()
    qtype: tuple[str, ...] = ("BATCH", "INTERACTIVE")
    user_lists: tuple[str, ...] = ()
    xuser_lists: tuple[str, ...] = ()
    projects: tuple[str, ...] = ()
    xprojects: tuple[str, ...] = ()
    h_rt: int | None = None
    s_rt: int | None = None


@dataclass(frozen=True)
class ClusterQueue:
    """``qconf -sq``: a cluster queue, its host list and its settings per host."""

    name: str
    hostlist: tuple[str, ...] = ()
    default: QueueConf = field(default_factory=QueueConf)
    by_host: dict[str, QueueConf] = field(default_factory=dict)

    def conf(self, host: str) -> QueueConf:
        return self.by_host.get(host, self.default)


@dataclass(frozen=True)
class QueueInstance:
    """One ``Queue-List`` of ``qstat -f -xml``: ``name`` is ``queue@host``; ``state``
    the state letters (``''`` when none: ``d`` disabled, ``s``/``S`` suspended, ``E``
    error, ``a``/``A`` alarm, ``u`` unknown, ``C``/``D`` calendar, ``o``, ``c``);
    ``resources`` the ``-F`` values (name -> (type, text); ``gc``/``hc``/``qc`` are
    what a consumable has left, ``hl`` a host load)."""

    name: str
    queue: str
    host: str
    slots_used: int = 0
    slots_reserved: int = 0
    slots_total: int = 0
    state: str = ""
    resources: dict[str, tuple[str, str]] = field(default_factory=dict)


@dataclass(frozen=True)
class RunningGrant:
    """Where a running task runs: one line of ``qstat -xml -s r -g t`` (per queue
    instance, the master's line and each slave's summed)."""

    job: int
    task: int
    queue_instance: str
    slots: int
    master: bool
    #: qstat's ``JAT_prio`` of the task: the priority it had in the run that
    #: started it (jobs started in one run started in decreasing prio).
    prio: float = 0.0
