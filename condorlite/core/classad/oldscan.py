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
takes that line's pair; a line at a position whose last line was new with a new value
(a per-ad value) skips the line table unless its value is known; a new line whose
name is that of the last line at its position skips the name lookup; an ad with the
previous ad's names in the same order starts from a copy of its dict.

Why: on realistic pools (160-attribute slots, 85-attribute jobs) the Python reader
spends its time on what every line costs however it is cached (making the line's
string, hashing and looking it up twice, ``benchmarks/RESULTS.md``); the scanner looks
each line up once in its own text and makes a string only for a line it has not seen.

``AVAILABLE`` says whether the module was built (``pip install`` builds it where a C
compiler is at hand; otherwise the Python reader does all the work). Setting the
environment variable ``CONDORLITE_PURE_PYTHON`` to a non-empty value turns the scanner
off (the tests run both readers on the same inputs).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TextIO

from condorlite.core.classad.ad import ClassAd
from condorlite.core.classad.ast import Literal
from condorlite.core.classad.errors import ClassAdSyntaxError
from condorlite.core.classad.interning import LIMIT, OLD_LINES, OLD_NAMES
from condorlite.core.classad.oldform import _new_name, old_ad, old_line

try:
    from condorlite.core.classad._oldscan import Scanner
except ImportError:  # built without a C compiler: the Python reader reads everything
    Scanner = None

AVAILABLE = Scanner is not None

#: Characters of a file read at a time.
CHUNK = 1 << 20

_BLANK = " \t\r\n\f\v"
#: What ``_miss`` returns for a line of blanks: it ends the ad, as an empty line does.
_END = object()


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
        new_name=_new_name, miss=miss, from_attrs=ClassAd._from_attrs, old_ad=old_ad,
        end=_END, limit=LIMIT, key=int.from_bytes(os.urandom(8), "little"),
    )
    pieces = iter((source,)) if isinstance(source, str) else _pieces(source, head)
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
