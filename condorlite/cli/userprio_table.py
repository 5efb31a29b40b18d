"""The ``condor_userprio`` table, laid out column for column as HTCondor prints it.

Layout rules (from HTCondor's ``user_prio.cpp``):

* a ``Last Priority Update: MM/DD HH:MM ZONE`` line (condor_userprio's local time,
  labelled with the zone as every time condorlite prints), then any ``notes``;
* two heading rows, each heading centred in its column, then a row of dashes;
* the name column is as wide as the longest name of a row passing the usage filter
  (a user shown under its group counts ``len(name) + 2 - len(group)``), at least 10,
  at most 99, and at least as wide as ``Number of users: N`` with N = all records;
  hierarchical mode adds 2 and heads it ``Group`` / ``  User Name``; every other
  column is one space then a field of fixed width;
* numbers are ``%<w>.<d>f`` right-aligned, falling back to ``%.<w-6>g`` when too wide;
  dates ``M/DD/YYYY HH:MM``; durations ``D+HH:MM`` (``<now>`` when not positive);
* group rows: no effective priority (meaningless for a group); quota and sort-key
  cells are ``n/d`` when there is no figure; ``Use Surplus`` is ``no``, ``ByQuota``
  or ``Regroup`` (``yes`` for ``<none>``), a sort key of FLT_MAX prints ``<last>``;
  user rows leave the group columns blank; in hierarchical mode a user is indented
  by two blanks and its group prefix is dropped;
* a footer: dashes, then the user count, the global surplus policy and the totals of
  the usage columns (users only).

Differences: trailing blanks are stripped from every line; rows with equal sort keys
are ordered by name (HTCondor leaves their order to ``std::sort``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from condorlite.cli.render import zone_name

#: Column flags (HTCondor's DetailXxx).
PRIORITY, REAL_PRIO, FACTOR, RES_USED, WT_RES_USED = "prio", "real", "factor", "inuse", "usage"
USE_TIME1, USE_TIME2, USE_DELTA, FLOOR, CEILING = "begin", "last", "since", "floor", "ceiling"
SORT_KEY, EFF_QUOTA, CFG_QUOTA, SURPLUS = "sortkey", "effquota", "cfgquota", "surplus"
TREE_QUOTA, REQUESTED = "treequota", "requested"

#: GROUP_SORT_EXPR values from here up print as ``<last>`` (HTCondor's FLT_MAX test,
#: loosened because the value round-trips through ClassAds).
LAST_SORT_KEY = 3.40282001e38


@dataclass(frozen=True)
class Row:
    """What one table line shows (HTCondor's LineRec).

    ``group_id`` is 0 for ``<none>`` and its users, else the group's rank by name
    (1, 2, ...); ``group_sort_key`` and ``group_usage`` (weighted accumulated usage)
    are those of the row's group, for the hierarchical order; ``index`` is a group's
    breadth-first position. The group fields are None on user rows (blank cells).
    """

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
    group: str = "<none>"
    group_id: int = 0
    group_sort_key: float | None = None
    group_usage: float = 0.0
    index: int = 0
    effective_quota: float | None = None
    config_quota: float | None = None
    subtree_quota: float | None = None
    surplus: str | None = None
    requested: float | None = None
    sort_key: float | None = None


@dataclass(frozen=True)
class Column:
    flag: str
    width: int
    head1: str
    head2: str


#: Every column condorlite shows, in HTCondor's order.
COLUMNS: tuple[Column, ...] = (
    Column(SORT_KEY, 9, "Group", "Sort Key"),
    Column(EFF_QUOTA, 9, "Effective", "Quota"),
    Column(CFG_QUOTA, 9, "Config", "Quota"),
    Column(SURPLUS, 7, "Use", "Surplus"),
    Column(TREE_QUOTA, 9, "Subtree", "Quota"),
    Column(PRIORITY, 12, "Effective", "Priority"),
    Column(REAL_PRIO, 8, "Real", "Priority"),
    Column(FACTOR, 9, "Priority", "Factor"),
    Column(RES_USED, 6, "Wghted", "In Use"),
    Column(WT_RES_USED, 12, "Total Usage", "(wghted-hrs)"),
    Column(USE_TIME1, 16, "Usage", "Start Time"),
    Column(USE_TIME2, 16, "Last", "Usage Time"),
    Column(USE_DELTA, 10, "Time Since", "Last Usage"),
    Column(REQUESTED, 10, "Weighted", "Requested"),
    Column(FLOOR, 9, "Submitter", "Floor"),
    Column(CEILING, 9, "Submitter", "Ceiling"),
)

#: HTCondor's DetailQuotas: the group-only columns -quotas adds.
QUOTA_FLAGS = frozenset({EFF_QUOTA, CFG_QUOTA, TREE_QUOTA, SURPLUS, REQUESTED})
#: HTCondor's DetailMost, the default.
DEFAULT_FLAGS = frozenset({CFG_QUOTA, SURPLUS, PRIORITY, FACTOR, RES_USED, WT_RES_USED,
                           USE_DELTA, REQUESTED, FLOOR, CEILING})
USAGE_FLAGS = frozenset({RES_USED, WT_RES_USED, USE_TIME1, USE_TIME2})
PRIORITY_FLAGS = frozenset({PRIORITY, REAL_PRIO, FACTOR})
#: HTCondor's DetailAll (no sort key: -sortkey asks for it).
ALL_FLAGS = DEFAULT_FLAGS | QUOTA_FLAGS | PRIORITY_FLAGS | {USE_TIME1, USE_TIME2}
MAX_NAME_WIDTH = 99
#: Use Surplus names (HTCondor's SurplusName).
NO_SURPLUS, BY_QUOTA, REGROUP = "no", "ByQuota", "Regroup"


@dataclass(frozen=True)
class Layout:
    """How the rows are laid out: under their groups (``hierarchical``), with users
    hidden (only group-only columns asked for), and the global surplus policy shown
    in the footer ("" when unknown)."""

    hierarchical: bool = False
    hide_users: bool = False
    global_surplus: str = ""


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


def _opt(width: int, decimals: int, value: float | None, row: Row) -> str:
    """A group figure: the number, ``n/d`` on a group without it, blank on a user."""
    if value is None:
        return pad("n/d" if row.is_group else "", width, align="right")
    return format_float(width, decimals, value)


def _surplus(width: int, row: Row) -> str:
    if row.surplus is None:
        return pad("n/d" if row.is_group else "", width, align="right")
    return pad("yes" if row.group_id == 0 else row.surplus, width)


def _sort_key(width: int, row: Row) -> str:
    if row.sort_key is not None and row.sort_key >= LAST_SORT_KEY:
        return pad("<last>", width, align="right")
    return _opt(width, 2, row.sort_key, row)


#: flag -> cell maker (width, row, last_update); one table, no per-cell closures.
_CELLS: dict[str, Callable[[int, Row, float], str]] = {
    SORT_KEY: lambda w, r, _t: _sort_key(w, r),
    EFF_QUOTA: lambda w, r, _t: _opt(w, 2, r.effective_quota, r),
    CFG_QUOTA: lambda w, r, _t: _opt(w, 2, r.config_quota, r),
    SURPLUS: lambda w, r, _t: _surplus(w, r),
    TREE_QUOTA: lambda w, r, _t: _opt(w, 2, r.subtree_quota, r),
    PRIORITY: lambda w, r, _t: (" " * w if r.is_group
                                else format_float(w, 2, r.effective_priority)),
    REAL_PRIO: lambda w, r, _t: format_float(w, 2, _real(r)),
    FACTOR: lambda w, r, _t: format_float(w, 2, r.priority_factor),
    RES_USED: lambda w, r, _t: format_float(w, 0, r.weighted_resources_used),
    WT_RES_USED: lambda w, r, _t: format_float(w, 2, r.weighted_accumulated_usage / 3600.0),
    USE_TIME1: lambda w, r, _t: _date_cell(w, r.begin_usage_time),
    USE_TIME2: lambda w, r, _t: _date_cell(w, _last(r)),
    USE_DELTA: lambda w, r, t: (
        pad("<never>", w, align="right") if r.last_usage_time == 0 else _delta_cell(w, t - _last(r))
    ),
    REQUESTED: lambda w, r, _t: (format_float(w, 0, r.requested) if r.requested is not None
                                 else " " * w),
    FLOOR: lambda w, r, _t: format_float(w, 2, r.floor) if r.floor > 0 else " " * w,
    CEILING: lambda w, r, _t: format_float(w, 2, r.ceiling) if r.ceiling > -1 else " " * w,
}


def column1_key(row: Row, flags: frozenset[str]) -> tuple:
    """HTCondor's order within a group (or in flat mode): by effective priority when
    shown, else by usage, else by name; ties by name."""
    if PRIORITY in flags:
        return (row.effective_priority, row.name)
    if WT_RES_USED in flags or RES_USED in flags:
        return (row.weighted_accumulated_usage, row.name)
    return (row.name,)


def sort_rows(rows: list[Row], flags: frozenset[str]) -> list[Row]:
    """Flat order (rules of ``column1_key``)."""
    return sorted(rows, key=lambda r: column1_key(r, flags))


def _shown_name(row: Row, hierarchical: bool) -> str:
    if not hierarchical or row.is_group:
        return row.name
    name = row.name[len(row.group) + 1:] if row.group_id > 0 else row.name
    return "  " + name


def _name_width(width_rows: list[Row], total_records: int, hierarchical: bool) -> int:
    longest = 10
    for r in width_rows:
        length = len(r.name)
        if hierarchical and not r.is_group:
            # HTCondor's arithmetic, one more than the shown name needs.
            length += 2 - (len(r.group) if r.group_id != 0 else 0)
        longest = max(longest, length)
    width = max(min(longest, MAX_NAME_WIDTH), len(f"Number of users: {total_records}"))
    return width + 2 if hierarchical else width


def render_table(
    rows: list[Row], flags: frozenset[str], last_update: float, min_last_usage: float,
    total_records: int, layout: Layout | None = None, width_rows: list[Row] | None = None,
    notes: list[str] | None = None,
) -> list[str]:
    """The lines of the table for the rows already filtered, ordered and chosen for
    display. ``width_rows`` (default ``rows``) are the rows the name column is sized
    for; ``total_records`` counts every record, groups included."""
    layout = layout or Layout()
    cols = [c for c in COLUMNS if c.flag in flags]
    name_w = _name_width(rows if width_rows is None else width_rows, total_records,
                         layout.hierarchical)

    def line(name_part: str, cells: list[str]) -> str:
        return (name_part + "".join(" " + c for c in cells)).rstrip()

    if layout.hide_users:
        title = "Name" if layout.hierarchical else "Group Name"
    else:
        title = "  User Name" if layout.hierarchical else "User Name"
    out = [f"Last Priority Update: {format_date(last_update)} {zone_name(last_update)}",
           *(notes or [])]
    out.append(line(pad("Group" if layout.hierarchical else "", name_w),
                    [pad(c.head1, c.width, align="center") for c in cols]))
    out.append(line(pad(title, name_w), [pad(c.head2, c.width, align="center")
                                         for c in cols]))
    dashes = line("-" * name_w, ["-" * c.width for c in cols])
    out.append(dashes)
    for row in rows:
        out.append(line(pad(_shown_name(row, layout.hierarchical), name_w),
                        [_CELLS[c.flag](c.width, row, last_update) for c in cols]))
    out.append(dashes)
    users = [r for r in (rows if width_rows is None else width_rows) if not r.is_group]
    out.append(line(pad(f"Number of users: {len(users)}", name_w),
                    _footer(cols, users, layout, last_update, min_last_usage)))
    return out


def _footer(cols: list[Column], users: list[Row], layout: Layout, last_update: float,
            min_last_usage: float) -> list[str]:
    total_in_use = sum(r.weighted_resources_used for r in users)
    total_usage = sum(r.weighted_accumulated_usage for r in users)
    footer: list[str] = []
    for c in cols:
        if c.flag == SURPLUS:
            footer.append(pad(layout.global_surplus, c.width))
        elif c.flag == RES_USED:
            footer.append(format_float(c.width, 0, total_in_use))
        elif c.flag == WT_RES_USED:
            footer.append(format_float(c.width, 2, total_usage / 3600.0))
        elif c.flag == USE_TIME2:
            footer.append(_date_cell(c.width, min_last_usage))
        elif c.flag == USE_DELTA and min_last_usage > 0:
            footer.append(_delta_cell(c.width, last_update - min_last_usage))
        else:
            footer.append(" " * c.width)
    return footer
