"""Printing expressions and values back to ClassAd text, as HTCondor prints them.

Three spellings, all checked against classad2 (src/classad/sink.cpp):

* ``unparse(expr)``: the compact new syntax of HTCondor's ``ClassAdUnParser`` (what
  classad2's ``repr(ExprTree)`` and the ``unparse()`` builtin give). Binary operators
  get one space each side; prefix operators are printed as `` -x`` (a space *before*
  the operator); ``=?=``/``=!=`` print as ``is``/``isnt``; lists ``{ 1,2 }``; records
  ``[ a = 1; b = 2 ]``; calls ``f(a,b)``; reals ``%1.15E`` (``5.000000000000000E-01``),
  zero as ``0.0``/``-0.0``, non-finite as ``real("INF")``, ``real("-INF")``,
  ``real("NaN")``. Strings escape ``" \\`` and ``\\a \\b \\f \\n \\r \\t \\v``; any other
  byte outside printable ASCII is ``\\ooo`` octal of its UTF-8 byte.
* ``unparse(expr, pretty=True)``: HTCondor's ``PrettyPrint`` (classad2's ``str()``):
  the same, except that every list and record starts on a new indented line.
* ``unparse(expr, old=True)``: the old syntax of ``condor_status -long``: strings are
  raw except ``"`` -> ``\\"``, reals ``%.16G`` (with ``.0`` appended when that looks
  like an integer), ``is``/``isnt`` print as ``=?=``/``=!=``.

Names print bare when they match ``[A-Za-z_][A-Za-z0-9_]*`` and are not one of
``true false undefined error is isnt parent`` (any case); otherwise quoted ``'...'``.
The name after a ``.`` selection is printed raw, as HTCondor does.

``sort=True`` prints record attributes in HTCondor's storage order (shorter names
first, then case-insensitive), which is how classad2 prints every ad; the default is
the order the attributes were written in.
"""

from __future__ import annotations

import math
import re

from condorlite.core.classad.ast import (
    AttrRef,
    Binary,
    Call,
    Conditional,
    Elvis,
    Expr,
    ListExpr,
    Literal,
    Paren,
    RecordExpr,
    Select,
    Subscript,
    Unary,
)
from condorlite.core.classad.timetext import parse_abs_time, parse_rel_time
from condorlite.core.classad.timevalues import time_literal_text
from condorlite.core.classad.values import AbsTime, Error, ExprList, RelTime, Undefined

_TIME_CALLS = frozenset({"abstime", "reltime"})


def time_call_text(name: str, text: str) -> str:
    """``absTime("...")``/``relTime("...")`` with a written string prints as HTCondor
    prints the time literal its parser makes of it: normalised (``relTime("90")`` is
    ``relTime("01:30")``), the zone read when printing; text that names no time (which
    the parser refuses) prints as written."""
    if name.lower() == "abstime":
        value: object = parse_abs_time(text)
    else:
        value = parse_rel_time(text)
    if value is None:
        return f"{name}({quote_string(text)})"
    return time_literal_text(value)


_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_RESERVED_NAMES = frozenset({"true", "false", "undefined", "error", "is", "isnt", "parent"})
# Characters printed as themselves in a new-syntax string: printable ASCII but " and \.
_PLAIN_STRING = re.compile(r"[ !#-\[\]-~]*\Z")
_BYTE_ESCAPES = {
    0x07: "\\a",
    0x08: "\\b",
    0x0C: "\\f",
    0x0A: "\\n",
    0x0D: "\\r",
    0x09: "\\t",
    0x0B: "\\v",
    0x5C: "\\\\",
}
_OLD_OPS = {"is": "=?=", "isnt": "=!="}


def htcondor_order(name: str) -> tuple[int, str]:
    """Sort key of HTCondor's attribute storage: length, then case-insensitive name."""
    return (len(name), name.lower())


def format_real(value: float, *, old: bool = False) -> str:
    """A real as HTCondor prints it (``%1.15E`` new syntax, ``%.16G`` old and JSON)."""
    if value == 0.0:
        return "-0.0" if math.copysign(1.0, value) < 0 else "0.0"
    if math.isnan(value):
        return 'real("NaN")'
    if math.isinf(value):
        return 'real("INF")' if value > 0 else 'real("-INF")'
    if not old:
        return f"{value:1.15E}"
    text = f"{value:.16G}"
    if "." not in text and "E" not in text:
        text += ".0"
    return text


def quote_string(value: str, delim: str = '"') -> str:
    """``value`` as a new-syntax literal between ``delim`` quotes."""
    if delim == '"' and _PLAIN_STRING.match(value):
        return f'"{value}"'
    try:
        data = value.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        data = value.encode("utf-8", "surrogatepass")
    out = [delim]
    delim_code = ord(delim)
    for byte in data:
        if byte == delim_code:
            out.append("\\" + delim)
        elif byte in _BYTE_ESCAPES:
            out.append(_BYTE_ESCAPES[byte])
        elif 0x20 <= byte < 0x7F:
            out.append(chr(byte))
        else:
            out.append(f"\\{byte:03o}")
    out.append(delim)
    return "".join(out)


def quote_old_string(value: str) -> str:
    """``value`` as an old-syntax literal: only the double quote is escaped."""
    return '"' + value.replace('"', '\\"') + '"'


def format_name(name: str, *, old: bool = False) -> str:
    """An attribute name, quoted with ``'`` when it is not a plain identifier. The old
    format (HTCondor's printOld) escapes only the quote itself and writes every other
    character as it is (``'é'``); the new one escapes as string literals do."""
    if _PLAIN_NAME.match(name) and name.lower() not in _RESERVED_NAMES:
        return name
    if old:
        return "'" + name.replace("'", "\\'") + "'"
    return quote_string(name, "'")


def unparse(expr: Expr, *, pretty: bool = False, old: bool = False, sort: bool = False) -> str:
    """Print an expression (see the module docstring for the three spellings)."""
    out: list[str] = []
    _Printer(out, pretty=pretty, old=old, sort=sort).expr(expr)
    return "".join(out)


def unparse_value(value: object, *, old: bool = False, sort: bool = False) -> str:
    """Print a ClassAd value (bool, int, float, str, list, ClassAd, Undefined, Error)."""
    out: list[str] = []
    _Printer(out, pretty=False, old=old, sort=sort).value(value)
    return "".join(out)


def unparse_attrs(
    pairs: list[tuple[str, Expr]] | tuple[tuple[str, Expr], ...],
    *,
    pretty: bool = False,
    old: bool = False,
    sort: bool = False,
) -> str:
    """Print ``name = expr`` pairs as one record ``[ ... ]``."""
    out: list[str] = []
    _Printer(out, pretty=pretty, old=old, sort=sort).record(pairs)
    return "".join(out)


class _Printer:
    """Appends text to ``out``; one method per node kind."""

    __slots__ = ("indent", "old", "out", "pretty", "sort")

    def __init__(self, out: list[str], *, pretty: bool, old: bool, sort: bool) -> None:
        self.out = out
        self.pretty = pretty
        self.old = old
        self.sort = sort
        self.indent = 0

    def expr(self, node: Expr) -> None:
        out = self.out
        match node:
            case Literal(value=value):
                self.value(value)
            case AttrRef(name=name, scope=None):
                out.append(format_name(name))
            case AttrRef(name=name, scope="absolute"):
                out.append("." + format_name(name))
            case AttrRef(name=name, prefix=prefix, scope=scope):
                out.append(format_name(prefix or scope or ""))
                out.append("." + name)
            case Select(base=base, name=name):
                self.expr(base)
                out.append("." + name)
            case Binary(op=op, left=left, right=right):
                self.expr(left)
                out.append(f" {_OLD_OPS.get(op, op) if self.old else op} ")
                self.expr(right)
            case Unary(op=op, operand=operand):
                out.append(" " + op)
                self.expr(operand)
            case Paren(inner=inner):
                out.append("(")
                self.expr(inner)
                out.append(")")
            case Conditional(cond=cond, then=then, otherwise=otherwise):
                self.expr(cond)
                out.append(" ? ")
                self.expr(then)
                out.append(" : ")
                self.expr(otherwise)
            case Elvis(left=left, right=right):
                self.expr(left)
                out.append(" ?: ")
                self.expr(right)
            case Subscript(base=base, index=index):
                self.expr(base)
                out.append("[")
                self.expr(index)
                out.append("]")
            case Call(name=name, args=(Literal(value=str() as text),)) if (
                name.lower() in _TIME_CALLS
            ):
                out.append(time_call_text(name, text))
            case Call(name=name, args=args):
                out.append(name + "(")
                for i, arg in enumerate(args):
                    if i:
                        out.append(",")
                    self.expr(arg)
                out.append(")")
            case ListExpr(items=items):
                self.list_(items, self.expr)
            case RecordExpr(attrs=attrs):
                self.record(attrs)
            case _:
                raise TypeError(f"not a ClassAd expression node: {node!r}")

    def value(self, value: object) -> None:
        out = self.out
        if value is Undefined:
            out.append("undefined")
        elif value is Error:
            out.append("error")
        elif type(value) is AbsTime or type(value) is RelTime:
            out.append(time_literal_text(value))
        elif isinstance(value, bool):
            out.append("true" if value else "false")
        elif isinstance(value, int):
            out.append(str(value))
        elif isinstance(value, float):
            out.append(format_real(value, old=self.old))
        elif isinstance(value, str):
            out.append(quote_old_string(value) if self.old else quote_string(value))
        elif type(value) is ExprList:
            # A list literal's value prints its element expressions, as HTCondor's does.
            if value.known is not None:
                self.list_(value.known, self.value)
            else:
                self.list_(value.exprs, self.expr)
        elif isinstance(value, (list, tuple)):
            self.list_(value, self.value)
        elif hasattr(value, "items") and callable(value.items):
            # A ClassAd (or mapping) value: its attributes, printed as expressions.
            self.record(list(value.items()))
        else:
            raise TypeError(f"not a ClassAd value: {value!r}")

    def list_(self, items, emit) -> None:
        out = self.out
        if not self.pretty:
            out.append("{ ")
            for i, item in enumerate(items):
                if i:
                    out.append(",")
                emit(item)
            out.append(" }")
            return
        self.indent += 3
        out.append("\n" + " " * self.indent + "{")
        self.indent += 3
        for i, item in enumerate(items):
            if i:
                out.append(",")
            out.append("\n" + " " * self.indent)
            emit(item)
        self.indent -= 3
        out.append("\n" + " " * self.indent + "}")
        self.indent -= 3

    def record(self, pairs) -> None:
        out = self.out
        if self.sort:
            pairs = sorted(pairs, key=lambda pair: htcondor_order(pair[0]))
        if self.pretty:
            self.indent += 4
            out.append("\n" + " " * self.indent + "[")
            self.indent += 4
        else:
            out.append("[ ")
        for i, (name, expr) in enumerate(pairs):
            if i:
                out.append("; ")
            if self.pretty:
                out.append("\n" + " " * self.indent)
            out.append(format_name(name) + " = ")
            if isinstance(expr, Expr):
                self.expr(expr)
            else:
                self.value(expr)
        if self.pretty:
            self.indent -= 4
            out.append("\n" + " " * self.indent + "]")
            self.indent -= 4
        else:
            out.append(" ]")
