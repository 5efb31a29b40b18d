"""ClassAd tokens: one compiled regular expression, a few hand-written scanners.

``tokenize(text)`` returns the whole token list, ending with an ``eof`` token. A token's
``kind`` is one of ``int real string ident bool undefined error eof`` or the canonical
text of an operator or punctuation mark (``"+"``, ``"&&"``, ``"?:"``, ``"is"`` ...).
Positions are 0-based offsets (``pos``) plus 1-based ``line`` and ``column``.

The rules follow HTCondor's lexer (src/classad/lexer.cpp, 25.x daemon mode), checked
against classad2:

* Whitespace is `` \\t\\n\\r\\f\\v``; comments are ``// ...`` to end of line and
  ``/* ... */`` (an unterminated block comment is an error).
* Identifiers are ASCII ``[A-Za-z_][A-Za-z0-9_]*``; ``true false undefined error is
  isnt`` are keywords, case-insensitively. ``'...'`` is a quoted identifier.
* Integers are decimal and 64-bit. A literal that does not fit is 0 (HTCondor's
  ``from_chars`` leaves it unset). A leading zero (``010``) and hex (``0x1F``) are
  errors, but a *negative* literal with a leading zero reads as decimal (``-010`` is
  -10, ``-0x1F`` is 0), as in HTCondor.
* Reals are ``digits.digits``, ``.digits``, with an optional ``e[+-]digits``; ``1.``
  and ``1e`` are errors.
* A ``-`` directly before a digit (or ``.digit``) is part of the number, making a
  negative literal (printed ``-1``, not `` -1``), unless the previous token ends a
  value (a literal, a name, ``.``, ``)``, ``]`` or ``}``), where it is binary minus.
* ``..`` is one selection token (a quirk of HTCondor's number scanner).
* ``?`` followed by ``:`` with only whitespace between is one elvis token ``?:``.
* Strings: ``"..."`` with escapes ``\\a \\b \\f \\n \\r \\t \\v \\\\ \\' \\" \\?``,
  octal ``\\ooo`` (up to three digits if the first is 0-3, else up to two); any other
  escaped character stands for itself; an escape giving NUL is an error. Adjacent
  strings separated only by whitespace are one string (their raw text is joined
  before escapes are read, as HTCondor does). Octal escapes are bytes: strings are
  UTF-8 decoded with ``surrogateescape`` so any byte survives a print round trip.
* ``old=True`` is the old ClassAd string rule used by ``condor_status -long`` files: a
  backslash is literal except before a quote that is not the last character of the
  line; no escapes, no joining.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from condorlite.core.classad.errors import ClassAdSyntaxError
from condorlite.core.classad.values import int_literal


class Token(NamedTuple):
    """One token: its kind, its value (for literals and names), and where it starts."""

    kind: str
    value: object
    pos: int
    line: int
    column: int


# "" is deliberately absent, so slicing past the end never counts as a digit.
_DIGITS = frozenset("0123456789")

# One pass over the text: every alternative is anchored at the current position.
_MASTER = re.compile(
    r"""
     (?P<ws>[ \t\n\r\f\v]+)
    |(?P<comment>//[^\n]*|/\*.*?\*/)
    |(?P<open_comment>/\*)
    |(?P<ident>[A-Za-z_][A-Za-z0-9_]*)
    |(?P<number>[0-9]|\.[0-9])
    |(?P<dotdot>\.\.(?![0-9]))
    |(?P<bad_dotdot>\.\.)
    |(?P<dq>")
    |(?P<sq>')
    |(?P<bad_meta>=\?(?!=))
    |(?P<elvis>\?[ \t\n\r\f\v]*:)
    |(?P<op>>>>|>>|>=|<<|<=|==|!=|=\?=|=!=|&&|\|\||[-+*/%~^?:;,.\[\](){}&|<>=!])
    """,
    re.VERBOSE | re.DOTALL,
)

_NUMBER = re.compile(r"-?([0-9]*)(\.[0-9]*)?([eE][+-]?[0-9]*)?")
_HEX_DIGITS = re.compile(r"[0-9a-fA-F]+")
_EXPONENT_OK = re.compile(r"[eE][+-]?[0-9]+\Z")
_STRING_BODY = {
    '"': re.compile(r'((?:[^"\\\x00]|\\[^\x00])*)"'),
    "'": re.compile(r"((?:[^'\\\x00]|\\[^\x00])*)'"),
}
_JOIN_NEXT = {'"': re.compile(r'[ \t\n\r\f\v]*"'), "'": re.compile(r"[ \t\n\r\f\v]*'")}
_ESCAPE = re.compile(r"\\(?:([0-3][0-7]{0,2}|[4-7][0-7]?)|(.))", re.DOTALL)
_SIMPLE_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}

KEYWORDS = {
    "true": ("bool", True),
    "false": ("bool", False),
    "undefined": ("undefined", None),
    "error": ("error", None),
    "is": ("is", None),
    "isnt": ("isnt", None),
}
# Operators spelled two ways map to one kind; the printer spells them back.
_OP_KIND = {"=?=": "is", "=!=": "isnt"}
# After one of these a '-' is binary minus, never the sign of a literal.
_VALUE_END = frozenset(
    {"int", "real", "string", "ident", "bool", "undefined", "error", ".", ")", "]", "}"}
)


def tokenize(text: str, *, old: bool = False) -> list[Token]:
    """Split ``text`` into tokens; raise ``ClassAdSyntaxError`` on a lexical error."""
    return _Scanner(text, old).run()


class _Scanner:
    __slots__ = ("line", "line_start", "old", "text", "tokens")

    def __init__(self, text: str, old: bool) -> None:
        self.text = text
        self.old = old
        self.tokens: list[Token] = []
        self.line = 1
        self.line_start = 0

    def fail(self, kind: str, message: str, pos: int) -> ClassAdSyntaxError:
        return ClassAdSyntaxError.at_offset(kind, message, self.text, pos)

    def emit(self, kind: str, value: object, pos: int) -> None:
        self.tokens.append(Token(kind, value, pos, self.line, pos - self.line_start + 1))

    def advance_lines(self, start: int, end: int) -> None:
        """Keep line/column bookkeeping right across a span that may hold newlines."""
        count = self.text.count("\n", start, end)
        if count:
            self.line += count
            self.line_start = self.text.rfind("\n", start, end) + 1

    def run(self) -> list[Token]:
        text = self.text
        pos = 0
        end = len(text)
        match = _MASTER.match
        while pos < end:
            m = match(text, pos)
            if m is None:
                raise self.fail("bad_character", f"unexpected character {text[pos]!r}", pos)
            group = m.lastgroup
            if group == "ws" or group == "comment":
                self.advance_lines(pos, m.end())
                pos = m.end()
            elif group == "ident":
                word = m.group()
                kind, value = KEYWORDS.get(word.lower(), ("ident", word))
                self.emit(kind, value, pos)
                pos = m.end()
            elif group == "op":
                op = m.group()
                if op == "-" and self._starts_negative_number(pos):
                    pos = self._number(pos)
                else:
                    self.emit(_OP_KIND.get(op, op), None, pos)
                    pos = m.end()
            elif group == "number":
                pos = self._number(pos)
            elif group == "dq" or group == "sq":
                pos = self._string(pos, m.group())
            elif group == "elvis":
                self.emit("?:", None, pos)
                self.advance_lines(pos, m.end())
                pos = m.end()
            elif group == "dotdot":
                self.emit(".", None, pos)
                pos = m.end()
            elif group == "open_comment":
                raise self.fail("unterminated_comment", "comment is never closed ('*/')", pos)
            elif group == "bad_dotdot":
                raise self.fail("bad_number", "malformed number after '..'", pos)
            else:  # bad_meta
                raise self.fail("unexpected_token", "'=?' must be followed by '='", pos)
        self.emit("eof", None, end)
        return self.tokens

    def _starts_negative_number(self, pos: int) -> bool:
        if self.tokens and self.tokens[-1].kind in _VALUE_END:
            return False
        nxt = self.text[pos + 1 : pos + 3]
        if nxt[:1] in _DIGITS:
            return True
        return nxt[:1] == "." and nxt[1:2] in _DIGITS

    def _number(self, pos: int) -> int:
        """Scan a numeric literal at ``pos`` (which may be a '-'); return the end."""
        text = self.text
        m = _NUMBER.match(text, pos)
        assert m is not None  # the pattern can match the empty string
        negative = text[pos] == "-"
        digits, fraction, exponent = m.group(1), m.group(2), m.group(3)
        if digits == "0" and text[m.end(1) : m.end(1) + 1] in ("x", "X"):
            return self._hex(pos, m.end(1) + 1, negative)
        if fraction == "." and digits:
            raise self.fail("bad_number", "a digit must follow the decimal point", pos)
        if exponent is not None and not _EXPONENT_OK.match(exponent):
            raise self.fail("bad_number", "the exponent has no digits", pos)
        end = m.end()
        literal = text[pos:end]
        if fraction is None and exponent is None:
            if len(digits) > 1 and digits[0] == "0":
                if not negative:
                    raise self.fail(
                        "bad_number", "integers with a leading zero (octal) are not allowed", pos
                    )
                if "8" in digits or "9" in digits:
                    raise self.fail("bad_number", "malformed octal-looking integer", pos)
            # HTCondor: an out-of-range literal reads as 0
            self.emit("int", int_literal(literal), pos)
        else:
            self.emit("real", float(literal), pos)
        return end

    def _hex(self, pos: int, digits_at: int, negative: bool) -> int:
        m = _HEX_DIGITS.match(self.text, digits_at)
        if m is None:
            raise self.fail("bad_number", "hexadecimal digits expected after '0x'", pos)
        if not negative:
            raise self.fail("bad_number", "hexadecimal integers are not allowed", pos)
        # HTCondor reads "-0x1F" in base 10 and stops at the 'x': the value is 0.
        self.emit("int", 0, pos)
        return m.end()

    def _string(self, pos: int, delim: str) -> int:
        """Scan a string literal or quoted name at ``pos``; return the end."""
        if self.old:
            value, end = _scan_old_string(self.text, pos, delim)
        else:
            value, end = self._scan_new_string(pos, delim)
        self.emit("string" if delim == '"' else "ident", value, pos)
        self.advance_lines(pos, end)
        return end

    def _scan_new_string(self, pos: int, delim: str) -> tuple[str, int]:
        text = self.text
        body = _STRING_BODY[delim]
        join = _JOIN_NEXT[delim]
        parts = []
        cursor = pos + 1
        while True:
            m = body.match(text, cursor)
            if m is None:
                what = "string" if delim == '"' else "quoted name"
                raise self.fail("unterminated_string", f"{what} is never closed", pos)
            parts.append(m.group(1))
            cursor = m.end()
            nxt = join.match(text, cursor)
            if nxt is None:
                break
            cursor = nxt.end()
        raw = parts[0] if len(parts) == 1 else "".join(parts)
        try:
            return convert_escapes(raw), cursor
        except ValueError as exc:
            raise self.fail("bad_escape", str(exc), pos) from None


def _scan_old_string(text: str, pos: int, delim: str) -> tuple[str, int]:
    """Old-syntax string: only ``\\"`` (not at end of line) is special."""
    pieces = []
    cursor = pos + 1
    while True:
        j = text.find(delim, cursor)
        nul = text.find("\x00", cursor, j if j >= 0 else len(text))
        if j < 0 or nul >= 0:
            raise ClassAdSyntaxError.at_offset(
                "unterminated_string", "string is never closed", text, pos
            )
        if j > cursor and text[j - 1] == "\\" and j + 1 < len(text) and text[j + 1] != "\n":
            pieces.append(text[cursor : j - 1])
            pieces.append(delim)
            cursor = j + 1
            continue
        pieces.append(text[cursor:j])
        return "".join(pieces), j + 1


def convert_escapes(raw: str) -> str:
    """Apply new-syntax string escapes to ``raw``; raise ValueError on a NUL."""
    if "\\" not in raw:
        return raw
    out = bytearray()
    last = 0
    for m in _ESCAPE.finditer(raw):
        out += _to_bytes(raw[last : m.start()])
        octal, char = m.group(1), m.group(2)
        if octal is not None:
            code = int(octal, 8)
            if code == 0:
                raise ValueError("an escape in the string gives a NUL character")
            out.append(code)
        else:
            out += _to_bytes(_SIMPLE_ESCAPES.get(char, char))
        last = m.end()
    out += _to_bytes(raw[last:])
    return out.decode("utf-8", "surrogateescape")


def _to_bytes(text: str) -> bytes:
    try:
        return text.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        # A lone surrogate cannot come from decoded file text; keep its code point.
        return text.encode("utf-8", "surrogatepass")
