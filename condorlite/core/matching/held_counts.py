"""The counts of a plan's deferred held groups, per submitter (``held_groups``).

A deferred group (one no offer of which prefers the class's job by rank, with
preemption by priority off) is never listed: a rejection reads only how many of its
offers are not the submitter's own (``Reasons``), as (first offer, count) entries in
the plan's order, groups of none left out (``deferred_counts_of``). A pool of many
held groups and many submitters (disk-share: a group per held slot, a hundred
submitters) makes those lists from one pass over the groups (``DeferredCounts``), and
each list knows where its groups stand in that pass (``DeferredList``), so a
rejection finds the groups of given pair shapes without a table per list.
"""

from __future__ import annotations

from operator import attrgetter, itemgetter

from condorlite.core.matching.candidates import HeldGroup
from condorlite.core.matching.offers import Offer

_FIRST = itemgetter(0)
_PAIR_SHAPE = attrgetter("pair_shape")


class DeferredCounts:
    """``deferred_counts_of`` of one deferred list for any submitter, from one pass over its
    groups: ``base`` is every group with offers and all of them (a submitter that
    holds none of the list's offers gets this very list), ``held`` each holder's
    positions in it, where its count is less. A disk-share pool has a group per held
    slot and a hundred submitters: one pass instead of one per submitter. Valid
    while no group changes (``HeldGroups.epoch``). Each list given is a
    ``DeferredList`` of this one: the positions of the groups in ``base``
    (``positions``) are found once, for all of them."""

    __slots__ = ("_positions", "base", "groups", "held")

    def __init__(self, deferred: list) -> None:
        base = DeferredList(self, {})
        groups: list[HeldGroup] = []
        held: dict[str, list[int]] = {}
        for first, group in deferred:
            total = group.total
            if total:
                for holder, own in group.by_holder.items():
                    if own:
                        positions = held.get(holder)
                        if positions is None:
                            held[holder] = [len(base)]
                        else:
                            positions.append(len(base))
                base.append((first, total))
                groups.append(group)
        self.base, self.groups, self.held = base, groups, held
        self._positions: dict[int, int] | None = None

    def of(self, submitter: str) -> DeferredList:
        """``deferred_counts_of(deferred, submitter)`` (never to be changed in place: it may be
        ``base``)."""
        positions = self.held.get(submitter)
        if positions is None:
            return self.base
        base, groups = self.base, self.groups
        # (the counts of the submitter's positions, as made: what ``entry`` reads)
        changed: dict[int, int] = {}
        out = DeferredList(self, changed)
        start = 0
        for i in positions:
            out += base[start:i]
            first, total = base[i]
            count = changed[i] = total - groups[i].by_holder[submitter]
            if count:
                out.append((first, count))
            start = i + 1
        out += base[start:]
        return out

    def positions(self) -> dict[int, int]:
        """Pair shape -> position in ``base`` of each group (one per pair shape),
        made once (C-level passes: the first read of each offer is the cost)."""
        found = self._positions
        if found is None:
            base = self.base
            found = self._positions = dict(zip(map(_PAIR_SHAPE, map(_FIRST, base)),
                                               range(len(base)), strict=True))
        return found


class DeferredList(list):
    """A list ``DeferredCounts.of`` gives (``Candidates.deferred``: (first offer,
    count) of each group with any, in ``base``'s order), knowing where its groups
    stand in ``base``: ``entry`` of a position in ``base`` is this list's entry of
    that group, so the groups of given pair shapes are found through the
    ``DeferredCounts``' one ``positions`` (``Reasons._matching_count``), not a
    table per list. ``changed``: the count of each of ``base``'s positions this
    list has another count of (0: not in the list), as made (a list may be read
    after the groups change)."""

    __slots__ = ("changed", "source")

    def __init__(self, source: DeferredCounts, changed: dict[int, int]) -> None:
        super().__init__()
        self.source, self.changed = source, changed

    def positions(self) -> dict[int, int]:
        """Pair shape -> position in the source's ``base`` (``entry``)."""
        return self.source.positions()

    def entry(self, position: int) -> tuple[Offer, int] | None:
        """This list's entry of the group at ``position`` in the source's ``base``,
        None when the list does not hold it."""
        found = self.source.base[position]
        count = self.changed.get(position)
        if count is None:
            return found
        return (found[0], count) if count else None


def deferred_counts_of(deferred: list, submitter: str) -> list[tuple[Offer, int]]:
    """(first offer, offers not the submitter's own) of each group of ``deferred``
    with any, in order."""
    counts = []
    for first, group in deferred:
        count = group.total - group.by_holder.get(submitter, 0)
        if count:
            counts.append((first, count))
    return counts
