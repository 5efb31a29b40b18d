"""The ``condor_userprio`` table, laid out column for column as HTCondor prints it.

Layout rules (from HTCondor's ``user_prio.cpp``, flat mode, no group columns yet):

* a ``Last Priority Update: MM/DD HH:MM`` line (local time);
* two heading rows, each heading centred in its column, then a row of dashes;
* the name column is as wide as the longest shown name (at least 10, at most 99, and
  at least as wide as the footer's ``Number of users: N`` with N = all records);
  every other column is one space then a field of fixed width;
* numbers are ``%<w>.<d>f`` right-aligned, falling back to ``%.<w-6>g`` when too wide;
  dates ``M/DD/YYYY HH:MM``; durations ``D+HH:MM`` (``<now>`` when not positive);
* a footer: dashes, then the user count and the totals of the usage columns.

Differences: trailing blanks are stripped from every line; rows with equal sort keys
are ordered by name (HTCondor leaves their order to ``std::sort``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

#: Column flags (HTCondor's DetailXxx).
PRIORITY, REAL_PRIO, FACTOR, RES_USED, WT_RES_USED = "prio", "real", "factor", "inuse", "usage"
USE_TIME1, USE_TIME2, USE_DELTA, FLOOR, CEILING = "begin", "last", "since", "floor", "ceiling"


@dataclass(frozen=True)
class Row:
    """What one table line shows (HTCondor's LineRec, flat mode)."""

    name: str
    effective_priority: float
    priority_factor: float
    weighted_resources_used: float
    weighted_accumulated_usage: float
    begin_usage_time: float
    last_usage_time: float
    ceiling: int
    floor: int
    is_group: bool = False


@dataclass(frozen=True)
class Column:
    flag: str
    width: int
    head1: str
    head2: str


#: Every column condorlite shows, in HTCondor's order.
COLUMNS: tuple[Column, ...] = (
    Column(PRIORITY, 12, "Effective", "Priority"),
    Column(REAL_PRIO, 8, "Real", "Priority"),
    Column(FACTOR, 9, "Priority", "Factor"),
    Column(RES_USED, 6, "Wghted", "In Use"),
    Column(WT_RES_USED, 12, "Total Usage", "(wghted-hrs)"),
    Column(USE_TIME1, 16, "Usage", "Start Time"),
    Column(USE_TIME2, 16, "Last", "Usage Time"),
    Column(USE_DELTA, 10, "Time Since", "Last Usage"),
    Column(FLOOR, 9, "Submitter", "Floor"),
    Column(CEILING, 9, "Submitter", "Ceiling"),
)

#: HTCondor's default (-most) columns once the group-quota ones are dropped.
DEFAULT_FLAGS = frozenset({PRIORITY, FACTOR, RES_USED, WT_RES_USED, USE_DELTA, FLOOR, CEILING})
ALL_FLAGS = frozenset(c.flag for c in COLUMNS)
USAGE_FLAGS = frozenset({RES_USED, WT_RES_USED, USE_TIME1, USE_TIME2})
PRIORITY_FLAGS = frozenset({PRIORITY, REAL_PRIO, FACTOR})
MAX_NAME_WIDTH = 99


# -- HTCondor's formatting helpers ----------------------------------------------------------


def pad(text: str | None, width: int, fill: str = " ", align: str = "left") -> str:
    """``text`` in exactly ``width`` characters: truncated, or padded by ``fill``."""
    text = (text or "")[:width]
    if align == "right":
        return text.rjust(width, fill)
    if align == "center":
        left = (width - len(text)) // 2
        return (fill * left + text).ljust(width, fill)
    return text.ljust(width, fill)


def format_float(width: int, decimals: int, value: float) -> str:
    text = f"{value:{width}.{decimals}f}"
    if len(text) > width:
        text = f"{value:.{width - 6}g}"
    return pad(text, width, align="right")


def format_date(epoch: float) -> str:
    """``M/D  HH:MM`` in local time, as HTCondor's format_date."""
    if epoch < 0:
        return "    ???    "
    tm = time.localtime(int(epoch))
    return f"{tm.tm_mon:2d}/{tm.tm_mday:<2d} {tm.tm_hour:02d}:{tm.tm_min:02d}"


def format_date_year(epoch: float) -> str:
    if epoch < 0:
        return "    ???    "
    tm = time.localtime(int(epoch))
    return f"{tm.tm_mon:2d}/{tm.tm_mday:02d}/{tm.tm_year:<4d} {tm.tm_hour:02d}:{tm.tm_min:02d}"


def format_time_nosecs(seconds: float) -> str:
    secs = int(seconds)
    if secs < 0:
        return "[?????]"
    days, rest = divmod(secs, 86400)
    return f"{days:3d}+{rest // 3600:02d}:{rest % 3600 // 60:02d}"


def _date_cell(width: int, epoch: float) -> str:
    return pad("" if epoch <= 0 else format_date_year(epoch), width, align="right")


def _delta_cell(width: int, delta: float) -> str:
    return pad("<now>" if delta <= 0 else format_time_nosecs(delta), width, align="right")


# -- the table -----------------------------------------------------------------------------


def _last(row: Row) -> float:
    # HTCondor reads a LastUsageTime of 0 ("never") as -1.
    return row.last_usage_time if row.last_usage_time != 0 else -1.0


def _real(row: Row) -> float:
    return row.effective_priority / row.priority_factor if row.priority_factor > 0 else 0.0


#: flag -> cell maker (width, row, last_update); one table, no per-cell closures.
_CELLS: dict[str, Callable[[int, Row, float], str]] = {
    PRIORITY: lambda w, r, _t: format_float(w, 2, r.effective_priority),
    REAL_PRIO: lambda w, r, _t: format_float(w, 2, _real(r)),
    FACTOR: lambda w, r, _t: format_float(w, 2, r.priority_factor),
    RES_USED: lambda w, r, _t: format_float(w, 0, r.weighted_resources_used),
    WT_RES_USED: lambda w, r, _t: format_float(w, 2, r.weighted_accumulated_usage / 3600.0),
    USE_TIME1: lambda w, r, _t: _date_cell(w, r.begin_usage_time),
    USE_TIME2: lambda w, r, _t: _date_cell(w, _last(r)),
    USE_DELTA: lambda w, r, t: _delta_cell(w, t - _last(r)),
    FLOOR: lambda w, r, _t: format_float(w, 2, r.floor) if r.floor > 0 else " " * w,
    CEILING: lambda w, r, _t: format_float(w, 2, r.ceiling) if r.ceiling > -1 else " " * w,
}


def sort_rows(rows: list[Row], flags: frozenset[str]) -> list[Row]:
    """By effective priority when shown, else by usage, else by name; ties by name."""
    if PRIORITY in flags:
        return sorted(rows, key=lambda r: (r.effective_priority, r.name))
    if WT_RES_USED in flags or RES_USED in flags:
        return sorted(rows, key=lambda r: (r.weighted_accumulated_usage, r.name))
    return sorted(rows, key=lambda r: r.name)


def render_table(
    rows: list[Row], flags: frozenset[str], last_update: float, min_last_usage: float,
    total_records: int,
) -> list[str]:
    """The lines of the table for the rows already filtered and sorted."""
    cols = [c for c in COLUMNS if c.flag in flags]
    count_width = len(f"Number of users: {total_records}")
    longest = max([10, *(len(r.name) for r in rows)])
    name_w = max(min(longest, MAX_NAME_WIDTH), count_width)

    def line(name_part: str, cells: list[str]) -> str:
        return (name_part + "".join(" " + c for c in cells)).rstrip()

    out = [f"Last Priority Update: {format_date(last_update)}"]
    out.append(line(pad("", name_w), [pad(c.head1, c.width, align="center") for c in cols]))
    out.append(line(pad("User Name", name_w), [pad(c.head2, c.width, align="center")
                                                for c in cols]))
    dashes = line("-" * name_w, ["-" * c.width for c in cols])
    out.append(dashes)
    users = 0
    total_in_use = total_usage = 0.0
    for row in rows:
        out.append(line(pad(row.name, name_w),
                        [_CELLS[c.flag](c.width, row, last_update) for c in cols]))
        if not row.is_group:
            users += 1
            total_in_use += row.weighted_resources_used
            total_usage += row.weighted_accumulated_usage
    out.append(dashes)
    footer: list[str] = []
    for c in cols:
        if c.flag == RES_USED:
            footer.append(format_float(c.width, 0, total_in_use))
        elif c.flag == WT_RES_USED:
            footer.append(format_float(c.width, 2, total_usage / 3600.0))
        elif c.flag == USE_TIME2:
            footer.append(_date_cell(c.width, min_last_usage))
        elif c.flag == USE_DELTA and min_last_usage > 0:
            footer.append(_delta_cell(c.width, last_update - min_last_usage))
        else:
            footer.append(" " * c.width)
    out.append(line(pad(f"Number of users: {users}", name_w), footer))
    return out
