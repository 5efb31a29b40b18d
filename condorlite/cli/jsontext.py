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
items]``: a long one (``PARALLEL_ROWS``) is converted and encoded in two halves at once,
the second by a forked child (``condorlite.forked``) that sends back its bytes.
``write_utf8`` writes the document around the list and then the list's pieces as they
are, never joined (``fast_utf8`` joins what it writes); inside an ``Encoded`` the
pieces are joined into the list's text, which orjson takes as it is (``Fragment``).
The checks above run on every text written, and the ``json`` way gets the list itself
(``materialised``), so the bytes are still ``json.dumps``'s of the plain list.

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
import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import orjson

from condorlite.forked import ChildFailed, Forked

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
    """The list ``[convert(x) for x in items]``, encoded in two halves at once when
    long (module doc), each half ``CHUNK_ROWS`` rows at a time, so that the converted
    rows never all exist at once (655,000 matches of a large cycle are 570 MB as
    dicts, 200 MB as text). ``convert`` must read nothing that changes while the
    document is written (the child converts a copy). Its text is made once (a document
    with ``Encoded`` values is written twice). Iterating gives the converted rows (the
    human views read them so)."""

    __slots__ = ("_text_made", "convert", "items")

    def __init__(self, items: Sequence[Any], convert: Callable[[Any], Any]) -> None:
        self.items = items
        self.convert = convert
        self._text_made: bytes | None = None

    def materialised(self) -> list[Any]:
        convert = self.convert
        return [convert(x) for x in self.items]

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Any]:
        return map(self.convert, self.items)

    def _inner(self, start: int, end: int) -> list[bytes]:
        """The orjson texts of rows [start, end) without their brackets,
        ``CHUNK_ROWS`` rows a text."""
        convert, items = self.convert, self.items
        return [orjson.dumps([convert(x) for x in items[at:min(at + CHUNK_ROWS, end)]],
                             default=_default, option=_OPTIONS)[1:-1]
                for at in range(start, end, CHUNK_ROWS)]

    def encoded(self) -> bytes:
        """The list's orjson text (TypeError when orjson refuses a value), for a
        ``Rows`` inside an ``Encoded`` (``write_utf8`` writes the pieces as they are)."""
        if self._text_made is None:
            # one join of "[", the pieces with "," between them, and "]": the text is
            # copied once (a join then two concatenations copied it three times)
            pieces = self.pieces()
            parts = [b","] * (2 * len(pieces) + 1)
            parts[1::2] = pieces
            parts[0], parts[-1] = b"[", b"]"
            self._text_made = b"".join(parts) if pieces else b"[]"
        return self._text_made

    def pieces(self) -> list[bytes]:
        """The orjson texts of the rows without the list's brackets, a text per
        ``CHUNK_ROWS`` rows (or per half of a long list, module doc), to be written
        with ``,`` between them (TypeError when orjson refuses a value)."""
        size = len(self.items)
        if size < max(PARALLEL_ROWS, 2):  # two halves, neither empty
            return self._inner(0, size)
        half = size // 2
        with Forked(lambda: b",".join(self._inner(half, size))) as child:
            head = self._inner(0, half)
            try:
                tail = [child.result()]
            except ChildFailed:  # no second core, or orjson refused: again, here
                tail = self._inner(half, size)
        return head + tail


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


#: How a float that nobody marked shows in orjson's text (module doc). Two patterns, each
#: starting with its literal so that ``re`` looks for that first (one alternation with a
#: character class in front tried every byte: 0.75 s on a 57 MB document, these 0.06 s).
_UNMARKED = (
    re.compile(rb"e-\d(?!\d)(?<=\de-\d)"),
    re.compile(rb"0\.0000(?<![^:,\[-]0\.0000)"),  # also at the very start
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

    The document is written with each ``Rows`` left out (``_Marks``), then each
    ``Rows``' pieces are made (``Rows.pieces``), and every text is checked before the
    first byte goes out; the pieces are written between the texts around them, never
    joined. A cycle's matches are the document's bulk (190 MB at 100,000 slots):
    joining them, then copying the join into the whole text held the bulk three
    times at once; now it is held once, as its pieces. The checks cover the same
    bytes: a piece holds whole rows, so no pattern crosses its edges (module doc)."""
    marks = _Marks(placeholders=True)
    try:
        text = orjson.dumps(doc, default=marks, option=_OPTIONS)
        if _suspect(text):
            return False
        if marks.met:  # the checked texts in place of their placeholders (module doc)
            marks = _Marks(placeholders=False)
            text = orjson.dumps(doc, default=marks, option=_OPTIONS)
        lists = [rows.pieces() for rows in marks.rows]
    except TypeError:  # orjson.JSONEncodeError is a TypeError
        return False
    if any(_suspect(piece) for pieces in lists for piece in pieces):
        return False
    around = text.split(_MARK)
    write(around[0])
    for pieces, after in zip(lists, around[1:], strict=True):
        write(b"[")
        for at, piece in enumerate(pieces):
            if at:
                write(b",")
            write(piece)
        write(b"]")
        write(after)
    return True


def _suspect(text: bytes) -> bool:
    """Whether ``text`` shows an unmarked tiny float (module doc)."""
    return any(pattern.search(text) is not None for pattern in _UNMARKED)


def dumps(doc: Any) -> str:
    """``doc`` as ``json.dumps`` writes it (module doc); ValueError for a non-finite
    float when orjson refused the document too, as ``json.dumps`` raises it."""
    text = fast_utf8(doc)
    return json_text(doc) if text is None else text.decode()
