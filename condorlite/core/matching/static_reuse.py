"""A new static list made of an earlier list's entries where they are the same.

A class's list of unheld static offers (``static_lists``) is the sorted entries of
the shapes it matches; an entry is a function of its offer and of the ranks its
shape's pair gives it (the job rank or the class's rank column, and the dependent
ranks), which ``StaticLists._holder`` numbers (``_rank_numbers``). Classes whose
Requirements differ but rank alike match overlapping sets of shapes: at 10k x 100k of
the static mix, 22 of the 83 lists made hold only (shape, ranks) pairs an earlier
list holds, and six more hold over nine tenths of their entries so (15,190 and 6,836
entries). Such entries were looked up one by one (``candidates.SharedEntries``),
made again (dependent ranks) and sorted once more.

Here the lists made are kept with the ranks' number of each of their shapes, and a
new list finds the earlier one that holds the most of its (shape, ranks) pairs
(``find``, a sample of its pairs tried first). The entries of those shapes are then
that list's entries of their offers, in its order: a filter of a sorted list is
sorted. Only the other shapes' entries are made (``StaticLists._made``), and the two
sorted parts merged.

Exactness: an entry of a (shape, ranks) pair is the same tuple in every list that
holds the pair (the pair's ranks are what ``make_entries`` reads of it, and a static
offer's own values never change during a cycle); an earlier list holds an entry for
every offer of the pair's shape still available (a static shape only loses
offers, and a compacted list keeps every available offer's entry), so the filter
gives the entries of exactly the shape's offers still available (``keep``). Entries
are unique by offer, so the list is the same sorted list either way.

Work, not outcome: a list is taken from only when the entries kept are at least
``1 / FILTER`` of the entries it holds (a filter step costs far less than an entry
looked up or made, not nothing) and at least ``LEAST`` of them.
"""

from __future__ import annotations

from typing import NamedTuple

#: a list is filtered only when it holds at most this many entries per entry kept
FILTER = 8
#: the least entries a filter must keep (below it, the entries are made as before)
LEAST = 32
#: how many of a new list's pairs are tried first in each earlier list, and how many
#: of those it must hold to be counted in full
SAMPLE, SAMPLE_HELD = 8, 6


class Reuse(NamedTuple):
    """An earlier list to take entries from: its holder (``StaticLists``' [entries,
    shapes' members, first position of interest, least weight]) and, for each shape
    of the new list (in its order), whether that list holds the shape with the same
    ranks."""

    holder: list
    held: list[bool]


class MadeLists:
    """The cycle's static lists made so far, each with its ranks' number per shape
    (module doc)."""

    __slots__ = ("_made",)

    def __init__(self) -> None:
        #: (shape -> the number of its ranks, the list's holder), in the order made
        self._made: list[tuple[dict[int, int], list]] = []

    def add(self, shapes: list[int], ranks: list[int], holder: list) -> None:
        """Keep a list made of ``shapes`` with the ranks' numbers ``ranks``."""
        if shapes:
            self._made.append((dict(zip(shapes, ranks, strict=True)), holder))

    def find(self, shapes: list[int], ranks: list[int],
             members: dict[int, dict[int, None]]) -> Reuse | None:
        """The earlier list holding the most entries of the new list of ``shapes``
        (their available offers: ``members``) with the same ranks (``ranks``), when
        it pays to filter it (module doc); else None."""
        count = len(shapes)
        if count == 0 or not self._made:
            return None
        step = max(1, count // SAMPLE)
        tried = list(zip(shapes[::step], ranks[::step]))[:SAMPLE]
        least = min(SAMPLE_HELD, len(tried))
        best: Reuse | None = None
        best_kept = LEAST - 1
        for rank_of, holder in self._made:
            get = rank_of.get
            if sum([get(shape) == rank for shape, rank in tried]) < least:
                continue
            held = [get(shape) == rank for shape, rank in zip(shapes, ranks)]
            kept = sum([len(members[shape])
                        for shape, same in zip(shapes, held) if same])
            if kept > best_kept and kept * FILTER >= len(holder[0]) - holder[2]:
                best, best_kept = Reuse(holder, held), kept
        return best
