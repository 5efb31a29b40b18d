"""Grid Engine's objects as the scheduler sees them: the input of every policy.

This module holds the configuration (sched_conf, complexes, users, projects, usersets,
parallel environments), the share tree and its usage, and ``Cell``, the whole dump;
a cell's jobs and tasks are ``jobs.py``'s, its hosts and queues ``queues.py``'s.

These are read from a cell dump by ``condorlite.store.sge_cell`` (the verbatim output
of ``qconf -s...``, ``sge_share_mon`` and ``qstat -xml``) and never change afterwards.
Names follow Grid Engine's own: ``fshare``/``oticket`` as ``qconf -suser`` prints them,
sched_conf keys as sched_conf(5) names them.

Invariants the reader guarantees: names are unique within their kind; a share-tree
node's children are in the order of the dump; a ``Cell``'s dicts are keyed by the
objects' names (share usage by node path). Times are epoch seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from condorlite.core.sge.jobs import Job
from condorlite.core.sge.queues import ClusterQueue, ExecHost, QueueInstance, RunningGrant


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
