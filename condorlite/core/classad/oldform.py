"""Reading old-form ads (``condor_status -long``): one ``Name = expression`` per line.

The rules (what a line may hold, errors, repeated names) are in ``formats.py``; this
module is how they are applied fast. The unit of work is a *batch* of whole lines
(``old_batches``: about ``CHUNK`` characters of a file at a time), and the Python-level
work is per ad and per distinct line, never per line:

1. the batch's distinct lines (``dict.fromkeys``, at C speed) that the young generation
   of ``interning.OLD_LINES`` lacks are resolved first, in file order: from the old
   generation, else parsed by ``old_line`` and stored (a line that fails to parse is
   left for step 3, which reports it at its place);
2. the whole batch is looked up at once (``map`` over the young generation's ``get``),
   giving each line's shared ``(lower-case name, (spelling, expr))``;
3. the ads are cut at the empty lines (``list.index`` on the lines) and each is
   ``dict`` of its stretch of pairs; a stretch holding a None (a line the cache did
   not answer: a blank line with blanks on it, a comment, a bad line, a line a
   generation roll pushed out) is handled line by line (``_by_line``): a blank line
   ends the ad, a bad line raises with its own line number, and the ads before it
   are handed over first.

An ad is ``dict(pairs)`` of its lines; a repeated name (fewer keys than lines) is
rebuilt keeping the first spelling and position and the last value. The ads a batch
completes come out as one list (``read_old_ad_lists``).

``old_line`` itself takes the common lines (a plain name, then a literal value: a
string, ``\\"`` escapes included, a decimal integer or a real; ``_plain_literal``)
without the line regex or the parser; everything else goes through the line regex,
``quick_literal`` and, for non-literals, the parser. Both ways give the same pair for
the same text. (Converting a batch's new literal lines together, with ``map`` over a
regex's matches, was measured against this: fewer Python steps, but more
instructions and no less time on realistic job ads, whose new lines are long
strings that the regex scans a character at a time, where ``str.count`` does not.)
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator
from itertools import chain, filterfalse, islice
from typing import TextIO

from condorlite.core.classad.ad import ClassAd
from condorlite.core.classad.ast import Expr, Literal
from condorlite.core.classad.errors import ClassAdSyntaxError
from condorlite.core.classad.interning import OLD_LINES, OLD_NAMES, OLD_VALUES
from condorlite.core.classad.parser import parse_expr, quick_literal
from condorlite.core.classad.values import int_literal

#: Characters of a file read at a time (whole lines: ``readlines(CHUNK)``).
CHUNK = 1 << 16

_OLD_LINE = re.compile(r"[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*=(?!=)[ \t]*")
_HEAD = re.compile(r"[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*")
_BLANK = " \t\r\n\f\v"

Pair = tuple[str, tuple[str, Expr]]

_NAMES = OLD_NAMES
_NAMES_MAX = 10_000
#: A negative integer of at most 18 digits (inside int64: ``int`` reads it as
#: ``int_literal`` does), or (group 1) a real as ``quick_literal`` reads one.
_NUMBER = re.compile(r"-(?:0|[1-9][0-9]{0,17})|(-?[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?)")

_new = object.__new__
# Literal's slot setter: a value new to the caches (a job's GlobalJobId, a slot's
# EnteredCurrentActivity) is stored in a Literal built with one C call instead of
# the frozen dataclass ``__init__`` (``object.__setattr__`` through Python).
_set_value = Literal.value.__set__  # type: ignore[attr-defined]


def old_batches(source: str | TextIO, head: list[str], lines: Iterator[str]
                ) -> Iterator[list[str]]:
    """The lines of an input in batches: ``head`` (lines format detection took), then
    the rest of a text whole, or of a file about ``CHUNK`` characters at a time
    (``readlines`` keeps the file object's own line-end rule); any other iterable of
    lines 1024 lines at a time."""
    yield head
    if isinstance(source, str):
        yield list(lines)
        return
    readlines = getattr(source, "readlines", None)
    if readlines is None:
        while batch := list(islice(lines, 1024)):
            yield batch
        return
    while batch := readlines(CHUNK):
        yield batch


def read_old_ads(batches: Iterable[list[str]], filename: str | None) -> Iterator[ClassAd]:
    """The ads of an old-form input given as batches of lines, one at a time."""
    return chain.from_iterable(read_old_ad_lists(batches, filename))


def read_old_ad_lists(batches: Iterable[list[str]], filename: str | None
                      ) -> Iterator[list[ClassAd]]:
    """The ads of an old-form input given as batches of lines: a list for each batch
    of the ads it completes (see the module docstring for the three steps). On a bad
    line, the ads before it are yielded first, then the error is raised."""
    done: list[ClassAd] = []
    pairs: list[Pair] = []  # the current ad's lines, in order
    before = 0  # lines in the batches already done
    try:
        for batch in batches:
            pairs = _read_batch(batch, pairs, done, before, filename)
            before += len(batch)
            if done:
                yield done
                done = []
        if pairs:
            done.append(old_ad(pairs))
    except ClassAdSyntaxError:
        if done:
            yield done
        raise
    if done:
        yield done


def _read_batch(batch: list[str], pairs: list[Pair], done: list[ClassAd], before: int,
                filename: str | None) -> list[Pair]:
    """Append to ``done`` the ads ``batch`` completes (``pairs``: the lines of the ad
    the batches before left open); return the lines of the ad it leaves open."""
    cache = OLD_LINES
    from_attrs = ClassAd._from_attrs
    young = cache.young
    new = list(filterfalse(young.__contains__, dict.fromkeys(batch)))
    if new:
        _resolve_new(new)
        young = cache.young  # a generation roll replaces it
    hits = list(map(young.get, batch))
    find = batch.index
    end = len(batch)
    pos = 0
    while pos < end:
        try:
            stop = find("\n", pos)  # the next empty line: the usual end of an ad
        except ValueError:
            stop = end
        held = len(pairs)
        if held:
            pairs += hits[pos:stop]
        else:
            pairs = hits[pos:stop]
        if stop == end:
            if None in pairs:
                del pairs[held:]
                pairs = _by_line(batch, hits, pos, stop, pairs, done, before, filename)
            break
        try:
            attrs = dict(pairs)
        except TypeError:  # a None: a line the cache did not answer (step 3)
            del pairs[held:]
            pairs = _by_line(batch, hits, pos, stop, pairs, done, before, filename)
            attrs = dict(pairs)
        if pairs:
            # old_ad(pairs), its common case inline: no name repeats.
            done.append(from_attrs(attrs) if len(attrs) == len(pairs) else old_ad(pairs))
            pairs = []
        pos = stop + 1
    return pairs


def _by_line(batch: list[str], hits: list[Pair | None], start: int, stop: int,
             pairs: list[Pair], done: list[ClassAd], before: int, filename: str | None
             ) -> list[Pair]:
    """Step 3 of the module docstring for ``batch[start:stop]``, whose ``hits`` hold
    a None: the lines the cache answered are taken as they are, the others one by one
    (a blank line ends the ad, appended to ``done``; a comment is skipped; any other
    line is parsed, or raises with its line number). Returns the pairs of the ad
    still open."""
    index = hits.index
    pos = start
    while pos < stop:
        try:
            miss = index(None, pos, stop)
        except ValueError:
            pairs += hits[pos:stop]
            break
        if pairs:
            pairs += hits[pos:miss]
        else:
            pairs = hits[pos:miss]
        pos = miss + 1
        raw = batch[miss]
        if not raw.strip(_BLANK):  # a blank line ends the ad (if any)
            if pairs:
                done.append(old_ad(pairs))
                pairs = []
            continue
        hit = OLD_LINES.get(raw)
        if hit is None:
            hit = old_line(raw, before + pos, filename)
            if hit is None:  # a comment
                continue
            OLD_LINES.put(raw, hit)
        pairs.append(hit)
    return pairs


def _resolve_new(new: list[str]) -> None:
    """Store in ``OLD_LINES`` each line of ``new`` (distinct lines its young
    generation lacks) that parses (step 1 of the module docstring). Errors are left for
    the caller, which meets the line in order; blank and comment lines are never
    stored."""
    cache = OLD_LINES
    young = cache.young
    old_get = cache.old.get
    limit = cache.limit
    for raw in new:
        hit = old_get(raw)
        if hit is None:
            try:
                hit = old_line(raw, 0, None)
            except ClassAdSyntaxError:
                continue
            if hit is None:
                continue
        if len(young) < limit:  # TextCache.put, inline but for a generation roll
            young[raw] = hit
        else:
            cache.put(raw, hit)
            young = cache.young
            old_get = cache.old.get


def old_ad(pairs: list[Pair]) -> ClassAd:
    """The ad of one record's lines: one ``dict`` call, unless a name repeats (fewer
    keys than lines), which keeps its first spelling and position, and the last
    value."""
    attrs = dict(pairs)
    if len(attrs) != len(pairs):
        attrs = {}
        for key, entry in pairs:
            held = attrs.setdefault(key, entry)
            if held is not entry:
                attrs[key] = (held[0], entry[1])
    return ClassAd._from_attrs(attrs)


def old_line(raw: str, lineno: int, filename: str | None) -> Pair | None:
    """``(lower-case name, (spelling, expr))`` of one attribute line, None for a blank
    or ``#`` comment line; ``ClassAdSyntaxError`` for anything else.

    Fast path: the text before the first ``=`` is a known plain name
    (``interning.OLD_NAMES``), the ``=`` is not ``==``, and the value (after
    ``[ \\t]*``, trailing blanks dropped, as the line regex does) is in the value
    cache, or is an escape-free string or a decimal integer without sign or leading
    zero (``_plain_literal``)."""
    head, eq, rest = raw.partition("=")
    if not head or not eq or rest[:1] == "=":
        return _old_line_slow(raw, lineno, filename)
    named = _NAMES.get(head) or _new_name(head)
    if named is None:
        return _old_line_slow(raw, lineno, filename)
    text = rest.lstrip(" \t").rstrip(_BLANK)
    values = OLD_VALUES
    young = values.young
    expr = young.get(text)
    if expr is None:
        # A value found only in the old generation is stored young again, so that
        # a hot value never ages out (as TextCache.get does).
        expr = values.old.get(text) or _plain_literal(text)
        if expr is None:
            return _old_line_slow(raw, lineno, filename)
        if len(young) < values.limit:  # TextCache.put, inline but for a roll
            young[text] = expr
        else:
            values.put(text, expr)
    return named[0], (named[1], expr)


def _new_name(head: str) -> tuple[str, str] | None:
    """Remember ``head`` (the text before ``=``) when it is a plain name between
    spaces or tabs."""
    m = _HEAD.fullmatch(head)
    if m is None:
        return None
    if len(_NAMES) >= _NAMES_MAX:
        _NAMES.clear()
    name = m.group(1)
    named = _NAMES[head] = (sys.intern(name.lower()), sys.intern(name))
    return named


def _plain_literal(text: str) -> Literal | None:
    """The literal of a whole value text that is an old-syntax string with no NUL in
    which every ``"`` inside is written ``\\"`` (each read as ``"``, any other
    backslash as itself: the old string rule), a decimal integer of at most 18 digits
    without a leading zero (optionally negative), or a real as ``quick_literal`` reads
    one; None otherwise. Agrees with the parser (old string rule) on every text it
    answers for."""
    if text[:1] == '"':
        if len(text) < 2 or text[-1] != '"' or "\x00" in text:
            return None
        value: object = text[1:-1]
        quotes = value.count('"')  # type: ignore[attr-defined]
        if quotes:
            if value.count('\\"') != quotes:  # type: ignore[attr-defined]
                return None
            value = value.replace('\\"', '"')  # type: ignore[attr-defined]
    elif text.isdigit() and text.isascii() and (text[0] != "0" or len(text) == 1):
        value = int_literal(text)
    else:
        m = _NUMBER.fullmatch(text)
        if m is None:
            return None
        value = int(text) if m.lastindex is None else float(text)
    literal = _new(Literal)  # Literal(value), through its slot
    _set_value(literal, value)
    return literal


def _old_line_slow(raw: str, lineno: int, filename: str | None) -> Pair | None:
    """``old_line`` for any line: the line regex, the old value cache (both
    generations), the literal regex, then the parser."""
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
