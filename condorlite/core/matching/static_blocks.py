"""A box's sure static shapes of one result, their entries made as a list's merge reads them.

A class's list of unheld static offers (``static_lists``) takes, of each shared
static part whose program is a box with constant ranks, every shape the box surely
passes (``Part.split``) with the box's one pair result: thousands of shapes on a
pool where every slot differs, most of which no walk reads (10k static mix: the picks
read about a fifth of the static entries made). Their entries need no pair
evaluated and no sort of the whole list: an entry is (-pre, -job rank, -post,
reason order, preemption rank, Name, seq, ...) and, by no preemption, only the
offer's own ranks, its Name and seq vary between the group's entries, or those and
the class's rank column. So the group is ordered once, from numbers at hand, and its
entries are made a block at a time, each block a ``lazy_runs.LazyRun`` that the
list's merge makes when it reaches its head (``held_prio`` hands its runs by
priority out the same way).

**The order** (``ShapeOrder``, once per cycle): the one-offer unheld static shapes
whose offer's own PRE_JOB_RANK and POST_JOB_RANK are reals, each one's place in
``StaticLists._order`` (-pre, -post, Name, seq): for a pair result without a column,
the order of their entries. With a rank column, the group is sorted by its values
(negated, as the entries hold them) and then by -pre, stably, over that order: the
entries' order again, as long as no value is NaN (a NaN compares neither way, so
the tuples' order would depend on the input's; such a group is made whole with the
list, as before).

**Blocks**: the ordered shapes in slices of ``BLOCK``, doubling; each block's head and
sentinel (``lazy_runs``) is its first shape's entry at version ``NO_VERSION``,
which sorts before every entry of the block (that entry's own version is no less
than 0, and the rest sort after it) and which a scan passes over. A block is made of
the offers still available then, in order, by ``StaticLists._singles`` (an entry once
per ranks' number and offer, shared by every list), so it needs no sort.

Exact: the list's entries are the same tuples, in the same order, as when the whole
list was made with it (the merge keeps its entries the sorted prefix of the whole
list, ``Candidates.merge_more``; the sentinels are passed over); a shape that left
before its block is made gets no entry, which a scan would have passed over. The
evaluations are counted when the list is made, as before (a sure shape of a box
with constant ranks runs nothing either way), and a rank column's values are worked
out then for every shape of the group, as the whole list's entries did.
"""

from __future__ import annotations

from collections.abc import Callable

from condorlite.core.matching.candidates import POST, PRE, PairEval, make_entry
from condorlite.core.matching.held_prio import NO_VERSION
from condorlite.core.matching.lazy_runs import LazyRun
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.rank_columns import RankColumn
from condorlite.core.model import NO_PREEMPTION

#: the shapes of a group's first block (each next block holds twice as many)
BLOCK = 64
#: the least shapes a group must hold to be made by blocks (a smaller one is made
#: with the list: a run and its sentinels would cost more than its entries)
LEAST = 128


class ShapeOrder:
    """The cycle's one-offer unheld static shapes whose offer's own pre- and post-job
    ranks are reals (module doc): ``place`` (shape -> its place in
    ``StaticLists._order``), ``neg_pre`` (shape -> minus its pre-job rank) and
    ``seq`` (shape -> its offer's seq). Made of the shapes and places at hand; a
    static shape gains no offer and its ranks never change, so it stays true."""

    __slots__ = ("neg_pre", "place", "seq")

    def __init__(self, registry: list[Offer], members: dict[int, dict[int, None]],
                 places: list[int]) -> None:
        self.place: dict[int, int] = {}
        self.neg_pre: dict[int, float] = {}
        self.seq: dict[int, int] = {}
        for shape, seqs in members.items():
            if len(seqs) != 1:
                continue
            seq = next(iter(seqs))
            values = registry[seq].independent
            pre, post = values.get(PRE), values.get(POST)
            if type(pre) is float and type(post) is float:
                self.place[shape] = places[seq]
                self.neg_pre[shape] = -pre
                self.seq[shape] = seq

    def ordered(self, shapes: list[int], registry: list[Offer],
                column: RankColumn | None) -> list[int] | None:
        """``shapes`` (all in ``place``) in the order of their entries for a pair
        result without dependent pre- or post-job ranks, by no preemption, with
        ``column``'s job ranks if given (module doc); None when a value of the
        column is NaN (no order can be told)."""
        place = self.place
        out = sorted(shapes, key=place.__getitem__)
        if column is None:
            return out
        negated, value, seq_of = column.negated(), column.value, self.seq
        ranks = {}
        for shape in out:
            seq = seq_of[shape]
            rank = negated.get(seq)
            if rank is None:
                rank = -value(registry[seq])
            if rank != rank:
                return None
            ranks[shape] = rank
        out.sort(key=ranks.__getitem__)
        out.sort(key=self.neg_pre.__getitem__)
        return out


def blocks(order: ShapeOrder, shapes: list[int], registry: list[Offer],
           members: dict[int, dict[int, None]], pe: PairEval, column: RankColumn | None,
           made: Callable[[list[int]], list[tuple]]) -> list[LazyRun]:
    """The runs of the ordered ``shapes`` (``ShapeOrder.ordered``) in blocks (module
    doc): ``made(seqs)`` gives the sorted entries of the offers ``seqs`` (in order)
    with the pair result ``pe`` (``StaticLists._singles``); a block holds those of
    its shapes still in ``members`` when it is made."""
    seq_of = order.seq
    runs = []
    size, start, end = BLOCK, 0, len(shapes)
    while start < end:
        block = shapes[start:start + size]
        first = registry[seq_of[block[0]]]
        entry = make_entry(first, first.seq, pe, NO_PREEMPTION, column)
        sentinel = (*entry[:7], NO_VERSION, NO_PREEMPTION)
        runs.append(LazyRun(_fill(block, seq_of, members, made), sentinel, sentinel))
        start += size
        size *= 2
    return runs


def _fill(block: list[int], seq_of: dict[int, int], members: dict[int, dict[int, None]],
          made: Callable[[list[int]], list[tuple]]) -> Callable[[], list[tuple]]:
    """A block's ``LazyRun`` fill: the entries of its offers still available."""
    def fill() -> list[tuple]:
        return made([seq_of[shape] for shape in block if shape in members])
    return fill
