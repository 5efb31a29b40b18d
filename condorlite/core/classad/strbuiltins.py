"""String and version built-ins (see ``builtins.py``): strcat join toLower toUpper
substr strcmp stricmp split splitUserName splitSlotName versioncmp version* and
version_in_range. Regular expressions live in ``regexbuiltins.py``, string lists in
``stringlists.py``; both register on import (bottom of this module).

Strings are measured and cut in UTF-8 bytes, as HTCondor's std::string is.
"""

from __future__ import annotations

from .builtins import register
from .operators import ascii_lower, int_index
from .textfuncs import ascii_upper, natural_cmp, to_text
from .values import Error, Undefined, from_utf8, is_list, list_values, utf8


def _text_or_special(value: object) -> object:
    """HTCondor's convertValueToStringValue: the string form of a value, or undefined
    / error as they are."""
    if value is Undefined or value is Error:
        return value
    return to_text(value)


@register("strcat", 0, 1 << 30)
def strcat(*values):  # type: ignore[no-untyped-def]
    """strcat(a, ...): the concatenation of the arguments' string forms. Arguments are
    taken in order; the first undefined gives undefined, the first error error."""
    for v in values:
        if v is Undefined or v is Error:
            return v
    return "".join(to_text(v) for v in values)


@register("join", 0, 1 << 30, reads_lists=True)
def join(*values):  # type: ignore[no-untyped-def]
    """join(sep, a, b, ...), join(sep, list) or join(list): the string forms of the
    items, with sep between two items when something has already been written (so
    empty leading items add no separator: join(",", {"", "a"}) is "a").

    With one or two arguments whose last is a list, the list's elements are the items
    (and sep is "" for one argument). An undefined sep counts as ""; undefined items
    are skipped; the result is undefined if nothing defined was joined but something
    was undefined; any error argument or item gives error.
    """
    if 0 < len(values) <= 2 and is_list(values[-1]):
        values = ("" if len(values) == 1 else values[0], *list_values(values[-1]))
    sep = ""
    out: list[str] = []
    written = False  # some defined item was joined
    nonempty = False  # something non-empty has been written
    saw_undefined = False
    for i, v in enumerate(values):
        text = _text_or_special(v)
        if text is Error:
            return Error
        if text is Undefined:
            saw_undefined = True
            continue
        if i == 0:
            sep = text  # type: ignore[assignment]
            continue
        if nonempty:  # HTCondor tests its buffer, not the item count
            out.append(sep)
        out.append(text)  # type: ignore[arg-type]
        nonempty = nonempty or text != ""
        written = True
    if saw_undefined and not written:
        return Undefined
    return "".join(out)


def _case(name: str, convert) -> None:  # type: ignore[no-untyped-def]
    def change_case(value):  # type: ignore[no-untyped-def]
        text = _text_or_special(value)
        return text if text is Undefined or text is Error else convert(text)

    change_case.__doc__ = f"{name}(s): the string form of s in {name[2:].lower()} case (ASCII)."
    register(name, 1, 1)(change_case)


_case("toLower", ascii_lower)
_case("toUpper", ascii_upper)


@register("substr", 2, 3)
def substr(text, offset, length=None):  # type: ignore[no-untyped-def]
    """substr(s, offset[, length]): part of s (in bytes), Perl-style: a negative
    offset counts from the end, a length <= 0 stops that many bytes before the end
    (an explicit 0 gives ""). offset and length are C ints: HTCondor truncates them
    to 32 bits (substr(s, 4294967296) is substr(s, 0)). Any undefined argument gives
    undefined (before any error); then s must be a string and the others integers."""
    args = (text, offset) if length is None else (text, offset, length)
    if any(a is Undefined for a in args):
        return Undefined
    if type(text) is not str or type(offset) is not int:
        return Error
    if length is not None and type(length) is not int:
        return Error
    data = utf8(text)
    size = len(data)
    start = int_index(offset)
    count = 0 if length is None else int_index(length)
    if start < 0:
        start = max(size + start, 0)
    elif start >= size:
        start = size
    if count <= 0:
        count = max(size - start + count, 0)
    elif count > size - start:
        count = size - start
    if length is not None and int_index(length) == 0:
        count = 0
    return from_utf8(data[start : start + count])


def _compare_strings(name: str, fold) -> None:  # type: ignore[no-untyped-def]
    def compare_strings(a, b):  # type: ignore[no-untyped-def]
        if a is Undefined or b is Undefined:
            return Undefined
        if a is Error or b is Error:
            return Error
        x = utf8(fold(to_text(a)))
        y = utf8(fold(to_text(b)))
        return (x > y) - (x < y)

    compare_strings.__doc__ = (
        f"{name}(a, b): -1, 0 or 1 as the string form of a sorts before, with or after "
        "b's (bytewise); undefined if either is undefined (checked before error)."
    )
    register(name, 2, 2)(compare_strings)


_compare_strings("strcmp", lambda s: s)
_compare_strings("stricmp", ascii_lower)


_C_SPACE = " \t\n\v\f\r"


@register("split", 1, 2)
def split(text, delims=", \t"):  # type: ignore[no-untyped-def]
    """split(s[, delims]): the list of the pieces of s between delimiter characters
    (default ", \\t"). Empty pieces are dropped, except that two identical
    non-space delimiters in a row (with only white space between) yield "": so
    split("a,,b") is {"a", "", "b"} but split("a, b") is {"a", "b"}. Any non-string
    argument (undefined too) is error."""
    if type(text) is not str or type(delims) is not str:
        return Error
    pieces: list[str] = []
    last = 0
    previous = ""  # the last non-space delimiter seen
    if delims:
        for i, ch in enumerate(text):
            if ch not in delims:
                continue
            if i > last:
                pieces.append(text[last:i])
            elif ch not in _C_SPACE and ch == previous:
                pieces.append("")
            if ch not in _C_SPACE:
                previous = ch
            last = i + 1
    if len(text) > last:
        pieces.append(text[last:])
    return pieces


def _split_at(name: str, user: bool) -> None:
    def split_at(text):  # type: ignore[no-untyped-def]
        if type(text) is not str:
            return Error
        head, at, tail = text.partition("@")
        if not at:
            return [text, ""] if user else ["", text]
        return [head, tail]

    split_at.__doc__ = (
        f"{name}(s): s split at its first '@' into a two-element list; without an '@' "
        + ('{s, ""}' if user else '{"", s}')
        + "; any non-string (undefined too) is error."
    )
    register(name, 1, 1)(split_at)


_split_at("splitUserName", True)
_split_at("splitSlotName", False)


# --- versions ------------------------------------------------------------------------


@register("versioncmp", 2, 2)
def versioncmp(a, b):  # type: ignore[no-untyped-def]
    """versioncmp(a, b): negative, zero or positive as version a sorts before, with or
    after b (digit runs compare as numbers; the string forms of non-strings); undefined
    if either is undefined (checked before error)."""
    if a is Undefined or b is Undefined:
        return Undefined
    if a is Error or b is Error:
        return Error
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


@register("version_in_range", 3, 3)
def version_in_range(version, low, high):  # type: ignore[no-untyped-def]
    """version_in_range(v, min, max): min <= v <= max in versioncmp order; undefined
    if min or max is undefined; error if any is error or v is undefined."""
    if low is Undefined or high is Undefined:
        return Undefined
    texts = [_text_or_special(x) for x in (version, low, high)]
    if any(type(t) is not str for t in texts):
        return Error
    v, lo, hi = texts
    return natural_cmp(lo, v) <= 0 and natural_cmp(v, hi) <= 0  # type: ignore[arg-type]

