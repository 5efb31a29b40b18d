"""Reading and writing ads in the three text forms: old, new and JSON.

* **old** (``condor_status -long``, ``condor_q -long``): one ``Name = expression`` per
  line, ads separated by blank lines, ``#`` lines are comments. Expressions are read
  with the old string rule (a backslash is literal except in ``\\"``). Unlike HTCondor,
  which stops reading silently at the first bad line, any bad line is an error naming
  the file, the line, the column and the problem. Also unlike HTCondor, the name must
  be a plain identifier (HTCondor keeps quotes as part of the name) and text after the
  expression is an error (HTCondor ignores it).
* **new**: a sequence of ``[ ... ]`` ads, with ``//`` and ``/* */`` comments.
* **json**: see ``jsonads.py``.

``format="auto"`` looks at the first non-blank character: ``{``, or ``[`` followed by
``{``, is JSON; ``[`` otherwise, or ``/`` (a comment), is new; anything else is old.

A repeated attribute keeps its first spelling and position and takes the last value, as
in HTCondor.

Reading is streamed: a file object is read as far as the ads taken so far need, plus
at most about one chunk. Old form: batches of whole lines of about 64 KiB
(``oldform.py``), or, for a text or a file that ends lines at ``\n`` alone
(``newline_only``) when the compiled scanner is built, pieces of about a million
characters (``oldscan.py``: the same ads and errors, the per-line work in C). New
form: whole lines, one chunk of complete records at a time
(``newform.py``). JSON: the same batches of lines while the text keeps the
``condor_status -json`` layout (``jsonfast.py``), then, from the first line that does
not, a buffer of about one ad (``jsonread.py``; a compact one-line file is held
whole). A text given as a ``str`` is split into lines first.

Reading is interned (``interning.py``): each distinct line or value text is parsed once
per process, and every ad holding it shares the same expression object (and, for a
whole repeated line, the same ``(spelling, expr)`` pair), which also lets the evaluator
compile it once. Old-form lines seen for the first time whose value is a literal (a
job's ``GlobalJobId``, a slot's ``KFlops`` or ``AddressV1``: most of the lines real
ads do not repeat) are read without the parser (``oldform._plain_literal``).

Parsing is eager, not lazy: every value is parsed (or found parsed) when its ad is
read, so a syntax error is raised, with file, line and column, when the iteration
reaches its line; ``store/adfiles.read_ads`` reads every file whole before returning,
so a bad file is refused before any work is done. Lazy parsing was measured twice and
does not pay. On the genpool ads, parsing the distinct expressions of 100,000 jobs
takes a few milliseconds of a 2-second read. On realistic ads (issue 18: 160-attribute
slots, 85-attribute jobs, about 36 and 6 lines per ad seen nowhere else), what laziness
could put off is converting those values: about 0.14 s of 0.84 s for 10,000 slots and
0.21 s of 2.4 s for 100,000 jobs (``benchmarks/RESULTS.md``), and every line must still be
checked (the error contract) and named (``ClassAd`` keeps every name; the negotiator
reads the table directly, iterates its names, and keys caches on expression
identity), so an unparsed entry would have to be understood by every reader of an ad.

``parse_ad_lists`` gives the ads in lists (the old-form reader's per-batch lists), for
a caller that keeps them all; ``parse_ads`` gives them one at a time.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain
from typing import TextIO

from condorlite.core.classad import jsonscan, oldscan
from condorlite.core.classad.ad import ClassAd
from condorlite.core.classad.errors import ClassAdSyntaxError
from condorlite.core.classad.jsonads import write_json_ads
from condorlite.core.classad.jsonfast import read_json_fast
from condorlite.core.classad.newform import read_new_ads
from condorlite.core.classad.oldform import old_batches, read_old_ad_lists

FORMATS = ("auto", "old", "new", "json")

_BLANK = " \t\r\n\f\v"


def parse_ads(
    source: str | TextIO, format: str = "auto", *, filename: str | None = None
) -> Iterator[ClassAd]:
    """An iterator over the ads in ``source`` (text, or a text file object, read as
    the iteration goes: see the module docstring). Iterating raises
    ``ClassAdSyntaxError`` (with ``filename``) on bad input (a file object that cannot
    decode its bytes raises its own ``UnicodeDecodeError``); an unknown ``format`` is a
    ``ValueError`` at once."""
    if format not in FORMATS:
        raise ValueError(f"unknown ClassAd format {format!r}; expected one of {FORMATS}")
    return _parse_ads(source, format, filename)


def _parse_ads(source: str | TextIO, format: str, filename: str | None) -> Iterator[ClassAd]:
    return chain.from_iterable(parse_ad_lists(source, format, filename=filename))


def parse_ad_lists(source: str | TextIO, format: str = "auto", *,
                   filename: str | None = None, newline_only: bool = False
                   ) -> Iterator[list[ClassAd]]:
    """``parse_ads`` in lists: the same ads in the same order, several at a time (old
    form: the ads each batch of lines completes; the other forms: one by one), for a
    caller that keeps them all (``store.adfiles.read_ads``). On bad input, the ads
    before the error come first, then the error, as with ``parse_ads``.

    ``newline_only`` says that the file object ends lines at ``\n`` alone (opened
    with ``newline="\n"``, as ``store.adfiles`` opens files), so that old form can be
    read in pieces by the compiled scanner (``oldscan.py``, when built) instead of line
    by line; a file object cannot tell its own rule, and a text is split at ``\n``
    alone anyway."""
    if format not in FORMATS:
        raise ValueError(f"unknown ClassAd format {format!r}; expected one of {FORMATS}")
    return _parse_ad_lists(source, format, filename, newline_only)


def _parse_ad_lists(source: str | TextIO, format: str, filename: str | None,
                    newline_only: bool = False) -> Iterator[list[ClassAd]]:
    lines = _lines(source)
    head: list[str] = []
    if format == "auto":
        format = _detect(lines, head)
    if format == "old":
        if oldscan.enabled() and (isinstance(source, str) or newline_only):
            yield from oldscan.scan_old_ad_lists(source, head, filename)
        else:
            yield from read_old_ad_lists(old_batches(source, head, lines), filename)
        return
    if format == "json":
        if oldscan.enabled() and (isinstance(source, str) or newline_only):
            yield from jsonscan.scan_json_ad_lists(source, head, filename)
            return
        ads = read_json_fast(old_batches(source, head, lines), filename)
    else:
        ads = read_new_ads(chain(head, lines), filename)
    yield from map(_one, ads)


def _one(ad: ClassAd) -> list[ClassAd]:
    return [ad]


def parse_ad(source: str | TextIO, format: str = "auto", *, filename: str | None = None):
    """Exactly one ad from ``source``; zero or several ads is a ``ClassAdSyntaxError``."""
    ads = parse_ads(source, format, filename=filename)
    first = next(ads, None)
    if first is None:
        raise ClassAdSyntaxError(
            "unexpected_end",
            "expected one ClassAd but found none",
            line=1,
            column=1,
            source=source if isinstance(source, str) else "",
            filename=filename,
        )
    if next(ads, None) is not None:
        raise ClassAdSyntaxError(
            "unexpected_token",
            "expected one ClassAd but found several",
            line=1,
            column=1,
            source=source if isinstance(source, str) else "",
            filename=filename,
        )
    return first


def write_ads(ads: Iterable[ClassAd], format: str = "old", *, sort: bool = False) -> str:
    """Ads as text. ``old``: each ad's lines then a blank line (as ``condor_status
    -long``); ``new``: each ad pretty-printed as classad2's ``str(ad)``, one per line
    group; ``json``: the ``condor_status -json`` array. ``sort=True`` orders attributes
    as HTCondor stores them (byte-identical to classad2's output)."""
    if format == "old":
        return "".join(ad.to_old(sort=sort) + "\n" for ad in ads)
    if format == "new":
        return "".join(ad.to_new(sort=sort) + "\n" for ad in ads)
    if format == "json":
        return write_json_ads(ads, sort=sort)
    raise ValueError(f"unknown ClassAd format {format!r}; expected old, new or json")


# -- helpers ------------------------------------------------------------------------


def _lines(source: str | TextIO) -> Iterator[str]:
    """Lines with their line endings, from text or a file object: split at ``\\n``
    only, as HTCondor reads ads (``\\r``, ``\\v``, ``\\f``, U+2028 and the like stay
    inside their line; ``str.splitlines`` would split there). A file must be opened
    with ``newline="\\n"`` for the same rule. Decoding a file is its opener's business:
    a ``UnicodeDecodeError`` from the file object propagates."""
    if isinstance(source, str):
        return iter(_split_at_newlines(source))
    return iter(source)


def _split_at_newlines(text: str) -> list[str]:
    pieces = text.split("\n")
    lines = [piece + "\n" for piece in pieces[:-1]]
    if pieces[-1]:
        lines.append(pieces[-1])
    return lines


def _detect(lines: Iterator[str], head: list[str]) -> str:
    """Decide the format from the first non-blank characters; consumed lines go to
    ``head``. Each line is looked at once, alone: blank lines before the first
    character (or after a first ``[``) are not gathered, so a file of millions of
    blank lines costs its length, not its length squared."""
    bracket = False  # a "[" seen, and only blanks after it so far
    for line in lines:
        head.append(line)
        stripped = line.lstrip(_BLANK)
        if not stripped:
            continue
        if not bracket:
            first = stripped[0]
            if first == "{":
                return "json"
            if first == "/":
                return "new"
            if first != "[":
                return "old"
            bracket = True
            stripped = stripped[1:].lstrip(_BLANK)
            if not stripped:
                continue
        return "json" if stripped[0] == "{" else "new"
    return "new" if bracket else "old"
