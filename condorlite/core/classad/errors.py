"""The one exception the ClassAd readers raise: ``ClassAdSyntaxError``.

Every failure to read ClassAd text (an expression, an ad in any of the three formats)
is reported as a ``ClassAdSyntaxError`` carrying:

* ``kind``: a stable, machine-readable name (see ``KINDS``); messages may change,
  kinds do not;
* ``message``: one human sentence;
* ``line`` and ``column``: 1-based, always inside ``source`` or just past its end;
* ``source``: the text that was being read (for a file, the offending line only);
* ``filename``: the file name, or None when the text did not come from a file;
* ``first_line``: the line number of the first line of ``source`` (1 unless
  ``source`` is one line taken from a larger file).

``str(err)`` gives ``[filename:]line:column: message``, then the offending line and a
caret line pointing at the column.
"""

from __future__ import annotations

KINDS = frozenset(
    {
        "unexpected_token",  # a token that cannot start or continue the construct
        "unexpected_end",  # the text ended in the middle of a construct
        "unterminated_string",  # a string or quoted name with no closing quote
        "unterminated_comment",  # a /* comment with no */
        "bad_number",  # malformed or unsupported numeric literal (08, 0x1F, 1., 1e)
        "bad_escape",  # an escape that yields a NUL character
        "bad_time",  # absTime("...")/relTime("...") with a string that names no time
        "bad_character",  # a character that starts no token (@, $, non-ASCII outside strings)
        "too_deep",  # nesting deeper than the parser's limit
        "bad_line",  # an old-format line that is not ``Name = expression``
        "bad_json",  # malformed JSON, or a JSON value with no ClassAd meaning
    }
)


class ClassAdSyntaxError(Exception):
    """Text that is not valid ClassAd syntax, with its position."""

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        line: int,
        column: int,
        source: str,
        filename: str | None = None,
        first_line: int = 1,
    ) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.line = line
        self.column = column
        self.source = source
        self.filename = filename
        self.first_line = first_line

    @classmethod
    def at_offset(
        cls, kind: str, message: str, source: str, offset: int, filename: str | None = None
    ) -> ClassAdSyntaxError:
        """Build the error for a 0-based character offset into ``source``."""
        offset = max(0, min(offset, len(source)))
        line = source.count("\n", 0, offset) + 1
        line_start = source.rfind("\n", 0, offset) + 1
        return cls(
            kind,
            message,
            line=line,
            column=offset - line_start + 1,
            source=source,
            filename=filename,
        )

    @property
    def source_line(self) -> str:
        """The text of the offending line (without its newline)."""
        lines = self.source.split("\n")
        index = self.line - self.first_line
        if 0 <= index < len(lines):
            return lines[index].rstrip("\r")
        return ""

    @property
    def caret(self) -> str:
        """The offending line, then a line with ``^`` under the column."""
        text = self.source_line
        # Tabs are kept in the padding so the caret lines up in a terminal.
        pad = "".join("\t" if ch == "\t" else " " for ch in text[: self.column - 1])
        return f"{text}\n{pad}^"

    @property
    def location(self) -> str:
        """``file:line:column`` (or ``line:column``)."""
        where = f"{self.line}:{self.column}"
        return f"{self.filename}:{where}" if self.filename else where

    def __str__(self) -> str:
        return f"{self.location}: {self.message}\n{self.caret}"

    def __repr__(self) -> str:
        return (
            f"ClassAdSyntaxError(kind={self.kind!r}, message={self.message!r}, "
            f"line={self.line}, column={self.column}, filename={self.filename!r})"
        )
