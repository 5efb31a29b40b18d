"""Reading JSON ads laid out as ``condor_status -json`` prints them with the compiled
scanner (``_oldscan/jsonlines.c``), when built.

The ads and errors are ``jsonfast.read_json_fast``'s (ad for ad, error for error: the
same ads, names, spellings, values and order; the same error at the same line and
column); only the work per line moves to C, which reads the text in pieces that end at
a line end, as the old-form scanner does (``oldscan.py``), with the same shortcuts: a
member line equal to the previous ad's at its position takes its pair, a line read
before is found in a bounded line table by its text, and a new member line whose name
holds no escape and whose value is a string without escapes or a number is read in C;
any other new member line goes to ``jsonfast``'s conversion (``_MemberLines.convert``),
so a line's pair is the same whichever reader read it.

What the layout does not hold (a member across lines, a nested value, one ad on one
line, a bad line, text after the array) stops the scanner: it says at which line the
general reader (``jsonread``) is to resume and in which of its states, the open ad's
``{`` line when it stopped inside an ad. The text from that line on is still at hand
(``_Kept``: the pieces from the one holding the first line a hand over can resume at),
and the general reader reads it and the rest of the input. An input that ends early is
handed over the same way at its end, from the open ad's ``{`` line or from the last
structural line with its token blanked out, so that the end, where the error is, keeps
its line and column.

Why: a pool's JSON queue reads at 80 MB/s in Python (``jsonfast``: the lines split,
looked up and converted one by one), against 500 MB/s for the same ads in the old form
through the scanner (``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from itertools import chain
from typing import TextIO

from condorlite.core.classad.ad import ClassAd
from condorlite.core.classad.ast import Literal
from condorlite.core.classad.interning import LIMIT
from condorlite.core.classad.jsonfast import _JSON_WS, _MemberLines
from condorlite.core.classad.jsonread import _Reader
from condorlite.core.classad.oldform import old_ad
from condorlite.core.classad.oldscan import Scanner, _pieces

#: names remembered at most (as ``jsonread._Reader.member`` bounds its own)
_NAMES_MAX = 10_000


def scan_json_ad_lists(source: str | TextIO, head: list[str], filename: str | None
                       ) -> Iterator[list[ClassAd]]:
    """The ads of a JSON input, a list for each piece of text read (module doc).
    ``source`` is the whole text or a text file object that ends lines at ``\\n``
    alone; ``head`` the lines format detection took from a file object."""
    names: dict[str, tuple[str, str]] = {}

    def new_name(name: str) -> tuple[str, str]:
        if len(names) >= _NAMES_MAX:
            names.clear()
        named = names[name] = (sys.intern(name.lower()), sys.intern(name))
        return named

    scanner = Scanner(
        literal_type=Literal, value_descr=Literal.__dict__["value"], names=names,
        new_name=new_name, miss=_MemberLines(filename).convert,
        from_attrs=ClassAd._from_attrs, old_ad=old_ad, end=None, limit=LIMIT,
        key=int.from_bytes(os.urandom(8), "little"), json=True,
    )
    pieces = iter((source,)) if isinstance(source, str) else _pieces(source, head)
    kept = _Kept()
    for text in pieces:
        kept.add(text)
        done: list[ClassAd] = []
        line = scanner.feed(text, done)
        if done:
            yield done
        if line is not None:
            yield from _resume(kept.text_from(line), pieces, filename, line, scanner.mode)
            return
        kept.drop_before(scanner.keep_from)
    end = scanner.finish([])
    if end is not None:
        line, mode, blank = end
        rest = kept.text_from(line)
        if blank:
            cut = rest.find("\n") + 1 or len(rest)
            rest = "".join(ch if ch in _JSON_WS else " " for ch in rest[:cut]) + rest[cut:]
        yield from _resume(rest, iter(()), filename, line, mode)


def _resume(rest: str, pieces: Iterator[str], filename: str | None, line: int, mode: str
            ) -> Iterator[list[ClassAd]]:
    """The general reader's ads from ``rest`` (the text from line ``line`` on) and the
    pieces after it, in state ``mode``, an ad at a time."""
    reader = _Reader(chain((rest,), pieces), filename, line)
    for ad in reader.resume(mode):
        yield [ad]


class _Kept:
    """The pieces read, from the one holding the first line a hand over can resume at
    (``Scanner.keep_from``), each with its first line's number: usually the piece at
    hand alone."""

    def __init__(self) -> None:
        self.pieces: list[tuple[int, str]] = []
        self.next_line = 1

    def add(self, text: str) -> None:
        self.pieces.append((self.next_line, text))
        self.next_line += text.count("\n")

    def drop_before(self, line: int) -> None:
        """Forget the pieces that end before line ``line``."""
        pieces = self.pieces
        drop = 0
        while drop + 1 < len(pieces) and pieces[drop + 1][0] <= line:
            drop += 1
        if drop:
            del pieces[:drop]

    def text_from(self, line: int) -> str:
        """The text kept from the start of line ``line`` on."""
        at = 0
        while at + 1 < len(self.pieces) and self.pieces[at + 1][0] <= line:
            at += 1
        first, text = self.pieces[at]
        offset = 0
        for _ in range(line - first):
            offset = text.find("\n", offset) + 1
            if not offset:  # (cannot happen: the line is in this piece)
                offset = len(text)
                break
        return text[offset:] + "".join(piece for _, piece in self.pieces[at + 1:])
