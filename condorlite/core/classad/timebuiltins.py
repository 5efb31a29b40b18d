"""The time built-ins: clocks, the two time constructors, the field getters,
``splitTime``, ``formatTime`` and ``interval``, with HTCondor's semantics
(``fnCall.cpp``; checked against ``classad2`` in ``tests/classad/test_time_builtins.py``).

The clock is the evaluation's ``now`` (``time()``, ``currentTime()``, ``absTime()``,
``dayTime()``, ``timeZoneOffset()``, ``formatTime()``); the zone is the process's local
zone (see ``timevalues.py``). Values and operators of the two time types live in
``timevalues.py``, reading and writing time text in ``timetext.py``.

Integers and reals handed to ``absTime`` and ``relTime`` are cast to a 32-bit C ``int``
first (as HTCondor does: ``absTime(4294967297)`` is one second past the epoch); a real
handed to ``relTime`` is kept whole. ``splitTime`` and ``formatTime`` read integers as
64-bit epoch seconds and reals through the same 32-bit cast.
"""

from __future__ import annotations

from . import operators as ops
from .ad import ClassAd
from .ast import Literal
from .builtins import _as_number, register
from .cache import compile_expr
from .scope import current_time as evaluation_time
from .scope import resolve
from .textfuncs import c_double_to_int, interval_text
from .timetext import parse_abs_time, parse_rel_time, strftime
from .timevalues import (
    c_int,
    c_int_of_long,
    c_mod,
    c_quot,
    day_numbers,
    gm_fields,
    local_fields,
    rel_fields,
    rel_secs,
    zone_offset,
)
from .values import AbsTime, Error, RelTime, Undefined

# --- clocks --------------------------------------------------------------------------


def _now(env) -> int:  # type: ignore[no-untyped-def]
    return evaluation_time(env)


def _current(env) -> object:  # type: ignore[no-untyped-def]
    now = _now(env)
    offset = zone_offset(now)
    return Error if offset is None else AbsTime(now, offset)


@register("time", 0, 0, lazy=True)
def time_(cur, env, args):  # type: ignore[no-untyped-def]
    """time(): the current time in epoch seconds: the ``now`` given to the evaluation,
    or the real clock when none was given."""
    return _now(env)


@register("currentTime", 0, 0, lazy=True)
def current_time(cur, env, args):  # type: ignore[no-untyped-def]
    """currentTime(): ``now`` as an abstime in the local zone."""
    return _current(env)


@register("timeZoneOffset", 0, 0, lazy=True)
def time_zone_offset(cur, env, args):  # type: ignore[no-untyped-def]
    """timeZoneOffset(): the local zone's offset from UTC at ``now``, as a reltime."""
    offset = zone_offset(_now(env))
    return Error if offset is None else RelTime(float(offset))


@register("dayTime", 0, 0, lazy=True)
def day_time(cur, env, args):  # type: ignore[no-untyped-def]
    """dayTime(): the seconds since local midnight at ``now``, as a reltime."""
    t = local_fields(_now(env))
    if t is None:
        return Error
    return RelTime(float(t.tm_hour * 3600 + t.tm_min * 60 + t.tm_sec))


# --- constructors --------------------------------------------------------------------


def _string_literal(node: object) -> str | None:
    if isinstance(node, Literal) and type(node.value) is str:
        return node.value
    return None


@register("absTime", 0, 2, lazy=True)
def abs_time(cur, env, args):  # type: ignore[no-untyped-def]
    """absTime([t [, offset]]): an abstime. No argument: now. A written string (the one
    argument): the time it names (``"2024-01-01T00:00:00Z"``; see ``timetext.py``; the
    parser refuses text that names none, so error here is only for hand-built trees). An
    integer or real: those epoch seconds (cast to a 32-bit int) in the local zone, or in
    ``offset`` seconds east of UTC (an integer, real or reltime). A reltime: its whole
    seconds; an abstime: itself (a given offset is ignored); any other string: itself.
    Undefined gives undefined; booleans, lists and records error."""
    if not args:
        return _current(env)
    if len(args) == 1:
        text = _string_literal(args[0])
        if text is not None:
            parsed = parse_abs_time(text)
            return Error if parsed is None else parsed
    value = compile_expr(args[0])(cur, env)
    offset: int | None = None
    if len(args) == 2:
        second = compile_expr(args[1])(cur, env)
        kind = type(second)
        if kind is int:
            offset = c_int_of_long(second)
        elif kind is float:
            offset = c_int(second)
        elif kind is RelTime:
            offset = rel_secs(second)
        else:
            return Error
    kind = type(value)
    if value is Undefined:
        return Undefined
    if kind is int:
        secs = c_int_of_long(value)
    elif kind is float:
        secs = c_int(value)
    elif kind is RelTime:
        secs = rel_secs(value)
    elif kind is AbsTime or kind is str:
        return value
    else:
        return Error
    if offset is None:
        offset = zone_offset(secs)
        if offset is None:
            return Error
    return AbsTime(secs, offset)


@register("relTime", 1, 1, lazy=True)
def rel_time(cur, env, args):  # type: ignore[no-untyped-def]
    """relTime(t): a reltime. A written string: the duration it names
    (``"[-][days+][hh:][mm:]ss"``, or with d/h/m/s units) as a *real* (HTCondor's
    parser turns the call into a reltime literal, which evaluates to a real; it refuses
    text that names none). An integer: its seconds (cast to a 32-bit int); a real: its
    seconds; an abstime: its epoch seconds; a reltime: itself; any other string: the
    zero reltime. Undefined gives undefined; booleans, lists and records error."""
    text = _string_literal(args[0])
    if text is not None:
        parsed = parse_rel_time(text)
        return Error if parsed is None else float(parsed)
    value = compile_expr(args[0])(cur, env)
    kind = type(value)
    if value is Undefined:
        return Undefined
    if kind is int:
        return RelTime(float(c_int_of_long(value)))
    if kind is float:
        return RelTime(value)
    if kind is AbsTime:
        return RelTime(float(int(value)))
    if kind is RelTime:
        return value
    if kind is str:
        return RelTime(0.0)
    return Error


# --- fields --------------------------------------------------------------------------

_ABS_FIELDS = {
    "getyear": 0,
    "getmonth": 1,
    "getdayofmonth": 2,
    "gethours": 3,
    "getminutes": 4,
    "getseconds": 5,
    "getdayofweek": 6,
    "getdayofyear": 7,
}


def _field(name: str) -> None:
    lname = name.lower()

    def get(value):  # type: ignore[no-untyped-def]
        kind = type(value)
        if kind is AbsTime:
            if lname == "getdays":
                return Error
            t = local_fields(int(value))
            if t is None:
                return Error
            return (
                t.tm_year,
                t.tm_mon,
                t.tm_mday,
                t.tm_hour,
                t.tm_min,
                t.tm_sec,
                (t.tm_wday + 1) % 7,
                t.tm_yday - 1,
            )[_ABS_FIELDS[lname]]
        if kind is RelTime:
            secs = rel_secs(value)
            if lname == "getdays":
                return c_quot(secs, 86400)
            if lname == "gethours":
                return c_quot(c_mod(secs, 86400), 3600)
            if lname == "getminutes":
                return c_quot(c_mod(secs, 3600), 60)
            if lname == "getseconds":
                return c_mod(secs, 60)
        return Error

    get.__doc__ = (
        f"{name}(t): of an abstime, its {name[3:].lower()} in the local zone (getDays is "
        "error); of a reltime (whole seconds), days, hours, minutes or seconds (the "
        "calendar fields are error); anything else, undefined included, is error."
    )
    register(name, 1, 1)(get)


for _name in (
    "getYear",
    "getMonth",
    "getDayOfMonth",
    "getDayOfWeek",
    "getDayOfYear",
    "getHours",
    "getMinutes",
    "getSeconds",
    "getDays",
):
    _field(_name)


# --- splitTime and formatTime --------------------------------------------------------


def _split(value: object) -> object:
    """HTCondor's ``doSplitTime``: a record of the fields, or None if ``value`` is not a
    time (an integer or real counts as epoch seconds in the local zone)."""
    kind = type(value)
    if kind is int or kind is float:
        secs = value if kind is int else c_int(value)  # type: ignore[arg-type]
        offset = zone_offset(secs)  # type: ignore[arg-type]
        if offset is None:
            return Error
        value, kind = AbsTime(secs, offset), AbsTime  # type: ignore[arg-type]
    if kind is AbsTime:
        fields = gm_fields(int(value) + value.offset)  # type: ignore[attr-defined, call-overload]
        if fields is None:
            return Error
        ad = ClassAd()
        ad["Type"] = "AbsoluteTime"
        names = ("Year", "Month", "Day", "Hours", "Minutes", "Seconds")
        for name, field in zip(names, fields[:6], strict=True):
            ad[name] = field
        ad["Offset"] = value.offset  # type: ignore[attr-defined]
        return ad
    if kind is RelTime:
        return _split_rel(float(value))  # type: ignore[arg-type]
    if hasattr(value, "lookup") and kind is not str and kind is not list:
        return value
    return None


def _split_rel(rsecs: float) -> object:
    days, hrs, mins, secs = rel_fields(rsecs)
    ad = ClassAd()
    ad["Type"] = "RelativeTime"
    ad["Days"] = days
    ad["Hours"] = hrs
    ad["Minutes"] = mins
    ad["Seconds"] = secs
    return ad


@register("splitTime", 1, 1)
def split_time(value):  # type: ignore[no-untyped-def]
    """splitTime(t): a record of t's fields. An abstime (or an integer or real, read as
    epoch seconds in the local zone): Type "AbsoluteTime", Year, Month, Day, Hours,
    Minutes, Seconds (in its own offset) and Offset. A reltime: Type "RelativeTime",
    Days, Hours, Minutes and Seconds (a real; the sign on the first non-zero field).
    Undefined gives undefined; anything else (a record included) error."""
    if value is Undefined:
        return Undefined
    if value is Error or type(value) not in (int, float, AbsTime, RelTime):
        return Error
    split = _split(value)
    return Error if split is None else split


def _int_field(ad: object, name: str, env: object) -> int | None:
    """``EvaluateAttrInt``: the attribute's value if it is an integer (cast to a 32-bit
    int), else None."""
    value = resolve(ad, name.lower(), env)  # type: ignore[arg-type]
    return c_int_of_long(value) if type(value) is int else None


def _tm_of(split: object, env: object) -> tuple[int, int, int, int, int, int, int, int]:
    sec = _int_field(split, "Seconds", env) or 0
    minute = _int_field(split, "Minutes", env) or 0
    hour = _int_field(split, "Hours", env) or 0
    mday = _int_field(split, "Day", env) or 0
    mon = _int_field(split, "Month", env)
    mon = 0 if mon is None else c_int_of_long(mon - 1)
    year = _int_field(split, "Year", env)
    year = 0 if year is None else c_int_of_long(year - 1900)
    wday, yday = day_numbers(c_int_of_long(year + 1900), c_int_of_long(mon + 1), mday)
    return (sec, minute, hour, mday, mon, year, wday, yday)


@register("formatTime", 0, 2, lazy=True)
def format_time(cur, env, args):  # type: ignore[no-untyped-def]
    """formatTime([t [, format]]): t (default now) formatted by C ``strftime`` (format
    default ``"%c"``). t is an abstime (formatted in its own offset), an integer or real
    (epoch seconds, local zone) or a record of splitTime's fields; a reltime, undefined,
    error or anything else is error, and so is a format that is not a string."""
    if not args:
        t = local_fields(_now(env))
        if t is None:
            return Error
        fields = (
            t.tm_sec,
            t.tm_min,
            t.tm_hour,
            t.tm_mday,
            t.tm_mon - 1,
            t.tm_year - 1900,
            (t.tm_wday + 1) % 7,
            t.tm_yday - 1,
        )
        return strftime("%c", fields)
    value = compile_expr(args[0])(cur, env)
    if type(value) is RelTime or value is Undefined or value is Error:
        return Error
    split = _split(value)
    if split is None or split is Error:
        return Error
    fields = _tm_of(split, env)
    if len(args) == 1:
        return strftime("%c", fields)
    fmt = compile_expr(args[1])(cur, env)
    if type(fmt) is not str:
        return Error
    return strftime(fmt, fields)


@register("interval", 1, 1)
def interval(value):  # type: ignore[no-untyped-def]
    """interval(secs): seconds as "[days+]hh:mm:ss" (e.g. 3661 -> "1:01:01"); the
    seconds are truncated to a 32-bit C int first, as HTCondor does; undefined and
    non-numbers give error."""
    number = _as_number(value)
    if number is None:
        return Error
    seconds = number if type(number) is int else c_double_to_int(number)
    return interval_text(ops.int_index(seconds))


__all__: list[str] = []  # everything here registers itself into builtins.REGISTRY
