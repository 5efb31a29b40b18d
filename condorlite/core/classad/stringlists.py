"""String-list built-ins (see ``builtins.py``): the ``stringList*`` family,
``stringList_regexpMember`` and ``stringListsIntersect``, as HTCondor 25 evaluates
them (pinned against classad2; the functions do not all split lists the same way).

Splitting (``textfuncs.string_list``): any character of the delimiter set ends an
item, items are trimmed of white space, empty items dropped. The default set is
``", "`` for stringListSize/Sum/Avg/Min/Max and stringList_regexpMember, and
``", \\t\\r\\n"`` for stringListMember/IMember/SubsetMatch/ISubsetMatch.
``stringListsIntersect`` splits without trimming, at any character of its delimiter
argument (``" ,"`` when none or empty is given).

Note the name ``stringList_regexpMember``: HTCondor registers it with the underscore,
so ``stringListRegexpMember`` is an unknown function (error) there and here.
"""

from __future__ import annotations

import re

from .builtins import register
from .operators import ascii_lower
from .regexbuiltins import MatchFailed, compile_pattern, first_special
from .textfuncs import c_double_to_int, string_list, strtod
from .values import Error, Undefined, utf8

DEFAULT_DELIMS = ", "
MEMBER_DELIMS = ", \t\r\n"
_FLT_MAX = 3.4028234663852886e38  # C's FLT_MAX and FLT_MIN: HTCondor's starting
_FLT_MIN = 1.1754943508222875e-38  # points for stringListMin and stringListMax


def _items(text: object, delims: object) -> list[str] | None:
    if type(text) is not str or type(delims) is not str:
        return None
    return string_list(text, delims)


@register("stringListSize", 1, 2)
def string_list_size(text, delims=DEFAULT_DELIMS):  # type: ignore[no-untyped-def]
    """stringListSize(list[, delims]): the number of items in a string list; any
    non-string argument (undefined too) is error."""
    items = _items(text, delims)
    return Error if items is None else len(items)


#: glibc's sscanf("%lf") takes "0x" as the start of a hex number and fails when no hex
#: digit (or point) follows, where strtod would read the 0: HTCondor's answer is error.
_HEX_WITHOUT_DIGITS = re.compile(r"\s*[+-]?0[xX](?![0-9a-fA-F.])")


def _summarize(name: str, start: float, step, empty: object, average: bool) -> None:  # type: ignore[no-untyped-def]
    def summarize(text, delims=DEFAULT_DELIMS):  # type: ignore[no-untyped-def]
        items = _items(text, delims)
        if items is None:
            return Error
        if not items:
            return empty
        total = start
        is_real = False
        for item in items:
            number = strtod(item)  # C's sscanf("%lf"): the longest numeric prefix
            if number is None or _HEX_WITHOUT_DIGITS.match(item):
                return Error
            if item.lstrip("+-0123456789"):  # C: strspn(item, "+-0-9") < strlen
                is_real = True
            total = step(number, total)
        if average:
            total /= len(items)
        return total if is_real else c_double_to_int(total)

    summarize.__doc__ = (
        f"{name}(list[, delims]): computed in double precision over the items (each "
        "read as by C's sscanf, error if one is not a number); a real if any item has a "
        "character other than +-0123456789, else the result cast to an integer. "
        f"Empty list: {empty!r}."
    )
    register(name, 1, 2)(summarize)


# HTCondor starts min at FLT_MAX and max at FLT_MIN (the smallest positive float, not
# the most negative), so stringListMax("-4,-10") is 0, as in HTCondor.
_summarize("stringListSum", 0.0, lambda x, acc: x + acc, 0.0, False)
_summarize("stringListAvg", 0.0, lambda x, acc: x + acc, 0.0, True)
_summarize("stringListMin", _FLT_MAX, lambda x, acc: x if x < acc else acc, Undefined, False)
_summarize("stringListMax", _FLT_MIN, lambda x, acc: x if x > acc else acc, Undefined, False)


def _member_args(needle: object, text: object, delims: object) -> object:
    """The delimiter set, or the value the call gives: error if any argument is error
    or not a string (undefined aside); undefined if both lists are undefined."""
    args = (needle, text, delims)
    if any(a is Error or (a is not Undefined and type(a) is not str) for a in args):
        return Error
    if needle is Undefined and text is Undefined:
        return Undefined
    return MEMBER_DELIMS if delims is Undefined else delims


def _membership(name: str, fold, subset: bool) -> None:  # type: ignore[no-untyped-def]
    def membership(needle, text, delims=Undefined):  # type: ignore[no-untyped-def]
        sep = _member_args(needle, text, delims)
        if sep is Error or sep is Undefined:
            return sep
        if subset and (needle is Undefined or needle == ""):
            return True  # an empty (or undefined) subset is contained in anything
        if text is Undefined or needle is Undefined:
            return False
        pool = {fold(item) for item in string_list(text, sep)}  # type: ignore[arg-type]
        if not subset:
            return fold(needle) in pool
        wanted = string_list(needle, sep)  # type: ignore[arg-type]
        return bool(wanted) and all(fold(w) in pool for w in wanted)

    membership.__doc__ = (
        f"{name}(x, list[, delims]): true if "
        + ("every item of string list x is" if subset else "x is")
        + " an item of the string list"
        + (" (ignoring case)" if fold is ascii_lower else "")
        + ". Error if an argument is error or a non-string; undefined if both lists "
        "are undefined; an undefined delims means the default"
        + (
            "; an empty or undefined x is true, an x without items false, an undefined list false."
            if subset
            else "; otherwise an undefined x or list is false."
        )
    )
    register(name, 2, 3)(membership)


def _same(text: str) -> str:
    return text


_membership("stringListMember", _same, False)
_membership("stringListIMember", ascii_lower, False)
_membership("stringListSubsetMatch", _same, True)
_membership("stringListISubsetMatch", ascii_lower, True)


@register("stringList_regexpMember", 2, 4)
def string_list_regexp_member(pattern, text, delims=DEFAULT_DELIMS, options=""):  # type: ignore[no-untyped-def]
    """stringList_regexpMember(pattern, list[, delims[, options]]): true if some item
    of the string list matches the pattern. Error if any argument is not a string,
    then error if the pattern is invalid, then undefined if the list has no items.
    Options as for regexp, in either case."""
    if any(type(a) is not str for a in (pattern, text, delims, options)):
        return Error
    compiled = compile_pattern(pattern, options.lower())
    if compiled is None:
        return Error
    items = string_list(text, delims)
    if not items:
        return Undefined
    try:
        return any(compiled.search(utf8(item)) is not None for item in items)
    except MatchFailed:
        return Error


def _split_raw(text: str, delims: str) -> list[str]:
    """stringListsIntersect's split: at any delimiter character, no trimming, empty
    pieces dropped."""
    items: list[str] = []
    current: list[str] = []
    for ch in text:
        if ch in delims:
            if current:
                items.append("".join(current))
            current = []
        else:
            current.append(ch)
    if current:
        items.append("".join(current))
    return items


@register("stringListsIntersect", 2, 3)
def string_lists_intersect(a, b, delims=None):  # type: ignore[no-untyped-def]
    """stringListsIntersect(a, b[, delims]): true if the string lists share an item
    (compared exactly, items not trimmed). Errors first, then undefined, then a
    non-string argument (error)."""
    args = (a, b) if delims is None else (a, b, delims)
    special = first_special(args)
    if special is not None:
        return special
    if any(type(x) is not str for x in args):
        return Error
    sep = delims or " ,"
    return bool(set(_split_raw(a, sep)) & set(_split_raw(b, sep)))
