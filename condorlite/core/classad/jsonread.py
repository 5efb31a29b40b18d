"""Reading JSON ads (``condor_status -json``), streamed; the mapping is in ``jsonads.py``.

Streaming: the input comes as pieces of text (the lines of a file object, or one
string) and is decoded one top-level object at a time from a buffer that holds only
the not yet decoded text. The buffer is refilled (at least doubling what it holds, so
an object longer than one read costs linear time) when an object is incomplete, and
the decoded part is dropped at line boundaries, so reading a pretty-printed array of
100,000 ads holds about one ad's text at a time. A file that is one long line (compact
JSON) is held whole: a line is the unit read.

Errors: each piece is checked as it arrives, so an error is raised when the reader
reaches it, after the ads before it have been yielded. Positions (line, column) are
those of the original text; the error's ``source`` is the buffer it was found in and
``first_line`` that buffer's first line number.

Interning: a scalar member ``"Name": value`` seen before gives the same shared
``(name, (spelling, expr))`` without any conversion (``interning.JSON_PAIRS``); a
``\\/Expr(E)\\/`` body E is parsed once per distinct text (``interning.NEW_VALUES``),
and scalar values become one shared ``Literal`` per distinct value
(``interning.JSON_SCALARS``), so ads that repeat a value share the node.
"""

from __future__ import annotations

import bisect
import json
import sys
from collections.abc import Iterable, Iterator

from condorlite.core.classad.ad import ClassAd
from condorlite.core.classad.ast import Expr, ListExpr, Literal, RecordExpr
from condorlite.core.classad.errors import ClassAdSyntaxError
from condorlite.core.classad.interning import JSON_PAIRS, JSON_SCALARS, NEW_VALUES
from condorlite.core.classad.parser import parse_expr
from condorlite.core.classad.values import INT64_MAX, INT64_MIN, Undefined, int_literal

# json decodes "\/Expr(" and "/Expr(" alike, so the escaped form is swapped for a
# NUL-led marker before decoding (a NUL cannot occur in a valid ClassAd string). The
# marker cannot straddle two pieces: pieces end at line ends, and a JSON string holds
# no raw line end.
_EXPR_RAW = '"\\/Expr('
_EXPR_MARKED = '"\\u0000Expr('
_GROWTH = len(_EXPR_MARKED) - len(_EXPR_RAW)
_MARK = "\x00Expr("
_WS = " \t\n\r"
#: Characters read into the buffer at a time (at least; whole lines are read).
CHUNK = 1 << 16

#: The recursion limit while the JSON decoder runs. Its recursion along nested arrays
#: and objects is C recursion, on the C stack, which the limit counts but does not
#: size: under the commands' deep limit (``cli.RECURSION_LIMIT``, for the parser's
#: and evaluator's Python recursion) 20,000 nested ``[`` overflowed the stack.
#: Reading runs a few dozen frames deep, so a few thousand levels of JSON nesting stay
#: readable and deeper is "JSON nested too deeply".
DECODE_RECURSION_LIMIT = 4_000

_TRUE, _FALSE, _UNDEFINED = Literal(True), Literal(False), Literal(Undefined)
_new = object.__new__
_set_value = Literal.value.__set__  # type: ignore[attr-defined]


class _Object(list):
    """The ``(name, value)`` pairs of one JSON object, in order."""

    __slots__ = ()


def read_json_ads(source: str | Iterable[str], *, filename: str | None = None
                  ) -> Iterator[ClassAd]:
    """Yield the ads of a JSON document given whole or as pieces (lines) of text.

    Accepted: one object, several objects one after the other, or one array of
    objects. ``ClassAdSyntaxError`` for anything else."""
    pieces = iter((source,)) if isinstance(source, str) else iter(source)
    yield from _Reader(pieces, filename).ads()


def raw_decode(decoder: json.JSONDecoder, text: str, pos: int = 0) -> tuple[object, int]:
    """``decoder.raw_decode(text, pos)`` under ``DECODE_RECURSION_LIMIT`` when the
    limit is higher (``RecursionError`` past it, as ``json`` raises it)."""
    limit = sys.getrecursionlimit()
    if limit <= DECODE_RECURSION_LIMIT:
        return decoder.raw_decode(text, pos)
    try:
        sys.setrecursionlimit(DECODE_RECURSION_LIMIT)
    except RecursionError:  # deeper than that already (not when reading): as it is
        return decoder.raw_decode(text, pos)
    try:
        return decoder.raw_decode(text, pos)
    finally:
        sys.setrecursionlimit(limit)


class _Reader:
    """The buffer: ``orig`` (text as read) and ``text`` (markers swapped in), from
    original line ``line0``; ``marks`` are the offsets in ``text`` where a swap grew
    it."""

    def __init__(self, pieces: Iterator[str], filename: str | None, line0: int = 1) -> None:
        self.pieces = pieces
        self.filename = filename
        self.orig = ""
        self.text = ""
        self.marks: list[int] = []
        self.line0 = line0
        self.eof = False
        self.names: dict[str, tuple[str, str]] = {}
        self.decoder = json.JSONDecoder(
            object_pairs_hook=_Object, parse_constant=self._reject_constant,
            parse_int=int_literal,
        )

    # -- the buffer -------------------------------------------------------------------

    def fill(self, wanted: int) -> bool:
        """Read at least ``wanted`` characters (whole pieces) into the buffer; False
        when the input is exhausted and nothing was read."""
        got: list[str] = []
        size = 0
        for piece in self.pieces:
            got.append(piece)
            size += len(piece)
            if size >= wanted:
                break
        else:
            self.eof = True
        if not got:
            return False
        new = "".join(got)
        nul = new.find("\\u0000")
        if nul >= 0:
            self.orig += new
            raise self.fail_orig("a NUL character is not allowed in a ClassAd string",
                                 len(self.orig) - len(new) + nul)
        marked = new.replace(_EXPR_RAW, _EXPR_MARKED)
        base = len(self.text)
        if len(marked) != len(new):
            start = marked.find(_EXPR_MARKED)
            while start >= 0:
                self.marks.append(base + start)
                start = marked.find(_EXPR_MARKED, start + 1)
        self.orig += new
        self.text += marked
        return True

    def drop(self, pos: int) -> int:
        """Forget the buffer's text before the last line end at or before ``pos`` (a
        ``text`` offset), once ``pos`` is past ``CHUNK`` (so the buffer is copied once
        per ``CHUNK`` read, not once per ad); returns ``pos`` in the shortened buffer."""
        if pos < CHUNK:
            return pos
        cut = self.text.rfind("\n", 0, pos) + 1
        if cut <= 0:
            return pos
        cut_orig = self.original_offset(cut)
        self.line0 += self.text.count("\n", 0, cut)
        self.orig = self.orig[cut_orig:]
        self.text = self.text[cut:]
        first = bisect.bisect_left(self.marks, cut)
        self.marks = [m - cut for m in self.marks[first:]]
        return pos - cut

    def original_offset(self, pos: int) -> int:
        return pos - _GROWTH * bisect.bisect_left(self.marks, pos)

    # -- errors -----------------------------------------------------------------------

    def fail_orig(self, message: str, offset: int) -> ClassAdSyntaxError:
        """The error at ``offset`` in ``orig``, with file line numbers."""
        exc = ClassAdSyntaxError.at_offset("bad_json", message, self.orig, offset,
                                           self.filename)
        exc.line += self.line0 - 1
        exc.first_line = self.line0
        return exc

    def fail(self, message: str, pos: int) -> ClassAdSyntaxError:
        """The error at ``pos`` in ``text``."""
        return self.fail_orig(message, self.original_offset(pos))

    @staticmethod
    def _reject_constant(name: str) -> object:
        raise ValueError(f"{name} is not a ClassAd value")

    # -- decoding ---------------------------------------------------------------------

    def skip_ws(self, pos: int) -> int:
        """The first non-blank position at or after ``pos``, reading more as needed;
        ``len(text)`` at the end of the input."""
        while True:
            text = self.text
            end = len(text)
            while pos < end and text[pos] in _WS:
                pos += 1
            if pos < end or not self.fill(CHUNK):
                return pos

    def decode_at(self, pos: int) -> tuple[object, int]:
        """Decode the value at ``pos``; an incomplete value reads more and tries again
        (each retry at least doubles what is buffered after ``pos``)."""
        while True:
            try:
                return raw_decode(self.decoder, self.text, pos)
            except json.JSONDecodeError as exc:
                if self.eof or not self.fill(max(CHUNK, len(self.text) - pos)):
                    raise self.fail(f"invalid JSON: {exc.msg}", exc.pos) from None
            except (ValueError, RecursionError) as exc:
                message = str(exc) if isinstance(exc, ValueError) else "JSON nested too deeply"
                raise self.fail(message, pos) from None

    def ads(self) -> Iterator[ClassAd]:
        pos = self.skip_ws(0)
        if pos < len(self.text) and self.text[pos] == "[":
            yield from self.array_items(pos)
            return
        while pos < len(self.text):
            item, end = self.decode_at(pos)
            yield self.to_ad(item, pos)
            pos = self.skip_ws(self.drop(end))

    def array_items(self, pos: int) -> Iterator[ClassAd]:
        """The ads of a top-level array (``pos`` at its ``[``), decoded one by one so
        that an error points at the ad it is in."""
        return self.array_first(self.skip_ws(pos + 1))

    def array_first(self, pos: int) -> Iterator[ClassAd]:
        """The array from its first non-blank after ``[``."""
        if self.text[pos : pos + 1] == "]":
            return self.after_array(pos + 1)
        return self.array_rest(pos, "value")

    def array_rest(self, pos: int, state: str) -> Iterator[ClassAd]:
        """The rest of a top-level array from ``pos``, where a ``value`` (an ad) or a
        separator (``sep``: ``,`` or ``]``) is due."""
        while True:
            if state == "value":
                item, end = self.decode_at(pos)
                yield self.to_ad(item, pos)
                pos = self.skip_ws(self.drop(end))
            state = "value"
            sep = self.text[pos : pos + 1]
            if sep not in (",", "]"):
                raise self.fail("expected ',' or ']' in the array", pos)
            pos = self.skip_ws(pos + 1)
            if sep == "]":
                break
        yield from self.after_array(pos)

    def after_array(self, pos: int) -> Iterator[ClassAd]:
        """Nothing but blanks may follow the array (no ads come from here)."""
        pos = self.skip_ws(pos)
        if pos < len(self.text):
            raise self.fail("unexpected text after the JSON array", pos)
        yield from ()

    def resume(self, state: str) -> Iterator[ClassAd]:
        """Read from the start of the pieces, in ``state``: ``whole`` (a document),
        or inside a top-level array right after its ``[`` (``first``), where a
        ``value`` or a ``sep`` is due, or after it (``end``). ``jsonfast`` hands over
        here at a line start."""
        if state == "whole":
            return self.ads()
        pos = self.skip_ws(0)
        if state == "end":
            return self.after_array(pos)
        if state == "first":
            return self.array_first(pos)
        return self.array_rest(pos, state)

    # -- JSON values to expressions -----------------------------------------------------

    def to_ad(self, item: object, pos: int) -> ClassAd:
        """The ad of one decoded object.

        A scalar member ``(name, value)`` as json decoded it is looked up whole in the
        pair cache of its value's type (``interning.JSON_PAIRS``: one per type, since
        ``1``, ``1.0`` and ``true`` are equal keys in Python; zero reals are not
        cached, as ``-0.0 == 0.0``), giving the shared ``(lower-case name, (spelling,
        expr))``; other members are converted by ``member``."""
        if not isinstance(item, _Object):
            raise self.fail("each ad must be a JSON object", pos)
        attrs: dict[str, tuple[str, Expr]] = {}
        for pair in item:
            key, entry = self.cached_member(pair, pos)
            # A repeated name keeps its first spelling and position, takes the last value.
            held = attrs.setdefault(key, entry)
            if held is not entry:
                attrs[key] = (held[0], entry[1])
        return ClassAd._from_attrs(attrs)

    def cached_member(self, pair: tuple[str, object], pos: int
                      ) -> tuple[str, tuple[str, Expr]]:
        """``member`` through the pair cache of the value's type (see ``to_ad``)."""
        cache = JSON_PAIRS.get(type(pair[1]))
        hit = None if cache is None else cache.young.get(pair) or cache.get(pair)
        if hit is None:
            hit = self.member(pair, pos)
            if cache is not None and (pair[1] or type(pair[1]) is not float):
                cache.put(pair, hit)
        return hit

    def member(self, pair: tuple[str, object], pos: int) -> tuple[str, tuple[str, Expr]]:
        """``(lower-case name, (spelling, expr))`` of one object member."""
        name, value = pair
        names = self.names
        named = names.get(name)
        if named is None:
            if not name:
                # HTCondor refuses an ad with an attribute of no name.
                raise self.fail("an attribute name must not be empty", pos)
            if len(names) >= 10_000:
                names.clear()
            named = names[name] = (sys.intern(name.lower()), sys.intern(name))
        key, spelling = named
        return key, (spelling, self.to_expr(value, name, pos))

    def to_expr(self, value: object, name: str, pos: int) -> Expr:
        kind = type(value)
        if kind is str:
            hit = JSON_SCALARS.get(value)  # type: ignore[arg-type]
            if hit is not None:
                return hit
            if value.startswith(_MARK) and value.endswith(")/"):  # type: ignore[union-attr]
                return self.expression(value[len(_MARK) : -2], name, pos)  # type: ignore[index]
            text = value.replace(_MARK, "/Expr(") if "\x00" in value else value  # type: ignore
            hit = _new(Literal)  # Literal(text), through its slot (once per new string)
            _set_value(hit, text)
            JSON_SCALARS.put(value, hit)  # type: ignore[arg-type]
            return hit
        if value is None:
            return _UNDEFINED
        if kind is bool:
            return _TRUE if value else _FALSE
        if kind is int or kind is float:
            # Keyed apart from strings (and 1 from 1.0 and -0.0 from 0.0) by the type
            # and the repr.
            key = (kind, value if value else repr(value))
            hit = JSON_SCALARS.get(key)  # type: ignore[arg-type]
            if hit is None:
                number = value if kind is float or INT64_MIN <= value <= INT64_MAX else 0  # type: ignore[operator]
                hit = Literal(number)
                JSON_SCALARS.put(key, hit)  # type: ignore[arg-type]
            return hit
        if kind is _Object:
            pairs: dict[str, tuple[str, Expr]] = {}
            for inner_name, inner in value:  # type: ignore[attr-defined]
                entry = pairs.get(inner_name.lower())
                spelling = inner_name if entry is None else entry[0]
                pairs[inner_name.lower()] = (spelling, self.to_expr(inner, name, pos))
            return RecordExpr(tuple(pairs.values()))
        return ListExpr(tuple(self.to_expr(inner, name, pos) for inner in value))  # type: ignore[union-attr]

    def expression(self, text: str, name: str, pos: int) -> Expr:
        expr = NEW_VALUES.get(text)
        if expr is not None:
            return expr
        try:
            expr = parse_expr(text)
        except ClassAdSyntaxError as exc:
            raise self.fail(f"attribute {name!r}: bad expression {text!r}: {exc.message}",
                            pos) from None
        NEW_VALUES.put(text, expr)
        return expr
