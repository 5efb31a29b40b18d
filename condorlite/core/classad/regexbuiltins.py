"""Regular-expression built-ins (see ``builtins.py``): regexp, regexps, replace,
replaceall and regexpMember, following HTCondor's PCRE-based helper step by step.

Patterns: HTCondor uses PCRE2 in its byte-oriented mode, and so does condorlite,
through PCRE2's own binding (the ``pcre2`` package): bytes patterns against the UTF-8
bytes of the target, PCRE's whole syntax (``\\p{..}``, ``\\K``, verbs ...) and its
match limit, so a pattern that backtracks without end (``(a+)+$``) gives up in a tenth
of a second, as HTCondor's does. An invalid pattern, or a match that hits the limit,
is error.

Options: the letters ``i`` (ignore case), ``m`` (``^``/``$`` at line breaks), ``s``
(``.`` matches newline) and ``x`` (extended) anywhere in the options string; for the
substituting functions also ``f`` (the result is the full target with the
replacement(s) made in place; ``replace`` adds it) and ``g`` (every non-overlapping
match; ``replaceall`` adds ``fg``). Anything else, upper case included, is ignored.

Substitution templates: ``\\N`` (one digit) is group N of the match, "" if that group
took no part, error if N is not below 1 + the highest group that took part; a
backslash before anything else is kept as it is.

Global replacement, as HTCondor's loop does it: after an empty match the next try is
anchored at the same place and must not be empty; when it fails, one character is
copied and the search moves on. When that happens at the very end of the target,
HTCondor's next search starts past the end, which PCRE reports as an error: so a
global replacement whose pattern matches the empty string at the end of the target
(``replaceall("x*", "abc", "-")``, ``replaceall("$", s, t)``) evaluates to error.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import pcre2

from .builtins import register
from .values import Error, Undefined, from_utf8, list_values, utf8

_FLAGS = {"i": pcre2.I, "m": pcre2.M, "s": pcre2.S, "x": pcre2.X}
#: PCRE2_ALT_BSUX and PCRE2_NEVER_BACKSLASH_C (pcre2.h): the binding turns both on (for
#: Python's ``\\uhhhh`` spelling); HTCondor compiles without them, so ``\\x{41}`` is
#: "A" and ``\\C`` one byte there, and here.
_BINDING_ONLY = 0x00000002 | 0x00100000
#: What PCRE2 raises while matching: its match limit, and the other resource limits.
MatchFailed = pcre2.LibraryError


_QUANTIFIER = re.compile(rb"\{[0-9]+(,[0-9]*)?\}")
#: The escapes whose argument is in braces.
_BRACED = frozenset(bytes([c]) for c in b"pPxogkN")


def _old_braces(pattern: bytes) -> bytes:
    """``pattern`` with every ``{`` that does not open ``{n}``, ``{n,}`` or ``{n,m}``
    escaped. PCRE2 before 10.43 (HTCondor's) reads such a brace as itself; 10.43 and
    later (the binding's) also read ``{,m}`` and spaced forms as quantifiers. Escapes,
    ``\\Q...\\E`` and character classes are left as they are."""
    if b"{" not in pattern:
        return pattern
    out = bytearray()
    i, n, in_class = 0, len(pattern), False
    while i < n:
        c = pattern[i]
        if c == 0x5C:  # a backslash: keep the escape (and \Q...\E) whole
            if pattern[i + 1 : i + 2] == b"Q":
                end = pattern.find(b"\\E", i + 2)
                end = n if end < 0 else end + 2
                out += pattern[i:end]
                i = end
                continue
            if pattern[i + 1 : i + 2] in _BRACED and pattern[i + 2 : i + 3] == b"{":
                end = pattern.find(b"}", i + 3)  # \\p{L}, \\x{41}, \\g{1} ... whole
                end = n if end < 0 else end + 1
                out += pattern[i:end]
                i = end
                continue
            out += pattern[i : i + 2]
            i += 2
            continue
        if in_class:
            if c == 0x5B and pattern[i + 1 : i + 2] == b":":  # [:alpha:]
                end = pattern.find(b":]", i + 2)
                if end >= 0:
                    out += pattern[i : end + 2]
                    i = end + 2
                    continue
            if c == 0x5D:
                in_class = False
        elif c == 0x5B:
            in_class = True
            out.append(c)
            i += 1
            # a ] right after [ or [^ is a literal member
            if pattern[i : i + 1] == b"^":
                out.append(0x5E)
                i += 1
            if pattern[i : i + 1] == b"]":
                out.append(0x5D)
                i += 1
            continue
        elif c == 0x7B and not _QUANTIFIER.match(pattern, i):
            out += b"\\{"
            i += 1
            continue
        out.append(c)
        i += 1
    return bytes(out)


@functools.lru_cache(maxsize=1024)
def compile_pattern(pattern: str, options: str) -> Any | None:
    """The compiled (bytes) pattern with the option letters ``i m s x`` found in
    ``options`` (callers lower-case the options where HTCondor accepts both cases);
    None if the pattern is invalid. Match it against ``text.encode()``; a search may
    raise ``MatchFailed``. (The cache lives in the process: a pattern compiles to the
    same program whatever the command.)"""
    flags = 0
    for letter, flag in _FLAGS.items():
        if letter in options:
            flags |= flag
    try:
        text = _old_braces(pattern.encode(errors="surrogateescape"))
        # pcre2.compile less the binding's own options (_BINDING_ONLY): the same three
        # steps through its lower layer, which takes the options to leave out.
        code = pcre2._cy.compile(text, flags, _BINDING_ONLY)
        pcre2._cy.jit_compile(code)
        return pcre2.Pattern(code, text, pcre2.RegexFlag(flags), True, None)
    except (pcre2.PatternError, pcre2.LibraryError, UnicodeEncodeError, ValueError):
        return None


def first_special(values: tuple[object, ...]) -> object | None:
    """Error if any value is error, else undefined if any is undefined, else None
    (HTCondor's regex functions check all errors before any undefined)."""
    if any(v is Error for v in values):
        return Error
    if any(v is Undefined for v in values):
        return Undefined
    return None


def _group_count(match: Any) -> int:
    """PCRE's match count: 1 + the highest-numbered group that took part."""
    highest = 0
    for n in range(1, (match.re.groups or 0) + 1):
        if match.start(n) != -1:
            highest = n
    return highest + 1


_DIGITS = b"0123456789"


def _expand(template: bytes, match: Any) -> bytes | None:
    """The template with ``\\N`` replaced by group N; None (error) if N is too high."""
    out: list[bytes] = []
    limit = _group_count(match)
    i = 0
    n = len(template)
    while i < n:
        if template[i] == 0x5C and i + 1 < n and template[i + 1] in _DIGITS:
            group = template[i + 1] - 0x30
            if group >= limit:
                return None
            out.append(match.group(group) or b"")
            i += 2
            continue
        out.append(template[i : i + 1])
        i += 1
    return b"".join(out)


def substitute(
    compiled: Any, target: str, template: str, *, full: bool, every: bool
) -> object:
    """HTCondor's substitution loop (see the module docstring) over UTF-8 bytes: the
    string result, or Error. (A result that cuts a character in two is decoded with
    replacement characters; classad2 cannot return such a string at all.)"""
    data = utf8(target)
    pattern_text = utf8(template)
    try:
        return _substitute(compiled, data, pattern_text, full=full, every=every)
    except MatchFailed:
        return Error


def _substitute(compiled: Any, data: bytes, pattern_text: bytes, *, full: bool,
                every: bool) -> object:
    out: list[bytes] = []
    idx = 0
    n = len(data)
    after_empty = False
    while True:
        if after_empty:
            match = compiled.match(data, idx)
            if match is None or match.end() == idx:
                if idx >= n:  # HTCondor would search past the end: PCRE error
                    return Error
                out.append(data[idx : idx + 1])
                idx += 1
                after_empty = False
                continue
        else:
            match = compiled.search(data, idx)
            if match is None:
                break
        if full:
            out.append(data[idx : match.start()])
        expanded = _expand(pattern_text, match)
        if expanded is None:
            return Error
        out.append(expanded)
        idx = match.end()
        after_empty = match.start() == match.end()
        if not every:
            break
    if full:
        out.append(data[idx:])
    return from_utf8(b"".join(out))


def _options_or_special(args: tuple[object, ...], options: object | None) -> object:
    """The options string, or the error/undefined the call gives (errors in any
    argument first, then undefined, then a non-string options argument)."""
    given = args if options is None else (*args, options)
    special = first_special(given)
    if special is not None:
        return special
    if options is None:
        return ""
    return options if type(options) is str else Error


@register("regexp", 2, 3)
def regexp(pattern, target, options=None):  # type: ignore[no-untyped-def]
    """regexp(pattern, s[, options]): true if the pattern matches somewhere in s."""
    opts = _options_or_special((pattern, target), options)
    if type(opts) is not str:
        return opts
    if type(pattern) is not str or type(target) is not str:
        return Error
    compiled = compile_pattern(pattern, opts)
    if compiled is None:
        return Error
    try:
        return compiled.search(utf8(target)) is not None
    except MatchFailed:
        return Error


def _substitute_call(pattern, target, template, options, extra):  # type: ignore[no-untyped-def]
    opts = _options_or_special((pattern, target, template), options)
    if type(opts) is not str:
        return opts
    if type(pattern) is not str or type(target) is not str or type(template) is not str:
        return Error
    compiled = compile_pattern(pattern, opts)
    if compiled is None:
        return Error
    letters = opts + extra
    return substitute(compiled, target, template, full="f" in letters, every="g" in letters)


@register("regexps", 3, 4)
def regexps(pattern, target, template, options=None):  # type: ignore[no-untyped-def]
    """regexps(pattern, s, template[, options]): the template expanded with the first
    match's groups ("" if no match); options ``f`` and ``g`` as in the module doc."""
    return _substitute_call(pattern, target, template, options, "")


@register("replace", 3, 4)
def replace(pattern, target, template, options=None):  # type: ignore[no-untyped-def]
    """replace(pattern, s, template[, options]): s with its first match replaced."""
    return _substitute_call(pattern, target, template, options, "f")


@register("replaceall", 3, 4)
def replaceall(pattern, target, template, options=None):  # type: ignore[no-untyped-def]
    """replaceall(pattern, s, template[, options]): s with every match replaced."""
    return _substitute_call(pattern, target, template, options, "fg")


@register("regexpMember", 2, 3, reads_lists=True)
def regexp_member(pattern, values, options=None):  # type: ignore[no-untyped-def]
    """regexpMember(pattern, list[, options]): true if some string element matches.
    A non-string element is error, except undefined elements: with no match the
    answer is then undefined instead of false. An invalid pattern matches nothing."""
    opts = _options_or_special((pattern, values), options)
    if type(opts) is not str:
        return opts
    values = list_values(values)
    if type(pattern) is not str or type(values) is not list:
        return Error
    compiled = compile_pattern(pattern, opts)
    maybe_undefined = False
    for item in values:
        if type(item) is not str:
            if item is not Undefined:
                return Error
            maybe_undefined = True
        elif compiled is not None:
            try:
                if compiled.search(utf8(item)) is not None:
                    return True
            except MatchFailed:
                return Error
    return Undefined if maybe_undefined else False


__all__ = ["MatchFailed", "compile_pattern", "first_special", "substitute"]


#: The built-ins whose first argument is a pattern matched against the second.
PATTERN_CALLS = frozenset({"regexp", "regexps", "replace", "replaceall"})


def exceeds_match_limit(pattern: str, target: str) -> bool:
    """Whether matching ``pattern`` against ``target`` (no options) stops at PCRE2's
    match limit: the call is ``error`` in HTCondor too, and an ad that makes such a
    call can be told apart from one whose pattern simply does not match."""
    compiled = compile_pattern(pattern, "")
    if compiled is None:
        return False
    try:
        compiled.search(utf8(target))
    except MatchFailed:
        return True
    return False
