"""ClassAds as JSON: reading ``condor_status -json`` output and writing ``printJson()``.

Mapping (HTCondor's src/classad/jsonSource.cpp and jsonSink.cpp):

=========================  ==========================================================
JSON                       ClassAd
=========================  ==========================================================
object                     a (nested) ad
array                      list
string ``"\\/Expr(E)\\/"``   the expression E (JSON escapes undone first); only the
                           escaped ``\\/`` form counts, ``"/Expr(E)/"`` is a string
other string               string
integer                    integer (a value outside 64 bits reads as 0, as HTCondor)
number with . or e         real
true / false / null        true / false / undefined
=========================  ==========================================================

Writing: literals print as JSON values (reals ``%.16G``, zero ``0.0``), undefined as
``null``; a ``relTime("...")`` of written text is a reltime literal in HTCondor, and
prints as its seconds, a real (an ``absTime("...")`` stays an expression); anything
else (a reference, an operation, a call, ``error``, a non-finite real) as
``"\\/Expr(E)\\/"`` with E in compact new syntax. Objects and arrays are indented
by two spaces per level, one member per line, as ``printJson()`` does.

Accepted input: one object, several objects one after the other, or one array of
objects (the ``condor_status -json`` layout). ``NaN``/``Infinity`` and NUL characters
are rejected. Reading (streamed, with interning) is ``jsonread.py``; this module only
writes, and reads ads as mappings, so ``ClassAd.to_json`` can use it. ``parse_ads``
reads the ``condor_status -json`` layout line by line first (``jsonfast.py``), handing
anything else to ``jsonread``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from condorlite.core.classad.ast import Call, Expr, ListExpr, Literal, RecordExpr
from condorlite.core.classad.printer import format_real, htcondor_order, unparse
from condorlite.core.classad.timetext import parse_rel_time
from condorlite.core.classad.values import Error, Undefined

__all__ = ["ad_to_json", "escape_json", "write_json_ads"]

# -- writing ------------------------------------------------------------------------


def escape_json(text: str) -> str:
    """JSON string body as HTCondor writes it (control characters as ``\\u00XX``)."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif code < 32:
            out.append(_CONTROL.get(ch) or f"\\u00{code:02X}")
        else:
            out.append(ch)
    return "".join(out)


_CONTROL = {"\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def ad_to_json(ad: Mapping[str, Expr], *, sort: bool = False) -> str:
    """One ad as a JSON object, exactly as classad2's ``printJson()`` (with ``sort``)."""
    out: list[str] = []
    _write_object(out, ad.items(), 0, sort)
    return "".join(out)


def write_json_ads(ads: Iterable[Mapping[str, Expr]], *, sort: bool = False) -> str:
    """Ads as ``condor_status -json`` prints them (src/condor_status.V6/prettyPrint.cpp):
    a ``[`` line, each ad followed by a newline with a ``,`` line between ads, a ``]``
    line."""
    parts = ["[\n"]
    for i, ad in enumerate(ads):
        if i:
            parts.append(",\n")
        parts.append(ad_to_json(ad, sort=sort) + "\n")
    parts.append("]\n")
    return "".join(parts)


def _write_object(out: list[str], pairs, indent: int, sort: bool) -> None:
    if sort:
        pairs = sorted(pairs, key=lambda pair: htcondor_order(pair[0]))
    out.append("{")
    inner = indent + 2
    for i, (name, expr) in enumerate(pairs):
        out.append(",\n" if i else "\n")
        out.append(" " * inner + '"' + escape_json(name) + '": ')
        _write_expr(out, expr, inner, sort)
    out.append("\n" + " " * indent + "}")


def _write_expr(out: list[str], expr: Expr, indent: int, sort: bool) -> None:
    if isinstance(expr, Literal):
        _write_value(out, expr.value, indent, sort)
    elif isinstance(expr, RecordExpr):
        _write_object(out, expr.attrs, indent, sort)
    elif isinstance(expr, ListExpr):
        _write_list(out, expr.items, indent, sort, _write_expr)
    elif (seconds := _reltime_literal(expr)) is not None:
        _write_value(out, seconds, indent, sort)
    else:
        out.append(_quoted_expr(unparse(expr, sort=sort)))


def _reltime_literal(expr: Expr) -> float | None:
    """The seconds of ``relTime("text")`` (HTCondor's parser makes it a reltime
    literal, which its JSON writer prints as a real), else None."""
    if not (isinstance(expr, Call) and expr.name.lower() == "reltime" and len(expr.args) == 1):
        return None
    arg = expr.args[0]
    if not (isinstance(arg, Literal) and type(arg.value) is str):
        return None
    seconds = parse_rel_time(arg.value)
    return None if seconds is None else float(seconds)


def _write_value(out: list[str], value: object, indent: int, sort: bool) -> None:
    if value is Undefined:
        out.append("null")
    elif value is Error:
        out.append(_quoted_expr("error"))
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        text = format_real(value, old=True)
        out.append(_quoted_expr(text) if text.startswith("real(") else text)
    elif isinstance(value, str):
        out.append('"' + escape_json(value) + '"')
    elif isinstance(value, list | tuple):
        _write_list(out, value, indent, sort, _write_value)
    else:  # a ClassAd value
        _write_object(out, list(value.items()), indent, sort)  # type: ignore[attr-defined]


def _write_list(out: list[str], items, indent: int, sort: bool, emit) -> None:
    out.append("[")
    inner = indent + 2
    for i, item in enumerate(items):
        out.append(",\n" if i else "\n")
        out.append(" " * inner)
        emit(out, item, inner, sort)
    out.append("\n" + " " * indent + "]")


def _quoted_expr(text: str) -> str:
    return '"\\/Expr(' + escape_json(text) + ')\\/"'
