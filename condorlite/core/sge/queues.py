"""Grid Engine's execution hosts and queues, as dispatch sees them.

``qconf -se`` (hosts), ``qconf -sq`` (cluster queues, with their ``[host=value]``
overrides resolved per host), ``qstat -f -xml`` (queue instances and what their
consumables have left) and ``qstat -xml -s r -g t`` (where each running task runs).
Read by ``condorlite.store.sge_cell`` and never changed afterwards; part of a ``Cell``
(``objects.py``), whose dispatch fields are empty when the dump has none of these.

Invariants: values stay text as Grid Engine prints them (``mem=4G``) unless a field
says otherwise; lists that Grid Engine keeps in order (a host's ``complex_values``, a
queue's ``load_thresholds``) keep the configured order, which the schedule file shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field


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
