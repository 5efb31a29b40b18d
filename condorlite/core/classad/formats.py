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

Reading is streamed: a file object is read as far as the ads taken so far need. Old
form: line by line. New form: whole lines, one chunk of complete records at a time
(``newform.py``). JSON: a buffer of about one ad (``jsonread.py``; a compact one-line
file is held whole). A text given as a ``str`` is split into lines first.

Reading is interned (``interning.py``): each distinct line or value text is parsed once
per process, and every ad holding it shares the same expression object (and, for a
whole repeated line, the same ``(spelling, expr)`` pair), which also lets the evaluator
compile it once. Parsing is eager, not lazy: every value is parsed (or found parsed)
when its ad is read, so a syntax error is raised, with file, line and column, when
the iteration reaches its line; ``store/adfiles.read_ads`` reads every file whole before
returning, so a bad file is refused before any work is done. (Lazy parsing was
measured and does not pay: with interning, parsing the distinct expressions of the
100,000-job benchmark pool takes a few milliseconds of a 2-second read.)
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import TextIO

from condorlite.core.classad.ad import ClassAd
from condorlite.core.classad.ast import Expr
from condorlite.core.classad.errors import ClassAdSyntaxError
from condorlite.core.classad.interning import OLD_LINES, OLD_VALUES
from condorlite.core.classad.jsonads import read_json_ads, write_json_ads
from condorlite.core.classad.newform import read_new_ads
from condorlite.core.classad.parser import parse_expr, quick_literal

FORMATS = ("auto", "old", "new", "json")

_OLD_LINE = re.compile(r"[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*=(?!=)[ \t]*")
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
    lines = _lines(source)
    head: list[str] = []
    if format == "auto":
        format = _detect(lines, head)
    if format == "old":
        yield from _read_old(chain(head, lines), filename)
        return
    if format == "json":
        yield from read_json_ads(chain(head, lines), filename=filename)
        return
    yield from read_new_ads(chain(head, lines), filename)


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
    """Lines with their line endings, from text or a file object. Decoding a file is
    its opener's business: a ``UnicodeDecodeError`` from the file object propagates."""
    if isinstance(source, str):
        return iter(source.splitlines(keepends=True))
    return iter(source)


def _detect(lines: Iterator[str], head: list[str]) -> str:
    """Decide the format from the first non-blank characters; consumed lines go to
    ``head``."""
    text = ""
    for line in lines:
        head.append(line)
        text += line
        stripped = text.lstrip(_BLANK)
        if not stripped:
            continue
        first = stripped[0]
        if first == "{":
            return "json"
        if first == "/":
            return "new"
        if first != "[":
            return "old"
        after = stripped[1:].lstrip(_BLANK)
        if after:
            return "json" if after[0] == "{" else "new"
    return "new" if text.strip(_BLANK) else "old"


def _read_old(lines: Iterable[str], filename: str | None) -> Iterator[ClassAd]:
    """Old-form ads, one line at a time. A line seen before (the whole raw line, in
    ``interning.OLD_LINES``) reuses its stored ``(name, (spelling, expr))`` without any
    parsing; other lines go through ``_old_line``."""
    cache = OLD_LINES
    young = cache.young
    attrs: dict[str, tuple[str, Expr]] = {}
    for lineno, raw in enumerate(lines, 1):
        hit = young.get(raw)
        if hit is None:
            hit = cache.get(raw)
            if hit is None:
                hit = _old_line(raw, lineno, filename)
                if hit is None:  # a blank or comment line
                    if attrs and not raw.strip(_BLANK):
                        yield ClassAd._from_attrs(attrs)
                        attrs = {}
                    continue
                cache.put(raw, hit)
            young = cache.young
        key, entry = hit
        # A repeated name keeps its first spelling and position, takes the last value.
        held = attrs.setdefault(key, entry)
        if held is not entry:
            attrs[key] = (held[0], entry[1])
    if attrs:
        yield ClassAd._from_attrs(attrs)


def _old_line(raw: str, lineno: int, filename: str | None):
    """``(lower-case name, (spelling, expr))`` of one old-form attribute line, None for
    a blank or ``#`` comment line; ``ClassAdSyntaxError`` for anything else."""
    line = raw.rstrip("\r\n")
    content = line.strip(_BLANK)
    if not content or content[0] == "#":
        return None
    m = _OLD_LINE.match(line)
    if m is None:
        raise ClassAdSyntaxError(
            "bad_line",
            "expected 'Name = expression'",
            line=lineno,
            column=len(line) - len(line.lstrip(_BLANK)) + 1,
            source=line,
            filename=filename,
            first_line=lineno,
        )
    name = m.group(1)
    start = m.end()
    value_text = line[start:].rstrip(_BLANK)
    expr = OLD_VALUES.get(value_text)
    if expr is None:
        expr = quick_literal(value_text)
        if expr is None:
            try:
                expr = parse_expr(value_text, old=True)
            except ClassAdSyntaxError as exc:
                raise ClassAdSyntaxError(
                    exc.kind,
                    f"attribute {name}: {exc.message}",
                    line=lineno,
                    column=start + exc.column,
                    source=line,
                    filename=filename,
                    first_line=lineno,
                ) from None
        OLD_VALUES.put(value_text, expr)
    return sys.intern(name.lower()), (sys.intern(name), expr)
