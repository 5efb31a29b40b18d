"""String, regular-expression, string-list and version built-ins (see ``builtins.py``).

Regular expressions: HTCondor uses PCRE; condorlite maps patterns onto Python's ``re``.
Option letters: ``i`` ignore case, ``m`` ``^``/``$`` at line breaks, ``s`` ``.`` matches
newline, ``x`` extended (white space and ``#`` comments ignored); other letters, and
upper-case ones, are ignored, as HTCondor does. POSIX classes such as ``[[:digit:]]``
are translated. An invalid pattern is error. Substitution templates use ``\\0`` (the
whole match) to ``\\9``; referring to a group that did not take part in the match is
error, and so is ``replaceall`` with a pattern that matches the empty string.
"""

from __future__ import annotations

import functools
import re

from .builtins import register
from .operators import ascii_lower
from .textfuncs import ascii_upper, natural_cmp, string_list, strtod, to_text
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


def _exceptional(*values: object) -> object | None:
    """Error if any value is error, else undefined if any is undefined, else None."""
    for v in values:
        if v is Error:
            return Error
    for v in values:
        if v is Undefined:
            return Undefined
    return None


@functools.lru_cache(maxsize=1024)
def _compile(pattern: str, options: str) -> re.Pattern[str] | None:
    flags = 0
    for letter in options:
        flags |= {"i": re.IGNORECASE, "m": re.MULTILINE, "s": re.DOTALL, "x": re.VERBOSE}.get(
            letter, 0
        )
    translated = _POSIX_RE.sub(lambda m: _POSIX_CLASSES.get(m.group(1), m.group(0)), pattern)
    try:
        return re.compile(translated, flags)
    except (re.error, OverflowError, RecursionError):
        return None


def _regex_args(pattern: object, target: object, options: object = "") -> object:
    """A compiled pattern and the target, or the undefined/error the call gives."""
    special = _exceptional(pattern, target, options)
    if special is not None:
        return special
    if type(pattern) is not str or type(target) is not str or type(options) is not str:
        return Error
    compiled = _compile(pattern, options)
    return Error if compiled is None else compiled


@register("regexp", 2, 3)
def regexp(pattern, target, options=""):  # type: ignore[no-untyped-def]
    """regexp(pattern, s[, options]): true if the pattern matches somewhere in s."""
    compiled = _regex_args(pattern, target, options)
    if not isinstance(compiled, re.Pattern):
        return compiled
    return compiled.search(target) is not None


def _expand(template: str, match: re.Match[str]) -> str | None:
    """Expand \\0..\\9 in a substitution template; None if a group did not match."""
    out: list[str] = []
    i = 0
    while i < len(template):
        ch = template[i]
        if ch == "\\" and i + 1 < len(template) and template[i + 1].isdigit():
            group = int(template[i + 1])
            if group > (match.re.groups or 0):
                return None
            text = match.group(group)
            if text is None:
                return None
            out.append(text)
            i += 2
            continue
        out.append(ch)
        i += 1
    return "".join(out)


@register("regexps", 3, 4)
def regexps(pattern, target, template, options=""):  # type: ignore[no-untyped-def]
    """regexps(pattern, s, template[, options]): the template expanded with the first
    match's groups ("" if no match)."""
    return _substitute(pattern, target, template, options, mode="template")


@register("replace", 3, 4)
def replace(pattern, target, template, options=""):  # type: ignore[no-untyped-def]
    """replace(pattern, s, template[, options]): s with its first match replaced."""
    return _substitute(pattern, target, template, options, mode="first")


@register("replaceall", 3, 4)
def replaceall(pattern, target, template, options=""):  # type: ignore[no-untyped-def]
    """replaceall(pattern, s, template[, options]): s with every match replaced."""
    return _substitute(pattern, target, template, options, mode="all")


def _substitute(pattern, target, template, options, *, mode):  # type: ignore[no-untyped-def]
    special = _exceptional(template)
    compiled = _regex_args(pattern, target, options)
    if not isinstance(compiled, re.Pattern):
        return compiled
    if special is not None:
        return special
    if type(template) is not str:
        return Error
    if mode == "template":
        match = compiled.search(target)
        if match is None:
            return ""
        expanded = _expand(template, match)
        return Error if expanded is None else expanded
    pieces: list[str] = []
    position = 0
    for match in compiled.finditer(target):
        if mode == "all" and match.start() == match.end():
            return Error
        expanded = _expand(template, match)
        if expanded is None:
            return Error
        pieces.append(target[position : match.start()])
        pieces.append(expanded)
        position = match.end()
        if mode == "first":
            break
    pieces.append(target[position:])
    return "".join(pieces)


@register("regexpMember", 2, 3)
def regexp_member(pattern, values, options=""):  # type: ignore[no-untyped-def]
    """regexpMember(pattern, list[, options]): true if some string element matches."""
    special = _exceptional(pattern, values, options)
    if special is not None:
        return special
    if type(pattern) is not str or type(values) is not list or type(options) is not str:
        return Error
    compiled = _compile(pattern, options)
    if compiled is None:
        return Error
    for item in values:
        if type(item) is not str:
            return Error
        if compiled.search(item) is not None:
            return True
    return False


# --- plain strings -------------------------------------------------------------------


@register("strcat", 0, 1 << 30)
def strcat(*values):  # type: ignore[no-untyped-def]
    """strcat(a, ...): the concatenation of the arguments' string forms; the first
    undefined or error argument decides the result instead."""
    for v in values:
        if v is Undefined or v is Error:
            return v
    return "".join(to_text(v) for v in values)


@register("join", 1, 1 << 30)
def join(*values):  # type: ignore[no-untyped-def]
    """join(sep, list) or join(sep, a, b, ...) or join(list): the elements' string
    forms joined with sep."""
    if len(values) == 1:
        sep, items = "", values[0]
        if type(items) is not list:
            return Undefined if items is Undefined else Error
    elif len(values) == 2 and type(values[1]) is list:
        sep, items = values
    else:
        sep, items = values[0], list(values[1:])
    if sep is Error:
        return Error
    if sep is Undefined:  # HTCondor joins with nothing then
        sep = ""
    if any(v is Error for v in items):
        return Error
    kept = [v for v in items if v is not Undefined]
    if items and not kept:
        return Undefined
    # Undefined elements are left out, unless there is nothing else.
    return to_text(sep).join(to_text(v) for v in kept)


def _case(name: str, convert) -> None:  # type: ignore[no-untyped-def]
    def change_case(value):  # type: ignore[no-untyped-def]
        if value is Undefined or value is Error:
            return value
        return convert(to_text(value))

    change_case.__doc__ = f"{name}(s): the string form of s in {name[2:].lower()} case (ASCII)."
    register(name, 1, 1)(change_case)


_case("toLower", ascii_lower)
_case("toUpper", ascii_upper)


@register("substr", 2, 3)
def substr(text, offset, length=None):  # type: ignore[no-untyped-def]
    """substr(s, offset[, length]): part of s; a negative offset counts from the end,
    a negative length stops that many characters before the end."""
    special = _exceptional(text, offset, length)
    if special is not None:
        return special
    if type(text) is not str or type(offset) is not int:
        return Error
    if length is not None and type(length) is not int:
        return Error
    data = text.encode()
    n = len(data)
    start = offset if offset >= 0 else max(n + offset, 0)
    if start > n:
        return ""
    if length is None:
        end = n
    elif length < 0:
        end = n + length
    else:
        end = min(start + length, n)
    if end <= start:
        return ""
    return data[start:end].decode(errors="replace")


def _compare_strings(name: str, fold) -> None:  # type: ignore[no-untyped-def]
    def compare_strings(a, b):  # type: ignore[no-untyped-def]
        special = _exceptional(a, b)
        if special is not None:
            return special
        x = fold(to_text(a)).encode()
        y = fold(to_text(b)).encode()
        return (x > y) - (x < y)

    compare_strings.__doc__ = f"{name}(a, b): -1, 0 or 1 as a sorts before, with or after b."
    register(name, 2, 2)(compare_strings)


_compare_strings("strcmp", lambda s: s)
_compare_strings("stricmp", ascii_lower)


@register("split", 1, 2)
def split(text, delims=None):  # type: ignore[no-untyped-def]
    """split(s[, delims]): the list of items of s separated by white space and commas
    (or by any character of delims); anything but strings (undefined too) is error."""
    if type(text) is not str or (delims is not None and type(delims) is not str):
        return Error
    if delims is None:
        return string_list(text, " ,\t\r\n")
    items = re.split("[" + re.escape(delims) + "]", text) if delims else [text]
    if items and items[0] == "":
        items = items[1:]
    if items and items[-1] == "":
        items = items[:-1]
    return items


def _split_at(name: str, before_when_missing: bool) -> None:
    def split_at(text):  # type: ignore[no-untyped-def]
        if text is Undefined or text is Error:
            return text
        if type(text) is not str:
            return Error
        head, at, tail = text.partition("@")
        if not at:
            return [text, ""] if before_when_missing else ["", text]
        return [head, tail]

    split_at.__doc__ = f"{name}(s): s split at its first '@' into a two-element list."
    register(name, 1, 1)(split_at)


_split_at("splitUserName", True)
_split_at("splitSlotName", False)


# --- versions ------------------------------------------------------------------------


@register("versioncmp", 2, 2)
def versioncmp(a, b):  # type: ignore[no-untyped-def]
    """versioncmp(a, b): negative, zero or positive as version a sorts before, with or
    after b (digit runs compare as numbers)."""
    special = _exceptional(a, b)
    if special is not None:
        return special
    return natural_cmp(to_text(a), to_text(b))


def _version_test(name: str, test) -> None:  # type: ignore[no-untyped-def]
    def version_test(a, b):  # type: ignore[no-untyped-def]
        c = versioncmp(a, b)
        return c if c is Undefined or c is Error else test(c)

    version_test.__doc__ = f"{name}(a, b): versioncmp(a, b) compared with zero."
    register(name, 2, 2)(version_test)


_version_test("versionGT", lambda c: c > 0)
_version_test("versionGE", lambda c: c >= 0)
_version_test("versionLT", lambda c: c < 0)
_version_test("versionLE", lambda c: c <= 0)
_version_test("versionEQ", lambda c: c == 0)


# --- string lists --------------------------------------------------------------------


def _items(text: object, delims: object) -> list[str] | None:
    if type(text) is not str or type(delims) is not str:
        return None
    return string_list(text, delims)


@register("stringListSize", 1, 2)
def string_list_size(text, delims=", "):  # type: ignore[no-untyped-def]
    """stringListSize(list[, delims]): the number of items in a string list."""
    items = _items(text, delims)
    return Error if items is None else len(items)


def _item_number(item: str) -> int | float | None:
    try:
        return int(item)
    except ValueError:
        pass
    m = strtod(item)
    if m is None or item.strip().lower() in ("inf", "infinity", "nan"):
        return None
    return m


def _numeric_items(text: object, delims: object) -> list[int | float] | None:
    items = _items(text, delims)
    if items is None:
        return None
    numbers = [_item_number(item) for item in items]
    return None if any(n is None for n in numbers) else numbers  # type: ignore[return-value]


def _string_list_reduce(name: str, reduce) -> None:  # type: ignore[no-untyped-def]
    def string_list_reduce(text, delims=", "):  # type: ignore[no-untyped-def]
        numbers = _numeric_items(text, delims)
        if numbers is None:
            return Error
        return reduce(numbers)

    string_list_reduce.__doc__ = f"{name}(list[, delims]): over the numbers in a string list."
    register(name, 1, 2)(string_list_reduce)


def _typed(numbers: list[int | float], value: float | int) -> int | float:
    return float(value) if any(type(n) is float for n in numbers) else value


def _avg(numbers: list[int | float]) -> object:
    if not numbers:
        return 0.0
    total = sum(numbers)
    if type(total) is int:
        q = abs(total) // len(numbers)
        return q if total >= 0 else -q
    return total / len(numbers)


_string_list_reduce("stringListSum", lambda ns: _typed(ns, sum(ns)) if ns else 0.0)
_string_list_reduce("stringListAvg", _avg)
_string_list_reduce("stringListMin", lambda ns: _typed(ns, min(ns)) if ns else Undefined)
_string_list_reduce("stringListMax", lambda ns: _typed(ns, max(ns)) if ns else Undefined)


def _membership(name: str, fold, subset: bool) -> None:  # type: ignore[no-untyped-def]
    def membership(needle, text, delims=", "):  # type: ignore[no-untyped-def]
        if needle is Undefined or text is Undefined:
            return False
        items = _items(text, delims)
        if items is None or type(needle) is not str:
            return Error
        pool = {fold(item) for item in items}
        wanted = string_list(needle, delims) if subset else [needle]
        return all(fold(w) in pool for w in wanted)

    membership.__doc__ = (
        f"{name}(x, list[, delims]): true if "
        + ("every item of string list x is" if subset else "x is")
        + " an item of the string list"
        + (" (ignoring case)." if fold is not _same else ".")
    )
    register(name, 2, 3)(membership)


def _same(text: str) -> str:
    return text


_membership("stringListMember", _same, False)
_membership("stringListIMember", ascii_lower, False)
_membership("stringListSubsetMatch", _same, True)
_membership("stringListISubsetMatch", ascii_lower, True)


@register("stringListsIntersect", 2, 3)
def string_lists_intersect(a, b, delims=", "):  # type: ignore[no-untyped-def]
    """stringListsIntersect(a, b[, delims]): true if the string lists share an item."""
    left = _items(a, delims)
    right = _items(b, delims)
    if left is None or right is None:
        return Error if _exceptional(a, b) is Error else Undefined
    return bool(set(left) & set(right))


@register("stringListRegexpMember", 2, 4)
def string_list_regexp_member(pattern, text, delims=", ", options=""):  # type: ignore[no-untyped-def]
    """stringListRegexpMember(pattern, list[, delims[, options]]): true if some item of
    the string list matches the pattern."""
    items = _items(text, delims)
    if items is None:
        return Error
    return regexp_member(pattern, items, options)
