"""Reading JSON ads laid out as ``condor_status -json`` prints them, line by line.

That layout puts the array's ``[``, each ad's braces, each separating ``,`` and the
closing ``]`` on lines of their own, and each member on one line::

    [
    {
      "Name": "slot1@host",
      "Cpus": 1
    }
    ,
    ...
    ]

Real pools repeat most member lines from ad to ad, so they are read like old-form
lines (``oldform.py``): a whole member line is looked up in a cache
(``interning.JSON_MEMBER_LINES`` for lines ending with a comma, ``JSON_LAST_LINES``
for an ad's last member), a batch of lines at once (``map``), and only the lines the
cache does not answer (braces, separators, new member lines) are looked at one by
one (inside an ad, a known last member line first). A new member line is checked by
decoding it as a one-member object with the same decoder, unless ``_PLAIN_MEMBER``
shows what the decoder would give (an escape-free string or an integer), and
converted by the same code as ``jsonread`` (so it gives the same ``(name, (spelling,
expr))``); only a line holding exactly one member with a scalar value is cached.

Anything else (another layout, a nested object or array, a member across lines, a
bad line, text after the array) is handed to the general reader (``jsonread``) at a
line start: the first line of the ad it is in, or the line itself between ads,
with the line number it has in the file, so the general reader reads the rest and
reports any error exactly as it would have reading from the start (error positions
and messages are the same; only the number of good ads yielded before the error may
differ). Blank lines are allowed between any two lines, as JSON allows.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from itertools import chain

from condorlite.core.classad.ad import ClassAd
from condorlite.core.classad.errors import ClassAdSyntaxError
from condorlite.core.classad.interning import JSON_LAST_LINES, JSON_MEMBER_LINES, TextCache
from condorlite.core.classad.jsonread import (
    _EXPR_MARKED,
    _EXPR_RAW,
    _Object,
    _Reader,
    raw_decode,
)
from condorlite.core.classad.oldform import Pair, old_ad
from condorlite.core.classad.values import int_literal

_JSON_WS = " \t\r\n"
_SCALARS = (str, int, float, bool, type(None))

#: A member whose name and string value hold no escape, quote or control character,
#: or whose value is an integer as JSON writes one: the JSON decoder would give that
#: name and that string (or ``int`` of the digits), so ``_MemberLines.convert`` skips
#: it (a job's new ``GlobalJobId`` line, say). A string value with a backslash, such
#: as an ``\\/Expr(...)\\/``, never matches.
_PLAIN_MEMBER = re.compile(
    r'"([^"\\\x00-\x1f]*)"[ \t\r\n]*:[ \t\r\n]*'
    r'(?:"([^"\\\x00-\x1f]*)"|(-?(?:0|[1-9][0-9]*)))[ \t\r\n]*')

# Where the reader is: before the array, right after its "[", where an ad's "{" is
# due, inside an ad, after an ad's last member, where "," or "]" is due, after "]".
_START, _FIRST, _OPEN, _MEMBERS, _CLOSE, _SEP, _END = range(7)


def read_json_fast(batches: Iterable[list[str]], filename: str | None) -> Iterator[ClassAd]:
    """The ads of a JSON input given as batches of whole lines (``oldform.old_batches``);
    see the module docstring."""
    batches = iter(batches)
    member = _MemberLines(filename)
    commas = JSON_MEMBER_LINES
    state = _START
    pairs: list[Pair] = []
    place = _Place(filename)
    for batch in batches:
        last_young = JSON_LAST_LINES.young.get  # (a generation roll replaces it)
        if not place.next_batch(batch, state):
            # A line ended by a lone CR: from here the general reader's line numbers
            # (which count only LF) and ours part, so it reads the rest.
            yield from place.hand_over(state, 0, batches)
            return
        member.resolve_new(batch)
        hits = list(map(commas.young.get, batch))
        end = len(batch)
        pos = 0
        while pos < end:
            try:
                miss = hits.index(None, pos)
            except ValueError:
                miss = end
            if miss > pos:
                if state != _MEMBERS:  # a member outside an ad, or after the last one
                    yield from place.hand_over(state, pos, batches)
                    return
                pairs += hits[pos:miss]
            if miss == end:
                break
            pos = miss + 1
            raw = batch[miss]
            if state == _MEMBERS:
                # An ad's last member, seen before: the common miss inside an ad.
                hit = last_young(raw)
                if hit is not None:
                    pairs.append(hit)
                    state = _CLOSE
                    continue
            elif (state == _CLOSE and raw == "}\n" and miss + 2 < end
                    and batch[miss + 1] == ",\n" and batch[miss + 2] == "{\n"):
                # The usual lines between two ads, taken together: where "}", ","
                # then "{" one by one would leave the reader (only the "{" is kept).
                place.token_at(miss + 2, True)
                state = _MEMBERS
                pos = miss + 3
                yield old_ad(pairs)
                pairs = []
                continue
            token = raw.strip(_JSON_WS)
            if not token:
                continue
            if state == _MEMBERS:
                comma = token[-1] == ","
                hit = member.line(raw, comma)
                if hit is not None:
                    pairs.append(hit)
                    if not comma:
                        state = _CLOSE
                    continue
                if token in ("}", "},") and not pairs:  # an empty ad
                    state = _token(place, miss, token)
                    yield old_ad(pairs)
                    continue
            elif state == _CLOSE:
                if token in ("}", "},"):
                    state = _token(place, miss, token)
                    yield old_ad(pairs)
                    pairs = []
                    continue
            elif state in (_OPEN, _FIRST):
                if token == "{":
                    state = _token(place, miss, token)
                    continue
                if token == "]" and state == _FIRST:
                    state = _token(place, miss, token)
                    continue
            elif state == _SEP:
                if token in (",", "]"):
                    state = _token(place, miss, token)
                    continue
            elif state == _START and token == "[":
                state = _token(place, miss, token)
                continue
            yield from place.hand_over(state, miss, batches)
            return
        place.done_batch()
    if state != _END and state != _START:  # the input ended early: let the reader say so
        yield from place.hand_over_at_end(state)


#: The state after each structural line.
_AFTER = {"[": _FIRST, "{": _MEMBERS, "}": _SEP, "},": _OPEN, ",": _OPEN, "]": _END}


def _token(place: _Place, index: int, token: str) -> int:
    place.token_at(index, token == "{")
    return _AFTER[token]


class _Place:
    """Where in the input the reader is, kept so that the general reader can take
    over at a line start with the right line number.

    Line numbers count ``\\n`` characters, as the general reader does (a file opened
    with ``newline=""`` also ends lines at a lone CR, which JSON reads as a blank)."""

    def __init__(self, filename: str | None) -> None:
        self.filename = filename
        self.batch: list[str] = []
        self.newlines = 0  # "\\n" in the batches before ``batch``
        self.batch_newlines = 0  # and in ``batch``
        # From the batch of the open ad's "{" on (None: just the batch at hand, which
        # saves a list per ad), that line's index in the first and the newlines before.
        self.held: list[list[str]] | None = []
        self.held_start = (0, 0)
        # The same from the last structural line.
        self.tail: list[list[str]] | None = []
        self.tail_start = (0, 0)

    def next_batch(self, batch: list[str], state: int) -> bool:
        """Take ``batch`` as the one at hand; False when a line in it ends with a lone
        CR (the batches before had none, so every line start so far is also a start
        of line for the general reader)."""
        if state in (_MEMBERS, _CLOSE):
            if self.held is None:
                self.held = [self.batch]
            self.held.append(batch)
        if self.tail is None:
            self.tail = [self.batch]
        self.tail.append(batch)
        self.batch = batch
        text = "".join(batch)
        self.batch_newlines = text.count("\n")
        return "\r" not in text or text.count("\r") == text.count("\r\n")

    def done_batch(self) -> None:
        self.newlines += self.batch_newlines

    def token_at(self, index: int, opens_ad: bool) -> None:
        self.tail = None
        self.tail_start = start = (index, self.newlines)
        if opens_ad:
            self.held = None
            self.held_start = start

    def _held(self) -> list[list[str]]:
        return [self.batch] if self.held is None else self.held

    def hand_over(self, state: int, index: int, batches: Iterator[list[str]]
                  ) -> Iterator[ClassAd]:
        """The general reader from line ``index`` of the batch at hand (from the open
        ad's ``{`` line, inside an ad), then the remaining batches."""
        if state in (_MEMBERS, _CLOSE):
            lines, line0 = _lines_from(self._held(), *self.held_start)
            mode = "value"
        else:
            lines, line0 = _lines_from([self.batch], index, self.newlines)
            mode = _MODE[state]
        # Lines, not one joined text: the general reader buffers about CHUNK at a
        # time, and the lines may be the whole rest of a text given as a str.
        pieces = chain(lines, map("".join, batches))
        return _Reader(pieces, self.filename, line0).resume(mode)

    def hand_over_at_end(self, state: int) -> Iterator[ClassAd]:
        """At the end of the input, inside an ad or where a value, ``,`` or ``]`` is
        due: the general reader from the ad's ``{`` line, or from the last structural
        line with its token blanked out (only blanks follow it), so that the end of
        the input, where it reports the error, keeps its line and column."""
        if state in (_MEMBERS, _CLOSE):
            lines, line0 = _lines_from(self._held(), *self.held_start)
            mode = "value"
        else:
            lines, line0 = _lines_from(
                [self.batch] if self.tail is None else self.tail, *self.tail_start)
            lines[0] = "".join(ch if ch in _JSON_WS else " " for ch in lines[0])
            mode = _MODE[state]
        return _Reader(iter(["".join(lines)]), self.filename, line0).resume(mode)


#: The general reader's state for each of ours, between ads.
_MODE = {_START: "whole", _FIRST: "first", _OPEN: "value", _SEP: "sep", _END: "end"}


def _lines_from(batches: list[list[str]], index: int, newlines: int
                ) -> tuple[list[str], int]:
    """The lines from line ``index`` of ``batches[0]`` to the end of the last batch,
    and the first one's line number (``newlines``: the ``\\n`` before batches[0])."""
    first = batches[0]
    line0 = newlines + sum(line.count("\n") for line in first[:index]) + 1
    return first[index:] + [line for later in batches[1:] for line in later], line0


class _MemberLines:
    """Member lines to ``(lower-case name, (spelling, expr))`` through the two line
    caches; None for a line that is not exactly one scalar member (with, or without,
    its trailing comma as asked)."""

    def __init__(self, filename: str | None) -> None:
        self.reader = _Reader(iter(()), filename)  # its decoder and its conversions

    def resolve_new(self, batch: list[str]) -> None:
        """Cache the distinct member lines with a comma in ``batch`` that the cache
        lacks, before the batch is looked up (as ``oldform`` does), so that a new
        line repeated within the batch is converted once, not met as a miss each
        time."""
        cache = JSON_MEMBER_LINES
        young = cache.young
        old_get = cache.old.get
        convert = self.convert
        for raw in [raw for raw in dict.fromkeys(batch) if raw not in young]:
            if raw.rstrip(_JSON_WS).endswith(","):
                # self.line(raw, True), the young generation known to lack it.
                hit = old_get(raw) or convert(raw, True)
                if hit is None:
                    continue
                if len(young) < cache.limit:  # TextCache.put, inline but for a roll
                    young[raw] = hit
                else:
                    cache.put(raw, hit)
                    young = cache.young
                    old_get = cache.old.get

    def line(self, raw: str, comma: bool) -> Pair | None:
        cache: TextCache = JSON_MEMBER_LINES if comma else JSON_LAST_LINES
        hit = cache.get(raw)
        if hit is None:
            hit = self.convert(raw, comma)
            if hit is not None:
                cache.put(raw, hit)
        return hit

    def convert(self, raw: str, comma: bool) -> Pair | None:
        body = raw.strip(_JSON_WS)
        if body.endswith(",") != comma or not body.startswith('"') or "\\u0000" in body:
            return None
        if comma:
            body = body[:-1]
        reader = self.reader
        plain = _PLAIN_MEMBER.fullmatch(body)
        if plain is not None:
            # What the decoder would give, without it (see _PLAIN_MEMBER).
            name, string, number = plain.groups()
            pair = (name, int_literal(number) if string is None else string)
        else:
            text = "{" + body.replace(_EXPR_RAW, _EXPR_MARKED) + "}"
            try:
                item, end = raw_decode(reader.decoder, text)
            except (ValueError, RecursionError):
                return None
            if end != len(text) or type(item) is not _Object or len(item) != 1:
                return None
            pair = item[0]
            if type(pair[1]) not in _SCALARS:
                return None
        try:
            # Not through the pair caches: the line cache holds what they would, and
            # values are still shared through the scalar and expression caches.
            return reader.member(pair, 0)
        except ClassAdSyntaxError:
            return None
