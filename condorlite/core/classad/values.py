"""ClassAd values and the two special values, Undefined and Error.

A ClassAd value is one of: ``bool``, ``int`` (64-bit, wrapping), ``float``, ``str``,
a list, a ``ClassAd`` (a nested record), ``Undefined``, ``Error``, or one
of HTCondor's two time types: ``AbsTime`` (epoch seconds and a zone offset) and
``RelTime`` (a duration in seconds, a double), made by the time built-ins
(``timebuiltins.py``).

The time types subclass ``int`` and ``float`` so that code outside the language (JSON
output, policy numbers) sees epoch seconds and seconds, but inside the language they are
types of their own: every operator and built-in tests ``type(v) is int`` (never
``isinstance``), so a time value is never taken for a number by accident.

Lists come in two kinds, as in HTCondor. A list literal (``{ 1 + 1, Memory }``)
evaluates to an ``ExprList``: its element expressions, unevaluated, each evaluated
when something reads it (``list_values``, a subscript), so ``string({1 + 1})`` prints
``{ 1 + 1 }`` and ``a = { a }`` is a list whose element is ``a``. A list a built-in
makes (``split``, ``evalInEachContext``, ``.x`` over a list) is a Python ``list`` of
values. ``=?=`` between the two kinds is false (their types differ), as in HTCondor.
The public entry points (``evaluator.evaluate`` ...) hand back plain lists, the
elements evaluated (``evaluator.settle``).

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

class ExprList:
    """The value of a list literal: the element expressions and where to evaluate them.

    ``exprs`` are the elements' syntax trees (printing shows them), ``fns`` their
    compiled closures ``fn(cur, env)``; ``cur`` is the ad the literal belongs to (the
    one it was evaluated in) and ``env`` that evaluation's context. An element is
    evaluated each time it is read (HTCondor keeps no value either), with ``env`` as
    it is then: its cycle guard and
    step count are those of the read, so ``a = { a }; a[0]`` is the list again rather
    than a cycle.

    Where, as HTCondor does it: a subscript (``l[i]``) evaluates the element in the
    literal's own ad (``item``); everything else that reads the elements (the list
    built-ins, ``l.x``) evaluates them in the ad of the expression reading them
    (``evaluated_in``; the built-ins get a copy re-homed there, ``builtins.compile_call``).
    So ``sum([c = 5; l = { c }].l)`` reads the outer ``c``, ``[c = 5; l = { c }].l[0]``
    the inner one. Record and list literals among the elements still belong to the
    literal's ad (their scope is fixed where they are written): while elements are
    read elsewhere, ``env.home`` says so (see ``home_of``).

    A selection through a list (``l.x``) makes a list of the same kind (``=?=`` with a
    written list is error, as between two written ones) whose elements are known
    values: ``known`` holds them (``known_list``), and it prints them.
    """

    __slots__ = ("cur", "env", "exprs", "fns", "known", "reader")

    def __init__(
        self, exprs: tuple, fns: tuple, cur: object, env: object, reader: object = None
    ) -> None:
        self.exprs = exprs
        self.fns = fns
        self.cur = cur
        self.env = env
        #: the ad a re-homed copy's elements are read in (None: ``cur``)
        self.reader = reader
        #: the element values of a list of known values (``known_list``), else None
        self.known: tuple | None = None

    def __len__(self) -> int:
        return len(self.fns) if self.known is None else len(self.known)

    def item(self, index: int) -> object:
        """Element ``index`` (in range), evaluated now."""
        if self.known is not None:
            return self.known[index]
        return self.fns[index](self.cur, self.env)

    def evaluated(self) -> list:
        """Every element, evaluated now in the literal's own ad (or, for a re-homed
        copy, in its reader's)."""
        if self.known is not None:
            return list(self.known)
        if self.reader is not None:
            return self.evaluated_in(self.reader, self.env)
        cur, env = self.cur, self.env
        return [fn(cur, env) for fn in self.fns]

    def evaluated_in(self, cur: object, env: object) -> list:
        """Every element, evaluated now in ``cur`` with ``env``; literals among them
        still belong to this literal's ad (``env.home``)."""
        if self.known is not None:
            return list(self.known)
        if cur is self.cur:
            return [fn(cur, env) for fn in self.fns]
        saved = env.home  # type: ignore[attr-defined]
        env.home = (self.cur, env.depth)  # type: ignore[attr-defined]
        try:
            return [fn(cur, env) for fn in self.fns]
        finally:
            env.home = saved  # type: ignore[attr-defined]

    def rehomed(self, cur: object, env: object) -> ExprList:
        """The same elements, to be read in ``cur`` with ``env``."""
        if self.known is not None:
            return self
        return ExprList(self.exprs, self.fns, self.cur, env, cur)

    def __repr__(self) -> str:
        return f"ExprList({len(self.fns)} elements)"


def known_list(values: list) -> ExprList:
    """A list literal's kind of list holding known values (see ``ExprList``)."""
    made = ExprList((), (), None, None)
    made.known = tuple(values)
    return made


def home_of(cur: object, env: object) -> object:
    """The ad a record or list literal evaluated in ``cur`` belongs to: ``cur``,
    unless it is an element of a list literal being read in another ad (at the depth
    of that read: a literal inside an attribute the element refers to belongs to that
    attribute's ad, which is ``cur`` there)."""
    home = env.home  # type: ignore[attr-defined]
    if home is not None and home[1] == env.depth:  # type: ignore[attr-defined]
        return home[0]
    return cur


def is_list(value: object) -> bool:
    """Whether ``value`` is a list of either kind."""
    kind = type(value)
    return kind is list or kind is ExprList


def list_values(value: object) -> list:
    """The elements of a list of either kind, evaluated (a plain list as it is)."""
    if type(value) is ExprList:
        return value.evaluated()  # type: ignore[union-attr]
    return value  # type: ignore[return-value]


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
    if isinstance(value, list) or type(value) is ExprList:
        return "list"
    return "classad"
