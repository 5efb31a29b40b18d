"""Parsing qstat's XML safely, and saying on which line a bad element is.

Safety. ``qstat -xml`` never writes a document type declaration, and every XML
entity attack (billion laughs, quadratic blowup, external entities) needs one, so a
``<!DOCTYPE`` in the prolog is refused before any parsing. That is the whole defence
and it does not depend on the expat Python was built with: expat >= 2.4 also stops
billion laughs by itself (Python 3.11 here has 2.5.0, which rejects it in 0.1 s with
"limit on input amplification factor"), but a Python linked against an older system
expat would expand it. ``defusedxml`` would do the same refusal; one prolog check
does not justify a dependency.

Lines. ``xml.etree.ElementTree`` (its C parser: a 10,000-job dump is megabytes of
environment lists) keeps no line numbers. A well-formedness error carries its
position; for a value that is wrong (``<JB_priority>x</JB_priority>``) the reader
raises ``XmlValueError`` with the element, and only then the file is parsed a second
time, with expat's line counter, to find the line of that element by its position in
the tree (``line_of``). The fast path pays nothing for good messages.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pyexpat import ParserCreate

from condorlite.errors import DataError

# The prolog: optional BOM, XML declaration, comments and processing instructions.
_PROLOG_ITEM = re.compile(rb"\s*(<\?.*?\?>|<!--.*?-->)", re.DOTALL)
_SPACE = re.compile(rb"\s*")
_LEAD = re.compile(rb"[\xef\xbb\xbf \t\r\n]*")


class XmlValueError(Exception):
    """An element whose text is not what the reader wants; ``problem`` is the text of
    the message after ``file:line:``."""

    def __init__(self, element: ET.Element, problem: str) -> None:
        super().__init__(problem)
        self.element = element
        self.problem = problem


def _refuse_doctype(data: bytes, source: str) -> None:
    position = 3 if data.startswith(b"\xef\xbb\xbf") else 0
    while match := _PROLOG_ITEM.match(data, position):
        position = match.end()
    start = _SPACE.match(data, position).end()  # no copy of a 400 MB document
    if data[start:start + 9].upper() == b"<!DOCTYPE":
        line = data.count(b"\n", 0, start) + 1
        raise DataError.at(source, line, "a document type declaration (<!DOCTYPE): "
                           "qstat never writes one, and entity definitions can make a "
                           "parser expand text without end; refused")


def check_prolog(data: bytes, source: str, what: str) -> None:
    """``data`` starts as XML and declares no document type (module doc); ``what``
    names the command that makes the file, for the message when the file holds
    something else (an error message)."""
    start = _LEAD.match(data).end()  # as data.lstrip(BOM and blanks), without a copy
    first = data[start:start + 1]
    if first != b"<":
        line = data.lstrip().split(b"\n", 1)[0].decode("utf-8", "replace")[:80]
        raise DataError.at(source, 1, f"expected the XML of {what}, found {line!r}")
    _refuse_doctype(data, source)


def parse(data: bytes, source: str, what: str) -> ET.Element:
    """The root element of ``data`` (``check_prolog`` first)."""
    check_prolog(data, source, what)
    try:
        return ET.fromstring(data)
    except ET.ParseError as exc:
        line, column = exc.position
        message = str(exc).split(": line ")[0]
        raise DataError.at(source, line, f"not well-formed XML: {message}",
                           column=column + 1) from None


def _index_path(root: ET.Element, target: ET.Element) -> list[int]:
    parents = {child: parent for parent in root.iter() for child in parent}
    path: list[int] = []
    node = target
    while node is not root:
        parent = parents[node]
        path.append(list(parent).index(node))
        node = parent
    return path[::-1]


class _Found(Exception):
    """Stops the second parse at the element looked for; carries its line."""


def line_of(data: bytes, root: ET.Element, target: ET.Element) -> int:
    """The line where ``target`` (an element of the tree parsed from ``data``) starts."""
    wanted = _index_path(root, target)
    parser = ParserCreate()
    path: list[int] = []
    counts = [0]  # elements started so far under each open element (and at the top)

    def start(_tag: str, _attrs: dict[str, str]) -> None:
        path.append(counts[-1])
        counts[-1] += 1
        counts.append(0)
        if path[1:] == wanted:
            raise _Found(parser.CurrentLineNumber)

    def end(_tag: str) -> None:
        path.pop()
        counts.pop()

    parser.StartElementHandler = start
    parser.EndElementHandler = end
    try:
        parser.Parse(data, True)
    except _Found as found:
        return int(found.args[0])
    return 0  # not reached for an element of the tree


def value_error(data: bytes, root: ET.Element, exc: XmlValueError, source: str) -> DataError:
    return DataError.at(source, line_of(data, root, exc.element), exc.problem)
