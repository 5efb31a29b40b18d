"""Regular-expression built-ins (see ``builtins.py``): regexp, regexps, replace,
replaceall and regexpMember, following HTCondor's PCRE-based helper step by step.

Patterns: HTCondor uses PCRE2; condorlite maps patterns onto Python's ``re`` (POSIX
classes such as ``[[:digit:]]`` are translated). An invalid pattern is error.

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

from .builtins import register
from .values import Error, Undefined

_POSIX_CLASSES = {
    "alpha": "a-zA-Z",
    "digit": "0-9",
    "alnum": "a-zA-Z0-9",
    "upper": "A-Z",
    "lower": "a-z",
    "space": " \\t\\n\\r\\f\\v",
    "blank": " \\t",
    "punct": "!-/:-@\\[-`{-~",
    "xdigit": "0-9A-Fa-f",
    "word": "\\w",
    "cntrl": "\\x00-\\x1f\\x7f",
    "print": " -~",
    "graph": "!-~",
}
_POSIX_RE = re.compile(r"\[:(\w+):\]")
_FLAGS = {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE}


@functools.lru_cache(maxsize=1024)
def compile_pattern(pattern: str, options: str) -> re.Pattern[str] | None:
    """The compiled pattern with the option letters ``i m s x`` found in ``options``
    (callers lower-case the options where HTCondor accepts both cases); None if the
    pattern is invalid."""
    flags = 0
    for letter, flag in _FLAGS.items():
        if letter in options:
            flags |= flag
    translated = _POSIX_RE.sub(lambda m: _POSIX_CLASSES.get(m.group(1), m.group(0)), pattern)
    try:
        return re.compile(translated, flags)
    except (re.error, OverflowError, RecursionError, ValueError):
        return None


def first_special(values: tuple[object, ...]) -> object | None:
    """Error if any value is error, else undefined if any is undefined, else None
    (HTCondor's regex functions check all errors before any undefined)."""
    if any(v is Error for v in values):
        return Error
    if any(v is Undefined for v in values):
        return Undefined
    return None


def _group_count(match: re.Match[str]) -> int:
    """PCRE's match count: 1 + the highest-numbered group that took part."""
    highest = 0
    for n in range(1, (match.re.groups or 0) + 1):
        if match.start(n) != -1:
            highest = n
    return highest + 1


def _expand(template: str, match: re.Match[str]) -> str | None:
    """The template with ``\\N`` replaced by group N; None (error) if N is too high."""
    out: list[str] = []
    limit = _group_count(match)
    i = 0
    n = len(template)
    while i < n:
        ch = template[i]
        if ch == "\\" and i + 1 < n and "0" <= template[i + 1] <= "9":
            group = ord(template[i + 1]) - 48
            if group >= limit:
                return None
            out.append(match.group(group) or "")
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


def substitute(
    compiled: re.Pattern[str], target: str, template: str, *, full: bool, every: bool
) -> object:
    """HTCondor's substitution loop (see the module docstring): the string result, or
    Error."""
    out: list[str] = []
    idx = 0
    n = len(target)
    after_empty = False
    while True:
        if after_empty:
            match = compiled.match(target, idx)
            if match is None or match.end() == idx:
                if idx >= n:  # HTCondor would search past the end: PCRE error
                    return Error
                out.append(target[idx])
                idx += 1
                after_empty = False
                continue
        else:
            match = compiled.search(target, idx)
            if match is None:
                break
        if full:
            out.append(target[idx : match.start()])
        expanded = _expand(template, match)
        if expanded is None:
            return Error
        out.append(expanded)
        idx = match.end()
        after_empty = match.start() == match.end()
        if not every:
            break
    if full:
        out.append(target[idx:])
    return "".join(out)


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
    return compiled.search(target) is not None


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


@register("regexpMember", 2, 3)
def regexp_member(pattern, values, options=None):  # type: ignore[no-untyped-def]
    """regexpMember(pattern, list[, options]): true if some string element matches.
    A non-string element is error, except undefined elements: with no match the
    answer is then undefined instead of false. An invalid pattern matches nothing."""
    opts = _options_or_special((pattern, values), options)
    if type(opts) is not str:
        return opts
    if type(pattern) is not str or type(values) is not list:
        return Error
    compiled = compile_pattern(pattern, opts)
    maybe_undefined = False
    for item in values:
        if type(item) is not str:
            if item is not Undefined:
                return Error
            maybe_undefined = True
        elif compiled is not None and compiled.search(item) is not None:
            return True
    return Undefined if maybe_undefined else False


__all__ = ["compile_pattern", "first_special", "substitute"]
