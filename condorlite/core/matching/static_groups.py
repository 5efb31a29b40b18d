"""A static list's groups of one-offer shapes whose entries are made as the list's
merge reads them.

Most of a class's unheld static entries (``static_lists``) come from groups of
one-offer shapes of equal ranks (one pair result), and the walks read few of them
(10,000-slot static mix: 62,063 entries made, the walks' deepest reads 10,028). A
group whose entries' order is known before they are made is handed to each list as a
run made on demand (``Candidates.merge_more``'s lazy runs): ``LazyGroup`` makes its
entries in that order, a merge's share at a time, into one list shared by every list
of the group (it only grows at its end).

When the order is known: an entry is (-pre, -job rank, -post, reason order,
preemption rank, name, seq, ...) (``candidates.make_entry``); in a group the job rank
is the pair's (no rank column), one number that is no NaN, the reason is no
preemption (whose preemption rank is one constant), and pre and post are each either
the offer's own (``Offer.independent``, a float that is no NaN) for every offer of the
group or the pair's for every one (one constant). The entries then sort as (-pre,
-post, name, seq) of the offers, the order ``StaticLists._order`` gives (``kind``:
which of pre and post are the offer's own, None when one is no number).

Invariant (what ``merge_more`` relies on): ``entries`` is the sorted prefix of the
group's whole sorted entries, and ``grow(count)`` leaves more than ``count`` of them
made, or all: a merge's bound (a run's entry at most the ``count``-th past its
start) is then never past the last entry made, and every entry not made sorts
after that one, so ``through`` has nothing to make. An offer that has left when its
entry would be made gets none (it never comes back: the walks pass its entry over).
"""

from __future__ import annotations

from collections.abc import Callable

from condorlite.core.matching.candidates import ENTRY_IDX
from condorlite.core.matching.offers import Offer


class LazyGroup:
    """One group's entries, made in order as merges ask (module doc): ``seqs`` the
    group's offers in their entries' order, ``make(seqs)`` their entries (in that
    order)."""

    __slots__ = ("_at", "_make", "_registry", "done", "entries", "first", "seqs")

    def __init__(self, registry: list[Offer], seqs: list[int],
                 make: Callable[[list[int]], list[tuple]]) -> None:
        self._registry, self._make = registry, make
        #: the group's offers, in their entries' order
        self.seqs = seqs
        #: how many of ``seqs`` were looked at
        self._at = 0
        #: the entries made, a sorted prefix of the group's (shared: only grows)
        self.entries: list[tuple] = []
        #: the first of ``entries`` whose offer had not left at the last ``skip``
        self.first = 0
        self.done = not seqs

    def grow(self, count: int, last: float | None = None) -> None:
        """Make entries until more than ``count`` are made or none is left (``last``,
        the merge's bound so far, is not read: the module doc's invariant needs
        the count reached)."""
        entries, seqs, registry = self.entries, self.seqs, self._registry
        need = count + 1 - len(entries)
        at, end = self._at, len(seqs)
        while need > 0 and at < end:
            taken = seqs[at:at + need]
            at += len(taken)
            alive = [k for k in taken if registry[k].available]
            if alive:
                entries.extend(self._make(alive))
                need -= len(alive)
        self._at = at
        self.done = at >= end

    def through(self, key: float) -> None:
        """Nothing to make: every entry up to a merge's bound is made (module doc)."""

    def skip(self) -> int:
        """The position of the first entry made whose offer has not left (``first``,
        moved on): a list starts its run there."""
        entries, registry, first = self.entries, self._registry, self.first
        end = len(entries)
        while first < end and not registry[entries[first][ENTRY_IDX]].available:
            first += 1
        self.first = first
        return first


def kind(values: dict[str, float], pre: str, post: str) -> tuple[bool, bool] | None:
    """Which of ``pre`` and ``post`` an offer's own ranks (``values``) give, as
    (pre, post); None when one of them is given but is no float or a NaN (module doc:
    a group's order is then not known)."""
    out = []
    for name in (pre, post):
        if name in values:
            value = values[name]
            if type(value) is not float or value != value:
                return None
            out.append(True)
        else:
            out.append(False)
    return out[0], out[1]
