"""Share-tree tickets: ``weight_tickets_share`` divided by a tree of shares and past usage.

A job belongs to the node of its user (under its project's node when it has a project
that is in the tree); a user with no node of its own gets a copy of the ``default``
node beside it. A node is *active* while it or a descendant has jobs. Among the active
children of a node, with ``shares_i``, combined decayed usage ``u_i`` and the parent's
targets ``oltt_p``/``ostt_p``::

    ltt_i  = shares_i / sum(active shares)           long-term target among siblings
    oltt_i = oltt_p * ltt_i                          long-term target of the whole tree
    shr_i  = shares_i^2 / max(u_i, oltt_i)           (SGE_MIN_USAGE = 1 times oltt_i)
    stt_i  = shr_i / sum(shr);  ostt_i = ostt_p * stt_i      short-term targets

and, with ``compensation_factor`` CF > 0, a child whose ``ostt_i > CF * oltt_i`` has its
``shr_i`` divided by ``ostt_i / (CF * oltt_i)`` before ``stt`` and ``ostt`` are worked
out again. Usage is ``sum_k usage_k * weight_k / sum(weights)`` over
``usage_weight_list``, read from ``sge_share_mon`` and decayed to the run's time as
Grid Engine decays it: ``usage * (1 - 60 * ln 2 / halftime_s) ** (elapsed / 60)``.

Running jobs of a node share ``ostt * T`` (``T`` = ``weight_tickets_share``) by their job
shares (``qsub -js``; truncated to whole tickets) or, with no job shares, equally over
the node's jobs. Pending jobs are ranked under their node (by job share, or by the
tickets of the policies before this one, then job number and task) and each gets
``stt / (running jobs of the node + 1 + the least slots of the jobs ranked before it)
* T``; the ranking and this division are then
repeated at every ancestor below the root, with the ancestor's ``stt`` (the real
scheduler's ``sge_sort_pending_job_nodes``; below a root with one active child the
child stands in for the root).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import TYPE_CHECKING, NamedTuple

from condorlite.core.sge.jobs import Job
from condorlite.core.sge.objects import Cell, SchedConf, ShareTreeNode, ShareUsage
from condorlite.core.sge.refs import JobRef, TreePart

if TYPE_CHECKING:  # treesearch finds nodes of this tree; usage is added through it
    from condorlite.core.sge.treesearch import Finder

#: The share tree's floor on usage, times a node's long-term target (SGE_MIN_USAGE).
MIN_USAGE = 1.0
#: The interval Grid Engine's decay constant is expressed in (SGE_USAGE_INTERVAL), s.
USAGE_INTERVAL = 60.0


def decay_factor(halftime_hours: float, elapsed: float) -> float:
    """The factor usage shrinks by in ``elapsed`` seconds (module doc); no decay for a
    ``halftime`` of 0 or a clock that went back."""
    if halftime_hours <= 0 or elapsed <= 0:
        return 1.0
    constant = 1.0 - (math.log(2.0) / (halftime_hours * 3600.0)) * USAGE_INTERVAL
    return constant ** (elapsed / USAGE_INTERVAL)


@dataclass(eq=False, slots=True)
class PendingEntry:
    """A pending job hung under its node while the pending tickets are ranked."""

    ref: JobRef
    sort: float
    tickets: float
    slots: int = 1
    shr: float = 0.0
    order: tuple[int, int] = (0, 0)  # (job number, task): seniority among equal sort
    #: The level that set ``shr`` last, and the count there: the job's fraction of
    #: that level's target is 1 / (count + 1) (its ``TreePart``).
    node: Node | None = None
    count: int = 0


@dataclass(eq=False)
class Node:
    """A share-tree node with the figures of one ticket calculation."""

    name: str
    shares: int
    path: str
    is_project: bool = False
    temp: bool = False
    usage_path: str | None = None
    children: list[Node] = field(default_factory=list)
    pending: list[PendingEntry] = field(default_factory=list)
    usage: float = 0.0
    job_ref_count: int = 0
    active_job_ref_count: int = 0
    sum_priority: int = 0
    ltt: float = 0.0
    oltt: float = 0.0
    stt: float = 0.0
    ostt: float = 0.0
    shr: float = 0.0

    @property
    def waiting(self) -> int:
        return self.job_ref_count - self.active_job_ref_count

    def walk(self):
        yield self
        for child in self.children:
            yield from child.walk()


def build(tree: ShareTreeNode, cell: Cell, path: str = "/") -> Node:
    """A working copy of ``tree`` with its project flags (``assign_usage`` and
    ``add_job_usage`` fill in the usage once the jobs are attached)."""
    node = Node(tree.name, tree.shares, path, is_project=tree.name in cell.projects)
    for child in tree.children:
        node.children.append(build(child, cell, child_path(path, child.name)))
    return node


def child_path(parent: str, name: str) -> str:
    """The path of ``parent``'s child ``name``."""
    return parent.rstrip("/") + "/" + name


def count_jobs(node: Node) -> tuple[int, int]:
    """``update_job_ref_count``: an inner node's counts are its children's sums."""
    if node.children:
        totals = [count_jobs(child) for child in node.children]
        node.job_ref_count = sum(t[0] for t in totals)
        node.active_job_ref_count = sum(t[1] for t in totals)
    return node.job_ref_count, node.active_job_ref_count


def decay_halftimes(conf: SchedConf) -> dict[str, float]:
    """``halflife_decay_list`` (``cpu=1:mem=5`` or comma-separated, minutes per usage
    type) as half-lives in hours; types it does not name use ``halftime``."""
    text = conf.halflife_decay_list.strip()
    out: dict[str, float] = {}
    if text.lower() in ("", "none"):
        return out
    for item in re.split(r"[,:\s]+", text):
        name, sep, value = item.partition("=")
        if sep:
            try:
                minutes = float(value)
            except ValueError:
                continue
            # Grid Engine: 0 is no decay, a negative half-life wipes the usage at once.
            out[name] = minutes / 60.0
    return out


def stored_usage(row: ShareUsage, conf: SchedConf, now: int) -> float:
    """A node's usage at ``now`` from its ``share_mon`` row: share_mon prints the usage
    as the qmaster stored it at ``usage_time`` (undecayed unless run with ``-d``), so it
    is decayed from there, type by type when ``halflife_decay_list`` names a type."""
    elapsed = now - row.usage_time if row.usage_time else 0
    halftimes = decay_halftimes(conf)
    if not halftimes:
        return row.usage * decay_factor(conf.halftime, elapsed)
    parts = {"cpu": row.cpu, "mem": row.mem, "io": row.io}
    decayed = {}
    for name, value in parts.items():
        halftime = halftimes.get(name, conf.halftime)
        wiped = halftime < 0 and elapsed > 0
        decayed[name] = 0.0 if wiped else value * decay_factor(halftime, elapsed)
    return combined(decayed, conf.usage_weight_list)


def assign_usage(root: Node, cell: Cell, now: int) -> None:
    """Each node's combined usage at ``now`` (``sge_calc_node_usage``): a leaf's and a
    project node's from its own ``share_mon`` row (a node share_mon does not list has
    none), any other node's the sum of its children's."""
    rows = cell.share_usage
    conf = cell.sched_conf

    def visit(node: Node) -> float:
        row = rows.get(node.usage_path or node.path) or rows.get(node.path)
        own = stored_usage(row, conf, now) if row is not None else 0.0
        children = sum(visit(child) for child in node.children)
        node.usage = own if (node.is_project or not node.children) else children
        return node.usage

    visit(root)


def combined(usage: dict[str, float], weights: dict[str, float]) -> float:
    """``sum_k usage_k * weight_k / sum(weights)`` over ``usage_weight_list``."""
    total = sum(weights.values())
    if total <= 0:
        return 0.0
    return sum(usage.get(name, 0.0) * w for name, w in weights.items()) / total


class JobUsage(NamedTuple):
    """A job whose running and just-finished tasks used something: their combined
    usage (``combined``), > 0."""

    job: Job
    used: float


def job_usage(cell: Cell) -> list[JobUsage]:
    """The jobs ``add_job_usage`` adds usage for, in cell order, with what they used
    (found once for both passes of a ticket calculation); none when the cell's usage
    is already booked (``Cell.usage_booked``)."""
    if cell.usage_booked:
        return []
    weights = cell.sched_conf.usage_weight_list
    out = []
    for job in cell.jobs:
        # status 0: pending, neither running nor finished (most tasks)
        active = [t for t in job.tasks if t.status and (t.running or t.finished)]
        if not active:
            continue
        used = sum(combined(t.usage, weights) for t in active)
        if used > 0:
            out.append(JobUsage(job, used))
    return out


def add_job_usage(finder: Finder, cell: Cell, jobs: list[JobUsage] | None = None) -> None:
    """Add what running and just-finished tasks used that the stored usage does not
    hold yet (the real scheduler adds each task's usage since its last run); ``jobs``
    is ``job_usage(cell)`` when the caller has it.

    The dump does not carry how much of a task's usage the qmaster has already booked
    (``UU_debited_job_usage``), so this takes the stored usage of the task's node as
    booked first: the node gains ``max(0, sum of its tasks' usage - stored usage)``,
    and so do its ancestors. Exact when nothing was booked yet (a fresh user, or no
    scheduler run since the tasks started) and when everything was; between the two it
    under-counts by at most what accrued since the last run. A cell whose usage
    condorlite's cycle booked (``Cell.usage_booked``) gets nothing added."""
    if cell.usage_booked:
        return
    per_node: dict[int, tuple[Node, float]] = {}
    ancestry = _ancestry(finder.root)
    for job, used in job_usage(cell) if jobs is None else jobs:
        user = job.owner if job.owner in cell.users else None
        project = job.project if job.project in cell.projects else None
        node, _ = finder.find(user, project)
        if node is None:
            continue
        held = per_node.get(id(node), (node, 0.0))[1]
        per_node[id(node)] = (node, held + used)
    for node, extra_used in per_node.values():
        extra = max(0.0, extra_used - node.usage)
        for member in (node, *ancestry[id(node)][1]):
            member.usage += extra


def _ancestry(root: Node) -> dict[int, tuple[Node, list[Node]]]:
    """Each node's ancestors, nearest first."""
    out: dict[int, tuple[Node, list[Node]]] = {}

    def visit(node: Node, above: list[Node]) -> None:
        out[id(node)] = (node, above)
        for child in node.children:
            visit(child, [node, *above])

    visit(root, [])
    return out


def targets(node: Node, compensation_factor: float, root: bool = True) -> None:
    """``sge_calc_node_targets``: ltt, oltt, stt and ostt of every active node (module
    doc)."""
    if root:
        node.stt = node.ltt = node.ostt = node.oltt = 1.0
    active = [c for c in node.children if c.job_ref_count > 0]
    if not active:
        return
    sum_shares = sum(c.shares for c in active)
    for child in active:
        child.ltt = child.shares / sum_shares if sum_shares > 0 else 0.0
        child.oltt = node.oltt * child.ltt
        floor = max(child.usage, MIN_USAGE * child.oltt)
        child.shr = child.shares * child.shares / floor if child.oltt > 0 else 0.0
    _short_term(node, active)
    if compensation_factor != 0:
        compensated = False
        for child in active:
            if child.ostt > compensation_factor * child.oltt:
                floor = max(child.usage, MIN_USAGE * child.oltt)
                excess = child.ostt / (compensation_factor * child.oltt)
                child.shr = child.shares * child.shares / (floor * excess)
                compensated = True
        if compensated:
            _short_term(node, active)
    for child in active:
        targets(child, compensation_factor, root=False)


def _short_term(node: Node, active: list[Node]) -> None:
    total = sum(c.shr for c in active)
    for child in active:
        child.stt = child.shr / total if total > 0 else 0.0
        child.ostt = node.ostt * child.stt


def running_tickets(refs: Sequence[JobRef], total: float) -> None:
    """Share-tree tickets of running refs: ``ostt * T`` split by job share (truncated)
    or equally over the node's jobs (``calc_job_share_tree_tickets_pass1/2``)."""
    running = [r for r in refs if not r.queued and r.node is not None]
    for ref in running:
        ref.node.sum_priority += ref.job.jobshare
    for ref in running:
        node = ref.node
        tickets = node.ostt * total
        if node.sum_priority:
            ref.sticket = float(int(ref.job.jobshare * tickets / node.sum_priority))
            ref.sharetree_part = TreePart(
                node.path, node.ostt, ref.job.jobshare / node.sum_priority
            )
        else:
            ref.sticket = tickets / node.job_ref_count
            ref.sharetree_part = TreePart(node.path, node.ostt, 1.0 / node.job_ref_count)


def pending_tickets(
    root: Node,
    refs: Sequence[JobRef],
    total: float,
    dependent: bool,
    slots: Callable[[JobRef], int] = lambda ref: 1,
) -> None:
    """Share-tree tickets of pending refs (module doc); with ``dependent`` they rank by
    the tickets of the policies before and add to them."""
    for ref in refs:
        node = ref.node
        if ref.queued and node is not None:
            job = ref.job
            if dependent:
                sort, before = ref.tickets + 0.01 * job.jobshare, ref.tickets
            else:
                sort, before = float(job.jobshare), 0.0
            node.pending.append(PendingEntry(ref, sort, before, slots(ref), 0.0,
                                             (job.number, ref.task)))
    for entry in _rank(root, root, total):
        ref = entry.ref
        ref.sticket = sticket = entry.shr * total
        level = entry.node  # the last level's part, made once
        if level is not None:
            ref.sharetree_part = TreePart(level.path, level.stt, 1.0 / (entry.count + 1))
        else:
            ref.sharetree_part = None
        if dependent:
            ref.tickets += sticket


def _rank(root: Node, node: Node, total: float) -> list[PendingEntry]:
    """``sge_sort_pending_job_nodes`` (module doc)."""
    if node is root and not node.pending:
        # A root with one active child (running or pending jobs) hands the ranking down
        # to it; a child with only running jobs counts (rnd_1795649100: p3 running, p2
        # pending, ranked at p2's level; rnd_11: p2 alone, ranked below it).
        active = [c for c in node.children if c.job_ref_count > 0]
        if len(active) == 1:
            return _rank(active[0], active[0], total)
    entries = list(node.pending)
    for child in node.children:
        if child.waiting > 0:
            entries.extend(_rank(root, child, total))
    if node is not root or node.pending:
        # by sort, most first, then job and task: two stable sorts with C keys
        entries.sort(key=attrgetter("order"))
        entries.sort(key=attrgetter("sort"), reverse=True)
        count = node.active_job_ref_count
        stt = node.stt
        for entry in entries:
            entry.shr = shr = stt / (count + 1)
            entry.node = node
            entry.count = count
            entry.sort = entry.tickets + shr * total
            # SoGE 8.1.9 counts a parallel job's least slot count: the jobs after a
            # 3-slot job divide by 3 more (tests/data/sge/mix_all, rnd_3; the 6.2 code
            # counts 1 a job).
            count += entry.slots
    node.pending = []
    return entries
