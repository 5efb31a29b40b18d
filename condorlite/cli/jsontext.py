"""One JSON document as text, byte for byte what ``json.dumps`` writes, in a tenth of the time.

``json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":"))`` is the
format of every ``--json`` document (``render``). Its C encoder still costs 0.8 s for
the 100,000 rows of a large ``sge qstat``; orjson writes the same document in 0.07 s.
The two agree on everything a document holds (strings and their escapes, integers,
``true``/``false``/``null``, floats from 1e-4 up, nesting, key order) except floats
closer to zero than 1e-4 (other than 0): Python writes ``1e-05`` and ``3.2e-06``,
orjson ``0.00001`` and ``3.2e-6``. Hence:

* ``real(x)`` marks such a float (``Tiny``, a ``float`` subclass: equal to ``x``,
  printed by ``json`` as ``x``); orjson hands a marked float to ``_default``, which
  writes Python's ``repr``. A producer marks the floats of its large documents;
* ``dumps`` then encodes with orjson and looks for the two ways an unmarked tiny float
  shows (``De-N`` with a one-digit exponent; ``0.0000...`` first or after ``:``, ``,``,
  ``[`` or ``-``).
  If either shows (or orjson refuses something: a surrogate, an integer past 64 bits,
  a non-string key, a type it does not know), the document is written by ``json``
  instead: the bytes are always ``json.dumps``'s, only the time differs. A string that
  happens to hold ``5e-3`` costs the slow way, never a wrong byte.

Non-finite floats: ``json`` refuses them (``allow_nan=False``) and ``render`` then
writes them as null; orjson writes null directly. The document is the same.

``Rows(items, convert)`` stands in a document for the list ``[convert(x) for x in
items]``, converted and encoded ``CHUNK_ROWS`` rows at a time (by ``fast`` when given:
a chunk's rows in one comprehension, their repeated parts as ``written`` texts); a long one
(``PARALLEL_ROWS``) in two halves at once, the second by a forked child
(``condorlite.forked.ForkedBytes``) that sends back its bytes as they are. Each piece
is checked on its own and, when orjson refuses it or it shows a pattern, written by
``json`` instead (``_exact``): ``json.dumps`` of a list of rows gives the same bytes
alone as inside the document (no indentation), so a piece is exact whichever way it
went, and the document's verdict is the text around its lists'. ``write_utf8`` writes
that text and the lists' pieces as they come, never joined (``fast_utf8`` joins what
it writes); inside an ``Encoded`` a list's pieces are joined into its text, which
orjson takes as it is (``Fragment``). The ``json`` way for the whole document gets the
list itself (``materialised``), so the bytes are still ``json.dumps``'s of the plain
list.

``Encoded(value)`` stands for a list, dict or string written once by orjson and checked
once, for a value a document repeats (``sge schedule``'s waiting jobs share their
category's reasons: 1,624 lists among 86,928 jobs, 378 of its 384 MB). A document with
any is written twice: first with ``null`` for each (``_Marks``), and that text is
checked; then with their texts, not checked again. The verdict is the whole text's: an
encoded text starts with ``[``, ``{`` or ``"`` and ends with ``]``, ``}`` or ``"``,
none of which either pattern can match or look at as part of a number, and ``null``
is no more a part of one; so no match crosses its edges, and each match lies in the
placeholder text or in one encoded text. An ``Encoded`` that orjson refused or whose
text shows a pattern sends the document to ``json``, which writes its value.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import orjson

from condorlite.forked import ChildFailed, ForkedBytes

#: Rows below this many are encoded in one process: forking costs more than it saves.
PARALLEL_ROWS = 20_000
#: Rows converted and encoded at a time (``Rows._text``).
CHUNK_ROWS = 8_192


class Tiny(float):
    """A float with 0 < |x| < 1e-4, marked for ``_default`` (module doc)."""

    __slots__ = ()


def real(value: float) -> float:
    """``value``, marked when orjson would print it unlike ``json`` (module doc)."""
    if -1e-4 < value < 1e-4 and value != 0:
        return Tiny(value)
    return value


class Encoded:
    """A list, dict or string as orjson writes it, checked once (module doc); ``text``
    is None when orjson refused it or the check failed."""

    __slots__ = ("text", "value")

    def __init__(self, value: list[Any] | dict[str, Any] | str) -> None:
        if not isinstance(value, list | dict | str):
            raise TypeError(f"only a list, dict or string is encoded, not {type(value).__name__}")
        self.value = value
        try:
            text: bytes | None = orjson.dumps(value, default=_default, option=_OPTIONS)
        except TypeError:
            text = None
        self.text = None if text is None or _suspect(text) else text


class Rows:
    """The list ``[convert(x) for x in items]``, written ``CHUNK_ROWS`` rows at a time,
    in two halves at once when long (module doc), so that the converted rows never all
    exist at once (655,000 matches of a large cycle are 570 MB as dicts, 200 MB as
    text), nor does the list's whole text: ``write`` gives its pieces out as they are
    made. Each piece is exactly ``json.dumps``'s text of its rows (``_exact``), so no
    piece can send the document to ``json``. ``convert`` must read nothing that
    changes while the document is written (the child converts a copy). Iterating
    gives the converted rows (the human views read them so).

    ``fast(chunk)``, when given, makes the rows of a chunk of ``items`` for orjson
    alone, in one call (a comprehension costs less than a call of ``convert`` per
    row): orjson's text of ``fast(chunk)`` must be its text of ``[convert(x) for x in
    chunk]`` whenever orjson writes both, and its rows may hold ``written`` texts in
    place of values that repeat. A chunk whose ``fast`` text orjson refuses or that
    shows a pattern is made again by ``convert`` (``_exact``): ``json`` cannot write
    a ``written`` text."""

    __slots__ = ("_text_made", "convert", "fast", "items")

    def __init__(self, items: Sequence[Any], convert: Callable[[Any], Any],
                 fast: Callable[[Sequence[Any]], list[Any]] | None = None) -> None:
        self.items = items
        self.convert = convert
        self.fast = fast
        self._text_made: bytes | None = None

    def materialised(self) -> list[Any]:
        convert = self.convert
        return [convert(x) for x in self.items]

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Any]:
        return map(self.convert, self.items)

    def _pieces(self, start: int, end: int) -> Iterator[bytes]:
        """The texts of rows [start, end) without their brackets, ``CHUNK_ROWS`` rows a
        text, each with a ``,`` before it but the first."""
        convert, fast, items = self.convert, self.fast, self.items
        for at in range(start, end, CHUNK_ROWS):
            chunk = items[at:min(at + CHUNK_ROWS, end)]
            text = None if fast is None else _orjson_text(fast(chunk))
            if text is None:
                text = _exact([convert(x) for x in chunk])
            yield text[1:-1] if at == start else b"," + text[1:-1]

    def write(self, write: Callable[[bytes], object]) -> None:
        """Give the list's text to ``write`` a piece at a time (module doc): the first
        half's pieces as they are made here; the second half's from a forked child
        (``forked.ForkedBytes``), or made here when it failed."""
        size = len(self.items)
        write(b"[")
        if size < max(PARALLEL_ROWS, 2):  # two halves, neither empty
            for piece in self._pieces(0, size):
                write(piece)
        else:
            half = size // 2
            with ForkedBytes(lambda: list(self._pieces(half, size))) as child:
                for piece in self._pieces(0, half):
                    write(piece)
                try:
                    tail = child.chunks()
                except ChildFailed:  # no second core, or it failed: again, here
                    tail = self._pieces(half, size)  # type: ignore[assignment]
                write(b",")
                for piece in tail:
                    write(piece)
        write(b"]")

    def encoded(self) -> bytes:
        """The list's text, joined once, for a ``Rows`` inside an ``Encoded`` (a
        document writes its own ``Rows`` a piece at a time, ``write_utf8``)."""
        if self._text_made is None:
            parts: list[bytes] = []
            self.write(parts.append)
            self._text_made = b"".join(parts)
        return self._text_made


def _orjson_text(value: Any) -> bytes | None:
    """orjson's text of ``value``, None when orjson refuses it or the text shows an
    unmarked tiny float (module doc): then only ``json`` writes it exactly."""
    try:
        text = orjson.dumps(value, default=_default, option=_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return None
    return None if _suspect(text) else text


def written(value: list[Any] | dict[str, Any] | str) -> Any:
    """``value`` as orjson writes it, written and checked once (``Encoded``), for a
    row of ``Rows.fast`` to hold in its place (orjson copies the text where the row
    has it); ``value`` itself when orjson refuses it or the check fails. Only orjson
    takes the text (``json`` refuses it: module doc)."""
    text = Encoded(value).text
    return value if text is None else orjson.Fragment(text)


def _exact(rows: list[Any]) -> bytes:
    """``json.dumps``'s text of ``rows`` in UTF-8: orjson's, unless orjson refuses a
    value or its text shows an unmarked tiny float (module doc), then ``json``'s; a
    non-finite float is null, as in a document that holds one (``json_safe``)."""
    text = _orjson_text(rows)
    if text is not None:
        return text
    try:
        return json_text(rows).encode()
    except ValueError:
        return json_text(json_safe(rows)).encode()


def json_safe(value: Any) -> Any:
    """``value`` with every non-finite float (not valid JSON) null, ``Rows`` and
    ``Encoded`` as their plain values; callers add their own flag."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, Rows):
        value = value.materialised()
    if isinstance(value, Encoded):
        value = value.value
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    return value


def _default(value: object) -> object:
    if type(value) is Tiny:
        return orjson.Fragment(float.__repr__(value).encode())
    if type(value) is Rows:
        return orjson.Fragment(value.encoded())
    if type(value) is Encoded and value.text is not None:
        return orjson.Fragment(value.text)
    raise TypeError(f"{type(value).__name__} is left to json")


class _Marks:
    """``_default`` for a writing that leaves the lists of ``Rows`` out: each is a NUL
    byte in the text (orjson escapes every control character in a string, so a raw
    NUL is nothing else), taken in ``rows`` in the order of the text. With
    ``placeholders``, each ``Encoded`` that has a text is ``null`` (``met`` says
    whether one was met; module doc), else its text."""

    __slots__ = ("met", "placeholders", "rows")

    def __init__(self, placeholders: bool) -> None:
        self.placeholders = placeholders
        self.met = False
        self.rows: list[Rows] = []

    def __call__(self, value: object) -> object:
        if type(value) is Rows:
            self.rows.append(value)
            return orjson.Fragment(_MARK)
        if self.placeholders and type(value) is Encoded and value.text is not None:
            self.met = True
            return None
        return _default(value)


#: where a ``Rows`` list stands in a text written by ``_Marks``
_MARK = b"\x00"


def _materialised(value: object) -> object:
    if type(value) is Rows:
        return value.materialised()
    if type(value) is Encoded:
        return value.value
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


#: How a float that nobody marked shows in orjson's text (module doc): two patterns, each
#: after the literal it starts with (``_suspect``) and starting with it, so that ``re``
#: looks for that first (one alternation with a character class in front tried every
#: byte: 0.75 s on a 57 MB document, these 0.06 s).
_UNMARKED = (
    (b"e-", re.compile(rb"e-\d(?!\d)(?<=\de-\d)")),
    (b"0.0000", re.compile(rb"0\.0000(?<![^:,\[-]0\.0000)")),  # also at the very start
)

#: orjson's own handling of these would differ from json's: they go to ``_default``,
#: which refuses them, and ``json`` then writes (or refuses) them as before.
_OPTIONS = (
    orjson.OPT_PASSTHROUGH_SUBCLASS
    | orjson.OPT_PASSTHROUGH_DATACLASS
    | orjson.OPT_PASSTHROUGH_DATETIME
)


def json_text(doc: Any) -> str:
    """``doc`` as ``json.dumps`` writes it, by ``json`` itself (ValueError for a
    non-finite float)."""
    return json.dumps(doc, ensure_ascii=False, allow_nan=False, separators=(",", ":"),
                      default=_materialised)


def fast_utf8(doc: Any) -> bytes | None:
    """``json.dumps``'s text of ``doc`` encoded in UTF-8, when orjson writes it (module
    doc); None when only ``json`` can. Written as it is, a large document skips the
    decode and the encode again on its way out (0.5 s each for a 384 MB one)."""
    pieces: list[bytes] = []
    return b"".join(pieces) if write_utf8(doc, pieces.append) else None


def write_utf8(doc: Any, write: Callable[[bytes], object]) -> bool:
    """``fast_utf8``'s text given to ``write`` a piece at a time, when orjson writes it;
    False, and nothing written, when only ``json`` can.

    The document is written with each ``Rows`` left out (``_Marks``) and checked; then
    the texts around the lists are written, and each list a piece at a time
    (``Rows.write``: each piece is exact on its own, so the verdict is the text
    around the lists'). A cycle's matches are the document's bulk (190 MB at 100,000
    slots): joined, then copied into the whole text, and half of them pickled back
    from the child, they were held three to four times at once; now once at most
    (the child's half, as it came), and the rest a piece at a time. An exception
    while a list is converted (a bug: a conversion only builds rows) leaves the
    document cut short, and the command fails with its internal error."""
    marks = _Marks(placeholders=True)
    try:
        text = orjson.dumps(doc, default=marks, option=_OPTIONS)
        if _suspect(text):
            return False
        if marks.met:  # the checked texts in place of their placeholders (module doc)
            marks = _Marks(placeholders=False)
            text = orjson.dumps(doc, default=marks, option=_OPTIONS)
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return False
    around = text.split(_MARK)
    write(around[0])
    for rows, after in zip(marks.rows, around[1:], strict=True):
        rows.write(write)
        write(after)
    return True


def _suspect(text: bytes) -> bool:
    """Whether ``text`` shows an unmarked tiny float (module doc). Each pattern starts
    with its literal, which ``in`` finds at about half the cost of ``re``'s scan (a
    10k cycle's 19 MB of matches: 107 M instructions for both, 240 M by ``re``); the
    pattern runs only on a text that holds it."""
    return any(literal in text and pattern.search(text) is not None
               for literal, pattern in _UNMARKED)


def dumps(doc: Any) -> str:
    """``doc`` as ``json.dumps`` writes it (module doc); ValueError for a non-finite
    float when orjson refused the document too, as ``json.dumps`` raises it."""
    text = fast_utf8(doc)
    return json_text(doc) if text is None else text.decode()
