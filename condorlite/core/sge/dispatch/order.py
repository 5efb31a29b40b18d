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

import re

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
