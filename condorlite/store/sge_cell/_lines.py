"""The line layer of the qconf files: logical lines, key/value lines, objects, values.

Every ``qconf -s...`` output is a list of ``key value`` lines (``key=value`` for the
share tree). qconf wraps a long value (a userset's entries, a PE's user_lists ...)
over several lines, each but the last ending in a backslash, and indents the
continuation; the backslash and the line break stand for a space, as share_tree(5) and
sge_conf(5) say, so ``a, \\`` + ``  b`` is ``a,  b``. A line keeps the number of its
first physical line, so a message points at where the key is written.

Converters turn the text of one value into a Python value or raise ``Expected`` with
what they wanted; the object readers add the place (``file:line: key:``) and what was
found, so every message has the same shape:
``sched_conf:12: weight_user: expected a number, found 'abc'``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from condorlite.errors import DataError


class Expected(Exception):
    """Raised by a converter: ``str(exc)`` is what it expected (``a number``)."""


@dataclass(frozen=True)
class Line:
    """One logical line: ``key`` and ``value`` (continuations joined, ends stripped),
    the file it comes from as messages name it, and the number of its first line."""

    source: str
    number: int
    key: str
    value: str

    @property
    def where(self) -> str:
        return f"{self.source}:{self.number}"

    def error(self, message: str) -> DataError:
        """A DataError at this line (``FILE:LINE: message``, its location for --json)."""
        return DataError.at(self.source, self.number, message)

    def fail(self, expected: str) -> DataError:
        """The error for a value that is not what the key wants."""
        return self.error(f"{self.key}: expected {expected}, found {self.value!r}")

    def convert(self, converter: Callable[[str], object]) -> object:
        try:
            return converter(self.value)
        except Expected as exc:
            raise self.fail(str(exc)) from None


def logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(first line number, text)`` for each non-blank logical line of ``text``."""
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        if not pending:
            start = number
        if raw.endswith("\\"):
            pending.append(raw[:-1])
            continue
        pending.append(raw)
        joined = " ".join(pending).strip()
        pending = []
        if joined:
            yield start, joined
    if pending and (joined := " ".join(pending).strip()):
        yield start, joined  # a last line ending in a backslash: nothing follows


def key_lines(text: str, source: str, *, separator: str | None = None) -> list[Line]:
    """Split each logical line into key and value at the first run of blanks (or at
    the first ``separator``). A line with a key and no value has the value ``''``."""
    out: list[Line] = []
    for number, line in logical_lines(text):
        if separator is None:
            key, _, value = line.partition(" ")
            if "\t" in key:  # qconf pads with spaces; a hand-made file may use tabs
                key, _, rest = line.partition("\t")
                value = rest
        else:
            key, found, value = line.partition(separator)
            if not found:
                raise DataError.at(source, number, f"expected key{separator}value, found {line!r}")
        out.append(Line(source, number, key.strip(), value.strip()))
    return out


def split_objects(lines: list[Line], first_key: str) -> list[list[Line]]:
    """Objects concatenated in one file: each starts at a ``first_key`` line. A key
    given twice in one object is an error (qconf never prints one twice)."""
    objects: list[list[Line]] = []
    seen: set[str] = set()
    for line in lines:
        if line.key == first_key:
            objects.append([])
            seen = set()
        elif not objects:
            raise line.error(f"expected {first_key!r} to start an object, "
                            f"found {line.key!r}")
        if line.key in seen:
            raise line.error(f"{line.key}: given twice in one object")
        seen.add(line.key)
        objects[-1].append(line)
    return objects


# --- converters: text -> value, or Expected ---------------------------------------

_INT = re.compile(r"[+-]?\d+")
_TIME = re.compile(r"(\d+):(\d+):(\d+)")


def to_int(text: str) -> int:
    if not _INT.fullmatch(text):
        raise Expected("an integer")
    return int(text)


def to_count(text: str) -> int:
    """A non-negative integer (shares, tickets, slots)."""
    value = to_int(text)
    if value < 0:
        raise Expected("a non-negative integer")
    return value


def to_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise Expected("a number") from None
    if not math.isfinite(value):  # float() takes 'nan' and 'inf'; Grid Engine never prints them
        raise Expected("a number")
    return value


def to_bool(text: str) -> bool:
    """sched_conf(5) and sge_pe(5) booleans: TRUE/FALSE in any case, or 1/0."""
    lowered = text.lower()
    if lowered in ("true", "1"):
        return True
    if lowered in ("false", "0"):
        return False
    raise Expected("TRUE or FALSE")


def to_seconds(text: str) -> int | None:
    """A time value: ``h:m:s`` (``0:10:0``, ``00:05:00``), plain seconds, or
    ``INFINITY`` (None)."""
    if text.upper() == "INFINITY":
        return None
    if match := _TIME.fullmatch(text):
        hours, minutes, seconds = (int(part) for part in match.groups())
        return hours * 3600 + minutes * 60 + seconds
    if text.isdigit():
        return int(text)
    raise Expected("a time (h:m:s, seconds or INFINITY)")


def to_finite_seconds(text: str) -> int:
    value = to_seconds(text)
    if value is None:
        raise Expected("a finite time (h:m:s or seconds)")
    return value


def to_text(text: str) -> str:
    """A string value; ``NONE`` means empty."""
    return "" if text == "NONE" else text


def to_name(text: str) -> str:
    if not text or text == "NONE" or any(c.isspace() for c in text):
        raise Expected("a name")
    return text


def to_optional_name(text: str) -> str | None:
    return None if text in ("", "NONE") else to_name(text)


def to_names(text: str) -> tuple[str, ...]:
    """A comma (or blank) separated list; ``NONE`` is the empty list."""
    if text in ("", "NONE"):
        return ()
    return tuple(part for part in re.split(r"[,\s]+", text) if part)


def to_weights(text: str) -> dict[str, float]:
    """``usage_weight_list``: ``cpu=1.000000,mem=0.000000,io=0.000000``."""
    out: dict[str, float] = {}
    for item in to_names(text):
        name, found, number = item.partition("=")
        if not found or not name or name in out:
            raise Expected("name=number items separated by commas")
        out[name] = to_float(number)
    return out


def to_params(text: str) -> dict[str, str]:
    """sched_conf ``params``: ``KEY=VALUE`` items or bare flags, comma or blank
    separated; ``none`` (any case) is empty. Grid Engine compares the keys without
    case and takes a bare flag as true (``parse_bool_param``), so keys are upper-cased
    and a flag gets ``"true"``."""
    if text.lower() in ("", "none"):
        return {}
    out: dict[str, str] = {}
    for item in to_names(text):
        key, found, value = item.partition("=")
        if not key:
            raise Expected("KEY=VALUE items or flags")
        out[key.upper()] = value if found else "true"
    return out
