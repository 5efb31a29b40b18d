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
the layout), and each slot costs one residual run on its literal values. Values are
remembered per (rank, names, layout, typed literal values): types are part of the
key (``1``, ``1.0`` and ``true`` are one Python key but three ClassAd values) and so
is the sign of a real zero. When every binding is a literal or absent, the layout
is the tuple of the bindings' types (a form no other layout takes). When no
residual can be made, the rank is evaluated in full (``adeval.eval_expr``).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Expr, Literal
from condorlite.core.classad.partial import specialize
from condorlite.core.classad.residuals import Residual

_MISSING = object()


def typed_values(vals: list) -> tuple:
    """``vals`` as a key that tells apart what ClassAd tells apart: the ``repr`` of
    each value, which differs between types (``1``, ``1.0``, ``True``, ``'1'``,
    ``Undefined``) and between reals of different bits (``-0.0`` and ``0.0``; a NaN
    is ``nan`` whatever its payload, and no rank can tell NaN payloads apart)."""
    return tuple(map(repr, vals))


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
        #: (rank, names, layout, typed literal values) -> rank value
        self._values: dict[tuple, float] = {}
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
        found = self._values.get(key)
        if found is not None:
            return found
        self.evaluations += 1
        program = self._programs.get(shape, _MISSING)
        if program is _MISSING:
            free = [name for name, b in zip(names, bound, strict=True) if type(b) is Literal]
            program = self._programs[shape] = specialize(
                expr, ad, None, [(ad, name) for name in free], self._now)
        value = (adeval.eval_expr(expr, ad, None, self._now) if program is None
                 else program(vals))
        found = self._values[key] = self._as_rank(value)
        return found

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


_PLAIN = frozenset({Literal, type(None)})
_VALUE = attrgetter("value")
