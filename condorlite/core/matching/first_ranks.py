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
  in full. ``columns`` reads those values for many slots of one record at once, a
  column per name, for ``values`` to take them from (``OfferPrep.prepare_all``).

Both count, in the cycle's ``EvaluationCount``, the evaluations the value memo
missed (one per distinct layout and typed literal values), whichever way a value was
asked for, and every evaluation of a layout whose memo is given up (``literal_ranks``:
each slot's literals its own).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Expr
from condorlite.core.matching.candidates import as_rank
from condorlite.core.matching.first_states import FirstState
from condorlite.core.matching.literal_ranks import LiteralRanks, RankPlan, note_miss


class FirstRanks:
    """The cycle's job-independent ranks of first states (module doc). ``number``:
    the shape keys' ``Canon.number``; ``counts``: the cycle's ``EvaluationCount``."""

    def __init__(self, number: Callable[[Expr], int], now: float | None, counts) -> None:
        self.counts = counts
        self._literal_ranks = LiteralRanks(number, now, as_rank)
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
               read: dict[str, list[tuple]] | None = None, at: int = 0
               ) -> dict[str, float]:
        """``planned`` of each of ``plans`` (rank -> plan), in their order. ``read``:
        the literal values ``columns`` read of a list of slots, ``ad`` the one at
        ``at`` (None: read from ``ad``)."""
        return self._values(plans.items(), ad, _NONE, {}, read, at)

    def columns(self, plans: dict[str, RankPlan], ads: list[ClassAd]
                ) -> dict[str, list[tuple]]:
        """Per rank of ``plans``, its literal values (``RankPlan.literals``, in
        order) in each of ``ads`` (ClassAd-lite slots of the record the plans were
        made for), read a column per name: one comprehension a name for the slots
        together, not one a slot and rank (``values``' ``read``). Pure: nothing is
        evaluated or counted."""
        tables = [adeval.table(ad) for ad in ads]
        read: dict[str, list[tuple]] = {}
        for key, plan in plans.items():
            if plan.literals:
                read[key] = list(zip(*[[table[name][1].value for table in tables]  # type: ignore[index]
                                       for name in plan.literals], strict=True))
            else:
                read[key] = [()] * len(tables)
        return read

    def _values(self, items: Iterable[tuple[str, RankPlan]], ad: ClassAd,
                constant: set[str] | frozenset[str], fixed: dict[str, float],
                read: dict[str, list[tuple]] | None = None, at: int = 0
                ) -> dict[str, float]:
        """``planned`` of each (rank, plan) of ``items``, except the ranks of
        ``fixed``, whose values are those; a rank of ``constant`` joins ``fixed``.
        ``read``, ``at``: the literal values already read (``values``)."""
        table = adeval.table(ad) if read is None else None
        ranks_of = self._literal_ranks
        memo = ranks_of.values
        out = {}
        for key, plan in items:
            value = fixed.get(key, _UNSET)
            if value is _UNSET:
                # (``LiteralRanks.planned`` inline, ``typed_values`` too: this runs
                # for every slot and rank)
                vals = ([table[name][1].value for name in plan.literals]  # type: ignore[index]
                        if read is None else read[key][at])
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


#: "not worked out yet" (``loose_values``), and no rank
_UNSET = object()
_NONE: frozenset[str] = frozenset()


def _entry_expr(entry: tuple | None) -> Expr | None:
    """The expression of a table entry (None for an absent name)."""
    return None if entry is None else entry[1]
