"""Text helpers shared by the ClassAd built-ins: C-style number parsing, value-to-string
conversion as HTCondor does it, string lists and version comparison.

* ``strtod(text)``: the longest prefix of ``text`` (after leading white space) that C's
  ``strtod`` accepts (decimal, hex, ``inf``/``infinity``/``nan``), or None.
* ``to_text(value)``: the string form ``strcat``/``string()`` use (reals as the
  printer's ``format_real``: ``%1.15E``, ``0.0``, ``real("INF")``...).
* ``string_list(text, delims)``: HTCondor's StringList split: any delimiter character
  separates (default ``", "`` plus white space), items are trimmed, empty items dropped.
* ``natural_cmp(a, b)``: HTCondor's version ordering (digit runs compare as numbers,
  fewer leading zeros first); returns the raw C difference, not just its sign.
"""

from __future__ import annotations

import math
import re

from .printer import format_real, unparse_value
from .timevalues import time_text
from .values import INT64_MIN, AbsTime, RelTime, utf8, wrap_int64

_STRTOD = re.compile(
    r"[ \t\n\v\f\r]*([+-]?(?:"
    r"0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?[0-9]+)?"
    r"|(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?"
    r"|[iI][nN][fF](?:[iI][nN][iI][tT][yY])?"
    r"|[nN][aA][nN]))"
)


def strtod(text: str) -> float | None:
    """C ``strtod`` on ``text``: the value of the longest numeric prefix, or None if
    there is none. Overflow gives an infinity, as strtod's HUGE_VAL."""
    m = _STRTOD.match(text)
    if m is None:
        return None
    body = m.group(1)
    lowered = body.lower()
    if "x" in lowered:
        sign = -1.0 if body.startswith("-") else 1.0
        digits = body.lstrip("+-")
        if "p" not in lowered:
            digits += "p0"
        try:
            return sign * float.fromhex(digits)
        except OverflowError:
            return sign * math.inf
    return float(body)


def c_double_to_int(x: float) -> int:
    """C's (long long) cast of a double as x86-64 does it: truncation toward zero, and
    INT64_MIN for NaN or any value out of range."""
    if x != x or x >= 9.223372036854775807e18 or x < -9.223372036854775808e18:
        return INT64_MIN
    return int(x)


def to_text(value: object) -> str:
    """The string form of a defined value: strings as they are, booleans as
    ``true``/``false``, integers in decimal, reals per ``real_text``, lists and records
    unparsed. (Callers handle undefined and error first.)"""
    kind = type(value)
    if kind is str:
        return value  # type: ignore[return-value]
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    if kind is float:
        return format_real(value)  # type: ignore[arg-type]
    if kind is AbsTime or kind is RelTime:
        return time_text(value)
    return unparse_value(value, sort=True)


_ASCII_UPPER = {c: c - 32 for c in range(ord("a"), ord("z") + 1)}


def ascii_upper(text: str) -> str:
    """Upper-case a-z only, as C's toupper() in the "C" locale."""
    return text.upper() if text.isascii() else text.translate(_ASCII_UPPER)


DEFAULT_DELIMS = ", "
_SPACE = " \t\r\n"


def string_list(text: str, delims: str = DEFAULT_DELIMS) -> list[str]:
    """Split an HTCondor string list: any character of ``delims`` ends an item, items
    are stripped of white space, and empty items are dropped."""
    items: list[str] = []
    current: list[str] = []
    for ch in text:
        if ch in delims:
            item = "".join(current).strip(_SPACE)
            if item:
                items.append(item)
            current = []
        else:
            current.append(ch)
    item = "".join(current).strip(_SPACE)
    if item:
        items.append(item)
    return items


def _signed(byte: int) -> int:
    """A byte as C's signed ``char``."""
    return byte - 256 if byte > 127 else byte


def natural_cmp(a: str, b: str) -> int:
    """HTCondor's ``natural_cmp`` (strverscmp-like) on the bytes of a and b; a byte's
    difference is taken as C's signed ``char`` does (0xC3 is -61), as HTCondor's is."""
    s1 = utf8(a)
    s2 = utf8(b)
    n = min(len(s1), len(s2))
    i = 0
    while i < n and s1[i] == s2[i]:
        i += 1
    c1 = s1[i] if i < len(s1) else 0
    c2 = s2[i] if i < len(s2) else 0
    if c1 == c2:
        return 0
    beg = i
    while beg > 0 and _isdigit(s1[beg - 1]):
        beg -= 1
    if beg == i and (not _isdigit(c1) or not _isdigit(c2)):
        return _signed(c1) - _signed(c2)
    z1 = _skip(s1, beg, lambda c: c == 0x30)
    z2 = _skip(s2, beg, lambda c: c == 0x30)
    # A final zero that ends the number is not a leading zero.
    if z1 > beg and not _isdigit(_at(s1, z1)):
        z1 -= 1
    if z2 > beg and not _isdigit(_at(s2, z2)):
        z2 -= 1
    if z1 - beg != z2 - beg:
        return (z2 - beg) - (z1 - beg)
    if z1 > beg:
        return _signed(c1) - _signed(c2)
    e1 = _skip(s1, z1, _isdigit)
    e2 = _skip(s2, z2, _isdigit)
    if e1 - beg != e2 - beg:
        return (e1 - beg) - (e2 - beg)
    return _signed(c1) - _signed(c2)


def _isdigit(c: int) -> bool:
    return 0x30 <= c <= 0x39


def _at(s: bytes, i: int) -> int:
    return s[i] if i < len(s) else 0


def _skip(s: bytes, i: int, pred) -> int:  # type: ignore[no-untyped-def]
    while i < len(s) and pred(s[i]):
        i += 1
    return i


def interval_text(seconds: int) -> str:
    """``interval()``: ``[days+]hh:mm:ss`` with leading zero fields left out."""
    sign = "-" if seconds < 0 else ""
    rest = abs(seconds)
    days, rest = divmod(rest, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{sign}{days}+{hours:02d}:{minutes:02d}:{secs:02d}"
    if hours:
        return f"{sign}{hours}:{minutes:02d}:{secs:02d}"
    if minutes:
        return f"{sign}{minutes}:{secs:02d}"
    return f"{sign}{secs}"


__all__ = [
    "DEFAULT_DELIMS",
    "ascii_upper",
    "c_double_to_int",
    "interval_text",
    "natural_cmp",
    "string_list",
    "strtod",
    "to_text",
    "wrap_int64",
]
