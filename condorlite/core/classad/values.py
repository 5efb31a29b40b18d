"""ClassAd values and the two special values, Undefined and Error.

A ClassAd value is one of: ``bool``, ``int`` (64-bit, wrapping), ``float``, ``str``,
``list`` (of values), a ``ClassAd`` (a nested record), ``Undefined``, ``Error``, or one
of HTCondor's two time types: ``AbsTime`` (epoch seconds and a zone offset) and
``RelTime`` (a duration in seconds, a double), made by the time built-ins
(``timebuiltins.py``).

The time types subclass ``int`` and ``float`` so that code outside the language (JSON
output, policy numbers) sees epoch seconds and seconds, but inside the language they are
types of their own: every operator and built-in tests ``type(v) is int`` (never
``isinstance``), so a time value is never taken for a number by accident.

Undefined and Error are enum singletons (the habit of classad2's ``_value.py``), and
they refuse Python truthiness: ``if value:`` on either raises ``TypeError``, so every
use of a ClassAd value in a condition has to spell out its three-valued meaning.
``bool`` is checked before ``int`` everywhere, since in Python ``True`` is an int.
"""

from __future__ import annotations

import enum


class Special(enum.Enum):
    """The two non-values of ClassAd semantics."""

    UNDEFINED = "undefined"
    ERROR = "error"

    def __bool__(self) -> bool:
        raise TypeError(f"the ClassAd {self.value} value has no Python truth value")

    def __repr__(self) -> str:
        return "Undefined" if self is Special.UNDEFINED else "Error"

    __str__ = __repr__


Undefined = Special.UNDEFINED
Error = Special.ERROR

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1


def int_literal(text: str) -> int:
    """An integer literal's value as HTCondor reads it: out of the int64 range it is 0.
    Python's ``int`` refuses texts of over 4,300 digits (a guard against slow parsing);
    any literal of over 20 characters is out of range, so it never gets that far."""
    digits = text.lstrip("+-")
    if len(digits.lstrip("0")) > 19:
        return 0
    value = int(text)
    return value if INT64_MIN <= value <= INT64_MAX else 0


def wrap_int64(value: int) -> int:
    """Wrap a Python int to a signed 64-bit integer, as C++ arithmetic does."""
    value &= 0xFFFFFFFFFFFFFFFF
    return value - 2**64 if value > INT64_MAX else value


class AbsTime(int):
    """An absolute time: epoch seconds (the int value) and ``offset``, the zone offset
    in seconds east of UTC it prints in (HTCondor's ``abstime_t``)."""

    offset: int

    def __new__(cls, secs: int, offset: int) -> AbsTime:
        self = super().__new__(cls, secs)
        self.offset = offset
        return self

    @property
    def secs(self) -> int:
        return int(self)

    def __repr__(self) -> str:
        return f"AbsTime({int(self)}, {self.offset})"


class RelTime(float):
    """A relative time: a duration in seconds (a double, as HTCondor keeps it)."""

    @property
    def secs(self) -> float:
        return float(self)

    def __repr__(self) -> str:
        return f"RelTime({float(self)!r})"


def utf8(text: str) -> bytes:
    """A ClassAd string's bytes. Strings are byte strings in HTCondor; here a byte that
    is not part of valid UTF-8 is held as a lone surrogate (``surrogateescape``, as the
    lexer reads ``"\\377"`` and as files are decoded), so this gives back the very bytes."""
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate that stands for no byte: keep its code point
        return text.encode("utf-8", "surrogatepass")


def from_utf8(data: bytes) -> str:
    """``utf8``'s inverse: bytes (a cut through a character included) as a string."""
    return data.decode("utf-8", "surrogateescape")


def type_name(value: object) -> str:
    """The ClassAd type name of a value, as ``condorlite eval --json`` reports it:
    one of integer, real, string, boolean, undefined, error, list, classad, abstime,
    reltime."""
    if type(value) is AbsTime:
        return "abstime"
    if type(value) is RelTime:
        return "reltime"
    if value is Undefined:
        return "undefined"
    if value is Error:
        return "error"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "real"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "list"
    return "classad"
