"""Reading new-syntax ads (``[ ... ]``) streamed: whole lines, a few records at a time.

``record_chunks`` groups the input lines into chunks that each end with a line where a
top-level record closed (bracket depth back to 0, outside strings, quoted names and
comments); each chunk is then parsed on its own. Chunks start and end at line
boundaries, so an error's line and column are those of the file, and its ``source``
is the chunk (``first_line`` says where that starts). The scanner only has to find
where records end: it tracks ``[``/``]`` depth, ``"..."`` strings and ``'...'`` names
(with backslash escapes, across lines), ``//`` and ``/* */`` comments, exactly the
places where the lexer gives brackets no meaning. Any text it cannot place (an
unterminated string, an unbalanced bracket) stays in the last chunk, where the parser
reports it.

One difference from reading the text whole: each chunk is tokenized before it is
parsed, so errors come in file order chunk by chunk (a bad record is reported before
a lexical error in a later record).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator

from condorlite.core.classad.ad import ClassAd
from condorlite.core.classad.ast import Expr
from condorlite.core.classad.errors import ClassAdSyntaxError
from condorlite.core.classad.interning import NEW_LINES, NEW_VALUES
from condorlite.core.classad.lexer import tokenize
from condorlite.core.classad.parser import parse_expr, parse_records, quick_literal

# Outside strings and comments: what can open or close something.
_NORMAL = re.compile(r"""["'\[\]]|//|/\*""")
# A line with no bracket, quote name or comment outside complete "..." strings: the
# common attribute line, passed over with one match.
_PLAIN_LINE = re.compile(
    r"""(?:[^"'\[\]/\\]++|/(?![/*])|"(?:[^"\\]++|\\.)*+")*+""", re.DOTALL
)
# Inside a string, a quoted name, or a block comment: what can end it.
_CLOSE = {
    '"': re.compile(r'\\.|"', re.DOTALL),
    "'": re.compile(r"\\.|'", re.DOTALL),
    "/*": re.compile(r"\*/"),
}


def record_chunks(lines: Iterable[str]) -> Iterator[tuple[int, str]]:
    """``(first line number, text)`` of consecutive whole lines holding one or more
    complete top-level records (the last chunk may hold an incomplete one)."""
    buf: list[str] = []
    first = 1
    depth = 0
    state: str | None = None  # None, or the construct being inside: '"', "'", "/*"
    closed = False  # a top-level record ended in ``buf``
    for lineno, line in enumerate(lines, 1):
        if not buf:
            first = lineno
        buf.append(line)
        if state is None and _PLAIN_LINE.fullmatch(line):
            continue  # nothing in it opens or closes anything
        pos = 0
        while True:
            if state is None:
                m = _NORMAL.search(line, pos)
                if m is None:
                    break
                token = m.group()
                pos = m.end()
                if token == "[":
                    depth += 1
                elif token == "]":
                    depth -= 1
                    closed = closed or depth <= 0
                elif token == "//":
                    break
                else:
                    state = token
            else:
                m = _CLOSE[state].search(line, pos)
                if m is None:
                    break
                pos = m.end()
                if m.group()[0] != "\\":
                    state = None
        if closed and state is None and depth <= 0:
            yield first, "".join(buf)
            buf = []
            depth = 0
            closed = False
    if buf:
        yield first, "".join(buf)


def read_new_ads(lines: Iterable[str], filename: str | None) -> Iterator[ClassAd]:
    """The ads of new-syntax text given as lines, parsed chunk by chunk (a chunk in
    the one-attribute-per-line layout through ``_line_record``)."""
    for first, chunk in record_chunks(lines):
        ad = _line_record(chunk)
        if ad is not None:
            yield ad
            continue
        try:
            for record in parse_records(chunk):
                attrs = {sys.intern(name.lower()): (sys.intern(name), expr)
                         for name, expr in record.attrs}
                yield ClassAd._from_attrs(attrs)
        except ClassAdSyntaxError as exc:
            exc.filename = filename
            exc.line += first - 1
            exc.first_line = first
            raise


# ``Name = value;`` on one line (the ``;`` is optional on the line before ``]``).
_ATTR_LINE = re.compile(r"[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*=(?!=)(.*?)[ \t]*(;?)[ \t\r\n]*")
_KEYWORDS = frozenset({"true", "false", "undefined", "error", "is", "isnt"})
_BLANK = " \t\r\n\f\v"


def _line_record(chunk: str) -> ClassAd | None:
    """The ad of a chunk laid out as ``str(ad)`` prints it (a ``[`` line, one
    ``Name = value;`` per line, a ``]`` line), or None for any other layout or any
    doubt, in which case the caller parses the chunk in full (and reports its errors).

    Each attribute line is looked up whole in ``interning.NEW_LINES``; a line is stored
    there only once its value text parsed as one whole expression, which is exactly
    what makes ``Name = value;`` a valid attribute line. So identical lines share one
    expression, and only distinct ones are parsed."""
    body = chunk.strip(_BLANK).split("\n")
    if len(body) < 2 or body[0].strip(_BLANK) != "[" or body[-1].strip(_BLANK) != "]":
        return None
    cache = NEW_LINES
    attrs: dict[str, tuple[str, Expr]] = {}
    last = len(body) - 2
    for i in range(1, last + 1):
        line = body[i]
        hit = cache.get(line)
        if hit is None:
            hit = _attr_line(line)
            if hit is None:
                return None
            cache.put(line, hit)
        key, entry, terminated = hit
        if not terminated and i != last:
            return None
        held = attrs.setdefault(key, entry)
        if held is not entry:
            attrs[key] = (held[0], entry[1])
    return ClassAd._from_attrs(attrs)


def _attr_line(line: str) -> tuple[str, tuple[str, Expr], bool] | None:
    """``(lower-case name, (spelling, expr), ends with ';')`` of a ``Name = value;``
    line whose value parses whole; None otherwise."""
    m = _ATTR_LINE.fullmatch(line)
    if m is None:
        return None
    name, value_text = m.group(1), m.group(2).strip(_BLANK)
    if name.lower() in _KEYWORDS or not value_text:
        return None
    terminated = bool(m.group(3))
    if "/" in value_text and not _ends_as_split(value_text + m.group(3), terminated):
        return None  # a comment swallows the ';' or the line's end, or there is doubt
    expr = NEW_VALUES.get(value_text)
    if expr is None:
        expr = quick_literal(value_text)
        if expr is None:
            try:
                expr = parse_expr(value_text)
            except ClassAdSyntaxError:
                return None
        NEW_VALUES.put(value_text, expr)
    return sys.intern(name.lower()), (sys.intern(name), expr), terminated


def _ends_as_split(text: str, terminated: bool) -> bool:
    """Whether ``text`` (a value and its ``;`` if any) really ends with a ``;`` token
    exactly when ``terminated``: a ``//`` comment could hide the ``;``, and a string
    could hold ``//``. Only texts with a ``/`` need this check."""
    try:
        tokens = tokenize(text)
    except ClassAdSyntaxError:
        return False
    return (len(tokens) >= 2 and tokens[-2].kind == ";") == terminated
