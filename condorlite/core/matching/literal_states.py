"""One list's entries of a static split on literal tests (``literal_orders``): the
static's shared order with the class's offsets passed over, merged with the offsets'
own items, made as the list's merge reads them.

``LiteralStates`` is an ``ordered_states.OrderedStates`` whose items come from the
merge, by key, of the snapshot's ``items`` and the class's ``extra`` items (sorted,
each keyed by its own rank for the class); an item of ``items`` whose group
(``LiteralSplit.group`` of its vector's values) is an offset's is passed over, its
offer's item being in ``extra``. An item's state, fit, pair and entry are made as
``OrderedStates`` makes them, a whole group of equal key at a time, so its invariant
holds of the merged items: the entries made are the sorted prefix of the sorted
entries of every item the class reads (each offer once, keyed by its rank for the
class: exact, ``literal_orders``).

So a state's pair result need not evaluate the pre-job rank again: when it is the
program's one dependent rank that is no constant (``PairProgram.given_rank``, asked
once per source), the program is run with the item's ``-key`` as its value
(``run_fitted``'s ``given``), the same value bit for bit (``-(-x)`` is ``x``, signs of
zero included). On the 10,000-slot partitionable mix every one of the 36,530 states
run here was such a program, and the rank (the default pre-job rank's arithmetic) was
most of a run's work.
"""

from __future__ import annotations

from condorlite.core.matching.candidates import (
    DEPENDENT,
    FLT_MAX,
    NO_MATCH,
    POST,
    PRE,
    PairEval,
    as_rank,
    box_pair,
    make_pair,
)
from condorlite.core.matching.literal_orders import LiteralSnapshot
from condorlite.core.matching.ordered_make import literal_make
from condorlite.core.matching.ordered_states import OrderedStates
from condorlite.core.model import NO_PREEMPTION, REASON_ORDER

#: an entry's reason-order key by no preemption (``candidates.make_entry``)
_FREE_ORDER = -REASON_ORDER[NO_PREEMPTION]
#: the entries' fields after the post-job rank and the last (``ordered_states``')
_FREE_TAIL = (_FREE_ORDER, FLT_MAX, NO_PREEMPTION)


class LiteralStates(OrderedStates):
    """``OrderedStates`` over the merge of a static's order and a class's offsets
    (module doc); ``literal``: what ``StaticOrders.literal`` gave, the rest as
    ``OrderedStates`` takes it."""

    __slots__ = ("_extra", "_given", "_group", "_skip", "_xat")

    def __init__(self, literal: LiteralSnapshot, *args) -> None:  # type: ignore[no-untyped-def]
        super().__init__(literal.items, *args)
        self._extra, self._group, self._skip = literal.extra, literal.group, literal.skip
        self._xat = 0
        #: whether the program may be given the pre-job rank (``_run``; None: not asked)
        self._given: bool | None = None

    def _make(self, count: int | None, last: float | None) -> None:
        """``OrderedStates._make`` over the merged items (module doc), by
        ``ordered_make.literal_make`` (one C call where built): the step from an item
        to its entry is ``ordered_make``'s, the pre-job rank given to the program as
        ``-key`` when it may be (``_run``)."""
        entries = self.entries
        # (the column's value of each offer, kept for every state: ``column`` doc)
        kept = None if self._column is None else self._column.kept()
        # (the entries this call may make before a group's start stops it)
        room = None if count is None else count - len(entries)
        batch: list[tuple] = []
        self._at, self._xat, evaluations = literal_make(
            self.items, self._at, self._extra, self._xat, self._skip, self._group, room,
            last, self._requests, self._left, self._pair_of, self._known, self._boxed, kept,
            self._run, batch, DEPENDENT, POST, _FREE_TAIL)
        # (the pairs evaluated, added to the cycle's count once)
        self._counts.evaluations += evaluations
        if batch:
            batch.sort()
            entries.extend(batch)
        self.done = self._at >= len(self.items) and self._xat >= len(self._extra)

    def _run(self, vals: tuple, key: float) -> PairEval:
        """The pair result of a fitting state with values ``vals`` by the class's
        program, its pre-job rank given as ``-key`` when it is the program's one
        dependent rank that is no constant (``PairProgram.given_rank``, asked once per
        source: the module doc)."""
        program = self._program
        given = self._given
        if given is None:
            given = self._given = program.given_rank(PRE)  # type: ignore[union-attr]
        outcome = program.run_fitted(vals, as_rank, -key if given else None)  # type: ignore[union-attr]
        return (NO_MATCH if not outcome[0] else box_pair(program)  # type: ignore[arg-type]
                if program.result is not None else make_pair(outcome))  # type: ignore[union-attr]
