"""Old-form lines whose value is a plain literal, converted a batch at a time.

Real ads bring a few lines seen nowhere else (a job's ``GlobalJobId``, ``Args``,
``Out``; a slot's ``Name``, ``KFlops``, ``LoadAvg``, ``MyAddress``): about 6 of a
job's 85 lines and 30 of a slot's 160 in the realistic benchmark pools. Each needs a
pair of its own, and building it line by line in Python (``oldform.old_line``) was
most of the reading time once the repeated lines came from the caches. Here the
lines of a batch that ``PLAIN_LINE`` matches are converted together: ``map`` and
``zip`` over the batch, so that no Python code runs per line.

``PLAIN_LINE`` takes ``Name = value`` (blanks and tabs around the name and after the
``=``, trailing blanks and the line end allowed) where the value is one of

* an old-syntax string with no NUL in which every ``"`` inside is written ``\\"``:
  its value is the text between the outer quotes with each ``\\"`` read as ``"``
  (any other backslash is itself), as the old string rule reads it (the lexer's
  ``_scan_old_string``, for a string that is the whole value);
* a decimal integer of at most 18 digits without a leading zero, optionally
  negative: always inside int64, so ``int`` reads it as ``values.int_literal`` does;
* a real as ``parser.quick_literal`` reads one (digits, a point, digits, an optional
  exponent): ``float`` of the text.

Each gives exactly the pair ``oldform.old_line`` gives for the same line: the same
lower-case name and spelling (from ``interning.OLD_NAMES``), an equal ``Literal`` of
the same type. Anything else (booleans, escapes the rule above does not cover,
expressions, bad lines) is left to ``old_line``.

Values are interned as ``old_line`` interns them (``interning.OLD_VALUES``, keyed by
the value text): a value text met before, or twice in one batch (a job's
``GlobalJobId`` and ``SubmitterGlobalJobId``, a slot's ``KeyboardIdle`` and
``ConsoleIdle``), gives one shared Literal.
"""

from __future__ import annotations

import re
import sys
from collections import deque
from functools import partial
from itertools import compress, repeat
from operator import contains, is_, itemgetter

from condorlite.core.classad.ast import Expr, Literal
from condorlite.core.classad.interning import OLD_NAMES, OLD_VALUES

Pair = tuple[str, tuple[str, Expr]]

#: Group 1 the text before ``=`` (a plain name between blanks, as ``HEAD`` takes it),
#: group 2 the value text (see the module docstring for its three forms).
PLAIN_LINE = re.compile(
    r'([ \t]*[A-Za-z_][A-Za-z0-9_]*[ \t]*)=[ \t]*'
    r'("[^"\x00]*(?:(?<=\\)"[^"\x00]*)*"'
    r"|-?(?:0|[1-9][0-9]{0,17})"
    r"|-?[0-9]+\.[0-9]+(?:[eE][+-]?[0-9]+)?)"
    r"[ \t\r\n\f\v]*")
#: The text before an old-form line's ``=`` when it is a plain name between blanks.
HEAD = re.compile(r"[ \t]*([A-Za-z_][A-Za-z0-9_]*)[ \t]*")
#: ``OLD_NAMES`` is cleared when it holds this many heads.
NAMES_MAX = 10_000

_new = object.__new__
# Literal's slot setter: each new value's Literal is built with two C calls
# (``object.__new__``, the setter) instead of the frozen dataclass ``__init__``.
_set_value = Literal.value.__set__  # type: ignore[attr-defined]
_group = re.Match.group
_first, _second = itemgetter(0), itemgetter(1)
_is_none = partial(is_, None)
_is_false = partial(is_, False)
_INNER = slice(1, -1)


def new_name(head: str) -> tuple[str, str] | None:
    """Remember ``head`` (the text before ``=``) in ``OLD_NAMES`` as its (lower-case
    name, spelling), both interned, when it is a plain name between spaces or tabs;
    None otherwise."""
    m = HEAD.fullmatch(head)
    if m is None:
        return None
    if len(OLD_NAMES) >= NAMES_MAX:
        OLD_NAMES.clear()
    name = m.group(1)
    named = OLD_NAMES[head] = (sys.intern(name.lower()), sys.intern(name))
    return named


def plain_pairs(matches: list[re.Match[str]]) -> list[Pair]:
    """The pairs of lines ``PLAIN_LINE`` matched, in their order (module docstring)."""
    heads = list(map(_group, matches, repeat(1)))
    named = list(map(OLD_NAMES.get, heads))
    if None in named:
        named = [known or new_name(head) for known, head in zip(named, heads, strict=True)]
    exprs = literals(list(map(_group, matches, repeat(2))))
    return list(zip(map(_first, named), zip(map(_second, named), exprs, strict=True),
                    strict=True))


def literals(texts: list[str]) -> list[Expr]:
    """The Literal of each value text (``PLAIN_LINE``'s group 2): the one
    ``OLD_VALUES``' young generation holds for it, else one made for the batch, once
    per distinct text (made values are not stored: they are mostly values seen once,
    and would push the shared ones out of the cache)."""
    exprs = list(map(OLD_VALUES.young.get, texts))
    if None not in exprs:
        return exprs
    wanted = list(dict.fromkeys(compress(texts, map(_is_none, exprs))))
    made = dict(zip(wanted, _make(wanted), strict=True))
    return list(map(made.get, texts, exprs))


def _make(texts: list[str]) -> list[Literal]:
    """New Literals for distinct value texts, in order (module docstring for how
    each form reads)."""
    strings = list(map(str.startswith, texts, repeat('"')))
    count = len(texts)
    if all(strings):
        values: list[object] = _strings(texts)
    else:
        values = [None] * count
        at = range(count)
        _place(values, compress(at, strings), _strings(list(compress(texts, strings))))
        numbers = list(compress(texts, map(_is_false, strings)))
        places = list(compress(at, map(_is_false, strings)))
        reals = list(map(contains, numbers, repeat(".")))
        _place(values, compress(places, reals), map(float, compress(numbers, reals)))
        ints = list(map(_is_false, reals))
        _place(values, compress(places, ints), map(int, compress(numbers, ints)))
    made = list(map(_new, repeat(Literal, count)))
    deque(map(_set_value, made, values), maxlen=0)
    return made



def _strings(texts: list[str]) -> list[str]:
    """The values of string texts: between the quotes, each ``\\"`` read as ``"``."""
    inner = list(map(str.__getitem__, texts, repeat(_INNER)))
    return list(map(str.replace, inner, repeat('\\"'), repeat('"')))


def _place(values: list[object], places, items) -> None:
    """``values[p] = item`` for each place and item, in C (``deque`` drains the map)."""
    deque(map(values.__setitem__, places, items), maxlen=0)
