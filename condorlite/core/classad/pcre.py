"""PCRE pattern syntax translated to Python's ``re``, for the regex built-ins.

HTCondor compiles ClassAd patterns with PCRE2 in its default (non-UTF) mode, so
patterns see bytes: ``.`` is one byte, ``\\d \\w \\s`` and case folding are ASCII
only. condorlite therefore matches *bytes* patterns against the UTF-8 bytes of the
target, which Python's ``re`` treats exactly that way.

``translate(pattern)`` rewrites the PCRE constructs ``re`` spells differently or lacks:

* ``\\Q...\\E`` (quoted literal text), ``\\z`` (end), ``\\Z`` (end or before a final
  newline), ``\\h``/``\\H`` (horizontal space), ``\\R`` (any line break), ``\\N`` (not a
  newline), ``\\e``, ``\\cX``, ``\\x{hh}``, ``\\o{ooo}``;
* named groups ``(?<name>...)``/``(?'name'...)`` and back-references ``\\k<name>``,
  ``\\k'name'``, ``\\k{name}``, ``\\g{n}``, ``\\gn``;
* POSIX classes inside brackets (``[[:digit:]]``, ``[[:^alpha:]]``) and the word
  boundaries ``[[:<:]]``/``[[:>:]]``;
* ``{`` that does not start a quantifier ``{n}``, ``{n,}``, ``{n,m}`` is literal in
  PCRE (``a{,2}`` matches the text "a{,2}"); Python would read ``{,2}`` as {0,2}.

Anything else goes through as written; what ``re`` rejects (``\\p{..}``, ``\\K``,
``(?|...)``, verbs like ``(*UTF)``) makes the pattern invalid, which the built-ins
report as error where HTCondor would have matched: a documented difference.
"""

from __future__ import annotations

import re

_POSIX = {
    "alpha": b"a-zA-Z",
    "digit": b"0-9",
    "alnum": b"a-zA-Z0-9",
    "upper": b"A-Z",
    "lower": b"a-z",
    "space": b" \\t\\n\\r\\f\\v",
    "blank": b" \\t",
    "punct": b"!-/:-@\\[-`{-~",
    "xdigit": b"0-9A-Fa-f",
    "word": b"\\w",
    "cntrl": b"\\x00-\\x1f\\x7f",
    "print": b" -~",
    "graph": b"!-~",
    "ascii": b"\\x00-\\x7f",
}
_SIMPLE_ESCAPES = {
    "z": b"\\Z",
    "Z": b"(?=\\n?\\Z)",
    "h": b"[\\t \\xa0]",
    "H": b"[^\\t \\xa0]",
    "R": b"(?:\\r\\n|[\\n\\x0b\\x0c\\r\\x85])",
    "e": b"\\x1b",
}
_QUANTIFIER = re.compile(r"\{\d+(,\d*)?\}")
_NAMED_GROUP = re.compile(r"\(\?(?:<([A-Za-z_]\w*)>|'([A-Za-z_]\w*)')")
_NAMED_REF = re.compile(r"\\k(?:<(\w+)>|'(\w+)'|\{(\w+)\})|\\g\{(\w+)\}|\\g(\d+)")
_CODE_ESCAPE = re.compile(r"\\(?:x\{([0-9A-Fa-f]+)\}|o\{([0-7]+)\}|c(.))")


def _byte(code: int) -> bytes:
    """One character code as a pattern escape (UTF-8 bytes above 0xff)."""
    if code <= 0xFF:
        return b"\\x%02x" % code
    return b"".join(b"\\x%02x" % b for b in chr(code).encode())


def _escape_at(p: str, i: int, in_class: bool) -> tuple[bytes, int]:
    """Translate the escape starting at ``p[i] == '\\\\'``; returns (text, next index)."""
    nxt = p[i + 1] if i + 1 < len(p) else ""
    m = _CODE_ESCAPE.match(p, i)
    if m:
        hexa, octal, ctrl = m.groups()
        if hexa is not None:
            return _byte(int(hexa, 16)), m.end()
        if octal is not None:
            return _byte(int(octal, 8)), m.end()
        return _byte(ord(ctrl.upper()) ^ 0x40), m.end()
    if not in_class:
        if nxt in _SIMPLE_ESCAPES:
            return _SIMPLE_ESCAPES[nxt], i + 2
        if nxt == "N" and p[i + 2 : i + 3] != "{":
            return b"[^\\n]", i + 2
        m = _NAMED_REF.match(p, i)
        if m:
            name = next(g for g in m.groups() if g is not None)
            return (b"(?P=%s)" % name.encode()) if not name.isdigit() else (
                b"\\" + name.encode()
            ), m.end()
    elif nxt in ("h", "e"):
        return (b"\\t \\xa0" if nxt == "h" else b"\\x1b"), i + 2
    return p[i : i + 2].encode(), i + 2


def _class_at(p: str, i: int) -> tuple[bytes, int]:
    """Translate the bracket expression starting at ``p[i] == '['``."""
    if p.startswith("[[:<:]]", i):
        return b"\\b(?=\\w)", i + 7
    if p.startswith("[[:>:]]", i):
        return b"\\b(?<=\\w)", i + 7
    out = [b"["]
    j = i + 1
    if p[j : j + 1] == "^":
        out.append(b"^")
        j += 1
    if p[j : j + 1] == "]":  # a leading ] is literal
        out.append(b"\\]")
        j += 1
    while j < len(p) and p[j] != "]":
        if p[j] == "\\":
            text, j = _escape_at(p, j, in_class=True)
            out.append(text)
            continue
        m = re.compile(r"\[:(\^?)(\w+):\]").match(p, j)
        if m and m.group(2) in _POSIX and not m.group(1):
            out.append(_POSIX[m.group(2)])
            j = m.end()
            continue
        if p[j] == "[":  # a literal [ (Python would warn about nested sets)
            out.append(b"\\[")
        else:
            out.append(p[j].encode())
        j += 1
    if j >= len(p):
        raise re.error("unterminated character class")
    out.append(b"]")
    return b"".join(out), j + 1


def translate(pattern: str) -> bytes:
    """The PCRE ``pattern`` as a Python bytes pattern (see the module docstring);
    raises ``re.error`` for constructs it cannot express."""
    out: list[bytes] = []
    p = pattern
    i = 0
    while i < len(p):
        ch = p[i]
        if ch == "\\":
            if p.startswith("\\Q", i):
                end = p.find("\\E", i + 2)
                stop = len(p) if end < 0 else end
                out.append(re.escape(p[i + 2 : stop].encode()))
                i = len(p) if end < 0 else end + 2
                continue
            text, i = _escape_at(p, i, in_class=False)
            out.append(text)
        elif ch == "[":
            text, i = _class_at(p, i)
            out.append(text)
        elif ch == "{" and not _QUANTIFIER.match(p, i):
            out.append(b"\\{")
            i += 1
        elif ch == "(" and (m := _NAMED_GROUP.match(p, i)):
            out.append(b"(?P<%s>" % (m.group(1) or m.group(2)).encode())
            i = m.end()
        else:
            out.append(ch.encode())
            i += 1
    return b"".join(out)


__all__ = ["translate"]
