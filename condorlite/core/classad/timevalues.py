"""HTCondor's two time values, ``AbsTime`` and ``RelTime``: their operators, their text
and the local-time helpers the time built-ins share.

Facts (HTCondor's ``operators.cpp``, ``util.cpp``, ``value.cpp``, checked against
``classad2``):

* ``abstime + reltime`` (either order) and ``abstime - reltime`` move the seconds by the
  reltime cast to a 32-bit C ``int`` (NaN and out-of-range doubles give ``INT_MIN``),
  keeping the offset; ``abstime - abstime`` is the reltime of the difference of the
  seconds (offsets ignored); ``reltime +/- reltime`` is a reltime; ``reltime * n``,
  ``n * reltime`` and ``reltime / n`` (n an integer or a real, not a boolean) are
  reltimes computed in double precision (``/ 0`` gives an infinity or NaN, not error).
  Every other operator or operand mix with a time value is error (after strictness:
  error, then undefined, win).
* Comparisons need two values of the same time type: two abstimes compare their
  seconds (``==`` ignores the offset, ``=?=`` also requires equal offsets); two
  reltimes compare as doubles. A time against anything else is error (``=?=`` false).
* Unary ``-`` negates a reltime; unary ``+`` passes a reltime through; both are error
  on an abstime. Neither is a boolean: ``&&``, ``||``, ``!`` and ``?:`` give error.
* Where HTCondor reads a reltime as whole seconds (``int()``, ``real()``, ``string()``,
  the ``get*`` functions), it takes ``(int) secs``: 32-bit, ``INT_MIN`` when out of
  range.

Local time: HTCondor reads the process's time zone (``localtime_r``; ``TZ``). This is
the one place where ``core`` depends on the environment, as ``time()`` depends on the
clock; the tests pin ``TZ``.
"""

from __future__ import annotations

import math
import time as _time

from .values import AbsTime, Error, RelTime, wrap_int64

INT32_MIN = -(2**31)
TIME_TYPES = (AbsTime, RelTime)


def c_int(x: float) -> int:
    """C's ``(int)`` cast of a double on x86-64: truncation, ``INT_MIN`` for NaN or a
    value out of the 32-bit range."""
    if x != x or x >= 2147483648.0 or x <= -2147483649.0:
        return INT32_MIN
    return int(x)


def c_int_of_long(n: int) -> int:
    """C's ``(int)`` of a 64-bit integer: the low 32 bits, signed."""
    n &= 0xFFFFFFFF
    return n - 2**32 if n >= 2**31 else n


def rel_secs(value: RelTime) -> int:
    """A reltime as HTCondor's ``IsRelativeTimeValue(time_t&)`` reads it."""
    return c_int(float(value))


# --- operators -----------------------------------------------------------------------


def arithmetic(op: str, a: object, b: object) -> object:
    """``a op b`` once one operand is not a plain number (strictness already done)."""
    ka, kb = type(a), type(b)
    if op == "+":
        if ka is AbsTime and kb is RelTime:
            return AbsTime(wrap_int64(a + c_int(b)), a.offset)  # type: ignore[operator, attr-defined]
        if ka is RelTime and kb is AbsTime:
            return AbsTime(wrap_int64(b + c_int(a)), b.offset)  # type: ignore[operator, attr-defined]
        if ka is RelTime and kb is RelTime:
            return RelTime(float(a) + float(b))  # type: ignore[arg-type]
    elif op == "-":
        if ka is AbsTime and kb is AbsTime:
            return RelTime(float(wrap_int64(int(a) - int(b))))  # type: ignore[call-overload]
        if ka is AbsTime and kb is RelTime:
            return AbsTime(wrap_int64(a - c_int(b)), a.offset)  # type: ignore[operator, attr-defined]
        if ka is RelTime and kb is RelTime:
            return RelTime(float(a) - float(b))  # type: ignore[arg-type]
    elif op == "*" or op == "/":
        if ka is RelTime and (kb is int or kb is float):
            x, y = float(a), float(b)  # type: ignore[arg-type]
            return RelTime(x * y if op == "*" else _c_div(x, y))
        if op == "*" and kb is RelTime and (ka is int or ka is float):
            return RelTime(float(a) * float(b))  # type: ignore[arg-type]
    return Error


def _c_div(x: float, y: float) -> float:
    if y != 0.0:
        return x / y
    if x != x or x == 0.0:
        return math.nan
    return math.copysign(math.inf, x) * math.copysign(1.0, y)


def compare(op: str, a: object, b: object) -> object:
    """``a op b`` for op in ``== != < <= > >=`` when either operand is a time."""
    ka, kb = type(a), type(b)
    if ka is not kb or ka not in TIME_TYPES:
        return Error
    x: float = int(a) if ka is AbsTime else float(a)  # type: ignore[call-overload, arg-type]
    y: float = int(b) if kb is AbsTime else float(b)  # type: ignore[call-overload, arg-type]
    if op == "==":
        return x == y
    if op == "!=":
        return x != y
    if op == "<":
        return x < y
    if op == "<=":
        return x <= y
    if op == ">":
        return x > y
    return x >= y


def identical(a: object, b: object) -> bool:
    """``a =?= b`` for two values of the same time type."""
    if type(a) is AbsTime:
        return int(a) == int(b) and a.offset == b.offset  # type: ignore[call-overload, attr-defined]
    return float(a) == float(b)  # type: ignore[arg-type]


def unary_minus(a: object) -> object:
    return RelTime(-float(a)) if type(a) is RelTime else Error  # type: ignore[arg-type]


# --- text ----------------------------------------------------------------------------


def c_mod(a: int, b: int) -> int:
    """C's ``%``: the remainder takes the dividend's sign."""
    r = abs(a) % abs(b)
    return -r if a < 0 else r


def c_quot(a: int, b: int) -> int:
    """C's ``/`` on integers: truncation toward zero."""
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def rel_fields(rsecs: float) -> tuple[int, int, int, float]:
    """``splitTime`` of a reltime (HTCondor's ``relTimeToClassAd``): days, hours,
    minutes (32-bit C arithmetic) and seconds with the fraction; a negative duration
    puts its sign on the first non-zero field."""
    negative = rsecs < 0
    if negative:
        rsecs = -rsecs
    whole = c_int(rsecs)
    frac = rsecs - math.floor(rsecs) if math.isfinite(rsecs) else math.nan
    hrs = c_mod(whole, 86400)
    mins = c_mod(hrs, 3600)
    secs = c_mod(mins, 60) + frac
    days = c_quot(whole, 86400)
    hrs = c_quot(hrs, 3600)
    mins = c_quot(mins, 60)
    if negative:
        if days > 0:
            days = -days
        elif hrs > 0:
            hrs = -hrs
        elif mins > 0:
            mins = -mins
        else:
            secs = -secs
    return days, hrs, mins, float(secs)


def _fixed_from_gregorian(year: int, month: int, day: int) -> int:
    """HTCondor's ``fixed_from_gregorian`` (a day count), in 32-bit C arithmetic."""
    if month <= 2:
        adjust = 0
    elif year % 4 == 0 and year % 400 not in (100, 200, 300):
        adjust = -1
    else:
        adjust = -2
    w = c_int_of_long
    y1 = w(year - 1)
    return w(
        w(365 * y1)
        + c_quot(y1, 4)
        - c_quot(y1, 100)
        + c_quot(y1, 400)
        + c_quot(w(367 * month - 362), 12)
        + adjust
        + day
    )


def day_numbers(year: int, month: int, day: int) -> tuple[int, int]:
    """HTCondor's ``day_numbers``: (weekday, day of year) of a calendar date, as
    ``formatTime`` computes them (out-of-range fields give out-of-range numbers)."""
    fixed = _fixed_from_gregorian(year, month, day)
    return c_mod(fixed, 7), c_int_of_long(fixed - _fixed_from_gregorian(year, 1, 1))


def _g2(x: float) -> str:
    """C's ``%02g``."""
    text = f"{x:g}"
    return text if len(text) >= 2 else "0" + text


def rel_time_text(rsecs: float) -> str:
    """HTCondor's ``relTimeToString``: ``[-][days+][hh:][mm:]ss`` (with a fraction
    when there is one), the whole seconds read as a 32-bit C int."""
    sign = ""
    if rsecs < 0:
        sign = "-"
        rsecs = -rsecs
    frac = rsecs - math.floor(rsecs) if math.isfinite(rsecs) else math.nan
    whole = c_int(rsecs)
    hrs = c_mod(whole, 86400)
    mins = c_mod(hrs, 3600)
    secs_int = c_mod(mins, 60)
    secs = secs_int + frac
    days = c_quot(whole, 86400)
    hrs = c_quot(hrs, 3600)
    mins = c_quot(mins, 60)
    exact = frac == 0
    tail = f"{secs_int:02d}" if exact else _g2(secs)
    if days:
        return f"{sign}{days}+{hrs:02d}:{mins:02d}:{tail}"
    if hrs:
        return f"{sign}{hrs:02d}:{mins:02d}:{tail}"
    if mins:
        return f"{sign}{mins:02d}:{tail}"
    return sign + tail


def gm_fields(secs: int) -> tuple[int, int, int, int, int, int, int, int] | None:
    """``gmtime``'s (year, month 1-12, day, hours, minutes, seconds, weekday 0=Sunday,
    day of year 0-365), or None where the C library cannot say (HTCondor's own answer
    there is undefined behaviour: it reads an uninitialised ``struct tm``)."""
    try:
        t = _time.gmtime(secs)
    except (OverflowError, OSError, ValueError):
        return None
    return (
        t.tm_year,
        t.tm_mon,
        t.tm_mday,
        t.tm_hour,
        t.tm_min,
        t.tm_sec,
        (t.tm_wday + 1) % 7,
        t.tm_yday - 1,
    )


def abs_time_text(value: AbsTime) -> str | None:
    """HTCondor's ``absTimeToString``: ``YYYY-MM-DDTHH:MM:SS[+-]hh:mm`` in the value's
    own offset (an offset of 0 prints ``-00:00``); None outside the calendar."""
    offset = value.offset
    fields = gm_fields(wrap_int64(int(value) + offset))
    if fields is None:
        return None
    year, month, day, hours, minutes, seconds = fields[:6]
    sign = "+" if offset > 0 else "-"
    tz = abs(offset)
    head = f"{year}-{month:02d}-{day:02d}T{hours:02d}:{minutes:02d}:{seconds:02d}"
    return f"{head}{sign}{tz // 3600:02d}:{(tz // 60) % 60:02d}"


def time_text(value: object) -> str:
    """``string()`` of a time value (a reltime as whole seconds, as HTCondor does)."""
    if type(value) is AbsTime:
        return abs_time_text(value) or ""  # type: ignore[arg-type]
    return rel_time_text(float(rel_secs(value)))  # type: ignore[arg-type]


def time_literal_text(value: object) -> str:
    """How a time value prints as an expression: ``absTime("...")``/``relTime("...")``."""
    if type(value) is AbsTime:
        return f'absTime("{abs_time_text(value) or ""}")'  # type: ignore[arg-type]
    return f'relTime("{rel_time_text(float(value))}")'  # type: ignore[arg-type]


# --- local time ----------------------------------------------------------------------


def zone_offset(secs: int, no_dst: bool = False) -> int | None:
    """HTCondor's ``timezone_offset``: the local zone's offset east of UTC at ``secs``
    (``tm_gmtoff``), less an hour in daylight saving time when ``no_dst``; None where
    the C library cannot tell."""
    try:
        t = _time.localtime(secs)
    except (OverflowError, OSError, ValueError):
        return None
    offset = t.tm_gmtoff
    if no_dst and t.tm_isdst:
        offset -= 3600
    return offset


def local_fields(secs: int) -> _time.struct_time | None:
    """``localtime_r`` of ``secs``, or None where it fails."""
    try:
        t = _time.localtime(secs)
    except (OverflowError, OSError, ValueError):
        return None
    return t


__all__ = [
    "INT32_MIN",
    "TIME_TYPES",
    "abs_time_text",
    "arithmetic",
    "c_int",
    "c_int_of_long",
    "c_mod",
    "c_quot",
    "compare",
    "day_numbers",
    "gm_fields",
    "identical",
    "local_fields",
    "rel_fields",
    "rel_secs",
    "rel_time_text",
    "time_literal_text",
    "time_text",
    "unary_minus",
    "zone_offset",
]
