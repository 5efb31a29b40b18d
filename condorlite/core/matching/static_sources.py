"""A static list made only as deep as its walks read it.

A class's static list (``static_lists``) is read from the front, and most walks
stop after a few hundred entries of lists thousands long (session 24-26 counts: 16 %
of the static mix's entries are read, 24 % of owner-start's). A group of one-offer
shapes of one pair result, with no rank column, gives entries whose order is known
before they are made: their job rank, reason, preemption rank and dependent ranks
are the group's, so they sort by the offer's own pre and post job ranks, name and
``seq``, which is ``StaticLists._order``'s order, when every offer of the group gives
the pre rank itself or none does, and the post rank alike (``StaticLists._kinds``).
Such a group is a *lazy group*: its offers in that order, their entries made a chunk
at a time. The list's other entries (several-offer shapes' runs, groups of a rank
column or of mixed kinds) are made and sorted at once, the *eager* run.

``StaticSource.grow`` appends the next entries, in order, to every list object
handed out for it (a list is extended at its end only, never changed before it, so
a walk's place in it stays true). Exactness: each lazy group with entries left
unmade holds a made, sorted ``pending`` chunk; the *limit* is the least last entry
of those chunks. Every entry not made yet is greater than its group's last made one,
so greater than the limit; the entries made and at most the limit (of the chunks
and of the eager run) are therefore the list's next entries, appended sorted. At
least the whole chunk of the group giving the limit goes out, so each call makes
progress; a group's chunks double from ``FIRST``.

Work, not outcome: the entries a list holds are the eager list's, in the same
order, made later, but for those of offers that had left when their chunk was made
(a static offer never comes back; the walk would pass over their entries).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable
from itertools import chain

from condorlite.core.matching.candidates import PairEval

#: the first chunk a lazy group makes (then twice the last, as the walks read on)
FIRST = 32


class LazyGroup:
    """One lazy group: ``seqs`` (its offers in their entries' order), ``pe`` (their
    pair result), how many are made (``made``), the made entries not handed out yet
    (``pending``, sorted) and the next chunk's size."""

    __slots__ = ("chunk", "made", "pe", "pending", "seqs")

    def __init__(self, seqs: list[int], pe: PairEval) -> None:
        self.seqs, self.pe = seqs, pe
        self.made = 0
        self.pending: list[tuple] = []
        self.chunk = FIRST


class StaticSource:
    """The entries of one static list not handed out yet (module doc): ``eager``,
    the sorted entries made at once; ``groups``, the lazy groups; ``make(seqs, pe)``,
    the entries of offers of a group (``make_entries``, or ``SharedEntries``);
    ``views``, the list objects it extends (the list and its compactions). ``make``
    may leave out offers that have left (their entries would only be passed over)."""

    __slots__ = ("_eager", "_groups", "_make", "_next", "views")

    def __init__(self, eager: list[tuple], groups: list[LazyGroup],
                 make: Callable[[list[int], PairEval], list[tuple]],
                 views: list[list[tuple]]) -> None:
        self._eager, self._groups, self._make = eager, groups, make
        #: the first entry of ``eager`` not handed out yet
        self._next = 0
        self.views = views

    def grow(self) -> bool:
        """Append the list's next entries to every view; False when all were out."""
        limit = None
        groups = self._groups
        for group in groups:
            seqs, made = group.seqs, group.made
            while not group.pending and made < len(seqs):
                # (a chunk's offers that have left get no entry: none comes back)
                upto = made + group.chunk
                group.pending = self._make(seqs[made:upto], group.pe)
                group.made = made = min(upto, len(seqs))
                group.chunk *= 2
            if made < len(seqs):
                last = group.pending[-1]
                if limit is None or last < limit:
                    limit = last
        pieces = []
        for group in groups:
            pending = group.pending
            if pending:
                cut = len(pending) if limit is None else bisect_right(pending, limit)
                if cut:
                    pieces.append(pending[:cut] if cut < len(pending) else pending)
                    group.pending = pending[cut:]
        eager, start = self._eager, self._next
        cut = len(eager) if limit is None else bisect_right(eager, limit, lo=start)
        if cut > start:
            pieces.append(eager[start:cut])
            self._next = cut
        # (a group made and handed out in full is done)
        self._groups = [group for group in groups
                        if group.pending or group.made < len(group.seqs)]
        if not pieces:
            return False
        chunk = pieces[0] if len(pieces) == 1 else sorted(chain.from_iterable(pieces))
        for view in self.views:
            view.extend(chunk)
        return True
