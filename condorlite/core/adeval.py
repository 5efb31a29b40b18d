"""The negotiator's narrow door into ClassAd-lite: look up, evaluate, coerce.

Every evaluation the negotiation code makes goes through these few functions, so the
rest of the negotiator never depends on the evaluator's calling conventions, and the
coercions HTCondor's negotiator applies are spelled out once:

* a rank (``EvalNegotiatorMatchRank``, the job's ``Rank``) is a number; booleans count
  as 1/0; anything else (undefined, error, string) gives the rank's fallback;
* a policy test (``PREEMPTION_REQUIREMENTS``, ``MY.Rank > MY.CurrentRank``) holds only
  when it evaluates to boolean true: undefined and error are "no".
"""

from __future__ import annotations

import math
from collections.abc import MutableMapping
from functools import partial
from typing import Any

from condorlite.core.classad import oldscan
from condorlite.core.classad.ad import TABLE_SLOT
from condorlite.core.classad.ad import ClassAd as _ClassAd
from condorlite.core.classad.ad import LazyClassAd as _LazyAd
from condorlite.core.classad.ast import Call, Expr, Literal
from condorlite.core.classad.cache import folded
from condorlite.core.classad.evaluator import (
    evaluate,
    evaluate_attribute,
    requirements_hold,
)
from condorlite.core.classad.refs import children as expr_children
from condorlite.core.classad.regexbuiltins import PATTERN_CALLS, exceeds_match_limit
from condorlite.core.classad.values import Error, Undefined

#: A ClassAd: a case-insensitive mapping of attribute name to expression.
ClassAd = MutableMapping[str, Any]
#: the ClassAd-lite types: ClassAd and the compiled scanner's lazy ads (a ClassAd in
#: every way; reading the table makes it one, ``ad.py``)
_LITE = frozenset((_ClassAd, _LazyAd))

__all__ = [
    "ClassAd",
    "Error",
    "Undefined",
    "as_bool",
    "as_float",
    "as_int",
    "as_str",
    "attr",
    "attr_value",
    "changed",
    "eval_attr",
    "eval_expr",
    "literal",
    "lower_names",
    "requirements_hold",
    "spelling",
    "table",
    "tables",
    "tables_and_marks",
    "with_literals",
]


def _adopt_python(table: dict[str, tuple[str, Expr]], layout: None, parent: ClassAd | None
                  ) -> _ClassAd:
    """A ClassAd-lite ad over ``table`` (taken as it is), with no reader mark and
    ``parent``: what ``_ADOPT`` makes, in Python."""
    new = _ClassAd._from_attrs(table, layout)
    new.parent = parent
    return new


#: ``_adopt_python`` in one C call (``oldscan.slotted`` sets the three members), or
#: None where the compiled module is not built
_ADOPT_COMPILED = (None if oldscan.slotted is None else partial(
    oldscan.slotted,
    tuple(_ClassAd.__dict__[name] for name in (TABLE_SLOT, "layout", "parent")),
    _ClassAd))
#: how ``with_entries`` and ``with_restored`` build their copies: in C where the module
#: is built and on (the copies are made for every carved piece and every policy change
#: of a slot, and building the ad through two Python calls cost about as much as
#: copying its 160-name table)
_ADOPT = _ADOPT_COMPILED if oldscan.enabled() else _adopt_python


def attr(ad: ClassAd, name: str) -> Expr | None:
    """The expression bound to ``name`` in ``ad`` (case-insensitive), or None."""
    if type(ad) is _ClassAd or type(ad) is _LazyAd:
        # Mapping.get pays for a KeyError on every absent name; most lookups here miss.
        return ad.lookup(name)
    return ad.get(name)


def lower_names(ad: ClassAd):
    """The ad's attribute names, lower-cased (an iterable view; do not mutate the ad
    while iterating)."""
    if type(ad) is _ClassAd or type(ad) is _LazyAd:
        # The ad already keys its table by lower-cased name: no per-name lower().
        return ad._attrs.keys()
    return [name.lower() for name in ad]


def spelling(ad: ClassAd, name: str) -> str | None:
    """How the ad spells attribute ``name`` (any case), or None when absent."""
    if type(ad) is _ClassAd or type(ad) is _LazyAd:
        return ad.spelling(name)
    low = name.lower()
    return next((key for key in ad if key.lower() == low), None)


def changed(ad: ClassAd, base: ClassAd) -> list[tuple[str, Expr | None]]:
    """The (lower-cased name, expression) bindings of ``ad`` that may differ from
    ``base``'s, names ``base`` has and ``ad`` lacks as None. Ads made by
    ``with_literals`` share their unchanged entries with the original, so this is a
    pass of identity tests; a binding listed may still be equal (never the reverse)."""
    if (type(ad) is _ClassAd or type(ad) is _LazyAd) \
            and (type(base) is _ClassAd or type(base) is _LazyAd):
        mine, theirs = ad._attrs, base._attrs
        out = [(k, e[1]) for k, e in mine.items() if theirs.get(k) is not e]
        out.extend((k, None) for k in theirs if k not in mine)
        return out
    low = {k.lower(): v for k, v in base.items()}
    out = [(k.lower(), v) for k, v in ad.items() if low.get(k.lower()) is not v]
    names = {k.lower() for k in ad}
    out.extend((k, None) for k in low if k not in names)
    return out


def table(ad: ClassAd) -> dict[str, tuple[str, Expr]] | None:
    """The ad's own table (lower-cased name -> (spelling, expression)) for read-only
    loops that look up many names, or None when ``ad`` is not a ClassAd-lite ad."""
    return ad._attrs if (type(ad) is _ClassAd or type(ad) is _LazyAd) else None


def tables(ads: list[ClassAd]) -> list[dict[str, tuple[str, Expr]]] | None:
    """``table`` of every ad, or None unless every ad is ClassAd-lite: one type test
    pass and one attribute pass, with no call per ad (autoclustering reads the tables
    of every idle job in a cycle)."""
    if not set(map(type, ads)) <= _LITE:
        return None
    return [ad._attrs for ad in ads]


def tables_and_marks(ads: list[ClassAd]
                     ) -> tuple[list[dict[str, tuple[str, Expr]]], list[object]] | None:
    """(``tables(ads)``, each ad's run mark), or None unless every ad is ClassAd-lite:
    one type test pass for both. An ad's run mark is its reader mark
    (``ClassAd.layout``: ads with the same mark bind the same names), or the ad
    itself when it has none, a mark no other ad shares: the marks are never None,
    so a run of unmarked ads never reads as one run."""
    if not set(map(type, ads)) <= _LITE:
        return None
    return [ad._attrs for ad in ads], [ad.layout or ad for ad in ads]


def with_literals(ad: ClassAd, values: dict[str, object]) -> ClassAd:
    """A copy of ``ad`` with ``values`` (numbers, booleans, strings) bound as literals;
    an attribute the ad has keeps its spelling (``with_entries`` makes the copy).
    ``ad`` is not changed."""
    table = ad._attrs if (type(ad) is _ClassAd or type(ad) is _LazyAd) else {}
    entries: dict[str, tuple[str, Expr]] = {}
    for name, value in values.items():
        key = name.lower()
        old = entries.get(key) or table.get(key)
        entries[key] = (name if old is None else old[0], Literal(value))
    return with_entries(ad, entries)


def with_entries(ad: ClassAd, entries: dict[str, tuple[str, Expr]]) -> ClassAd:
    """A copy of ``ad`` with each lower-case name of ``entries`` bound to its
    (spelling, expression) entry, the very object given: the readers share entry
    objects between ads, and ``first_states`` tells shared bindings by identity."""
    if type(ad) is _ClassAd or type(ad) is _LazyAd:
        # One table copy with the entries merged in, by one display (no method
        # calls; about 10 % cheaper than copy() and update() on a 160-name slot ad):
        # the mapping protocol would check and convert every value again, and this
        # runs for every slot's rewrite and every carved piece.
        return _ADOPT({**ad._attrs, **entries}, None, ad.parent)
    new = type(ad)()
    new.update(ad)
    for spelled, expr in entries.values():
        new[spelled] = expr
    return new


def with_restored(ad: ClassAd, entries: dict[str, tuple[str, Expr] | None]) -> ClassAd:
    """A copy of the ClassAd-lite ad ``ad`` with each lower-case name of ``entries``
    bound to its entry, or unbound where the entry is None: ``with_entries`` undone,
    given the entries it replaced. ``ad`` is not changed."""
    table = dict(ad._attrs)  # type: ignore[attr-defined]
    for name, entry in entries.items():
        if entry is None:
            table.pop(name, None)
        else:
            table[name] = entry
    return _ADOPT(table, None, ad.parent)


def attr_value(ad: ClassAd, name: str, target: ClassAd | None = None,
               now: float | None = None):
    """``eval_attr``, answered without the evaluator when the attribute is bound to a
    literal (a literal evaluates to its value whatever the context)."""
    expr = attr(ad, name)
    if type(expr) is Literal:
        return expr.value
    return eval_attr(ad, name, target, now)


def eval_attr(ad: ClassAd, name: str, target: ClassAd | None = None, now: float | None = None):
    """Evaluate attribute ``name`` of ``ad`` (MY = ad, TARGET = target)."""
    return evaluate_attribute(ad, name, target, now=None if now is None else int(now))


#: The attributes of a job or slot the negotiator evaluates first; ``ad_screen`` probes
#: them (each attribute they read is evaluated through them).
PROBED = ("requirements", "rank", "start")


#: The requests every job states; a literal one that is not finite, or past any
#: machine, is the job's problem (issue 17: bad values in ads are the ad's problem).
REQUESTS = ("requestcpus", "requestmemory", "requestdisk", "requestgpus")
#: Larger than any machine's cores, MB of memory or KB of disk.
MAX_REQUEST = 1e15


def absurd_request(ad: ClassAd) -> str | None:
    """``Name = value`` of the first of ``REQUESTS`` bound to a constant number (a
    literal, a cast of one such as ``real("inf")``, or operators on literals) that is
    NaN, infinite or beyond ``MAX_REQUEST`` either way; None when none is. (A 5,000-digit
    integer literal reads as 0, as HTCondor reads it, and is no problem.)"""
    lite = type(ad) is _ClassAd or type(ad) is _LazyAd
    table = ad._attrs if lite else None  # type: ignore[attr-defined]
    if table is None:
        return None
    for name in REQUESTS:
        entry = table.get(name)
        if entry is None:
            continue
        expr = entry[1]
        if type(expr) is Literal:
            value = expr.value
        elif (type(expr) is Call and expr.name.lower() in ("real", "int")
              and all(type(a) is Literal for a in expr.args)):
            value = evaluate(expr)  # real("inf"): a constant written as a cast
        else:
            value = folded(expr)  # operators on literals; anything else varies
        if type(value) in (int, float) and not -MAX_REQUEST <= value <= MAX_REQUEST:
            return f"{entry[0]} = {value!r}"
    return None


def runaway_pattern(expr: Expr) -> str | None:
    """The first call in ``expr`` of a pattern built-in with a literal pattern and a
    literal string that stops at PCRE2's match limit (``regexp("(a+)+$", "aaa...!")``),
    as its function name; None when there is none."""
    stack = [expr]
    while stack:
        node = stack.pop()
        if type(node) is Call and node.name.lower() in PATTERN_CALLS and len(node.args) >= 2:
            pattern, target = node.args[0], node.args[1]
            if (type(pattern) is Literal and type(target) is Literal
                    and type(pattern.value) is str and type(target.value) is str
                    and exceeds_match_limit(pattern.value, target.value)):
                return f"{node.name}(...)"
        stack.extend(expr_children(node))
    return None


def eval_expr(expr: Expr, my: ClassAd, target: ClassAd | None, now: float | None = None):
    """Evaluate a free-standing expression with MY = ``my`` and TARGET = ``target``."""
    return evaluate(expr, my, target, now=None if now is None else int(now))


def literal(value: object) -> Expr:
    """A literal node, for the attributes the negotiator inserts into ads."""
    return Literal(value)


def as_float(value: object) -> float | None:
    """A ClassAd number as a float (booleans as 1/0); None for anything else."""
    if value is Undefined or value is Error:
        return None
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        number = float(value)
        return number if not math.isnan(number) else None
    return None


def slot_rank(value: object) -> float:
    """A slot's ``Rank`` of a job as the negotiator's rank conditions read it: the
    number, or NaN when it is none (undefined, error, a string). HTCondor decides rank
    preemption by ``MY.Rank > MY.CurrentRank`` and allows priority preemption only
    when ``MY.Rank >= MY.CurrentRank``, both evaluated in the slot ad and holding only
    when true; a Rank that is no number makes both undefined, and NaN makes both Python
    comparisons false (never read it as 0). Callers compare with ``>``/``>=`` or
    ``not ... >``, never with ``<=``."""
    number = as_float(value)
    return math.nan if number is None else number


def as_int(value: object) -> int | None:
    """A ClassAd integer (reals truncated toward zero, as HTCondor's LookupInteger)."""
    number = as_float(value)
    if number is None or isinstance(value, bool) or math.isinf(number):
        return None
    return int(number)


def as_bool(value: object) -> bool:
    """True only for the boolean true (undefined, error and non-booleans are false)."""
    return value is True


def as_str(value: object) -> str | None:
    """A ClassAd string, or None."""
    return value if isinstance(value, str) else None
