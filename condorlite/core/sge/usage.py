"""Share-tree usage as Grid Engine keeps it: per user and per project, decayed and charged.

The qmaster keeps usage in the user and project objects, not in the tree
(``sgeee.c`` ``decay_and_sum_usage``, ``sge_support.c`` ``sge_calc_node_usage``):

* a job with a user object and no project charges the user's own usage (``UU_usage``);
* a job with a user object and a project charges the user's usage *in that project*
  (``UU_project[P].UPP_usage``), and the project's usage (``PR_usage``);
* each figure is a vector of cpu, mem and io (the usage types ``usage_weight_list``
  weighs), with a decayed part and a long-term part that is never decayed.

A record is keyed by ``UsageKey(kind, name, project)``: ``("user", "bob", "")`` is
``UU_usage``, ``("user", "bob", "p1")`` is bob's ``UPP_usage`` in p1, ``("project",
"p1", "")`` is ``PR_usage``.

Decay (``decay_userprj_usage``), applied to every record once per cycle before the
cycle's charges, from the record's ``usage_time`` to ``now`` (nothing when the record
was never stamped or the clock did not move)::

    usage_k *= c_k ** ((now - usage_time) / 60)
    c_k = 1 - 60 * ln 2 / (halftime_k * 60)        halftime_k in minutes
    c_k = 1 for halftime_k == 0 (no decay);  c_k = 0 for halftime_k < 0 (wiped)

``halftime_k`` is the type's ``halflife_decay_list`` entry (minutes), else sched_conf's
``halftime`` (hours x 60). A charge adds ``delta_k >= 0`` to the decayed and the
long-term figures alike. ``qconf -clearusage`` empties the decayed usage of every user
and project and each user's per-project records, keeping ``UU_long_term_usage``,
``PR_long_term_usage`` and the time stamps (``parse_qconf.c``).

The share tree reads a node's usage from these records (``node_rows``): a leaf not
under a project node from its user's own record (or, when no user has that name, the
project's), a leaf under project node P from its user's record in P, a project node
from the project's record, a copy of ``default`` like a user leaf named after its user.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from condorlite.core.sge.objects import SchedConf, ShareTreeNode, ShareUsage
from condorlite.core.sge.sharetree import USAGE_INTERVAL, combined, decay_halftimes

#: The usage types a record keeps (the ones ``usage_weight_list`` weighs).
TYPES: tuple[str, ...] = ("cpu", "mem", "io")
USER = "user"
PROJECT = "project"


@dataclass(frozen=True)
class UsageVector:
    """cpu (seconds), mem (GB seconds) and io (GB) as Grid Engine's scaled usage."""

    cpu: float = 0.0
    mem: float = 0.0
    io: float = 0.0

    def as_dict(self) -> dict[str, float]:
        return {"cpu": self.cpu, "mem": self.mem, "io": self.io}

    def plus(self, other: UsageVector) -> UsageVector:
        return UsageVector(self.cpu + other.cpu, self.mem + other.mem, self.io + other.io)

    def growth_over(self, before: UsageVector) -> UsageVector:
        """``max(self_k - before_k, 0)`` per type: what a job used since ``before``
        was debited (a figure that went down charges nothing)."""
        return UsageVector(max(self.cpu - before.cpu, 0.0), max(self.mem - before.mem, 0.0),
                           max(self.io - before.io, 0.0))

    @property
    def zero(self) -> bool:
        return self.cpu == 0.0 and self.mem == 0.0 and self.io == 0.0

    @staticmethod
    def of(figures: dict[str, float]) -> UsageVector:
        return UsageVector(figures.get("cpu", 0.0), figures.get("mem", 0.0),
                           figures.get("io", 0.0))


ZERO = UsageVector()


@dataclass(frozen=True, order=True)
class UsageKey:
    """Whose usage: ``kind`` user or project, its ``name``, and for a user the
    project the usage was made in ("" for none)."""

    kind: str
    name: str
    project: str = ""


@dataclass(frozen=True)
class UsageRecord:
    """One record's decayed usage, long-term usage and the time it was last decayed
    (0: never, so the first decay does nothing, as in Grid Engine)."""

    key: UsageKey
    usage: UsageVector = ZERO
    long_term: UsageVector = ZERO
    usage_time: int = 0


def decay_constants(conf: SchedConf, halftime: float | None = None) -> dict[str, float]:
    """Per type, the factor usage keeps over one ``SGE_USAGE_INTERVAL`` (module doc);
    ``halftime`` (hours) replaces sched_conf's for the types the list does not name."""
    named = decay_halftimes(conf)
    default = float(conf.halftime if halftime is None else halftime)
    out = {}
    for kind in TYPES:
        hours = named.get(kind, default)
        if hours < 0:
            out[kind] = 0.0
        elif hours == 0:
            out[kind] = 1.0
        else:
            out[kind] = 1.0 - math.log(2.0) / (hours * 3600.0) * USAGE_INTERVAL
    return out


def decayed(record: UsageRecord, constants: dict[str, float], now: int) -> UsageRecord:
    """``record`` decayed to ``now`` and stamped ``now`` (module doc); a ``now`` before
    the stamp changes nothing."""
    if now <= record.usage_time:
        return record
    if record.usage_time <= 0:
        return replace(record, usage_time=now)
    steps = (now - record.usage_time) / USAGE_INTERVAL
    figures = record.usage.as_dict()
    kept = {k: v * (constants[k] ** steps if constants[k] > 0 else 0.0)
            for k, v in figures.items()}
    return replace(record, usage=UsageVector.of(kept), usage_time=now)


def charged(record: UsageRecord, delta: UsageVector) -> UsageRecord:
    return replace(record, usage=record.usage.plus(delta),
                   long_term=record.long_term.plus(delta))


def charge_keys(owner: str, project: str | None, users: set[str],
                projects: set[str]) -> tuple[UsageKey, ...]:
    """The records a job's usage goes to (module doc): only users and projects that
    exist as objects are charged (``sge_set_job_refs``)."""
    keys = []
    if owner in users:
        keys.append(UsageKey(USER, owner, project if project in projects else ""))
    if project is not None and project in projects:
        keys.append(UsageKey(PROJECT, project))
    return tuple(keys)


def cleared(records: dict[UsageKey, UsageRecord], names: tuple[str, ...]
            ) -> tuple[dict[UsageKey, UsageRecord], tuple[UsageKey, ...]]:
    """``qconf -clearusage`` (module doc) over every record, or only those of the users
    and projects ``names`` lists; returns the new records and the keys whose usage was
    reset or removed, in key order."""
    wanted = set(names)
    out: dict[UsageKey, UsageRecord] = {}
    touched: list[UsageKey] = []
    for key in sorted(records):
        record = records[key]
        if names and key.name not in wanted:
            out[key] = record
            continue
        touched.append(key)
        if key.kind == USER and key.project:
            continue  # UU_project is emptied: the per-project record goes entirely
        out[key] = replace(record, usage=ZERO)
    return out, tuple(touched)


def node_rows(tree: ShareTreeNode, records: dict[UsageKey, UsageRecord],
              conf: SchedConf, projects: set[str]) -> dict[str, ShareUsage]:
    """``share_mon``-like rows, keyed by node path, of every node the records give
    usage to (module doc), for ``sharetree.assign_usage`` to decay to the run's time.
    ``projects`` are the cell's project names (a node named after one is a project
    node, as ``sharetree.build`` decides)."""
    users = {k.name for k in records if k.kind == USER}
    rows: dict[str, ShareUsage] = {}

    def row(path: str, record: UsageRecord | None, user: str = "", project: str = "") -> None:
        if record is not None:
            rows[path] = _share_row(path, user, project, record, conf)

    def visit(node: ShareTreeNode, path: str, project: str | None) -> None:
        if node.name in projects and project is None and path != "/":
            row(path, records.get(UsageKey(PROJECT, node.name)), project=node.name)
            project = node.name
        elif not node.children:
            if node.name == "default":
                for user in sorted(users):
                    row(f"{path}/{user}", records.get(UsageKey(USER, user, project or "")),
                        user, project or "")
            else:
                row(path, records.get(UsageKey(USER, node.name, project or "")),
                    node.name, project or "")
        for child in node.children:
            visit(child, f"{path.rstrip('/')}/{child.name}", project)

    visit(tree, "/", None)
    return rows


def _share_row(path: str, user: str, project: str, record: UsageRecord,
               conf: SchedConf) -> ShareUsage:
    figures = record.usage.as_dict()
    long_term = record.long_term
    return ShareUsage(
        node=path, user=user, project=project, shares=0, job_count=0,
        level_percent=0.0, total_percent=0.0, long_target_share=0.0,
        short_target_share=0.0, actual_share=0.0,
        usage=combined(figures, conf.usage_weight_list), cpu=record.usage.cpu,
        mem=record.usage.mem, io=record.usage.io, ltcpu=long_term.cpu,
        ltmem=long_term.mem, ltio=long_term.io, usage_time=record.usage_time,
    )
