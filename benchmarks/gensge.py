#!/usr/bin/env python3
"""Seeded generator of Grid Engine (SoGE 8.1.9) cell dumps, for the qstat benchmark.

Writes a directory in the cell-dump layout of ``tools/sge/README.md`` ("The cell dump"),
byte for byte in the formats a real cell prints (``qconf -s...``, ``sge_share_mon -c 1
-h -n``, ``qstat -xml -j '*'``), so ``condorlite.store.sge_cell.read_cell`` reads a
generated cell through the same code as a recorded one:

``sched_conf``
    The install's "normal" profile as the recordings have it, with
    ``weight_tickets_functional`` (``--functional-tickets``, 500,000),
    ``weight_tickets_share`` (``--share-tickets``, 1,000,000),
    ``share_override_tickets TRUE``, ``policy_hierarchy OFS``,
    ``max_functional_jobs_to_schedule`` (``--max-functional``, default 200, Grid
    Engine's own default), ``weight_ticket 0.01``, ``weight_waiting_time 0.000278``
    (about 1 per hour waited), ``weight_urgency 0.1``, ``weight_priority 1.0``.
``complexes``
    ``tools/sge/default_complexes.txt`` (the install's) plus three consumables with
    urgency: ``lic`` (INT, 200), ``gpu`` (INT, 5000), ``scratch`` (MEMORY, 1e-9 per
    byte, so 1 per GB).
``users``, ``projects``, ``usersets``
    ``--users`` users ``u0001``...: fshare 0 for a fifth, else 1-200; oticket 0 for
    most, 100-20,000 for about 12 %; about 8 % have a ``default_project``. ``--projects``
    projects ``prj01``... with fshare 5-100 and oticket on some. Departments
    (``dept01``..., usersets of type DEPT, ``--departments``, default users / 40) hold
    90 % of the users, with fshare and oticket (some 0); the others fall into
    ``defaultdepartment``. ``deadlineusers`` holds 5 % of the users (those allowed
    ``-dl``). Long ``entries`` lines are wrapped with `` \\`` as qconf wraps them.
``pes``
    ``smp`` (``$pe_slots``, urgency_slots min, as recorded), ``mpi`` (``$fill_up``,
    max) and ``mpi_rr`` (``$round_robin``, avg).
``share_tree``, ``share_mon``
    Three levels: Root -> one node per project (type 1) -> user nodes (type 0) for
    about 80 % of each project's members; every other project also has a ``default``
    node, and Root has a user-level ``default`` node for jobs without a project.
    ``share_mon`` lists every node depth first, as ``sge_share_mon`` does, with the
    temporary children the qmaster adds below a ``default`` node (one per user object
    without a node of its own there). Usage is non-zero and skewed: each user has a
    Pareto-distributed weight (a tenth have none), split over their projects;
    inner nodes carry the sum of their children.
``jobs.xml``
    ``--jobs`` jobs numbered from 1000 upward, submitted over ``--days`` (5) before
    ``--now``, owners drawn with Zipf-like weights (a few users own most jobs), in the
    element order of ``qstat -xml -j '*'`` (environment, mail list, binding ...: about
    4.3 kB a job, as real ones). About 85 % carry ``-P`` (one of the owner's 1-3
    projects, or their default project), 10 % a negative ``-p``, 5 % ``-js``, 0.2 %
    ``-ot``, 0.5 % of deadline users' jobs ``-dl``; hard ``-l`` requests of the
    consumables (``lic`` 15 %, ``gpu`` 3 %, ``scratch`` 8 %) and of ``h_rt``,
    ``mem_free``, ``arch``; soft ``hostname`` on 2 %; ``-q all.q`` on 3 %; 10 % PE jobs
    with slot ranges (some ``-R y``); 1.5 % array jobs of 2-60 tasks (some with a step).
    About ``--running`` (2 %) of the jobs have running tasks (``JB_ja_tasks`` with
    ``JAT_status`` 128, a start time and scaled usage); an array job's running tasks
    are its first ones and ``JB_ja_structure`` keeps the whole range, as qstat prints
    it. Written job by job (100,000 jobs make about 430 MB).
``running.xml``, ``queue_instances.xml``
    One MASTER line per running task (``qstat -xml -s r -g t -u '*'``); the queue
    instance with its running tasks and one pending line per job, with an array's
    pending task ids in ``<tasks>`` (``qstat -f -xml -u '*'``, as before any scheduler
    run: ``JAT_prio`` 0). Times in UTC, the recordings' time zone. The single queue
    instance of the recording carries every running task (the policies do not look at
    slot counts).
``hosts``, ``queues``, ``global_conf``
    Copied from a recording (``tests/data/sge/o5_all/t0_share_true``); the queue's
    ``pe_list`` names the three PEs.
``now``
    ``--now`` (default 1795641506, a recorded scheduler run's time).

Same arguments, same bytes: only ``random.Random(seed)`` is used, never the clock.

Usage::

    python benchmarks/gensge.py --jobs 100000 --users 1000 --projects 50 --seed 1 \\
        --out /tmp/sge100k [--max-functional 200]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

REPO = Path(__file__).resolve().parents[1]
RECORDING = REPO / "tests" / "data" / "sge" / "o5_all" / "t0_share_true"
DEFAULT_COMPLEXES = REPO / "tools" / "sge" / "default_complexes.txt"
HOST = "vm"
DEFAULT_NOW = 1795641506

EXTRA_COMPLEXES = (
    "lic                 lic        INT       <=    YES         YES        0        200\n"
    "gpu                 gpu        INT       <=    YES         YES        0        5000\n"
    "scratch             scr        MEMORY    <=    YES         YES        0        "
    "0.000000001\n"
)

# qconf -ssconf of the install's "normal" profile (tools/sge/base_sconf.txt); {} filled in.
SCHED_CONF = """\
algorithm                         default
schedule_interval                 0:10:0
maxujobs                          0
queue_sort_method                 load
job_load_adjustments              np_load_avg=0.50
load_adjustment_decay_time        0:7:30
load_formula                      np_load_avg
schedd_job_info                   false
flush_submit_sec                  0
flush_finish_sec                  0
params                            MONITOR=1
reprioritize_interval             0:0:0
halftime                          168
usage_weight_list                 cpu=1.000000,mem=0.000000,io=0.000000
compensation_factor               5.000000
weight_user                       0.250000
weight_project                    0.250000
weight_department                 0.250000
weight_job                        0.250000
weight_tickets_functional         {functional}
weight_tickets_share              {share}
share_override_tickets            TRUE
share_functional_shares           TRUE
max_functional_jobs_to_schedule   {max_functional}
report_pjob_tickets               TRUE
max_pending_tasks_per_job         50
halflife_decay_list               none
policy_hierarchy                  OFS
weight_ticket                     0.010000
weight_waiting_time               0.000278
weight_deadline                   3600000.000000
weight_urgency                    0.100000
weight_priority                   1.000000
max_reservation                   0
default_duration                  INFINITY
"""

PE_TEMPLATE = """\
pe_name            {name}
slots              999
user_lists         NONE
xuser_lists        NONE
start_proc_args    NONE
stop_proc_args     NONE
allocation_rule    {rule}
control_slaves     {control}
job_is_first_task  TRUE
urgency_slots      {urgency}
accounting_summary FALSE
qsort_args         NONE
"""
PES = (("mpi", "$fill_up", "TRUE", "max"), ("mpi_rr", "$round_robin", "TRUE", "avg"),
       ("smp", "$pe_slots", "FALSE", "min"))

# CE_valtype of qstat -xml: INT 1, STRING 2, TIME 3, MEMORY 4, BOOL 5, HOST 7.
VALTYPE = {"lic": 1, "gpu": 1, "scratch": 4, "h_rt": 3, "mem_free": 4, "arch": 2,
           "hostname": 7}
CONSUMABLE = {"lic", "gpu", "scratch"}
GIB = 1024 ** 3
JOB_NAMES = ("sim", "align", "train", "render", "reduce", "mc_run", "bench", "post",
             "fit", "scan")


@dataclass(frozen=True)
class CellSpec:
    jobs: int = 100_000
    users: int = 1000
    projects: int = 50
    departments: int = 0  # 0: users // 40, at least 2
    seed: int = 0
    now: int = DEFAULT_NOW
    days: float = 5.0
    running: float = 0.02
    max_functional: int = 200
    functional_tickets: int = 500_000
    share_tickets: int = 1_000_000
    #: fraction of all jobs with ``-R y`` (0: about 30 % of the PE jobs, the qstat
    #: cells' rule); drawn from a stream of its own, so the other draws stay the same
    reserve: float = 0.0


@dataclass
class _User:
    name: str
    uid: int
    fshare: int
    oticket: int
    department: str | None
    group: str
    gid: int
    projects: list[str]
    default_project: str | None
    deadline: bool
    weight: float = 0.0  # share-tree usage weight
    usage: dict[str, float] = field(default_factory=dict)  # project ("" none) -> cpu


@dataclass
class _Node:
    name: str
    type: int
    shares: int
    children: list[_Node] = field(default_factory=list)
    id: int = 0


def wrap_list(key: str, items: list[str], width: int = 8, limit: int = 78) -> str:
    """``key value,value, \\`` lines as qconf prints long lists (NONE when empty)."""
    head = key.ljust(width)
    if not items:
        return head + "NONE\n"
    lines, line = [], head
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 else "")
        if len(line) > width and len(line) + len(piece) + 2 > limit:
            lines.append(line + " \\")
            line = " " * width
        line += piece
    lines.append(line)
    return "\n".join(lines) + "\n"


class _Cell:
    """The generated cell's objects, drawn once from the spec's seed."""

    def __init__(self, spec: CellSpec) -> None:
        self.spec = spec
        rng = random.Random(spec.seed)
        self.rng = rng
        self.projects = [f"prj{i + 1:02d}" for i in range(spec.projects)]
        ndept = spec.departments or max(2, spec.users // 40)
        self.departments = [f"dept{i + 1:02d}" for i in range(ndept)]
        self.project_conf = {
            p: (rng.choice((5, 10, 10, 20, 25, 50, 100)),
                rng.choice((0, 0, 0, 1000, 5000, 20000)))
            for p in self.projects
        }
        self.dept_conf = {
            d: (rng.choice((0, 10, 20, 50, 100)), rng.choice((0, 0, 0, 2000, 10000)))
            for d in self.departments
        }
        # project popularity: a few big projects
        pweights = [1.0 / (k + 1) ** 0.7 for k in range(len(self.projects))]
        self.users: list[_User] = []
        for i in range(spec.users):
            name = f"u{i + 1:04d}"
            dept = rng.choice(self.departments) if rng.random() < 0.9 else None
            nproj = min(len(self.projects), rng.choice((1, 1, 2, 2, 3)))
            projs: list[str] = []
            while len(projs) < nproj:
                p = rng.choices(self.projects, pweights)[0]
                if p not in projs:
                    projs.append(p)
            fshare = 0 if rng.random() < 0.2 else rng.choice((1, 5, 10, 25, 50, 100, 200))
            oticket = rng.choice((100, 500, 1000, 5000, 20000)) if rng.random() < 0.12 else 0
            dproj = projs[0] if rng.random() < 0.08 else None
            group, gid = (dept, 2000 + self.departments.index(dept)) if dept else ("users", 100)
            u = _User(name, 10000 + i, fshare, oticket, dept, group, gid, projs, dproj,
                      deadline=rng.random() < 0.05)
            u.weight = 0.0 if rng.random() < 0.1 else rng.paretovariate(1.1)
            self.users.append(u)
        # usage per (user, project): cpu seconds, decayed; the heaviest near 1e7
        top = max((u.weight for u in self.users), default=1.0) or 1.0
        for u in self.users:
            if u.weight <= 0:
                continue
            parts = [*u.projects, ""]
            cuts = [rng.random() for _ in parts]
            total = sum(cuts)
            for p, c in zip(parts, cuts, strict=True):
                u.usage[p] = 1e7 * u.weight / top * c / total
        self.by_name = {u.name: u for u in self.users}
        self.tree = self._share_tree()

    def _share_tree(self) -> _Node:
        rng = self.rng
        root = _Node("Root", 0, 1)
        members: dict[str, list[str]] = {p: [] for p in self.projects}
        for u in self.users:
            for p in u.projects:
                members[p].append(u.name)
        for k, p in enumerate(self.projects):
            pnode = _Node(p, 1, rng.choice((10, 20, 30, 50, 100)))
            for name in members[p]:
                if rng.random() < 0.8:
                    pnode.children.append(_Node(name, 0, rng.choice((1, 2, 5, 10, 20, 50))))
            if k % 2 == 0:
                pnode.children.append(_Node("default", 0, rng.choice((5, 10))))
            root.children.append(pnode)
        root.children.append(_Node("default", 0, 5))
        ids = iter(range(1 << 30))

        def number(node: _Node) -> None:
            node.id = next(ids)
            for c in node.children:
                number(c)

        number(root)
        return root

    # ---------------------------------------------------------------- flat files

    def write_flat(self, out: Path) -> None:
        s = self.spec
        (out / "sched_conf").write_text(SCHED_CONF.format(
            functional=s.functional_tickets, share=s.share_tickets,
            max_functional=s.max_functional))
        base = DEFAULT_COMPLEXES.read_text()
        lines = base.splitlines(keepends=True)
        tail = [ln for ln in lines if ln.startswith("# >#<")]
        body = [ln for ln in lines if not ln.startswith("# >#<")]
        (out / "complexes").write_text("".join(body) + EXTRA_COMPLEXES + "".join(tail))
        with open(out / "users", "w") as f:
            for u in self.users:
                f.write(f"name {u.name}\noticket {u.oticket}\nfshare {u.fshare}\n"
                        f"delete_time 0\ndefault_project {u.default_project or 'NONE'}\n")
        with open(out / "projects", "w") as f:
            for p in self.projects:
                fs, ot = self.project_conf[p]
                f.write(f"name {p}\noticket {ot}\nfshare {fs}\nacl NONE\nxacl NONE\n")
        with open(out / "usersets", "w") as f:
            sets = [("arusers", "ACL", 0, 0, []),
                    ("deadlineusers", "ACL", 0, 0,
                     [u.name for u in self.users if u.deadline]),
                    ("defaultdepartment", "DEPT", 0, 0, [])]
            for d in self.departments:
                fs, ot = self.dept_conf[d]
                sets.append((d, "DEPT", fs, ot,
                             [u.name for u in self.users if u.department == d]))
            for name, typ, fs, ot, entries in sets:
                f.write(f"name    {name}\ntype    {typ}\nfshare  {fs}\noticket {ot}\n")
                f.write(wrap_list("entries", entries))
        with open(out / "pes", "w") as f:
            for name, rule, control, urg in PES:
                f.write(PE_TEMPLATE.format(name=name, rule=rule, control=control,
                                           urgency=urg))
        for name in ("hosts", "global_conf"):
            (out / name).write_bytes((RECORDING / name).read_bytes())
        queues = (RECORDING / "queues").read_text()
        queues = queues.replace("pe_list               smp",
                                "pe_list               mpi mpi_rr smp")
        (out / "queues").write_text(queues)
        (out / "now").write_text(f"{s.now}\n")
        self.write_share_tree(out)

    def write_share_tree(self, out: Path) -> None:
        with open(out / "share_tree", "w") as f:
            def dump(node: _Node) -> None:
                kids = ",".join(str(c.id) for c in node.children) or "NONE"
                f.write(f"id={node.id}\nname={node.name}\ntype={node.type}\n"
                        f"shares={node.shares}\nchildnodes={kids}\n")
                for c in node.children:
                    dump(c)
            dump(self.tree)
        now = self.spec.now
        rows: list[str] = []
        cols = ("curr_time", "usage_time", "node_name", "user_name", "project_name",
                "shares", "job_count", "level%", "total%", "long_target_share",
                "short_target_share", "actual_share", "usage", "cpu", "mem", "io",
                "ltcpu", "ltmem", "ltio")
        rows.append("\t".join(cols) + "\t\n\n")

        # usage of each node, bottom up; temporary children below `default` nodes
        def usage_of(node: _Node, project: str) -> float:
            if node.type == 1:
                return sum(usage_of(c, node.name) for c in node.children)
            if node.name == "default":
                return sum(u for _, u in self._default_children(node, project))
            if node.children:
                return sum(usage_of(c, project) for c in node.children)
            return self.by_name[node.name].usage.get(project, 0.0)

        total_usage = usage_of(self.tree, "") or 1.0
        rng = random.Random(self.spec.seed + 1)

        def row(path: str, user: str, project: str, shares: int, level: float,
                total: float, usage: float) -> None:
            ut = now - rng.randint(1, 40) if usage > 0 else 0
            cpu, mem, io = usage, usage * 0.05, usage * 0.0004
            vals = (now, ut, path, user, project, shares, 0, f"{level:.6f}",
                    f"{total:.6f}", f"{total:.6f}", f"{total:.6f}",
                    f"{usage / total_usage:.6f}", f"{usage:.6f}", f"{cpu:.6f}",
                    f"{mem:.6f}", f"{io:.6f}", f"{cpu * 1.7:.6f}", f"{mem * 1.7:.6f}",
                    f"{io * 1.7:.6f}")
            rows.append("\t".join(f"{k}={v}" for k, v in zip(cols, vals, strict=True))
                        + "\t\n")

        def walk(node: _Node, path: str, project: str, level: float, total: float) -> None:
            if node.type == 1:
                project = node.name
            user = node.name if node.type == 0 and not node.children and \
                node.name not in ("default",) and node is not self.tree else ""
            row(path or "/", user, project, node.shares, level, total,
                usage_of(node, project))
            if node.name == "default" and node is not self.tree:
                kids = self._default_children(node, project)
                for name, u in kids:
                    row(f"{path}/{name}", name, project, node.shares, 1 / len(kids),
                        total / len(kids), u)
                return
            ssum = sum(c.shares for c in node.children) or 1
            for c in node.children:
                walk(c, f"{path}/{c.name}", project, c.shares / ssum,
                     total * c.shares / ssum)

        walk(self.tree, "", "", 1.0, 1.0)
        (out / "share_mon").write_text("".join(rows))

    def _default_children(self, node: _Node, project: str) -> list[tuple[str, float]]:
        """The user nodes the qmaster adds below a `default` node: every user object
        without a node of its own in that project's subtree (or at root level)."""
        parent = self.tree if not project else next(
            p for p in self.tree.children if p.name == project)
        own = {c.name for c in parent.children if c.type == 0 and c.name != "default"}
        return [(u.name, u.usage.get(project, 0.0)) for u in self.users
                if u.name not in own]


# ---------------------------------------------------------------------- jobs.xml

XML_HEAD = ("<?xml version='1.0'?>\n<detailed_job_info  xmlns:xsd=\"http://arc.liv.ac.uk/"
            "repos/darcs/sge/source/dist/util/resources/schemas/qstat/"
            "detailed_job_info.xsd\">\n  <djob_info>\n")
XML_TAIL = """\
  </djob_info>
  <messages>
    <element>
      <SME_global_message_list>
        <element>
          <MES_message_number>83</MES_message_number>
          <MES_message>(Collecting of scheduler job information is turned off)</MES_message>
        </element>
      </SME_global_message_list>
    </element>
  </messages>
</detailed_job_info>
"""

BINDING = """\
      <JB_binding>
        <element>
          <BN_strategy>no_job_binding</BN_strategy>
          <BN_type>0</BN_type>
          <BN_parameter_n>0</BN_parameter_n>
          <BN_parameter_socket_offset>0</BN_parameter_socket_offset>
          <BN_parameter_core_offset>0</BN_parameter_core_offset>
          <BN_parameter_striding_step_size>0</BN_parameter_striding_step_size>
          <BN_parameter_explicit>no_explicit_binding</BN_parameter_explicit>
        </element>
      </JB_binding>
"""


def _env(user: str) -> str:
    pairs = (("__SGE_PREFIX__O_HOME", f"/home/{user}"), ("__SGE_PREFIX__O_LOGNAME", user),
             ("__SGE_PREFIX__O_PATH",
              "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"),
             ("__SGE_PREFIX__O_SHELL", "/bin/bash"),
             ("__SGE_PREFIX__O_MAIL", f"/var/mail/{user}"), ("TERM", None),
             ("__SGE_PREFIX__O_HOST", "localhost"),
             ("__SGE_PREFIX__O_WORKDIR", f"/home/{user}/work"))
    out = ["      <JB_env_list>\n"]
    for k, v in pairs:
        out.append(f"        <job_sublist>\n          <VA_variable>{k}</VA_variable>\n")
        if v is not None:
            out.append(f"          <VA_value>{v}</VA_value>\n")
        out.append("        </job_sublist>\n")
    out.append("      </JB_env_list>\n")
    return "".join(out)


def _requests(tag: str, reqs: list[tuple[str, str, float]]) -> str:
    if not reqs:
        return ""
    out = [f"      <{tag}>\n"]
    for name, text, value in reqs:
        out.append(
            "        <qstat_l_requests>\n"
            f"          <CE_name>{name}</CE_name>\n"
            f"          <CE_valtype>{VALTYPE[name]}</CE_valtype>\n"
            f"          <CE_stringval>{text}</CE_stringval>\n"
            f"          <CE_doubleval>{value:.6f}</CE_doubleval>\n"
            "          <CE_relop>0</CE_relop>\n"
            f"          <CE_consumable>{1 if name in CONSUMABLE else 0}</CE_consumable>\n"
            "          <CE_dominant>0</CE_dominant>\n"
            "          <CE_pj_doubleval>0.000000</CE_pj_doubleval>\n"
            "          <CE_pj_dominant>0</CE_pj_dominant>\n"
            "          <CE_requestable>0</CE_requestable>\n"
            "          <CE_tagged>0</CE_tagged>\n"
            "        </qstat_l_requests>\n")
    out.append(f"      </{tag}>\n")
    return "".join(out)


def _range(tag: str, inner: str, lo: int, hi: int, step: int) -> str:
    return (f"      <{tag}>\n        <{inner}>\n          <RN_min>{lo}</RN_min>\n"
            f"          <RN_max>{hi}</RN_max>\n          <RN_step>{step}</RN_step>\n"
            f"        </{inner}>\n      </{tag}>\n")


def _task(number: int, start: int, cpu: float) -> str:
    usage = (("cpu", cpu), ("mem", cpu * 0.05), ("io", cpu * 0.0004), ("iow", 0.0),
             ("vmem", 2.1e9), ("maxvmem", 2.3e9))
    scaled = "".join(
        f"            <scaled>\n              <UA_name>{k}</UA_name>\n"
        f"              <UA_value>{v:.6f}</UA_value>\n            </scaled>\n"
        for k, v in usage)
    return ("        <ulong_sublist>\n          <JAT_status>128</JAT_status>\n"
            f"          <JAT_task_number>{number}</JAT_task_number>\n"
            f"          <JAT_scaled_usage_list>\n{scaled}          </JAT_scaled_usage_list>\n"
            f"          <JAT_start_time>{start}</JAT_start_time>\n"
            "          <JAT_ntix>0.000000</JAT_ntix>\n        </ulong_sublist>\n")


@dataclass
class JobCounts:
    jobs: int = 0
    tasks: int = 0
    running_tasks: int = 0
    arrays: int = 0
    pe: int = 0
    with_project: int = 0
    override: int = 0
    deadline: int = 0
    running: list[tuple[int, int, str, str, int, bool]] = field(default_factory=list)
    # (job, name, owner, submission time, slots, pending task ids as qstat prints them
    # or None for a job that is no array); jobs with no pending task are left out
    pending: list[tuple[int, str, str, int, int, str | None]] = field(default_factory=list)


def write_jobs(cell: _Cell, out: Path) -> JobCounts:
    """``jobs.xml``, job by job; returns what was written."""
    spec = cell.spec
    rng = random.Random(spec.seed + 2)
    users = cell.users
    # Zipf-like ownership over a shuffled user order: a few users own most jobs
    order = list(range(len(users)))
    rng.shuffle(order)
    weights = [0.0] * len(users)
    for rank, k in enumerate(order):
        weights[k] = 1.0 / (rank + 1) ** 0.9
    cum, acc = [], 0.0
    for w in weights:
        acc += w
        cum.append(acc)
    span = int(spec.days * 86400)
    counts = JobCounts()
    number = 1000
    t = spec.now - span
    step = span / max(1, spec.jobs)
    deadline_users = [u for u in users if u.deadline]
    reserving = random.Random(spec.seed + 3)
    with open(out / "jobs.xml", "w", buffering=1 << 20) as f:
        f.write(XML_HEAD)
        for i in range(spec.jobs):
            number += 1 if rng.random() < 0.97 else rng.randint(2, 40)
            t = max(t, int(spec.now - span + i * step + rng.uniform(-step, step)))
            t = min(t, spec.now - 1)
            r = rng.random
            if deadline_users and r() < 0.005:
                u = rng.choice(deadline_users)
                deadline = t + rng.randint(-3600, 3 * 86400)
                deadline = max(deadline, t + 60)
                counts.deadline += 1
            else:
                u = users[_pick(cum, r() * acc)]
                deadline = 0
            project = u.default_project
            if project is None and r() < 0.86:
                project = rng.choice(u.projects)
            ppri = -rng.randint(1, 1023) if r() < 0.10 else 0
            jobshare = rng.choice((10, 20, 50, 100)) if r() < 0.05 else 0
            oticket = rng.choice((1000, 5000, 20000, 50000)) if r() < 0.002 else 0
            hard: list[tuple[str, str, float]] = []
            if r() < 0.30:
                secs = rng.choice((600, 3600, 4 * 3600, 86400, 3 * 86400))
                hard.append(("h_rt", str(secs), float(secs)))
            if r() < 0.15:
                n = rng.choice((1, 1, 2, 3))
                hard.append(("lic", str(n), float(n)))
            if r() < 0.03:
                n = rng.choice((1, 1, 2))
                hard.append(("gpu", str(n), float(n)))
            if r() < 0.08:
                n = rng.choice((1, 10, 50, 200))
                hard.append(("scratch", f"{n}G", float(n * GIB)))
            if r() < 0.10:
                n = rng.choice((1, 2, 4, 16))
                hard.append(("mem_free", f"{n}G", float(n * GIB)))
            if r() < 0.05:
                hard.append(("arch", "lx-amd64", 0.0))
            soft = [("hostname", HOST, 0.0)] if r() < 0.02 else []
            queue = r() < 0.03
            pe = None
            if r() < 0.10:
                kind = rng.random()
                if kind < 0.7:
                    pe, lo = "smp", rng.choice((2, 4, 8, 16))
                    hi = lo if rng.random() < 0.5 else lo * 2
                elif kind < 0.9:
                    pe, lo = "mpi", rng.choice((8, 16, 32))
                    hi = lo * rng.choice((1, 2, 4))
                else:
                    pe, lo = "mpi_rr", rng.choice((4, 8))
                    hi = lo * 2
                counts.pe += 1
            reserve = pe is not None and r() < 0.3
            if spec.reserve:
                reserve = reserving.random() < spec.reserve
            ntasks, tstep = 1, 1
            if r() < 0.015:
                ntasks = rng.randint(2, 60)
                tstep = rng.choice((1, 1, 1, 2, 5))
                counts.arrays += 1
            last = 1 + (ntasks - 1) * tstep
            running = 0
            if r() < spec.running:
                running = ntasks if ntasks == 1 else rng.randint(1, ntasks)
            name = rng.choice(JOB_NAMES)
            parts = [
                "    <element>\n",
                f"      <JB_job_number>{number}</JB_job_number>\n",
                "      <JB_ar>0</JB_ar>\n",
                f"      <JB_exec_file>job_scripts/{number}</JB_exec_file>\n",
                f"      <JB_submission_time>{t}</JB_submission_time>\n",
                f"      <JB_owner>{u.name}</JB_owner>\n",
                f"      <JB_uid>{u.uid}</JB_uid>\n",
                f"      <JB_group>{u.group}</JB_group>\n",
                f"      <JB_gid>{u.gid}</JB_gid>\n",
                "      <JB_account>sge</JB_account>\n",
                "      <JB_merge_stderr>true</JB_merge_stderr>\n",
                "      <JB_mail_list>\n        <element>\n"
                f"          <MR_user>{u.name}</MR_user>\n"
                f"          <MR_host>{HOST}</MR_host>\n"
                "        </element>\n      </JB_mail_list>\n",
            ]
            if project:
                parts.append(f"      <JB_project>{project}</JB_project>\n")
                counts.with_project += 1
            parts += [
                "      <JB_notify>false</JB_notify>\n",
                f"      <JB_job_name>{name}</JB_job_name>\n",
                "      <JB_stdout_path_list>\n        <path_list>\n"
                "          <PN_path>/dev/null</PN_path>\n          <PN_host></PN_host>\n"
                "          <PN_file_host></PN_file_host>\n"
                "          <PN_file_staging>false</PN_file_staging>\n"
                "        </path_list>\n      </JB_stdout_path_list>\n",
                f"      <JB_jobshare>{jobshare}</JB_jobshare>\n",
                _requests("JB_hard_resource_list", hard),
                _requests("JB_soft_resource_list", soft),
            ]
            if queue:
                parts.append("      <JB_hard_queue_list>\n        <destin_ident_list>\n"
                             "          <QR_name>all.q</QR_name>\n"
                             "        </destin_ident_list>\n      </JB_hard_queue_list>\n")
            parts += [
                _env(u.name),
                "      <JB_job_args>\n        <element>\n"
                f"          <ST_name>{rng.choice((600, 3600, 7200))}</ST_name>\n"
                "        </element>\n      </JB_job_args>\n",
                "      <JB_script_file>sleep</JB_script_file>\n",
            ]
            if running:
                parts.append("      <JB_ja_tasks>\n")
                for k in range(running):
                    start = rng.randint(t + 1, spec.now) if t < spec.now else spec.now
                    cpu = (spec.now - start) * rng.uniform(0.2, 1.0)
                    tnum = 1 + k * tstep
                    parts.append(_task(tnum, start, cpu))
                    counts.running.append((number, tnum, u.name, name, start, ntasks > 1))
                parts.append("      </JB_ja_tasks>\n")
                counts.running_tasks += running
            if running < ntasks:
                ids = None
                if ntasks > 1:
                    first = 1 + running * tstep
                    ids = str(first) if first == last else f"{first}-{last}:{tstep}"
                counts.pending.append((number, name, u.name, t, lo if pe else 1, ids))
            parts += [
                f"      <JB_deadline>{deadline}</JB_deadline>\n",
                "      <JB_execution_time>0</JB_execution_time>\n",
                "      <JB_checkpoint_attr>0</JB_checkpoint_attr>\n",
                "      <JB_checkpoint_interval>0</JB_checkpoint_interval>\n",
                f"      <JB_reserve>{'true' if reserve else 'false'}</JB_reserve>\n",
                "      <JB_mail_options>0</JB_mail_options>\n",
                f"      <JB_priority>{1024 + ppri}</JB_priority>\n",
                "      <JB_restart>0</JB_restart>\n",
                "      <JB_verify>0</JB_verify>\n",
                "      <JB_script_size>0</JB_script_size>\n",
            ]
            if pe:
                parts.append(f"      <JB_pe>{pe}</JB_pe>\n")
                parts.append(_range("JB_pe_range", "ranges", lo, hi, 1))
            parts += [
                "      <JB_verify_suitable_queues>0</JB_verify_suitable_queues>\n",
                "      <JB_soft_wallclock_gmt>0</JB_soft_wallclock_gmt>\n",
                "      <JB_hard_wallclock_gmt>0</JB_hard_wallclock_gmt>\n",
                f"      <JB_override_tickets>{oticket}</JB_override_tickets>\n",
                f"      <JB_version>{1 if oticket or running else 0}</JB_version>\n",
                _range("JB_ja_structure", "task_id_range", 1, last, tstep),
                f"      <JB_type>{192 if ntasks > 1 else 64}</JB_type>\n",
                BINDING,
                "      <JB_ja_task_concurrency>0</JB_ja_task_concurrency>\n",
                "      <JB_nurg>0.000000</JB_nurg>\n",
                "    </element>\n",
            ]
            f.write("".join(parts))
            counts.jobs += 1
            counts.tasks += ntasks
            counts.override += oticket > 0
        f.write(XML_TAIL)
    return counts


def _pick(cum: list[float], x: float) -> int:
    lo, hi = 0, len(cum) - 1
    while lo < hi:
        mid = (lo + hi) // 2
        if cum[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


def write_running(counts: JobCounts, out: Path) -> None:
    """``running.xml`` as ``qstat -xml -s r -g t -u '*'`` prints it (MASTER lines)."""
    with open(out / "running.xml", "w") as f:
        f.write("<?xml version='1.0'?>\n<job_info  xmlns:xsd=\"http://arc.liv.ac.uk/repos/"
                "darcs/sge/source/dist/util/resources/schemas/qstat/qstat.xsd\">\n"
                "  <queue_info>\n")
        for number, task, owner, name, start, array in counts.running:
            stamp = _stamp(start)
            f.write("    <job_list state=\"running\">\n"
                    f"      <JB_job_number>{number}</JB_job_number>\n"
                    "      <JAT_prio>0.50000</JAT_prio>\n"
                    f"      <JB_name>{name}</JB_name>\n"
                    f"      <JB_owner>{owner}</JB_owner>\n"
                    "      <state>r</state>\n"
                    f"      <JAT_start_time>{stamp}</JAT_start_time>\n"
                    f"      <queue_name>all.q@{HOST}</queue_name>\n"
                    "      <master>MASTER</master>\n"
                    "      <slots>1</slots>\n")
            if array:
                f.write(f"      <tasks>{task}</tasks>\n")
            f.write("    </job_list>\n")
        f.write("  </queue_info>\n  <job_info>\n  </job_info>\n</job_info>\n")


def _stamp(epoch: int) -> str:
    """qstat's local time; the recordings' machine runs in UTC (no clock is read)."""
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(epoch))


def write_queue_instances(counts: JobCounts, out: Path) -> None:
    """``queue_instances.xml`` as ``qstat -f -xml -u '*'`` prints it before the scheduler
    has prioritised anything: the queue instance with its running tasks, then one
    pending line per job (``<tasks>`` for an array's pending task ids)."""
    with open(out / "queue_instances.xml", "w", buffering=1 << 20) as f:
        f.write("<?xml version='1.0'?>\n<job_info  xmlns:xsd=\"http://arc.liv.ac.uk/repos/"
                "darcs/sge/source/dist/util/resources/schemas/qstat/qstat.xsd\">\n"
                "  <queue_info>\n    <Queue-List>\n"
                f"      <name>all.q@{HOST}</name>\n      <qtype>BIP</qtype>\n"
                f"      <slots_used>{len(counts.running)}</slots_used>\n"
                "      <slots_resv>0</slots_resv>\n"
                f"      <slots_total>{max(2, len(counts.running))}</slots_total>\n"
                "      <load_avg>0.50000</load_avg>\n      <arch>lx-amd64</arch>\n")
        for number, task, owner, name, start, array in counts.running:
            f.write("      <job_list state=\"running\">\n"
                    f"        <JB_job_number>{number}</JB_job_number>\n"
                    "        <JAT_prio>0.50000</JAT_prio>\n"
                    f"        <JB_name>{name}</JB_name>\n"
                    f"        <JB_owner>{owner}</JB_owner>\n"
                    "        <state>r</state>\n"
                    f"        <JAT_start_time>{_stamp(start)}</JAT_start_time>\n"
                    "        <slots>1</slots>\n")
            if array:
                f.write(f"        <tasks>{task}</tasks>\n")
            f.write("      </job_list>\n")
        f.write("    </Queue-List>\n  </queue_info>\n")
        write_pending(counts, f)


def write_pending(counts: JobCounts, f: TextIO) -> None:
    """The ``<job_info>`` part of ``qstat -f -xml``: one pending line per job."""
    f.write("  <job_info>\n")
    for number, name, owner, submitted, slots, ids in counts.pending:
        f.write("    <job_list state=\"pending\">\n"
                f"      <JB_job_number>{number}</JB_job_number>\n"
                "      <JAT_prio>0.00000</JAT_prio>\n"
                f"      <JB_name>{name}</JB_name>\n"
                f"      <JB_owner>{owner}</JB_owner>\n"
                "      <state>qw</state>\n"
                f"      <JB_submission_time>{_stamp(submitted)}</JB_submission_time>\n"
                f"      <slots>{slots}</slots>\n")
        if ids is not None:
            f.write(f"      <tasks>{ids}</tasks>\n")
        f.write("    </job_list>\n")
    f.write("  </job_info>\n</job_info>\n")


def write_cell(spec: CellSpec, out: Path) -> JobCounts:
    out.mkdir(parents=True, exist_ok=True)
    cell = _Cell(spec)
    cell.write_flat(out)
    counts = write_jobs(cell, out)
    write_running(counts, out)
    write_queue_instances(counts, out)
    return counts


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, default=100_000)
    ap.add_argument("--users", type=int, default=1000)
    ap.add_argument("--projects", type=int, default=50)
    ap.add_argument("--departments", type=int, default=0,
                    help="departments (DEPT usersets); 0: users / 40, at least 2")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--now", type=int, default=DEFAULT_NOW)
    ap.add_argument("--days", type=float, default=5.0,
                    help="submission times spread over this many days before --now")
    ap.add_argument("--running", type=float, default=0.02,
                    help="fraction of jobs with running tasks")
    ap.add_argument("--max-functional", type=int, default=200,
                    help="max_functional_jobs_to_schedule (Grid Engine's default 200)")
    ap.add_argument("--functional-tickets", type=int, default=500_000)
    ap.add_argument("--share-tickets", type=int, default=1_000_000)
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args(argv)
    if a.users < 1 or a.projects < 1 or a.jobs < 0:
        ap.error("--users and --projects must be at least 1, --jobs at least 0")
    spec = CellSpec(jobs=a.jobs, users=a.users, projects=a.projects,
                    departments=a.departments, seed=a.seed, now=a.now, days=a.days,
                    running=a.running, max_functional=a.max_functional,
                    functional_tickets=a.functional_tickets, share_tickets=a.share_tickets)
    c = write_cell(spec, a.out)
    print(f"{a.out}: {c.jobs} jobs ({c.tasks} tasks, {c.running_tasks} running, "
          f"{c.arrays} arrays, {c.pe} PE, {c.with_project} with a project, "
          f"{c.override} with -ot, {c.deadline} with -dl); "
          f"jobs.xml {(a.out / 'jobs.xml').stat().st_size / 1e6:.0f} MB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
