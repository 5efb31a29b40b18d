"""Reading old-form ads with the compiled line scanner (``_oldscan/``), when built.

The rules are ``formats.py``'s and the result is ``oldform.read_old_ad_lists``'s, ad for
ad and error for error (same ads, names, spellings, values, order; same error at the
same line and column, after the same ads); only the work per line moves to C. The
scanner takes the text in pieces that end at a line end and, per line: an empty line
ends the ad; a line read before is found by its text in a bounded two-generation table
(the same policy as ``interning.TextCache``, ``LIMIT`` lines a generation) and its
stored ``(lower-case name, (spelling, expr))`` pair is taken; a new line whose value is
a string without ``"`` inside or a decimal integer of up to 18 digits is read in C
(the name through ``oldform``'s name table, the value as ``oldform._plain_literal``
builds it); every other new line is ``_miss``'s: ``oldform.old_line`` through the
shared ``interning.OLD_LINES`` (so a repeated expression is one object whichever
reader read it), a comment is skipped, a line of blanks ends the ad, a bad line raises
its ``ClassAdSyntaxError``. Four shortcuts by position within the ad (``scanner.c``)
leave the result as it is: a line equal to the previous ad's line at its position
(plus a shift that follows the names one of the two ads holds and the other lacks: a
pool's slot types interleave) takes that line's pair (lines that do so in a row are
compared and copied as one run); a line compared with a line that was new with a new
value (a per-ad value) skips the line table unless its value is known; a new line whose
name is that of the last line at its position skips the name lookup; an ad with the
previous ad's names in the same order starts from a copy of its dict, or, from its
run's third ad on, keeps a lazy table (the run's private base and its own pairs at
the mark's names; ``ClassAd._attrs`` makes it whole on first read, ``ad.py``). Two more that
do not depend on position: an ad with the names of one of the last few ads of other
names read in the same piece (``ads.c``: shapes; a pool's slot types interleave)
starts from a copy of that ad's dict, and a new line's name text is looked up in the
scanner's own table of names before ``OLD_NAMES`` (no string made, no hash of one;
the names are interned, so the pair kept holds the very strings the dict's would).

Why: on realistic pools (160-attribute slots, 85-attribute jobs) the Python reader
spends its time on what every line costs however it is cached (making the line's
string, hashing and looking it up twice, ``benchmarks/RESULTS.md``); the scanner looks
each line up once in its own text and makes a string only for a line it has not seen.

A text file object over a ``FileBytes`` (``store/adfiles.py`` opens files so) is read
as bytes past the lines format detection took (their byte length is known: the file
was read from its start, and UTF-8 with ``surrogateescape`` gives every byte back): a piece
of ASCII text goes to the scanner as it is, which reads it as the str it would decode
to; any other piece is decoded first, as the text file object would (pieces end after
a ``\n``, which no UTF-8 sequence holds, so each decodes alone as in the stream).
Decoding a realistic job queue as text cost about as much as the C scanner's reading of
a fifth of it (``benchmarks/RESULTS.md``, session 21).

``AVAILABLE`` says whether the module was built (``pip install`` builds it where a C
compiler is at hand; otherwise the Python reader does all the work). Setting the
environment variable ``CONDORLITE_PURE_PYTHON`` to a non-empty value turns the scanner
off (the tests run both readers on the same inputs).
"""

from __future__ import annotations

import codecs
import io
import os
from collections.abc import Iterator
from functools import partial
from typing import BinaryIO, TextIO

from condorlite.core.classad.ad import TABLE_SLOT, ClassAd
from condorlite.core.classad.ast import Literal
from condorlite.core.classad.errors import ClassAdSyntaxError
from condorlite.core.classad.interning import LIMIT, OLD_LINES, OLD_NAMES
from condorlite.core.classad.oldform import _new_name, old_ad, old_line

try:
    from condorlite.core.classad._oldscan import Scanner, slotted
except ImportError:  # built without a C compiler: the Python reader reads everything
    Scanner = slotted = None
try:  # the grouping's column passes (``matching/columns.py``)
    from condorlite.core.classad._oldscan import changes
except ImportError:  # (a build older than them: the reader stays, the passes are Python's)
    changes = None
try:  # a reader run's jobs decoded in one loop (``cli/run_pass.run_jobs``)
    from condorlite.core.classad._oldscan import run_jobs
except ImportError:  # (a build older than it: the loop is Python's)
    run_jobs = None
try:  # the grouping's gather of its rows' tables (``matching/columns.py``)
    from condorlite.core.classad._oldscan import descents, gather
except ImportError:  # (a build older than it: the gather is Python's)
    descents = gather = None

AVAILABLE = Scanner is not None

#: Characters of a file read at a time.
CHUNK = 1 << 20

_BLANK = " \t\r\n\f\v"
#: What ``_miss`` returns for a line of blanks: it ends the ad, as an empty line does.
_END = object()


class FileBytes(io.BufferedReader):
    """The bytes of a file read from its start, under a text file object
    (``store.adfiles`` opens files so): the old-form reader may read them past format
    detection (module doc). A mark on the buffer, not on the text file object, whose
    line-by-line reading is fast only for the exact ``TextIOWrapper``."""

    __slots__ = ()


#: ``ClassAd._from_attrs(attrs, layout)`` in one C call (``_oldscan.slotted``: the
#: slots past the two given, ``parent``, set to None), for the ads the scanner builds.
_FROM_ATTRS = (ClassAd._from_attrs if Scanner is None else partial(
    slotted, tuple(ClassAd.__dict__[name] for name in (TABLE_SLOT, "layout", "parent")),
    ClassAd))


def enabled() -> bool:
    """True when old-form text is read by the scanner: it is built, and
    ``CONDORLITE_PURE_PYTHON`` is unset or empty."""
    return AVAILABLE and not os.environ.get("CONDORLITE_PURE_PYTHON")


def scan_old_ad_lists(source: str | TextIO, head: list[str], filename: str | None
                      ) -> Iterator[list[ClassAd]]:
    """The ads of an old-form input, a list for each piece of text it reads (see
    ``oldform.read_old_ad_lists``: the same ads and errors). ``source`` is the whole
    text or a text file object; ``head`` the lines format detection already took from
    a file object (for a text, its first lines: the text is read whole)."""
    def miss(raw: str, lineno: int) -> object:
        if not raw.strip(_BLANK):
            return _END
        hit = OLD_LINES.get(raw)
        if hit is None:
            hit = old_line(raw, lineno, filename)
            if hit is not None:
                OLD_LINES.put(raw, hit)
        return hit

    scanner = Scanner(
        literal_type=Literal, value_descr=Literal.__dict__["value"], names=OLD_NAMES,
        new_name=_new_name, miss=miss, from_attrs=_FROM_ATTRS, old_ad=old_ad,
        end=_END, limit=LIMIT, key=int.from_bytes(os.urandom(8), "little"),
    )
    pieces: Iterator[str | memoryview]
    if isinstance(source, str):
        pieces = iter((source,))
    else:
        raw = _bytes_of(source, head)
        pieces = _pieces(source, head) if raw is None else _byte_pieces(raw, head)
    feed = scanner.feed
    for text in pieces:
        done: list[ClassAd] = []
        try:
            feed(text, done)
        except ClassAdSyntaxError:
            if done:
                yield done
            raise
        if done:
            yield done
    done = []
    scanner.finish(done)
    if done:
        yield done


def _pieces(source: TextIO, head: list[str]) -> Iterator[str]:
    """The text of a file in pieces of about ``CHUNK`` characters that end at a line
    end (the last may not): ``head`` first, then what ``source.read`` gives. A line
    longer than a piece is gathered in a list and joined once it ends, so a file of one
    huge line costs its length, not its length squared."""
    if head:
        yield "".join(head)
    read = source.read
    parts: list[str] = []
    while piece := read(CHUNK):
        cut = piece.rfind("\n") + 1
        if not cut:
            parts.append(piece)
            continue
        if parts:
            parts.append(piece[:cut])
            yield "".join(parts)
            parts = [piece[cut:]]
        else:
            yield piece[:cut] if cut < len(piece) else piece
            parts = [piece[cut:]] if cut < len(piece) else []
    if parts:
        yield "".join(parts)


def _bytes_of(source: TextIO, head: list[str]) -> BinaryIO | None:
    """The byte stream under ``source``, positioned after ``head``, when ``source`` is
    a ``TextIOWrapper`` that decodes UTF-8 with ``surrogateescape`` over a seekable
    ``FileBytes``; else None (the text is read through ``source``)."""
    if (type(source) is not io.TextIOWrapper or type(source.buffer) is not FileBytes
            or source.errors != "surrogateescape"):
        return None
    try:
        if codecs.lookup(source.encoding).name != "utf-8":
            return None
    except LookupError:
        return None
    raw = source.buffer
    if not raw.seekable():
        return None
    # the bytes the head lines were decoded from: surrogateescape gives each back
    raw.seek(len("".join(head).encode("utf-8", "surrogateescape")))
    return raw


def _byte_pieces(raw: BinaryIO, head: list[str]) -> Iterator[str | memoryview]:
    """``_pieces`` of a ``FileBytes`` (``_bytes_of``): ``head`` as text, then
    views of about ``CHUNK`` bytes that end after a ``\n`` (the last may not), each
    read into one buffer reused from piece to piece (a view is valid until the next
    is asked for: the scanner copies what it keeps). A line longer than the buffer
    doubles it."""
    if head:
        yield "".join(head)
    buffer = bytearray(CHUNK)
    view = memoryview(buffer)
    kept = 0  # bytes of a line begun in the last read, moved to the front
    while got := raw.readinto(view[kept:]):
        end = kept + got
        cut = buffer.rfind(b"\n", 0, end) + 1
        if not cut:
            kept = end
            if kept == len(buffer):
                buffer = buffer + bytes(len(buffer))
                view = memoryview(buffer)
            continue
        yield view[:cut]
        kept = end - cut
        buffer[:kept] = buffer[cut:end]
    if kept:
        yield view[:kept]
