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
``null``; anything else (a reference, an operation, a call, ``error``, a non-finite
real) as ``"\\/Expr(E)\\/"`` with E in compact new syntax. Objects and arrays are
indented by two spaces per level, one member per line, as ``printJson()`` does.

Accepted input: one object, several objects one after the other, or one array of
objects (the ``condor_status -json`` layout). ``NaN``/``Infinity`` and NUL characters
are rejected.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Iterable, Iterator

from condorlite.core.classad.ad import ClassAd
from condorlite.core.classad.ast import Expr, ListExpr, Literal, RecordExpr
from condorlite.core.classad.errors import ClassAdSyntaxError
from condorlite.core.classad.parser import parse_expr
from condorlite.core.classad.printer import format_real, htcondor_order, unparse
from condorlite.core.classad.values import INT64_MAX, INT64_MIN, Error, Undefined

# json decodes "\/Expr(" and "/Expr(" alike, so the escaped form is swapped for a
# NUL-led marker before decoding (a NUL cannot occur in a valid ClassAd string).
_EXPR_RAW = '"\\/Expr('
_EXPR_MARKED = '"\\u0000Expr('
_GROWTH = len(_EXPR_MARKED) - len(_EXPR_RAW)
_MARK = "\x00Expr("
_WS = " \t\n\r"


class _Object(list):
    """The ``(name, value)`` pairs of one JSON object, in order."""

    __slots__ = ()


def read_json_ads(text: str, *, filename: str | None = None) -> Iterator[ClassAd]:
    """Yield the ads of a JSON document (see the module docstring)."""
    reader = _Reader(text, filename)
    yield from reader.ads()


class _Reader:
    def __init__(self, text: str, filename: str | None) -> None:
        self.original = text
        self.filename = filename
        nul = text.find("\\u0000")
        if nul >= 0:
            raise self.fail("a NUL character is not allowed in a ClassAd string", nul)
        self.text = text.replace(_EXPR_RAW, _EXPR_MARKED)
        # Offsets (in the marked text) where a replacement grew the text.
        self.marks: list[int] = []
        start = self.text.find(_EXPR_MARKED)
        while start >= 0:
            self.marks.append(start)
            start = self.text.find(_EXPR_MARKED, start + 1)
        self.decoder = json.JSONDecoder(
            object_pairs_hook=_Object, parse_constant=self._reject_constant
        )

    def fail(self, message: str, pos: int) -> ClassAdSyntaxError:
        return ClassAdSyntaxError.at_offset("bad_json", message, self.original, pos, self.filename)

    def original_offset(self, pos: int) -> int:
        return pos - _GROWTH * bisect.bisect_left(self.marks, pos)

    @staticmethod
    def _reject_constant(name: str) -> object:
        raise ValueError(f"{name} is not a ClassAd value")

    def decode_at(self, pos: int) -> tuple[object, int]:
        try:
            return self.decoder.raw_decode(self.text, pos)
        except json.JSONDecodeError as exc:
            raise self.fail(f"invalid JSON: {exc.msg}", self.original_offset(exc.pos)) from None
        except (ValueError, RecursionError) as exc:
            message = str(exc) if isinstance(exc, ValueError) else "JSON nested too deeply"
            raise self.fail(message, self.original_offset(pos)) from None

    def skip_ws(self, pos: int) -> int:
        text = self.text
        while pos < len(text) and text[pos] in _WS:
            pos += 1
        return pos

    def ads(self) -> Iterator[ClassAd]:
        text = self.text
        pos = self.skip_ws(0)
        if pos < len(text) and text[pos] == "[":
            yield from self.array_items(pos)
            return
        while pos < len(text):
            item, end = self.decode_at(pos)
            yield self.to_ad(item, pos)
            pos = self.skip_ws(end)

    def array_items(self, pos: int) -> Iterator[ClassAd]:
        """The ads of a top-level array, decoded one by one so that an error points at
        the ad it is in."""
        text = self.text
        pos = self.skip_ws(pos + 1)
        if pos < len(text) and text[pos] == "]":
            pos += 1
        else:
            while True:
                item, end = self.decode_at(pos)
                yield self.to_ad(item, pos)
                pos = self.skip_ws(end)
                sep = text[pos : pos + 1]
                if sep not in (",", "]"):
                    raise self.fail("expected ',' or ']' in the array", self.original_offset(pos))
                pos = self.skip_ws(pos + 1)
                if sep == "]":
                    break
        pos = self.skip_ws(pos)
        if pos < len(text):
            raise self.fail("unexpected text after the JSON array", self.original_offset(pos))

    def to_ad(self, item: object, pos: int) -> ClassAd:
        if not isinstance(item, _Object):
            raise self.fail("each ad must be a JSON object", self.original_offset(pos))
        ad = ClassAd()
        for name, value in item:
            ad[name] = self.to_expr(value, name, pos)
        return ad

    def to_expr(self, value: object, name: str, pos: int) -> Expr:
        if isinstance(value, str):
            if value.startswith(_MARK) and value.endswith(")/"):
                return self.expression(value[len(_MARK) : -2], name, pos)
            return Literal(value.replace(_MARK, "/Expr(") if "\x00" in value else value)
        if value is None:
            return Literal(Undefined)
        if isinstance(value, bool | float):
            return Literal(value)
        if isinstance(value, int):
            return Literal(value if INT64_MIN <= value <= INT64_MAX else 0)
        if isinstance(value, _Object):
            pairs: dict[str, tuple[str, Expr]] = {}
            for key, inner in value:
                entry = pairs.get(key.lower())
                spelling = key if entry is None else entry[0]
                pairs[key.lower()] = (spelling, self.to_expr(inner, name, pos))
            return RecordExpr(tuple(pairs.values()))
        return ListExpr(tuple(self.to_expr(inner, name, pos) for inner in value))  # type: ignore[union-attr]

    def expression(self, text: str, name: str, pos: int) -> Expr:
        try:
            return parse_expr(text)
        except ClassAdSyntaxError as exc:
            raise self.fail(
                f"attribute {name!r}: bad expression {text!r}: {exc.message}",
                self.original_offset(pos),
            ) from None


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


def ad_to_json(ad: ClassAd, *, sort: bool = False) -> str:
    """One ad as a JSON object, exactly as classad2's ``printJson()`` (with ``sort``)."""
    out: list[str] = []
    _write_object(out, ad.items(), 0, sort)
    return "".join(out)


def write_json_ads(ads: Iterable[ClassAd], *, sort: bool = False) -> str:
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
    else:
        out.append(_quoted_expr(unparse(expr)))


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
