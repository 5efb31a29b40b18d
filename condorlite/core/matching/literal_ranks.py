"""Job-independent policy ranks of slots, as residual programs of their literals.

A policy rank that reads nothing from the job (``NEGOTIATOR_POST_JOB_RANK`` reading
``SlotID`` and ``KFlops``, ``PREEMPTION_RANK`` reading ``RemoteUserPrio`` and
``TotalJobRunTime``) reads, in a slot, only the names its walk reaches there
(``slot_walks.reads_job``). Many slots bind some of those names to literals of
their own, so a memo keyed by the bindings misses for most of them.

The *layout* of a slot's bindings of the reached names says, name by name: absent
(0), a literal (-1), or else the expression's ``expr_numbers.Canon`` number (equal numbers, equal
expressions). Two slots with one layout evaluate the rank alike except for the
values of those literals, so the rank is specialised once per (rank, names, layout)
with the literal bindings as the free attributes (``classad.partial.specialize``:
its residual, run on the literal values, equals the full evaluation in every ad of
the layout), and each slot costs one residual run on its literal values: the
residual made for the types of the first slot's literal values, its type tests
folded (``classad.residual_types.typed_runner``: one guarded function a run; other
type tuples get their own, the general residual those holding undefined or
error). Values are remembered per (rank, names, layout, typed literal values): types are part of the
key (``1``, ``1.0`` and ``true`` are one Python key but three ClassAd values) and so
is the sign of a real zero. When every binding is a literal or absent, the layout
is the tuple of the bindings' types (a form no other layout takes). When no
residual can be made, the rank is evaluated in full (``adeval.eval_expr``).

*Plans* (``plan``, ``planned``): slots that share a ``first_states`` loose record
bind a rank's reached names with one layout (the same entries, or alike absent or a
literal), so the layout, the residual and the names bound to literals are worked
out once per (record, rank); each such slot then costs a read of its literal values
and a memo lookup (``planned``), with the same memo and count as ``value``.

*The memo given up* (plans only): a rank whose literals are each slot's own
(``KFlops`` and ``SlotID`` of the post-job rank, ``TotalJobRunTime`` of the preemption
rank) misses the memo on every slot (10,000-slot partitionable mix: 15,645 misses, 8
hits), and each miss paid for its key and its entry for nothing. The plans of one
(rank, names, layout) share its count of hits and misses (``RankPlan.seen``); after
``TRIES`` misses with fewer than one lookup in ``SHARE`` hitting, that layout's values
are neither looked up nor kept (``run``). An evaluation is a pure function of what it
reads: only the work of finding a value again is lost.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter
from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Expr, Literal
from condorlite.core.classad.partial import Constant, specialize
from condorlite.core.classad.residual_types import typed_runner
from condorlite.core.classad.residuals import Residual

_MISSING = object()
#: a layout's memo misses before its hit share is looked at, and the share it must keep
#: (at least one lookup in ``SHARE`` a hit) to go on being looked up (module doc)
TRIES = 256
SHARE = 16


def typed_values(vals: list) -> tuple:
    """``vals`` as a key that tells apart what ClassAd tells apart: the ``repr`` of
    each value, which differs between types (``1``, ``1.0``, ``True``, ``'1'``,
    ``Undefined``) and between reals of different bits (``-0.0`` and ``0.0``; a NaN
    is ``nan`` whatever its payload, and no rank can tell NaN payloads apart)."""
    return tuple(map(repr, vals))


class RankPlan(NamedTuple):
    """``value``'s work for one (rank, names, layout), done once: ``shape`` keys the
    value memo, ``literals`` are the names bound to literals (in ``names`` order: the
    order of the residual's free values), ``program`` the residual (None: evaluate
    in full), ``expr`` the rank; ``seen``: [hits, misses] of the memo for ``shape``,
    shared by the plans of the shape, hits -1 once the memo is given up for it
    (module doc: ``note_miss``)."""

    shape: tuple
    literals: tuple[str, ...]
    program: Residual | None
    expr: Expr
    seen: list[int]


class LiteralRanks:
    """Residuals and values of the cycle's job-independent ranks (see the module doc).

    ``evaluations`` counts the residual runs (or full evaluations) the value memo
    missed: one per distinct (rank, names, layout, typed literal values)."""

    def __init__(self, number: Callable[[Expr], int], now: float | None,
                 as_rank: Callable[[object], float]) -> None:
        #: ``Canon.number`` of the matchmaker's shape keys
        self._number = number
        self._now = None if now is None else int(now)
        self._as_rank = as_rank
        #: (rank, names, layout) -> residual, or None when none could be made
        self._programs: dict[tuple, Residual | None] = {}
        #: (rank, names, layout, typed literal values) -> rank value (read by
        #: ``first_ranks`` too, which runs ``evaluate`` on a miss)
        self.values: dict[tuple, float] = {}
        #: (rank, names, layout) -> its plans' memo [hits, misses] (``RankPlan.seen``)
        self._seen: dict[tuple, list[int]] = {}
        #: the types of a binding tuple -> whether all are literals or absent
        self._plain: dict[tuple, bool] = {}
        self.evaluations = 0

    def value(self, rank: str, expr: Expr, ad: ClassAd, names: tuple[str, ...],
              bound: tuple) -> float:
        """The rank ``expr`` (named ``rank``) in ``ad``, whose bindings of ``names``
        (the names the rank reaches in it, sorted) are ``bound`` (expressions, None
        where absent)."""
        kinds = tuple(map(type, bound))
        plain = self._plain.get(kinds)
        if plain is None:
            plain = self._plain[kinds] = set(kinds) <= _PLAIN
        if plain:
            # Literals and absent names only (the common case): the types are the
            # layout, and C-level passes take the values.
            layout: tuple = kinds
            vals = list(map(_VALUE, filter(None, bound)))
        else:
            layout, vals = self._layout(bound)
        shape = (rank, names, layout)
        key = (shape, typed_values(vals))
        found = self.values.get(key)
        if found is not None:
            return found
        return self.evaluate(key, self._program(shape, expr, ad, names, bound), expr, ad,
                              vals)

    def plan(self, rank: str, expr: Expr, ad: ClassAd, names: tuple[str, ...],
             bound: tuple) -> RankPlan:
        """What ``value(rank, expr, ad, names, bound)`` works out before it reads
        the literal values; it holds for every ad whose bindings of ``names`` have
        the layout of ``bound`` (module doc)."""
        kinds = tuple(map(type, bound))
        layout = kinds if set(kinds) <= _PLAIN else self._layout(bound)[0]
        shape = (rank, names, layout)
        literals = tuple(name for name, b in zip(names, bound, strict=True)
                         if type(b) is Literal)
        seen = self._seen.get(shape)
        if seen is None:
            seen = self._seen[shape] = [0, 0]
        return RankPlan(shape, literals, self._program(shape, expr, ad, names, bound), expr,
                        seen)

    def planned(self, plan: RankPlan, ad: ClassAd, vals: list) -> float:
        """``value`` in ``ad``, whose bindings have the layout ``plan`` was made for
        and bind ``plan.literals`` to literals of the values ``vals``, in order."""
        seen = plan.seen
        if seen[0] < 0:  # (the layout's memo given up: module doc)
            return self.run(plan.program, plan.expr, ad, vals)
        key = (plan.shape, typed_values(vals))
        found = self.values.get(key)
        if found is not None:
            seen[0] += 1
            return found
        note_miss(seen)
        return self.evaluate(key, plan.program, plan.expr, ad, vals)

    def _program(self, shape: tuple, expr: Expr, ad: ClassAd, names: tuple[str, ...],
                 bound: tuple) -> Residual | None:
        program = self._programs.get(shape, _MISSING)
        if program is _MISSING:
            free = [(ad, name) for name, b in zip(names, bound, strict=True)
                    if type(b) is Literal]
            program = specialize(expr, ad, None, free, self._now)
            if program is not None and type(program) is not Constant:
                now = self._now
                program = typed_runner(program, lambda kinds: specialize(
                    expr, ad, None, free, now, kinds=kinds), tuple(
                    type(b.value) for b in bound if type(b) is Literal))
            self._programs[shape] = program
        return program  # type: ignore[return-value]

    def evaluate(self, key: tuple, program: Residual | None, expr: Expr, ad: ClassAd,
                  vals: list) -> float:
        """One evaluation (a residual run, or in full), counted and remembered."""
        self.evaluations += 1
        value = (adeval.eval_expr(expr, ad, None, self._now) if program is None
                 else program(vals))
        found = self.values[key] = self._as_rank(value)
        return found

    def run(self, program: Residual | None, expr: Expr, ad: ClassAd, vals: list) -> float:
        """One evaluation (a residual run, or in full), counted, not remembered: a
        plan whose layout's memo is given up (module doc)."""
        self.evaluations += 1
        return self._as_rank(adeval.eval_expr(expr, ad, None, self._now) if program is None
                             else program(vals))

    def _layout(self, bound: tuple) -> tuple[tuple, list]:
        """Per binding: absent (0), a literal (-1) or its expression number; and the
        literals' values in order."""
        layout = []
        vals = []
        number = self._number
        for expr in bound:
            if expr is None:
                layout.append(0)
            elif type(expr) is Literal:
                layout.append(-1)
                vals.append(expr.value)
            else:
                layout.append(number(expr))
        return tuple(layout), vals


def note_miss(seen: list[int]) -> None:
    """Count a memo miss in a layout's ``RankPlan.seen``, giving its memo up after
    ``TRIES`` misses with fewer than one lookup in ``SHARE`` hitting (module doc)."""
    seen[1] += 1
    if seen[1] >= TRIES and seen[0] * SHARE < seen[1]:
        seen[0] = -1


_PLAIN = frozenset({Literal, type(None)})
_VALUE = attrgetter("value")
