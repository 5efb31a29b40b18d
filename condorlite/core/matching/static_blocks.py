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
``StaticBlocks.places`` (-pre, -post, Name, seq): for a pair result without a column,
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

import math
from collections.abc import Callable
from functools import partial

from condorlite.core.matching.candidates import ENTRY_IDX, POST, PRE, PairEval, make_entry
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

#: ``StaticLists._singles``: the entries of offers (by seq, in order) for a ranks'
#: number and pair result, with a rank column or None
Singles = Callable[[int, list[int], PairEval, RankColumn | None], list[tuple]]


class ShapeOrder:
    """The cycle's one-offer unheld static shapes whose offer's own pre- and post-job
    ranks are reals (module doc): ``place`` (shape -> its place in
    ``StaticBlocks.places``), ``neg_pre`` (shape -> minus its pre-job rank) and
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


class StaticBlocks:
    """The blocks of one cycle's static lists (module doc), owned by its
    ``StaticLists``, which hands each call what it reads of the lists (the offers'
    places in their likely order, their weights, the ``_singles`` that make entries);
    nothing here reads the lists back.

    Keeps the offers' likely order (``places``, which the lists' groups of one-offer
    shapes are sorted by too) and the one-offer shapes' order made of it
    (``ShapeOrder``), both made again when offers were prepared since. Invariant:
    every run it gives is a ``LazyRun`` of entries by no preemption alone, each block
    after its sentinel and the block before it; a list's blocks, once made, are
    handed out again without the offers that have left (``handed``)."""

    __slots__ = ("_likely_places", "_order", "_places", "members", "registry")

    def __init__(self, registry: list[Offer], members: dict[int, dict[int, None]]) -> None:
        #: the matchmaker's offers by ``seq`` and its static shapes' available
        #: members (read, never changed here)
        self.registry, self.members = registry, members
        #: each available static offer's place in their likely order (``places``)
        self._likely_places: list[int] = []
        #: the shapes' order, and the places it was made of
        self._order: ShapeOrder | None = None
        self._places: list[int] | None = None

    def places(self) -> list[int]:
        """Each available static offer's place (by ``seq``) in the order of its
        entries but for the pair's ranks (its independent pre and post job ranks,
        its name and ``seq``), made once (again when offers were prepared since: a
        new list): the offers of a list's group of one-offer shapes
        (``StaticLists._made``), put in this order, mostly give a sorted run, which
        the sort of the list only merges (tuples compared deep, their own order
        costs about ten times more). An order only: the sort decides.

        The order of ``_likely``'s tuples, made as stable sorts by each item, the
        last first (``seq``, name, post, pre): each sort compares plain numbers or
        strings, which Python's sort compares without a call, where one sort of
        tuples compares them item by item (10k static mix, the order of 6,957
        offers: 52.7 M instructions -> 33.0 M)."""
        registry = self.registry
        order = self._likely_places
        if len(order) != len(registry):
            seqs = sorted([k for found in self.members.values() for k in found])
            offers = [registry[k] for k in seqs]
            at = sorted(range(len(seqs)), key=[offer.name for offer in offers].__getitem__)
            for rank in (POST, PRE):
                values = [offer.independent.get(rank) for offer in offers]
                at.sort(key=[-value if type(value) is float else 0.0
                             for value in values].__getitem__)
            order = self._likely_places = [0] * len(registry)
            for place, index in enumerate(at):
                order[seqs[index]] = place
        return order

    def order(self) -> ShapeOrder:
        """The one-offer shapes' order of entries, made of ``places`` (again when
        that is a new list)."""
        order = self._order
        places = self.places()
        if order is None or self._places is not places:
            order = self._order = ShapeOrder(self.registry, self.members, places)
            self._places = places
        return order

    def group(self, alive: list[int], column: RankColumn | None
              ) -> tuple[list[int] | None, list[int]]:
        """Of a box's sure shapes of one result still available, ``alive``: those
        ``ShapeOrder`` orders, in the order of their entries, when they are
        ``LEAST`` or more and the order can be told (else None), and the rest,
        which the list makes whole."""
        order = self.order()
        place = order.place
        later = [shape for shape in alive if shape in place]
        if len(later) >= LEAST:
            ordered = order.ordered(later, self.registry, column)
            if ordered is not None:
                if len(later) == len(alive):
                    return ordered, []
                return ordered, [shape for shape in alive if shape not in place]
        return None, alive

    def runs(self, groups: list[tuple[list[int], PairEval, int]], weights: list[float],
             column: RankColumn | None, singles: Singles) -> tuple[list[LazyRun], float]:
        """The blocks of a new list's ``groups`` (each a box's sure shapes in the
        order of their entries, ``group``, its one pair result and the number of its
        ranks) and the least weight of their offers (``weights`` by seq): every sure
        shape matches, so the list's least weight is no more than that."""
        order, registry, members = self.order(), self.registry, self.members
        seq_of = order.seq
        out: list[LazyRun] = []
        least = math.inf
        for shapes, pe, number in groups:
            least = min(least, min(map(weights.__getitem__, map(seq_of.__getitem__, shapes))))
            out.extend(blocks(order, shapes, registry, members, pe, column,
                              partial(singles, number, pe=pe, column=column)))
        return out, least

    def handed(self, runs: list[list[tuple]]) -> tuple[list[list[tuple]], bool]:
        """A list's ``runs`` to hand out (``StaticLists.later``): those not made yet
        and those made that hold any entry, a made run whose first offer has left
        without the offers that have left (a new list: one handed out is never
        changed); and whether one is not made yet."""
        registry = self.registry
        unmade = False
        kept = []
        for run in runs:
            if type(run) is LazyRun and not run.made:
                unmade = True
            elif not run:
                continue
            elif not registry[run[0][ENTRY_IDX]].available:
                run = [e for e in run if registry[e[ENTRY_IDX]].available]
                if not run:
                    continue
            kept.append(run)
        return kept, unmade


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


def _likely(offer: Offer) -> tuple:
    """The key of ``StaticBlocks.places``: an entry's (``make_entry``) but for the
    pair's ranks, a rank the offer does not give itself taken as 0."""
    values = offer.independent
    pre, post = values.get(PRE), values.get(POST)
    return (-pre if type(pre) is float else 0.0, -post if type(post) is float else 0.0,
            offer.name, offer.seq)
