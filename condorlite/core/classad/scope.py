"""The evaluation runtime: one evaluation's context, the scoped lookups, the compile cache.

Each expression node is compiled once into a Python closure ``fn(cur, env) -> value``
(cached per node, ``cache.compile_expr``), where ``cur`` is the ad in which the
expression is being evaluated (HTCondor's ``state.curAd``) and ``env`` holds the match
context (``Env``). The closures are built by ``compiler.py``, and
the whole expression of a hot attribute becomes one generated function
(``codegen.py``, its text ``codelines.py``); ``reference.py`` is the plain tree walker
all of them must agree with. The public entry points (``evaluate``, ``evaluate_attribute``,
``symmetric_match``...) are in ``evaluator.py``.

Lookups and compilation are mutually recursive at run time (a lookup evaluates the
attribute it finds, which compiles it; a compiled closure looks names up). The modules
are not: the cache (``cache.py``) calls the builder that ``compiler.py`` installs when
it is imported (``cache.install_builder``; the package imports it), and the empty ad
that stands for "no MY ad" is given by ``ad.py`` (``install_no_ad``). So the compiler,
the built-ins and ``ClassAd`` all import this module, and it imports none of them.

Evaluation runs first *unguarded* (a depth count instead of the set of attributes in
progress, see ``_eval_found``) and, only if that goes deeper than ``FAST_DEPTH``
(a circular reference, or a very long chain), again *guarded*; both give the same
value.

Scopes (as HTCondor's ``MatchClassAd`` sets them up when both MY and TARGET are given):

* An unscoped name is looked up in ``cur``, then up its chain of enclosing ads
  (``parent``); if not found and ``cur`` is the top-level MY ad, in TARGET (and from
  TARGET, in MY): HTCondor's "alternate scope". A nested ad does not fall back to
  TARGET. An expression found by a lookup is evaluated with ``cur`` = the ad that
  holds it, so ``TARGET.x`` where ``x = y`` reads ``y`` in TARGET (or, failing that,
  in MY).
* ``MY.x`` (also ``SELF.x``) looks ``x`` up from ``cur`` and its enclosing ads;
  ``TARGET.x`` looks it up in the other ad of the match; ``PARENT.x`` in the ad
  enclosing ``cur``; ``.x`` in the outermost ad (undefined in a match, whose root is
  HTCondor's match scaffolding). ``base.x`` on a record looks ``x`` up from that
  record and its enclosing ads; on a list it maps over the elements (a list literal's
  read in ``cur``, see ``values.ExprList``).
* ``CurrentTime`` (when no attribute has that name) is ``time()``.
* A reference to an attribute whose evaluation is already in progress (a circular
  reference) is undefined; evaluation deeper than ``MAX_DEPTH`` references is error.

How list values are handed back and the deliberate differences from classad2 are in
``evaluator``'s module doc (the entry points).
"""

from __future__ import annotations

import time

from .cache import UNCOMPILED, VARIES, compile_node
from .values import Error, ExprList, Undefined, known_list

MAX_DEPTH = 500
"""Nested attribute references beyond this depth evaluate to error (HTCondor has a
similar limit); it also keeps Python's recursion limit out of reach."""

MAX_STEPS = 20_000
"""Attribute evaluations one evaluation may make (``Env.steps``); past it every further
one is error, so the whole is error. Evaluation does not memoise attribute values (as
HTCondor's does not), so ``A1 = A0 + A0; ... A60 = A59 + A59`` (or the same with
``strcat``, building 2**61-byte strings) would never end; HTCondor's library gives up
with an error after a few million steps. Realistic policies make a few hundred."""

# Names the lookup treats specially once no attribute of that name exists.
_SELF_NAMES = frozenset({"my", "self"})


_GUARDED_RUNS = [0]
"""How many guarded runs (see ``_run``) are in progress."""


class Env:
    """One evaluation's context: the match pair, the clock and the cycle guard.

    ``my``/``target`` are the two top-level ads of a match (``target`` None outside a
    match); ``depth`` counts the attribute evaluations in progress, ``steps`` all those
    made (``MAX_STEPS``). A *guarded* context
    keeps in ``active`` the (id(ad), lower-case name) of each of them; an unguarded one
    (``active`` None, the fast first attempt) only counts and gives up beyond
    ``FAST_DEPTH`` (see ``_eval_found``).
    """

    __slots__ = ("active", "depth", "home", "my", "now", "records", "selecting", "steps",
                 "target")

    def __init__(
        self,
        my: object,
        target: object | None,
        now: int | None,
        *,
        guarded: bool = False,
    ) -> None:
        self.my = my
        self.target = target
        self.now = now
        # Inside a guarded run every context is guarded, also those that built-ins
        # derive from the one they were given (they do not know about the modes).
        self.active: set[tuple[int, str]] | None = set() if guarded or _GUARDED_RUNS[0] else None
        self.depth = 0
        #: attribute evaluations made so far (``MAX_STEPS``)
        self.steps = 0
        #: (id(record literal), id(enclosing ad)) -> its ad, made on first use
        #: (``compiler._build_record``)
        self.records: dict[tuple[int, int], object] | None = None
        #: (ad, depth) while a list literal's elements are read in another ad: the
        #: literals among them belong to that ad (``values.home_of``)
        self.home: tuple[object, int] | None = None
        #: the (literal, ad) of each list literal a selection is mapping over now
        #: (``select``: a list that holds itself is a cycle there)
        self.selecting: set[tuple[int, int]] | None = None

    def other(self, ad: object) -> object | None:
        """The alternate scope of a top-level ad in a match, else None."""
        if self.target is None:
            return None
        if ad is self.my:
            return self.target
        if ad is self.target:
            return self.my
        return None

    def root(self, ad: object) -> object | None:
        """The outermost ad above ``ad``; None in a match (HTCondor's root there is
        the match scaffolding, which holds no user attributes)."""
        if self.target is not None:
            return None
        while getattr(ad, "parent", None) is not None:
            ad = ad.parent  # type: ignore[attr-defined]
        return ad


# --- lookups -------------------------------------------------------------------------


def _lookup_in_scope(start: object, lname: str, env: Env) -> tuple[object, object]:
    """Resolve a lower-case name from ``start`` up its chain of enclosing ads.

    Returns ``(holder, expr)`` when an attribute is found, ``(None, value)`` when the
    name resolves directly to a value (a special name, or undefined).
    """
    ad = start
    while ad is not None:
        expr = ad.lookup(lname)  # type: ignore[attr-defined]
        if expr is not None:
            return ad, expr
        parent = ad.parent  # type: ignore[attr-defined]
        if lname in _SELF_NAMES:
            return None, Undefined if _NO_AD and ad is _NO_AD[0] else ad
        if lname == "parent":
            # Above a top-level ad in a match sits HTCondor's scaffolding; it holds no
            # user attribute, so it is represented here by undefined.
            return None, Undefined if parent is None else parent
        if lname == "currenttime":
            return None, current_time(env)
        if parent is None:
            return None, _scaffold_name(ad, lname, env)
        ad = parent
    return None, Undefined


def _scaffold_name(top: object, lname: str, env: Env) -> object:
    """Names HTCondor's match context defines above the two ads: ``target`` and
    ``other`` (the other ad) and ``ad`` (this ad)."""
    other = env.other(top)
    if other is None:
        return Undefined
    if lname == "target" or lname == "other":
        return other
    if lname == "ad":
        return top
    return Undefined


def current_time(env: Env) -> int:
    """``time()``: the ``now`` given to the evaluation; without one, the real clock.

    Reading the clock here is the one documented exception to core's "no clock" rule:
    ``time()`` is part of the ClassAd language and callers that need determinism pass
    ``now``.
    """
    if env.now is not None:
        return env.now
    return int(time.time())


FAST_DEPTH = 64  # below MAX_DEPTH: an unguarded evaluation never reaches the limit
"""Nesting at which an unguarded evaluation gives up (raising ``_TooDeep``) so that the
entry point re-runs it guarded. Real ads nest a handful of references deep."""


class _TooDeep(Exception):
    """An unguarded evaluation went deeper than ``FAST_DEPTH``: maybe a cycle."""


def _eval_found(holder: object, lname: str, expr: object, env: Env) -> object:
    """Evaluate an attribute's expression in the ad that holds it, guarding cycles.

    A constant expression (``folded``) refers to nothing, so it cannot close a cycle
    and skips the guard; the depth limit applies to it all the same.

    Why the unguarded mode gives the guarded answer: evaluation is pure and the value
    of attribute ``x`` of ad ``h`` depends only on (h, x, the match), so re-entering an
    attribute in progress (which the guard answers with undefined) would repeat the
    same descent forever. An unguarded run that finishes within ``FAST_DEPTH`` therefore
    re-entered nothing and took the guarded run's path; one that does not finish is
    abandoned (``_TooDeep``) and the entry point evaluates again with the guard.
    """
    value = getattr(expr, "_folded", UNCOMPILED)
    if value is UNCOMPILED:
        compile_node(expr, root=True)  # type: ignore[arg-type]
        value = expr._folded  # type: ignore[attr-defined]
    if value is not VARIES:
        return value if env.depth < MAX_DEPTH else Error
    env.steps += 1
    if env.steps > MAX_STEPS:
        return Error
    active = env.active
    if active is None:
        depth = env.depth
        if depth >= FAST_DEPTH:
            raise _TooDeep
        env.depth = depth + 1
        value = expr._fn(holder, env)  # type: ignore[attr-defined]
        env.depth = depth
        return value
    key = (id(holder), lname)
    if key in active:
        return Undefined
    if env.depth >= MAX_DEPTH:
        return Error
    active.add(key)
    env.depth += 1
    try:
        return expr._fn(holder, env)  # type: ignore[attr-defined]
    finally:
        env.depth -= 1
        active.discard(key)


def resolve(start: object, lname: str, env: Env) -> object:
    """The value of name ``lname`` looked up from ``start`` (scoped lookup)."""
    holder, found = _lookup_in_scope(start, lname, env)
    if holder is None:
        return found
    return _eval_found(holder, lname, found, env)


def resolve_unscoped(cur: object, lname: str, env: Env) -> object:
    """An unscoped name: ``cur``'s chain first, then the alternate scope (TARGET)."""
    holder, found = _lookup_in_scope(cur, lname, env)
    if holder is not None:
        return _eval_found(holder, lname, found, env)
    if found is Undefined:
        other = env.other(cur)
        if other is not None:
            return resolve(other, lname, env)
    return found


SPECIAL_NAMES = frozenset({"my", "self", "parent", "currenttime", "target", "other", "ad"})
"""Names ``_lookup_in_scope`` answers itself when no attribute has them."""


def found_in(ad: object, lname: str, env: Env) -> object:
    """``resolve(ad, lname, env)``, reading ``ad``'s own attributes directly first."""
    try:
        entry = ad._attrs.get(lname)  # type: ignore[attr-defined]
    except AttributeError:
        return resolve(ad, lname, env)
    if entry is None:
        if ad.parent is None and lname not in SPECIAL_NAMES:  # type: ignore[attr-defined]
            return Undefined  # nowhere else to look
        return resolve(ad, lname, env)
    expr = entry[1]
    value = getattr(expr, "_folded", VARIES)
    if value is not VARIES and env.depth < MAX_DEPTH:
        return value
    return _eval_found(ad, lname, expr, env)


def unscoped_miss(cur: object, lname: str, env: Env) -> object:
    """``resolve_unscoped(cur, lname, env)`` once ``cur``'s own attributes lack it: for
    a top-level ad of the match and an ordinary name, the other ad's answer."""
    if lname in SPECIAL_NAMES or cur.parent is not None:  # type: ignore[attr-defined]
        return resolve_unscoped(cur, lname, env)
    other = env.other(cur)
    return Undefined if other is None else found_in(other, lname, env)


def select(base: object, lname: str, env: Env, cur: object) -> object:
    """``base.name`` on an evaluated base, in an expression evaluated in ``cur``:
    records look it up, lists map over their elements (a list literal's evaluated in
    ``cur``, as HTCondor does), undefined/error propagate, anything else is error."""
    if base is Undefined or base is Error:
        return base
    kind = type(base)
    if kind is ExprList and base.known is not None:  # type: ignore[union-attr]
        # (known values: no literal to unfold, so no cycle)
        return known_list([unscoped(select(item, lname, env, cur))
                           for item in base.known])  # type: ignore[union-attr]
    if kind is ExprList:
        # (a list of the literal's kind, as HTCondor makes it: see values.ExprList)
        key = (id(base.exprs), id(base.cur))  # type: ignore[union-attr]
        selecting = env.selecting
        if selecting is None:
            selecting = env.selecting = set()
        elif key in selecting:
            # The list holds itself (V = { V, 1 }; V.x): a cycle, undefined, where
            # HTCondor recurses until its stack overflows.
            return Undefined
        selecting.add(key)
        try:
            items = base.evaluated_in(cur, env)  # type: ignore[union-attr]
            return known_list([unscoped(select(item, lname, env, cur)) for item in items])
        finally:
            selecting.discard(key)
    if kind is list:
        return [select(item, lname, env, cur) for item in base]  # type: ignore[union-attr]
    if hasattr(base, "lookup"):
        return resolve(base, lname, env)
    return Error


def unscoped(value: object) -> object:
    """An element of a list a selection through a list (or ``evalInEachContext``)
    makes, or what a record subscript (``r["x"]``) gives: HTCondor copies the value,
    and a copy has lost its place.
    A list literal's value no longer has an ad (``{ [a = { b }; b = 3] }.a[0][0]`` is
    undefined; what reads it in its own ad, ``sum`` for one, still finds names); a
    record no longer has an enclosing ad (``{ [a = [b = x]; x = 5] }.a[0].b`` is
    undefined, and so is ``TARGET.x`` inside it)."""
    kind = type(value)
    if kind is ExprList and value.known is None:  # type: ignore[union-attr]
        return ExprList(value.exprs, value.fns, _no_ad(), value.env)  # type: ignore[union-attr]
    if getattr(value, "parent", None) is not None and hasattr(value, "_from_attrs"):
        return type(value)._from_attrs(value._attrs)  # type: ignore[attr-defined]
    return value


def settle(value: object, _open: set[tuple[int, int]] | None = None) -> object:
    """A value as the public entry points hand it back: every list literal's value
    (``ExprList``) replaced by the plain list of its elements' values, recursively.

    A list literal whose element evaluates to the same literal in the same ad (``a = {
    a }``) would unfold forever; inside its own unfolding that element is undefined,
    as a cycle is. ``_open`` holds the (literal, ad) pairs being unfolded.
    """
    kind = type(value)
    if kind is ExprList and value.known is not None:  # type: ignore[union-attr]
        return [settle(item, _open) for item in value.known]  # type: ignore[union-attr]
    if kind is ExprList:
        key = (id(value.exprs), id(value.cur))  # type: ignore[union-attr]
        if _open is None:
            _open = set()
        elif key in _open:
            return Undefined
        _open.add(key)
        try:
            return [settle(item, _open) for item in value.evaluated()]  # type: ignore[union-attr]
        finally:
            _open.discard(key)
    if kind is list:
        return [settle(item, _open) for item in value]  # type: ignore[union-attr]
    return value


# --- no MY ad ------------------------------------------------------------------------


_NO_AD: list[object] = []
"""The one empty ad that stands for "no MY ad" (``ad.py`` gives it when ``ClassAd`` is
defined, ``install_no_ad``): names resolve in it to nothing, and ``self``/``my`` there
are undefined, as in HTCondor."""


def install_no_ad(ad: object) -> None:
    """Make ``ad`` (an empty ``ClassAd``) the one that stands for "no MY ad"."""
    _NO_AD[:] = [ad]


def _no_ad() -> object:
    return _NO_AD[0]
