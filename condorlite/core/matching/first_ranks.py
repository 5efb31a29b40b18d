"""A slot's job-independent policy ranks in its first state (one ``FirstRanks`` per
cycle, owned by ``offer_shapes.OfferShapes``).

A policy rank that reads nothing from the job (``NEGOTIATOR_POST_JOB_RANK`` reading
``KFlops`` and ``SlotID``, ``PREEMPTION_RANK`` reading ``RemoteUserPrio``) has one
value per slot, and slots bind what it reads to numbers of their own. Two ways:

* ``value``: any slot. The value is remembered by the ids of the ad's entries for
  the names the rank reaches (the readers share entry objects between ads holding
  the same line, so slots of one machine type find it with one C-level pass), else
  worked out by the residual of the slot's literal bindings (``literal_ranks``).
* ``plans`` and ``planned``: the slots of one ``first_states`` loose record, which
  bind every name a rank reaches alike (the same entry, or alike absent or a
  literal), so the rank's layout, residual and literal names are the record's
  (``literal_ranks.RankPlan``, made once per record); each slot then costs a read
  of its literal values and a lookup in the same value memo, which ``value`` uses
  too. A per-slot number is a column read once, not a reason to work the slot out
  in full. ``columns`` takes those values for many slots of one ``kind_records``
  record at once from the rows its lookup read (``KindRecords.find_read``), for
  ``values`` to take them from (``OfferPrep.prepare_all``); a rank whose memo is
  given up by then has its values worked out there, its residual run over the
  column (``RunRanks``).

Both count, in the cycle's ``EvaluationCount``, the evaluations the value memo
missed (one per distinct layout and typed literal values), whichever way a value was
asked for, and every evaluation of a layout whose memo is given up (``literal_ranks``:
each slot's literals its own).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Expr
from condorlite.core.matching.candidates import as_rank
from condorlite.core.matching.first_states import FirstState
from condorlite.core.matching.kind_records import literal_columns
from condorlite.core.matching.literal_ranks import LiteralRanks, RankPlan, note_miss


class FirstRanks:
    """The cycle's job-independent ranks of first states (module doc). ``number``:
    the shape keys' ``Canon.number``; ``counts``: the cycle's ``EvaluationCount``."""

    def __init__(self, number: Callable[[Expr], int], now: float | None, counts) -> None:
        self.counts = counts
        self._literal_ranks = LiteralRanks(number, now, as_rank)
        self._as_rank = as_rank
        #: (rank, names, ids of an ad's entries for them) -> (value, the entries)
        self._by_ids: dict[tuple, tuple] = {}
        #: id(reach set) -> (the set, its names sorted)
        self._sorted: dict[int, tuple[set[str], tuple[str, ...]]] = {}
        #: id(loose record) -> (the record, its ranks' plans)
        self._plans: dict[int, tuple[FirstState, dict[str, RankPlan]]] = {}
        #: id(loose record) -> (the record, its plans' items, the ranks with one
        #: value for all its slots, those values once worked out: ``loose_values``)
        self._fixed: dict[int, tuple] = {}

    def value(self, key: str, expr: Expr, ad: ClassAd, reach: set[str]) -> float:
        """The rank ``expr`` (named ``key``) in ``ad``, where it reaches ``reach``."""
        names = self._sorted_names(reach)
        table = adeval.table(ad)
        if table is not None:
            # (the entries are held with the value, so their ids stay theirs)
            entries = tuple(map(table.get, names))
            by_ids = (key, names, tuple(map(id, entries)))
            known = self._by_ids.get(by_ids)
            if known is not None:
                return known[0]
            bound = tuple(map(_entry_expr, entries))
        else:
            bound = tuple(adeval.attr(ad, name) for name in names)
        ranks = self._literal_ranks
        before = ranks.evaluations
        value = ranks.value(key, expr, ad, names, bound)
        self.counts.evaluations += ranks.evaluations - before
        if table is not None:
            self._by_ids[by_ids] = (value, entries)
        return value

    def plans(self, first: FirstState, ad: ClassAd, ranks: Iterable[tuple[str, Expr]]
              ) -> dict[str, RankPlan]:
        """The plans of a loose record's job-independent ranks (those of ``ranks``,
        (key, expression) pairs, its walk does not flag as reading the job), made
        from the first slot that matched it (``ad``, a ClassAd-lite ad: loose
        records hold only those)."""
        found = self._plans.get(id(first))
        if found is not None and found[0] is first:
            return found[1]
        flags, _, reaches = first.walk
        table = adeval.table(ad)
        plans = {}
        for key, expr in ranks:
            if key not in flags:
                names = self._sorted_names(reaches[key])
                bound = tuple(map(_entry_expr, map(table.get, names)))  # type: ignore[union-attr]
                plans[key] = self._literal_ranks.plan(key, expr, ad, names, bound)
        self._plans[id(first)] = (first, plans)
        return plans

    def loose_values(self, first: FirstState, ad: ClassAd,
                     ranks: Iterable[tuple[str, Expr]]) -> dict[str, float]:
        """Every job-independent rank of a slot of the loose record ``first`` (as
        ``planned`` of each of ``plans``). A rank whose literal names are all
        walked names has one value for every slot of the record (the record keys
        their entries by identity): it is worked out for the first slot only."""
        found = self._fixed.get(id(first))
        if found is None or found[0] is not first:
            plans = self.plans(first, ad, ranks)
            walked = set(first.walk[1])
            found = self._fixed[id(first)] = (
                first, tuple(plans.items()),
                {key for key, plan in plans.items() if walked.issuperset(plan.literals)},
                {})
        return self._values(found[1], ad, found[2], found[3])

    def values(self, plans: dict[str, RankPlan], ad: ClassAd,
               read: RunRanks | None = None, at: int = 0) -> dict[str, float]:
        """``planned`` of each of ``plans`` (rank -> plan), in their order. ``read``:
        what ``columns`` made of a list of slots, ``ad`` the one at ``at`` (None:
        read from ``ad``)."""
        return self._values(plans.items(), ad, _NONE, {}, read, at)

    def columns(self, plans: dict[str, RankPlan], rows: list[tuple],
                literal: tuple[str, ...]) -> RunRanks:
        """Per rank of ``plans``, its literal values (``RankPlan.literals``, in
        order) in each of a list of slots of the ``kind_records`` record the plans
        were made for, taken from ``rows`` (each slot's values of ``literal``, the
        record's literal names, as ``KindRecords.find_read`` read them: a plan's
        literals are among them) a column at a time (``values``' ``read``). A rank
        whose memo is given up already (a state that never comes back: each slot
        one residual run, ``LiteralRanks.run``) has its values worked out here
        instead, the residual run over the column (``map``) and counted at once:
        the same runs, values and counts as one slot at a time."""
        read: dict[str, list] = {}
        done = set()
        ranks = self._literal_ranks
        for key, plan in plans.items():
            column = list(literal_columns(rows, literal, plan.literals))
            if plan.seen[0] < 0 and plan.program is not None:
                column = list(map(self._as_rank, map(plan.program, column)))
                ranks.evaluations += len(column)
                self.counts.evaluations += len(column)
                done.add(key)
            read[key] = column
        return RunRanks(read, frozenset(done))

    def _values(self, items: Iterable[tuple[str, RankPlan]], ad: ClassAd,
                constant: set[str] | frozenset[str], fixed: dict[str, float],
                read: RunRanks | None = None, at: int = 0) -> dict[str, float]:
        """``planned`` of each (rank, plan) of ``items``, except the ranks of
        ``fixed``, whose values are those; a rank of ``constant`` joins ``fixed``.
        ``read``, ``at``: what ``columns`` made (``values``)."""
        table = adeval.table(ad) if read is None else None
        columns, done = (None, _NONE) if read is None else read
        ranks_of = self._literal_ranks
        memo = ranks_of.values
        out = {}
        for key, plan in items:
            value = fixed.get(key, _UNSET)
            if value is _UNSET and key in done:
                value = columns[key][at]  # type: ignore[index]
            elif value is _UNSET:
                # (``LiteralRanks.planned`` inline, ``typed_values`` too: this runs
                # for every slot and rank)
                vals = ([table[name][1].value for name in plan.literals]  # type: ignore[index]
                        if columns is None else columns[key][at])
                seen = plan.seen
                if seen[0] < 0:
                    # (the layout's memo given up: each slot's literals its own,
                    # ``literal_ranks``)
                    value = ranks_of.run(plan.program, plan.expr, ad, vals)
                    self.counts.evaluations += 1
                else:
                    memo_key = (plan.shape, tuple(map(repr, vals)))
                    value = memo.get(memo_key)
                    if value is None:
                        note_miss(seen)
                        value = ranks_of.evaluate(memo_key, plan.program, plan.expr, ad,
                                                  vals)
                        self.counts.evaluations += 1
                    else:
                        seen[0] += 1
                if key in constant:
                    fixed[key] = value
            out[key] = value
        return out

    def planned(self, plan: RankPlan, ad: ClassAd) -> float:
        """A rank of a slot of the loose record ``plan`` was made for, from the
        slot's literal values (``literal_ranks.LiteralRanks.planned``)."""
        table = adeval.table(ad)
        vals = [table[name][1].value for name in plan.literals]  # type: ignore[index]
        ranks = self._literal_ranks
        before = ranks.evaluations
        value = ranks.planned(plan, ad, vals)
        self.counts.evaluations += ranks.evaluations - before
        return value

    def _sorted_names(self, reach: set[str]) -> tuple[str, ...]:
        """``reach`` sorted, remembered per reach set (walks share their sets)."""
        found = self._sorted.get(id(reach))
        if found is None or found[0] is not reach:
            found = self._sorted[id(reach)] = (reach, tuple(sorted(reach)))
        return found[1]


class RunRanks(NamedTuple):
    """What ``FirstRanks.columns`` made of a list of slots of one record: per rank,
    the slots' literal values (tuples), or for a rank of ``done`` its values."""

    columns: dict[str, list]
    done: frozenset[str]


#: "not worked out yet" (``loose_values``), and no rank
_UNSET = object()
_NONE: frozenset[str] = frozenset()


def _entry_expr(entry: tuple | None) -> Expr | None:
    """The expression of a table entry (None for an absent name)."""
    return None if entry is None else entry[1]
