"""ClassAd values and the two special values, Undefined and Error.

A ClassAd value is one of: ``bool``, ``int`` (64-bit, wrapping), ``float``, ``str``,
``list`` (of values), a ``ClassAd`` (a nested record), ``Undefined`` or ``Error``.

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


def wrap_int64(value: int) -> int:
    """Wrap a Python int to a signed 64-bit integer, as C++ arithmetic does."""
    value &= 0xFFFFFFFFFFFFFFFF
    return value - 2**64 if value > INT64_MAX else value


def type_name(value: object) -> str:
    """The ClassAd type name of a value, as ``condorlite eval --json`` reports it:
    one of integer, real, string, boolean, undefined, error, list, classad."""
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
