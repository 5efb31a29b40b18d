"""Screening ads before a cycle: the per-ad checks of ``negotiate``'s reading pass,
worked out once per distinct set of bindings they read.

Three checks decide whether an ad takes part (``cli.negotiate_inputs``):

* *foreign*: its ``MyType`` names the other kind (a ``Job`` among the slots);
* *absurd* (jobs): a request bound to a constant that is not a finite number up to
  ``adeval.MAX_REQUEST`` (``adeval.absurd_request``);
* *runaway*: one of ``PROBED`` (``Requirements``, ``Rank``, ``START``) evaluated in the
  ad alone exceeds the evaluation budget (``scope.MAX_STEPS``), or calls a pattern
  built-in that stops at PCRE2's match limit.

Each check is a function of the ad's bindings of a few names: ``MyType`` and the
requests; for *runaway*, the *closure* of ``PROBED``: those names, every name their
bindings refer to (any scope: the pattern check reads them all), and, transitively,
every name an evaluation in the ad alone may look up (``ad_reads.Reads``: ``TARGET.`` names only
when the ad binds ``target``). The readers share one (spelling, expression) entry
object between every ad holding the same line, so a queue's jobs hold a few hundred
distinct entries, and ``AdScreen`` keys the answers by entry identity.

The key is a path through levels: the first level keys the entries of ``ROOT`` names;
an ad whose closure reaches names no level of its path keyed adds a level keyed by the
entries of those names, and so on until the closure lies inside the names keyed. Two
ads that reach the same leaf hold the same entries for every name of their closures
(the closure is worked out from entries alone), so every check gives both the same
answer. The entries are held by the levels, so their ids stay theirs while the screen
lives (one reading pass).

An ad whose closure holds a call of ``eval`` or ``evalInEachContext`` or a subscript
(which may read names computed at run time) gets the *runaway* probe of its own, as
does an ad that is not a top-level ClassAd-lite ad.

*Shared leaves* (``SHARED_LEAVES``): below the root, the ads reaching a level hold the
very same entries for every name keyed above it, so whatever the level's next step
reads of them is fixed; of the level's own entries, the step reads only their
*layout* (absent, a literal of any value, or the entry itself): a literal refers to no
name and costs no step, and the checks that read a literal's value (*foreign*,
*absurd*) read root names only. So a leaf made at a level below the root that is
within the budget (``bounded``, its verdict settled) and not ``dynamic`` stands for
every ad of its layout there, and is handed to them without the walk (a pool's slots,
which differ in their own numbers, share one leaf per layout instead of one each). A
leaf that is not bounded is not shared: its probe evaluates the ad, whose literal
values may change the steps taken.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.ad_reads import Reads, closure, reads_of, shape_of, step_bound, within
from condorlite.core.adeval import PROBED, ClassAd
from condorlite.core.classad.ad import ClassAd as _AdClass
from condorlite.core.classad.ad import LazyClassAd as _LazyAd
from condorlite.core.classad.ast import Expr, Literal
from condorlite.core.classad.evaluator import exhausts_budget
from condorlite.core.classad.refs import names
from condorlite.core.classad.scope import MAX_STEPS
from condorlite.core.entry_keys import entry_key

#: Whether a bounded leaf made below the root is handed to every ad of its layout there
#: (module doc, *shared leaves*); a module flag so that the tests run both ways.
SHARED_LEAVES = True

#: MyType values that mark an ad as the other kind (a mixed file is read for both).
FOREIGN = {"slot": frozenset({"job"}), "job": frozenset({"machine", "slot"})}

#: The names every ad's key starts with, per kind: what *foreign* and *absurd* read,
#: and ``PROBED``.
ROOT = {
    "slot": ("mytype", *PROBED, "my", "target"),
    "job": ("mytype", *adeval.REQUESTS, *PROBED, "my", "target"),
}


def foreign_type(ad: ClassAd, kind: str) -> str | None:
    """The ad's ``MyType`` text when it names the other kind, else None."""
    my_type = adeval.attr(ad, "MyType")
    text = getattr(my_type, "value", None)
    if isinstance(text, str) and text.lower() in FOREIGN[kind]:
        return text
    return None


def runaway_verdict(ad: ClassAd, pattern=adeval.runaway_pattern,  # type: ignore[no-untyped-def]
                    budget: bool = True) -> str | None:
    """The first of ``PROBED`` that exceeds the budget in ``ad`` alone, as the ad
    spells it; else the first pattern call that stops at the match limit
    (``pattern``: ``adeval.runaway_pattern`` or a memo of it) in the expressions of
    ``PROBED`` and of the names they refer to directly, in that order; None when there
    is neither (or the ad is not ClassAd-lite). ``budget`` False skips the probes of
    the budget (the caller knows they hold: ``step_bound``)."""
    table = adeval.table(ad)
    if table is None:
        return None
    for name in PROBED if budget else ():
        if exhausts_budget(ad, name):
            return adeval.spelling(ad, name) or name
    for name in PROBED:
        entry = table.get(name)
        if entry is None:
            continue
        held = [entry[1]]
        for ref in sorted(names(entry[1])):
            found = table.get(ref)
            if found is not None:
                held.append(found[1])
        for expr in held:
            found_call = pattern(expr)
            if found_call is not None:
                return found_call
    return None


class Screening:
    """The checks' answers for every ad of one leaf (see the module doc); the
    *runaway* probe is made on first request (``runaway``), so an ad that an earlier
    step skips is never probed."""

    __slots__ = ("_pattern", "_probed", "_runaway", "absurd", "bounded", "dynamic",
                 "foreign", "keyed", "plain")

    def __init__(self, foreign: str | None, absurd: str | None, dynamic: bool,
                 pattern, bounded: bool = False,  # type: ignore[no-untyped-def]
                 keyed: frozenset[str] = frozenset()) -> None:
        #: ``foreign_type``, and ``Name = value`` of an absurd request (jobs)
        self.foreign = foreign
        self.absurd = absurd
        #: whether the closure may read names computed at run time (probe each ad)
        self.dynamic = dynamic
        #: whether ``step_bound`` shows every ad of the leaf within the budget
        self.bounded = bounded
        self._pattern = pattern
        self._probed = False
        self._runaway: str | None = None
        #: every name keyed on the leaf's path (empty off the key): an ad holding the
        #: same entries as one of the leaf's ads for all of them reaches the leaf
        self.keyed = keyed
        #: whether every check is known to pass for every ad of the leaf (no foreign
        #: type, no absurd request, the runaway answer settled as None and not
        #: ``dynamic``): the reading pass then asks nothing more of it
        self.plain = False

    def settle(self, verdict: str | None) -> None:
        """Take ``verdict`` as the leaf's runaway answer (known without a probe)."""
        self._runaway = verdict
        self._probed = True
        self._settled()

    def runaway(self, ad: ClassAd) -> str | None:
        """``runaway_verdict(ad)``, probed once for the leaf unless ``dynamic``."""
        if self.dynamic:
            return runaway_verdict(ad, self._pattern)
        if not self._probed:
            self._runaway = runaway_verdict(ad, self._pattern, not self.bounded)
            self._probed = True
            self._settled()
        return self._runaway

    def _settled(self) -> None:
        self.plain = (self._runaway is None and not self.dynamic and self.foreign is None
                      and self.absurd is None)


class Route(NamedTuple):
    """Where ``AdScreen.route`` says the ads holding one set of root entries go: a
    plain leaf at the root (``names`` empty), or the level below it, whose shared
    leaves (``shared``: the layout of an ad's entries for ``names``, ``_layout``, ->
    (entries, leaf)) answer every ad of a layout they hold."""

    names: tuple[str, ...]
    shared: dict[tuple, tuple[tuple, Screening]]


class _Level:
    """One level of the key (module doc): the names it keys, every name keyed on its
    path, whether the entries of the levels above it refer only to names keyed
    (``closed``) and whether one of them may read computed names (``dynamic``), and
    its entries' ids -> (the entries, the next level or the leaf)."""

    __slots__ = ("closed", "dynamic", "keyed", "names", "next", "shared")

    def __init__(self, level_names: tuple[str, ...], keyed: frozenset[str],
                 closed: bool, dynamic: bool) -> None:
        self.names = level_names
        self.keyed = keyed
        self.closed = closed
        self.dynamic = dynamic
        self.next: dict[Hashable, tuple[tuple, _Level | Screening]] = {}
        #: the layout of its entries -> (the first ad's entries, held, so that the
        #: layout's ids stay theirs; its bounded leaf): the *shared leaves* (module doc)
        self.shared: dict[tuple, tuple[tuple, Screening]] = {}


class AdScreen:
    """The screening of one reading pass of one kind of ad (``"slot"`` or ``"job"``)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        root = ROOT[kind]
        self._root = _Level(root, frozenset(root), closed=True, dynamic=False)
        #: what the checks work out of an expression, per expression: the slots of a
        #: machine type share their expressions, not their closures
        self._reads: Callable[[Expr], Reads] = _PerExpression(reads_of)
        self._shape = _PerExpression(shape_of)
        self._pattern = _PerExpression(adeval.runaway_pattern)
        #: (level, layout of its entries) -> (the entries, whether within the budget,
        #: the runaway verdict when it is)
        self._bounds: dict[tuple, tuple[tuple, bool, str | None]] = {}

    def screen(self, ad: ClassAd) -> Screening:
        """The answers of the checks for ``ad``."""
        if (type(ad) is not _AdClass and type(ad) is not _LazyAd) \
                or ad.parent is not None:  # type: ignore[attr-defined]
            return self._fresh(ad, dynamic=True)
        table = ad._attrs  # type: ignore[attr-defined]
        level = self._root
        while True:
            key = entry_key(table, level.names)
            found = level.next.get(key)
            if found is None:
                found = self._grow(ad, level, key)
            step = found[1]
            if type(step) is Screening:
                return step
            level = step  # type: ignore[assignment]

    def route(self, table: dict) -> Route | None:
        """The ``Route`` of the top-level ClassAd-lite ads whose table holds
        ``table``'s root entries, when the screen has made their root step (a plain
        leaf, or a level with ``SHARED_LEAVES``), else None: an ad of that route is
        screened plain when ``names`` is empty, or when its layout there is a key of
        ``shared`` whose leaf is ``plain`` (the leaf ``screen`` gives it:
        ``_grow`` shares the first leaf a level makes of a layout, before any other
        of that layout is made). Else nothing is said of the ad."""
        found = self._root.next.get(entry_key(table, self._root.names))
        if found is None:
            return None
        step = found[1]
        if type(step) is Screening:
            return Route((), {}) if step.plain else None
        return Route(step.names, step.shared) if SHARED_LEAVES else None  # type: ignore[union-attr]

    def _grow(self, ad: ClassAd, level: _Level, key: Hashable) -> tuple:
        """The next step of ``ad``'s path from ``level`` (``key``: the ``entry_key``
        of its entries there), made and stored with the entries (held, so that the
        key stays theirs): the leaf when the ad's closure lies inside the names keyed
        so far, else a level keyed by the rest.

        When every entry keyed on the path refers only to names keyed, the closure
        lies inside them without a walk (the slots of a pool with per-slot numbers
        each take this step once). ``dynamic`` is decided over every entry keyed on
        the path, a superset of the closure's: a needless probe per ad at worst."""
        keyed = level.keyed
        table = ad._attrs  # type: ignore[attr-defined]
        entries = tuple(map(table.get, level.names))
        below = level is not self._root and SHARED_LEAVES
        layout = _layout(entries) if below else None
        if below:
            shared = level.shared.get(layout)
            if shared is not None:
                # kept under its own key too (its entries held): the next ad with
                # these very entries takes the key's hit, as without shared leaves
                found = level.next[key] = (entries, shared[1])
                return found
        # (``target`` is a root name: whether it is bound is the same on the path)
        targeted = "target" in table
        closed, dynamic = level.closed, level.dynamic
        bound = [(name in PROBED, self._reads(entry[1]))
                 for name, entry in zip(level.names, entries, strict=True)
                 if entry is not None and type(entry[1]) is not Literal]
        for probed, reads in bound:
            if closed and not within(reads, probed, targeted, keyed):
                closed = False
            if not dynamic and reads.computed:
                dynamic = True
        step: _Level | Screening
        if closed:
            step = self._leaf(ad, level, layout, dynamic)
        else:
            reach = closure(table, PROBED, self._reads)
            if reach <= keyed:
                step = self._leaf(ad, level, layout, dynamic)
            else:
                wider = keyed | reach
                step = _Level(tuple(sorted(reach - keyed)), wider, level.closed and all(
                    within(reads, probed, targeted, wider) for probed, reads in bound),
                    dynamic)
        found = level.next[key] = (entries, step)
        if below and type(step) is Screening and step.bounded and not step.dynamic:
            level.shared[layout] = found
        return found

    def _fresh(self, ad: ClassAd, dynamic: bool, bounded: bool = False,
               keyed: frozenset[str] = frozenset()) -> Screening:
        absurd = adeval.absurd_request(ad) if self.kind == "job" else None
        return Screening(foreign_type(ad, self.kind), absurd, dynamic, self._pattern,
                         bounded, keyed)

    def _leaf(self, ad: ClassAd, level: _Level, layout: tuple | None, dynamic: bool
              ) -> Screening:
        """The leaf of an ad whose closure lies inside the names keyed on its path,
        with ``bounded`` from ``step_bound``, kept per (level, ``layout`` of the
        level's entries: ``_layout``, made here when None). The level stands for its
        path's entries; a literal costs no step whatever its value, so ads of one layout
        have one bound (slots that differ only in their own numbers share it)."""
        if dynamic:
            return self._fresh(ad, dynamic)
        if layout is None:
            layout = _layout(tuple(map(ad._attrs.get, level.names)))  # type: ignore[attr-defined]
        found = self._bounds.get((level, layout))
        if found is None:
            table = ad._attrs  # type: ignore[attr-defined]
            bounded = step_bound(table, self._shape) <= MAX_STEPS
            # Within the budget, the verdict is the pattern calls' alone: a function
            # of the entries that are not literals (a literal holds no call).
            verdict = runaway_verdict(ad, self._pattern, budget=False) if bounded else None
            entries = tuple(map(table.get, level.names))  # held: the layout's ids
            found = self._bounds[(level, layout)] = (entries, bounded, verdict)
        leaf = self._fresh(ad, dynamic, found[1], level.keyed)
        if found[1]:
            leaf.settle(found[2])
        return leaf


def _layout(entries: tuple) -> tuple:
    """The *layout* of a level's entries: 0 for an absent name, 1 for a literal of any
    value, else the entry's id (the caller holds the entry)."""
    return tuple([0 if entry is None else 1 if type(entry[1]) is Literal else id(entry)
                  for entry in entries])


class _PerExpression:
    """``fn(expr)`` remembered per expression for one screen: keyed by id, with the
    expression held, so that its id stays its own while the screen lives."""

    __slots__ = ("_fn", "_known")

    def __init__(self, fn: Callable) -> None:  # type: ignore[type-arg]
        self._fn = fn
        self._known: dict[int, tuple[object, object]] = {}

    def __call__(self, expr):  # type: ignore[no-untyped-def]
        found = self._known.get(id(expr))
        if found is None or found[0] is not expr:
            found = self._known[id(expr)] = (expr, self._fn(expr))
        return found[1]
