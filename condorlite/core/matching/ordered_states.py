"""A request's carved entries of one vector static, made from the static's order
(``static_orders``) only as far as the list's merge reads.

A list takes a snapshot of the static's items, sorted by (-pre, position)
(``StaticOrders.snapshot``, one source per tier), and ``OrderedStates`` makes entries
from it on demand, a whole group of equal -pre at a time: a state that does not hold
the class's fixed requests is passed over, a fitting one gets the class's pair result
(a box's one result, a known pair, or the program run at the item's values) and, if it
matches, the entry the walk would have made when the list was made (``carved_lists``):
the item keeps the state the offer had then, so the entry is the same whatever the
offer becomes meanwhile. ``literal_states.LiteralStates`` does the same over a split
static's order merged with a class's offsets.

A merge asks a source for more than its share of the merge past where it stands, but
no group past the bound the merge's runs before it have set (``grow``'s ``last``):
entries past that bound are not merged by this merge, and a list is often left before
its next (10,000-slot partitionable mix: 137,657 entries made, 115,471 of them ever
merged, when a source grew its whole share; 121,987 made since).

Invariant (what ``Candidates.merge_more`` relies on): ``OrderedStates.entries`` is
the sorted prefix of the sorted entries of the whole snapshot (a tier's): every item left has
a larger -pre than every entry made, so its entry sorts after them (and of the merge
of the order and a class's offsets, ``literal_states``).
"""

from __future__ import annotations

from condorlite.core.matching.candidates import (
    DEPENDENT,
    FLT_MAX,
    NO_MATCH,
    POST,
    PairEval,
    as_rank,
    box_pair,
    make_pair,
)
from condorlite.core.matching.carving import PairProgram
from condorlite.core.matching.evaluation_count import EvaluationCount
from condorlite.core.matching.ordered_make import ordered_make
from condorlite.core.matching.rank_columns import RankColumn
from condorlite.core.model import NO_PREEMPTION, REASON_ORDER

#: an entry's reason-order key by no preemption (``candidates.make_entry``)
_FREE_ORDER = -REASON_ORDER[NO_PREEMPTION]
#: the entries' fields after the post-job rank and the last, by no preemption
#: (``ordered_make``'s ``tail``: the reason order, -(-FLT_MAX), the reason)
_FREE_TAIL = (_FREE_ORDER, FLT_MAX, NO_PREEMPTION)


class OrderedStates:
    """One list's entries of one static, made from a snapshot of its order as the
    merge reads them (module doc). ``column``: the class's rank column, whose value
    for each offer of the static is the same in every state (``carved_lists`` asks
    ``RankColumn.same_in_every_state``), or None; ``fixed``: the class's fixed requests
    (spelling, amount, position), which a state's amounts left are tested against at
    each item read and not kept per shape (every carve makes a new state: on the
    10,000-slot partitionable mix 95 % of the states read here were new to their
    class's requests, and keeping the answers cost a miss and a store each);
    ``boxed``: the program's one result, else ``program`` is run at a state whose pair
    is not in ``known_pairs``. An item holds what its entry needs of the offer
    (``static_orders.item_of``): no registry."""

    __slots__ = ("_at", "_boxed", "_column", "_counts", "_known", "_left", "_pair_of",
                 "_program", "_requests", "done", "entries", "items")

    def __init__(self, items: list[tuple], pair_of: dict[int, int],
                 left: dict[int, tuple], fixed: list[tuple[str, float, int]],
                 boxed: PairEval | None,
                 program: PairProgram | None, known_pairs: dict[int, PairEval],
                 counts: EvaluationCount, column: RankColumn | None) -> None:
        self.items = items
        self._pair_of, self._left = pair_of, left
        #: (position, amount) of each fixed request (``_make``'s test)
        self._requests = [(pos, amount) for _, amount, pos in fixed]
        self._boxed, self._program = boxed, program
        self._known, self._counts = known_pairs, counts
        self._column = column
        self._at = 0
        self.entries: list[tuple] = []
        self.done = not items

    def grow(self, count: int, last: float | None = None) -> None:
        """Make entries until there are more than ``count`` or no item is left (a
        whole group of equal -pre at a time); with ``last``, no group whose -pre is
        over it (the merge's bound so far: an entry past it is not merged now)."""
        self._make(count, last)

    def through(self, key: float) -> None:
        """Make every item whose -pre is at most ``key`` (the first key of the
        merge's bound) into its entry."""
        self._make(None, key)

    def _make(self, count: int | None, last: float | None) -> None:
        """Make items into entries, in order, stopping at the first group (of equal
        -pre) that starts with more than ``count`` entries made (when given) or
        with its -pre over ``last`` (when given); the entries made (those whose
        state fits and matches) are sorted onto ``entries``. The loop is
        ``ordered_make``'s (one C call where built): the fixed requests tested at each
        item, the pair result the box's one, a known pair or ``_run`` stored, the
        entry the walk would have made when the list was made."""
        entries = self.entries
        # (the column's value of each offer, kept for every state: ``column`` doc)
        kept = None if self._column is None else self._column.kept()
        # (the entries this call may make before a group's start stops it)
        room = None if count is None else count - len(entries)
        batch: list[tuple] = []
        self._at, evaluations = ordered_make(
            self.items, self._at, room, last, self._requests, self._left, self._pair_of,
            self._known, self._boxed, kept, self._run, batch, DEPENDENT, POST, _FREE_TAIL)
        # (the pairs evaluated, added to the cycle's count once)
        self._counts.evaluations += evaluations
        if batch:
            batch.sort()
            entries.extend(batch)
        self.done = self._at >= len(self.items)

    def _run(self, vals: tuple, key: float) -> PairEval:
        """The pair result of a fitting state with values ``vals`` by the class's
        program (not a box's one result: ``_make``'s ``boxed``); ``key``, the item's,
        is read by ``LiteralStates._run`` alone."""
        program = self._program
        outcome = program.run_fitted(vals, as_rank)  # type: ignore[union-attr]
        return (NO_MATCH if not outcome[0] else box_pair(program)  # type: ignore[arg-type]
                if program.result is not None else make_pair(outcome))  # type: ignore[union-attr]
