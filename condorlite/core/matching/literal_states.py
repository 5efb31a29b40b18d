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
once per make), the program is run with the item's ``-key`` as its value
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
    as_rank,
    box_pair,
    make_pair,
)
from condorlite.core.matching.literal_orders import LiteralSnapshot
from condorlite.core.matching.ordered_states import OrderedStates
from condorlite.core.model import NO_PREEMPTION, REASON_ORDER

#: an entry's reason-order key by no preemption (``candidates.make_entry``)
_FREE_ORDER = -REASON_ORDER[NO_PREEMPTION]


class LiteralStates(OrderedStates):
    """``OrderedStates`` over the merge of a static's order and a class's offsets
    (module doc); ``literal``: what ``StaticOrders.literal`` gave, the rest as
    ``OrderedStates`` takes it."""

    __slots__ = ("_extra", "_group", "_skip", "_xat")

    def __init__(self, literal: LiteralSnapshot, *args) -> None:  # type: ignore[no-untyped-def]
        super().__init__(literal.items, *args)
        self._extra, self._group, self._skip = literal.extra, literal.group, literal.skip
        self._xat = 0

    def _make(self, count: int | None, last: float | None) -> None:
        """``OrderedStates._make`` over the merged items (module doc). The step from
        an item to its entry is ``ordered_make``'s loop's, written out again rather
        than shared through a call per item: the loop is the plain ordered statics'
        hottest, and one merged loop for both cost them 0.3 % of the 1k partitionable
        mix's instructions (RESULTS, session 20, desk20); a change to one is a change
        to both (``ordered_make``'s Python loop and its C one, ``ordered.c``)."""
        items, known_pairs, pair_of = self.items, self._known, self._pair_of
        requests, left, boxed = self._requests, self._left, self._boxed
        entries = self.entries
        # (the column's value of each offer, kept for every state: ``column`` doc)
        kept = None if self._column is None else self._column.kept()
        at, end = self._at, len(items)
        extra, xat, skip, group_of = self._extra, self._xat, self._skip, self._group
        xend = len(extra)
        # (the pre-job rank the program would evaluate is the item's key, -pre)
        program = self._program
        given = program is not None and program.given_rank(PRE)
        # (the entries this call may make before a group's start stops it)
        room = None if count is None else count - len(entries)
        batch: list[tuple] = []
        append = batch.append
        group = None  # (the -pre of the group being made)
        # (the pairs evaluated here, added to the cycle's count once at the end)
        evaluations = 0
        while at < end or xat < xend:
            # (the next item of the merge: an offset's first on equal keys, any order
            # will do within a group)
            if xat < xend and (at >= end or extra[xat][0] <= items[at][0]):
                item = extra[xat]
                taken = False
            else:
                item = items[at]
                taken = True
            key, idx, version, shape, post, vals, name, _ = item
            if key != group:
                # (a group's first item: the place to stop)
                if room is not None and len(batch) > room:
                    break
                if last is not None and key > last:
                    break
                group = key
            if taken:
                at += 1
                if skip and group_of(vals) in skip:
                    continue  # (an offset: its own item is in ``extra``)
            else:
                xat += 1
            have = left[shape]  # (as ``ordered_make`` tests it)
            fit = True
            for pos, amount in requests:
                if amount > have[pos]:
                    fit = False
                    break
            if not fit:
                continue
            pair_shape = pair_of[shape]
            if boxed is not None:
                known = boxed
                if pair_shape not in known_pairs:
                    evaluations += 1
                    known_pairs[pair_shape] = boxed
            else:
                known = known_pairs.get(pair_shape)
                if known is None:
                    evaluations += 1
                    outcome = program.run_fitted(  # type: ignore[union-attr]
                        vals, as_rank, -key if given else None)
                    known = known_pairs[pair_shape] = (
                        NO_MATCH if not outcome[0] else box_pair(program)  # type: ignore[arg-type]
                        if program.result is not None else make_pair(outcome))  # type: ignore[union-attr]
            if not known.match:
                continue
            append((key, -(known.job_rank if kept is None else kept[idx][1]),
                    -(post if post is not DEPENDENT else known.dependent[POST]),
                    _FREE_ORDER, FLT_MAX, name, idx, version, NO_PREEMPTION))
        self._counts.evaluations += evaluations
        if batch:
            batch.sort()
            entries.extend(batch)
        self._at, self._xat = at, xat
        self.done = at >= end and xat >= xend
