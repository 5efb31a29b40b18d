"""The order queue instances are tried in (sort_hosts.c, sge_sequential_assignment).

Each host gets a sort value, the scheduler's ``load_formula`` over its load values
(``load_scaling`` applied) plus the load correction of jobs started less than
``load_adjustment_decay_time`` ago:

    value(h)  = sum of the formula's terms, each ``[+|-] name[*weight]`` or a number
    load(h,x) = reported(h,x) * scaling(h,x)
                + adjustment(x) * sum over such job slots of (decay - age) / decay
                  (divided by num_proc for ``np_*`` values)

A job started in this run has age 0. Hosts are ranked by value, equal values sharing
a rank (``host_seq_no``). Queue instances are then ordered by ``(host rank, seq_no)``
with ``queue_sort_method load`` and by ``(seq_no, host rank)`` with ``seqno``; ties keep
the dump's order (qstat -f lists instances by queue, then host).
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable

from condorlite.core.sge.objects import Cell

from .diagram import amount
from .world import Instance

_TERM = re.compile(r"\s*([+-]?)\s*([A-Za-z_][A-Za-z0-9_.]*|[0-9.]+)(?:\s*\*\s*([0-9.]+))?")


def parse_adjustments(text: str) -> dict[str, float]:
    """``job_load_adjustments``: ``np_load_avg=0.50,...``; NONE is empty."""
    out: dict[str, float] = {}
    if text.strip().upper() in ("", "NONE"):
        return out
    for item in re.split(r"[,\s]+", text.strip()):
        name, _, value = item.partition("=")
        number = amount(value, "DOUBLE")
        if name and number is not None:
            out[name] = number
    return out


def _load(
    cell: Cell, host: str, name: str, correction: float, adjustments: dict[str, float]
) -> float:
    h = cell.hosts.get(host)
    if h is None:
        return 0.0
    value = amount(h.load_values.get(name, "0"), "DOUBLE") or 0.0
    value *= h.load_scaling.get(name, 1.0)
    if name in adjustments and correction:
        extra = adjustments[name] * correction
        if name.startswith("np_"):
            nproc = int(amount(h.load_values.get("num_proc", "1"), "INT") or 1)
            extra /= max(1, nproc)
        value += extra
    return value


_BREACHED = {
    ">=": lambda load, limit: load >= limit,
    ">": lambda load, limit: load > limit,
    "<=": lambda load, limit: load <= limit,
    "<": lambda load, limit: load < limit,
    "==": lambda load, limit: load == limit,
    "!=": lambda load, limit: load != limit,
}


def load_alarm(
    cell: Cell, host: str, thresholds: tuple[tuple[str, str], ...], correction: float
) -> str | None:
    """Why a queue instance with ``thresholds`` on ``host`` is overloaded, as the
    scheduler words it (``np_load_avg=0.955322 (no load adjustment) >= 0.0``), or None.

    The load is the host's reported value with ``correction`` job slots' adjustment
    added (subtracted for a ``<=``/``<``/``==`` complex); a threshold is breached when
    ``load RELOP limit`` holds for the complex's relop."""
    h = cell.hosts.get(host)
    adjustments = parse_adjustments(cell.sched_conf.job_load_adjustments)
    raw = dict(_raw_adjustments(cell.sched_conf.job_load_adjustments))
    for name, limit_text in thresholds:
        c = cell.complexes.get(name)
        limit = amount(limit_text, "DOUBLE")
        if c is None or h is None or limit is None or name not in h.load_values:
            continue
        text = h.load_values[name]
        load = (amount(text, c.type) or 0.0) * h.load_scaling.get(name, 1.0)
        diagnosis = "no load adjustment"
        if correction and name in adjustments:
            extra = adjustments[name] * correction
            detail = f"{raw[name]} * {correction:.6f}"
            if name.startswith("np_"):
                nproc = max(1, int(amount(h.load_values.get("num_proc", "1"), "INT") or 1))
                extra /= nproc
                detail += f" with nproc={nproc}"
            up = c.relop in (">=", ">")
            load += extra if up else -extra
            diagnosis = f"= {text} {'+' if up else '-'} {detail}"
        if _BREACHED.get(c.relop, _BREACHED[">="])(load, limit):
            return f"{name}={load:.6f} ({diagnosis}) {c.relop} {limit_text}"
    return None


def _raw_adjustments(text: str) -> list[tuple[str, str]]:
    if text.strip().upper() in ("", "NONE"):
        return []
    items = [item.partition("=") for item in re.split(r"[,\s]+", text.strip())]
    return [(name, value) for name, _, value in items if name]


def host_value(cell: Cell, host: str, correction: float) -> float:
    """The load formula for ``host`` with ``correction`` job slots' worth of
    adjustment (module doc)."""
    conf = cell.sched_conf
    adjustments = parse_adjustments(conf.job_load_adjustments)
    total, text = 0.0, conf.load_formula.strip()
    for sign, name, weight in _TERM.findall(text):
        number = amount(name, "DOUBLE")
        value = number if number is not None else _load(cell, host, name, correction, adjustments)
        value *= float(weight) if weight else 1.0
        total += -value if sign == "-" else value
    return total


def ranked(cell: Cell, instances: list[Instance], values: dict[str, float]) -> list[Instance]:
    """Instances in the order they are tried (module doc)."""
    # each distinct value's place, looked up once (``distinct.index`` per host was
    # quadratic: 1,000 hosts made every ranking a million comparisons)
    place = {v: i for i, v in enumerate(sorted(set(values.values())))}
    rank = {host: place[v] for host, v in values.items()}
    by_load = cell.sched_conf.queue_sort_method.lower() != "seqno"

    def key(i: Instance) -> tuple[int, int]:
        r = rank.get(i.host, 0)
        return (r, i.conf.seq_no) if by_load else (i.conf.seq_no, r)

    return sorted(instances, key=key)


def sort_key(by_load: bool, value: float, seq_no: int, position: int) -> tuple:
    """An instance's place in ``ranked``'s order when no value is NaN: a host's rank
    grows with its value, so (value, seq_no, position) orders as (rank, seq_no) with
    ties in the instances' order ((seq_no, value, position) for ``seqno``)."""
    return (value, seq_no, position) if by_load else (seq_no, value, position)


class Ranking:
    """The instances of an active set (the run's ``queue_list``) in the order
    ``ranked`` gives, kept up to date as host values change one host at a time (a
    start's load correction) and as instances enter and leave the set, instead of
    sorting or filtering all of them again for each job (2,250 instances, 18,000
    attempts at 1,000 hosts).

    Ordering by ``sort_key`` is ``ranked``'s order whatever the other hosts' values,
    so ``active()`` (the members, sorted by key) is ``ranked`` of the set. Values that
    do not order (NaN) make ``exact`` false: the caller then ranks with ``ranked``.
    The members are two parallel lists, keys and instances, kept sorted by bisection;
    every instance's current key is known, members or not."""

    def __init__(
        self,
        cell: Cell,
        instances: list[Instance],
        value_of: Callable[[str], float],
        active: set[str] = frozenset(),  # type: ignore[assignment]
    ) -> None:
        self._by_load = cell.sched_conf.queue_sort_method.lower() != "seqno"
        self._value_of = value_of
        self._position = {inst.name: k for k, inst in enumerate(instances)}
        self._on_host: dict[str, list[Instance]] = {}
        for inst in instances:
            self._on_host.setdefault(inst.host, []).append(inst)
        self._values = {host: value_of(host) for host in self._on_host}
        self.exact = all(v == v for v in self._values.values())
        self._key = {i.name: self._entry(i, self._values[i.host]) for i in instances}
        members = sorted((self._key[i.name], i) for i in instances if i.name in active)
        self._keys = [k for k, _ in members]
        self._members = [i for _, i in members]

    def _entry(self, inst: Instance, value: float) -> tuple:
        return sort_key(self._by_load, value, inst.conf.seq_no, self._position[inst.name])

    def update(self, host: str) -> None:
        """Take ``host``'s value again; move its instances if it changed."""
        old, new = self._values.get(host), self._value_of(host)
        if host not in self._on_host or old == new:
            return
        self._values[host] = new
        self.exact = self.exact and new == new
        if not self.exact:
            return
        for inst in self._on_host[host]:
            member = self._leave(inst)
            self._key[inst.name] = self._entry(inst, new)
            if member:
                self.enter(inst)

    def enter(self, inst: Instance) -> None:
        """``inst`` joins the active set (nothing when it is a member)."""
        key = self._key[inst.name]
        k = bisect.bisect_left(self._keys, key)
        if k < len(self._keys) and self._keys[k] == key:
            return
        self._keys.insert(k, key)
        self._members.insert(k, inst)

    def _leave(self, inst: Instance) -> bool:
        key = self._key[inst.name]
        k = bisect.bisect_left(self._keys, key)
        if k < len(self._keys) and self._keys[k] == key:
            del self._keys[k]
            del self._members[k]
            return True
        return False

    def leave(self, inst: Instance) -> None:
        """``inst`` leaves the active set (nothing when it is not a member)."""
        self._leave(inst)

    def active(self) -> list[Instance]:
        """The members in order (a copy)."""
        return list(self._members)

    def members(self) -> list[Instance]:
        """The members in order, not copied: the ranking's own list, which its next
        change (``update``, ``enter``, ``leave``) changes in place; not to be changed
        by the caller."""
        return self._members
