"""Reading time text (``absTime("...")``, ``relTime("...")``) and writing it
(``formatTime``'s strftime), as HTCondor's ``literals.cpp`` and ``fnCall.cpp`` do.

* An absolute time text is ``D* dddd [D* dd [D* dd [D* dd [D* dd [D* dd]]]]]`` (D a
  non-digit) with an optional zone at the end: ``Z``/``z``, ``+hhmm``/``-hhmm`` or
  ``+hh:mm``/``-hh:mm``. The fields are read as local standard time (C ``mktime`` with
  ``tm_isdst = 0``), then moved to the given zone; without a zone the local offset at
  that instant is kept. A digit after the six fields, no four-digit year, or a time
  ``mktime`` refuses (its ``-1``) makes the text invalid.
* A relative time text is ``[-][days(d|+)][hh(h|:)][mm(m|:)]ss[.sss][s]``, read from
  the right; anything else left over makes it invalid.
* ``formatTime`` hands a ``struct tm`` to the C library's ``strftime`` (a 1,023-byte
  buffer, ``tm_isdst`` 0, no zone name or offset: ``%Z`` prints the local standard
  zone name, ``%z`` prints ``+0000``, ``%s`` reads the fields as local standard time).
  condorlite calls the same C function (through ``ctypes``) so every conversion,
  flag and width agrees; where no C library is found it falls back to Python's
  ``time.strftime``, which agrees for in-range fields.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import time as _time

from .timevalues import zone_offset
from .values import AbsTime, RelTime


def _c_atoi(text: str) -> int:
    """C ``atoi`` of a short digit string (leading digits only)."""
    digits = ""
    for ch in text:
        if not ch.isdigit() or not ch.isascii():
            break
        digits += ch
    return int(digits) if digits else 0


def _is_space(ch: str) -> bool:
    return ch in " \t\n\v\f\r"


def _is_digit(ch: str) -> bool:
    return "0" <= ch <= "9"


def _extract_zone(text: str) -> tuple[str, int, int] | None:
    """The last five characters as ``+hhmm``/``-hhmm``: (rest, hours, minutes)."""
    tail = text[-5:]
    if len(tail) == 5 and tail[0] in "+-" and all(_is_digit(c) for c in tail[1:]):
        hours, minutes = int(tail[1:3]), int(tail[3:5])
        if tail[0] == "-":
            hours, minutes = -hours, -minutes
        return text[:-5], hours, minutes
    return None


def parse_abs_time(text: str) -> AbsTime | None:
    """``absTime("text")``: the time it names, or None when HTCondor refuses it."""
    text, zone = _split_zone(text)
    fields = _date_fields(text)
    if fields is None:
        return None
    year, month, day, hours, minutes, seconds = fields
    try:
        secs = int(_time.mktime((year, month, day, hours, minutes, seconds, 0, 1, 0)))
    except (OverflowError, ValueError):
        return None
    if secs == -1:
        return None
    if zone is not None:
        offset = zone[0] * 3600 + zone[1] * 60
    else:
        local = zone_offset(secs)
        if local is None:
            return None
        offset = local
    standard = zone_offset(secs, no_dst=True)
    if standard is None:
        return None
    secs += standard - offset
    if offset == -1:
        return None
    return AbsTime(secs, offset)


def _split_zone(text: str) -> tuple[str, tuple[int, int] | None]:
    """An absolute time text without its zone suffix (``Z``, ``+hhmm``, ``+hh:mm``),
    and the zone as (hours, minutes) or None. As HTCondor does, a ``+hh:mm`` that is
    no zone still loses its colon, and trailing blanks are skipped only before ``Z``."""
    length = len(text)
    i = length - 1
    while i >= 0 and _is_space(text[i]):
        i -= 1
    zone: tuple[int, int] | None = None
    if i > 0 and text[i] in "zZ":
        text = text[:i] + text[i + 1 :]
        zone = (0, 0)
    elif length > 5 and text[length - 5] in "+-":
        found = _extract_zone(text)
        if found is not None:
            text, zone = found[0], (found[1], found[2])
    elif length > 6 and text[length - 6] in "+-" and text[length - 3] == ":":
        found = _extract_zone(text[: length - 3] + text[length - 2 :])
        if found is not None:
            text, zone = found[0], (found[1], found[2])
        else:
            text = text[: length - 3] + text[length - 2 :]
    return text, zone


def _date_fields(text: str) -> list[int] | None:
    """Year, month (C's tm_mon + 1: January when absent), day (0 when absent), hours,
    minutes, seconds of a zone-less absolute time text; None when it has no four-digit
    year or a digit follows the six fields."""
    length = len(text)

    def skip(i: int) -> int:
        while i < length and not _is_digit(text[i]):
            i += 1
        return i

    i = skip(0)
    if i > length - 4:
        return None
    fields = [_c_atoi(text[i : i + 4]), 1, 0, 0, 0, 0]
    i = skip(i + 4)
    for n in range(1, 6):
        if i <= length - 2:
            fields[n] = _c_atoi(text[i : i + 2])
            i += 2
        i = skip(i)
    if i <= length - 1 and _is_digit(text[i]):
        return None
    return fields


def parse_rel_time(text: str) -> RelTime | None:
    """``relTime("text")``: the duration it names, or None when HTCondor refuses it."""
    i = len(text) - 1

    def back_space(i: int) -> int:
        while i >= 0 and _is_space(text[i]):
            i -= 1
        return i

    def digits_back(i: int) -> tuple[int, str]:
        start = i
        while i >= 0 and _is_digit(text[i]):
            i -= 1
        return i, text[i + 1 : start + 1]

    secs = 0.0
    i = back_space(i)
    if i >= 0 and (text[i] in "sS" or _is_digit(text[i])):
        if text[i] in "sS":
            i -= 1
        i = back_space(i)
        i, number = digits_back(i)
        if i >= 0 and text[i] == ".":
            i, whole = digits_back(i - 1)
            number = whole + "." + number
        secs = _strtod_prefix(number)
    parts = []
    for marks in ("mM:", "hH:", "dD+"):
        i = back_space(i)
        value = 0
        if i >= 0 and text[i] in marks:
            i = back_space(i - 1)
            i, number = digits_back(i)
            value = _from_chars(number)
        parts.append(value)
    mins, hrs, days = parts
    i = back_space(i)
    negative = False
    if i >= 0 and text[i] == "-":
        negative = True
        i -= 1
    i = back_space(i)
    if i >= 0 and not _is_space(text[i]):
        return None
    whole = _wrap32(_wrap32(days * 86400) + _wrap32(hrs * 3600) + _wrap32(mins * 60))
    total = whole + secs
    return RelTime(-total if negative else total)


def _wrap32(n: int) -> int:
    n &= 0xFFFFFFFF
    return n - 2**32 if n >= 2**31 else n


def _from_chars(digits: str) -> int:
    """``std::from_chars`` into an int: 0 when empty or out of range."""
    if not digits:
        return 0
    value = int(digits)
    return value if value < 2**31 else 0


def _strtod_prefix(number: str) -> float:
    if not number or number == ".":
        return 0.0
    if number.startswith("."):
        number = "0" + number
    if number.endswith("."):
        number += "0"
    return float(number)


# --- strftime ------------------------------------------------------------------------


class _Tm(ctypes.Structure):
    _fields_ = [
        ("tm_sec", ctypes.c_int),
        ("tm_min", ctypes.c_int),
        ("tm_hour", ctypes.c_int),
        ("tm_mday", ctypes.c_int),
        ("tm_mon", ctypes.c_int),
        ("tm_year", ctypes.c_int),
        ("tm_wday", ctypes.c_int),
        ("tm_yday", ctypes.c_int),
        ("tm_isdst", ctypes.c_int),
        ("tm_gmtoff", ctypes.c_long),
        ("tm_zone", ctypes.c_char_p),
    ]


def _libc_strftime():  # type: ignore[no-untyped-def]
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None)
        fn = libc.strftime
    except (OSError, AttributeError):
        return None
    fn.restype = ctypes.c_size_t
    fn.argtypes = [ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.POINTER(_Tm)]
    return fn


_STRFTIME = _libc_strftime()


def strftime(fmt: str, fields: tuple[int, int, int, int, int, int, int, int]) -> str:
    """C ``strftime`` into HTCondor's 1,024-byte buffer. ``fields`` are ``struct tm``'s
    (sec, min, hour, mday, mon 0-11, year - 1900, wday, yday); the format stops at a
    NUL, as a C string does."""
    raw = fmt.encode("utf-8", "surrogateescape").split(b"\0", 1)[0]
    if _STRFTIME is None:
        sec, minute, hour, mday, mon, year, wday, yday = fields
        try:
            return _time.strftime(
                raw.decode("utf-8", "surrogateescape"),
                (year + 1900, mon + 1, mday, hour, minute, sec, (wday + 6) % 7, yday + 1, 0),
            )
        except (ValueError, OverflowError):
            return ""
    tm = _Tm(*fields, 0, 0, None)
    out = ctypes.create_string_buffer(1024)
    _STRFTIME(out, 1023, raw, ctypes.byref(tm))
    return out.value.decode("utf-8", "surrogateescape")


__all__ = ["parse_abs_time", "parse_rel_time", "strftime"]
