"""The counts of a list's deferred held groups, worked out when a rejection reads them.

A deferred group (``held_groups``: one no offer of which prefers the class's job by
rank, with preemption by priority off; ``held_lists``: one the walk passed over, its
policy key refused) is never listed: a rejection whose counts hold no refusal reads,
through ``Reasons.settle_deferred``, the count of offers not the submitter's own of a
group that matches (only whether it is positive decides the reason), trying the
groups that matched other classes first and then the rest in the list's order until
one matches. So a list's counts are read at its rejection alone, and then a few of
them: on the 10k owner-start row, 278 rejections settled lists handed out 460 times,
reading 500 counts by position and 7,859 in 20 passes, where the lists counted at
their making held 181,876 groups.

A list's deferred groups are therefore a ``DeferredList``: the plan's groups
(``DeferredSource``, with their positions by pair shape, made once at the first
rejection that reads them and shared by every submitter's list of them), the
submitter, and the ``HeldGroups.epoch`` of the list's making. A count is that of the
making: the group's count now with the offers that left it since (not the
submitter's own) added back and those it gained taken away, from the changes the held
groups log (``HeldChanges``: one entry per held offer that joins or leaves a group,
with the epoch it made). A group of no such offer as of the making is not in the
list (``entry`` gives None, the iteration passes over it), as the lists made at
once left it out. The list's truth is whether it holds any group at all: a list
whose every count was 0 settles to 0 without a pair asked, as an empty list. A
rejection that finds no hit reads on in the list's order, often to its end: the
first iteration takes the entries from one pass over the groups per epoch, shared
by every submitter's list made then (``EpochCounts``), and keeps them (the iteration
after it is C-level, as a plain list's). The lists are kept per (plan's list, submitter)
while no group changes (``DeferredLists``), so a class's rejections share one answer,
as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from operator import attrgetter, itemgetter

from condorlite.core.matching.candidates import HeldGroup
from condorlite.core.matching.offers import Offer

_FIRST = itemgetter(0)
_PAIR_SHAPE = attrgetter("pair_shape")


class HeldChanges:
    """Each held offer that joined or left a group, by pair shape, in order: (the
    ``HeldGroups.epoch`` the change made, the offer's holder, +1 for an offer that
    left, -1 for one that joined: what to add to a count now to have it as of an
    earlier epoch)."""

    __slots__ = ("by_shape",)

    def __init__(self) -> None:
        self.by_shape: dict[int, list[tuple[int, str, int]]] = {}

    def note(self, pair_shape: int, epoch: int, holder: str, back: int) -> None:
        found = self.by_shape.get(pair_shape)
        if found is None:
            self.by_shape[pair_shape] = [(epoch, holder, back)]
        else:
            found.append((epoch, holder, back))


class DeferredSource:
    """A plan's (or a walk's) deferred groups, as (first offer, group) in order, and
    their positions by pair shape (``positions``: made once, at the first rejection
    that reads them, for every list of these groups)."""

    __slots__ = ("_columns", "_positions", "groups")

    def __init__(self, groups: list[tuple[Offer, HeldGroup]]) -> None:
        self.groups = groups
        self._positions: dict[int, int] | None = None
        #: (epoch, ``EpochCounts`` of the groups as of then)
        self._columns: tuple[int, EpochCounts] | None = None

    def counts(self, epoch: int, changes: HeldChanges) -> EpochCounts:
        """The groups' counts as of ``epoch`` for every submitter, one pass per
        epoch read (every submitter's list of these groups made then shares it)."""
        found = self._columns
        if found is None or found[0] != epoch:
            found = self._columns = (epoch, EpochCounts(self.groups, epoch, changes))
        return found[1]

    def positions(self) -> dict[int, int]:
        """Pair shape -> position in ``groups`` of each group (one per pair shape;
        C-level passes)."""
        found = self._positions
        if found is None:
            groups = self.groups
            found = self._positions = dict(zip(map(_PAIR_SHAPE, map(_FIRST, groups)),
                                               range(len(groups)), strict=True))
        return found


class EpochCounts:
    """The entries of every submitter's list of some groups as of an epoch, from one
    pass: ``base`` (first offer, offers) of each group with any, what a submitter
    that holds none of them reads (the very list), and ``held`` each holder's
    (position in ``base``, its own offers there), where its count is less."""

    __slots__ = ("base", "held")

    def __init__(self, groups: list[tuple[Offer, HeldGroup]], epoch: int,
                 changes: HeldChanges) -> None:
        by_shape = changes.by_shape
        base: list[tuple[Offer, int]] = []
        held: dict[str, list[tuple[int, int]]] = {}
        for first, group in groups:
            total, by_holder = group.total, group.by_holder
            log = by_shape.get(first.pair_shape)
            if log and log[-1][0] > epoch:  # (changed since: undone)
                by_holder = dict(by_holder)
                for at, holder, back in reversed(log):
                    if at <= epoch:
                        break
                    total += back
                    by_holder[holder] = by_holder.get(holder, 0) + back
            if total:
                for holder, own in by_holder.items():
                    if own:
                        mine = held.get(holder)
                        if mine is None:
                            held[holder] = [(len(base), own)]
                        else:
                            mine.append((len(base), own))
                base.append((first, total))
        self.base, self.held = base, held

    def of(self, submitter: str | None) -> list[tuple[Offer, int]]:
        """The submitter's entries (never to be changed in place: it may be
        ``base``)."""
        mine = self.held.get(submitter)  # type: ignore[arg-type]
        if mine is None:
            return self.base
        base = self.base
        listed: list[tuple[Offer, int]] = []
        start = 0
        for i, own in mine:
            listed += base[start:i]
            first, total = base[i]
            if total - own:
                listed.append((first, total - own))
            start = i + 1
        listed += base[start:]
        return listed


class DeferredList:
    """``Candidates.deferred`` (module doc): (first offer, offers not ``submitter``'s
    own as of ``epoch``) of each group of ``source`` with any, in order, worked out
    as read. ``entry`` of a position in the source is this list's entry of that group
    (None: the list does not hold it), so ``Reasons._matching_count`` finds the
    groups of given pair shapes through the source's one table of positions. Never
    changed: a list may be shared by the lists made while no group changes."""

    __slots__ = ("_changes", "_listed", "_source", "epoch", "submitter")

    def __init__(self, source: DeferredSource, submitter: str | None, epoch: int,
                 changes: HeldChanges) -> None:
        self._source, self._changes = source, changes
        #: the submitter whose own offers are not counted (None: every offer counts)
        self.submitter = submitter
        #: ``HeldGroups.epoch`` at the list's making: the counts are of then
        self.epoch = epoch
        #: the entries, once iterated (a rejection that finds no hit reads on in
        #: order, often to the end: one pass, then C-level iteration)
        self._listed: list[tuple[Offer, int]] | None = None

    def __bool__(self) -> bool:
        return bool(self._source.groups)

    def __iter__(self) -> Iterator[tuple[Offer, int]]:
        listed = self._listed
        if listed is None:
            listed = self._listed = self._counted()
        return iter(listed)

    def _counted(self) -> list[tuple[Offer, int]]:
        """Every entry, in order, from the source's one pass per epoch
        (``EpochCounts``: shared by the submitters' lists made then)."""
        return self._source.counts(self.epoch, self._changes).of(self.submitter)

    def positions(self) -> dict[int, int]:
        """Pair shape -> position in the source (``entry``)."""
        return self._source.positions()

    def entry(self, position: int) -> tuple[Offer, int] | None:
        """This list's entry of the group at ``position`` in the source, None when
        the list does not hold it."""
        first, group = self._source.groups[position]
        count = self._count(first, group)
        return (first, count) if count else None

    def _count(self, first: Offer, group: HeldGroup) -> int:
        """The group's offers not the submitter's own as of ``epoch``: now, with the
        changes since undone (``HeldChanges``)."""
        submitter = self.submitter
        count = group.total - group.by_holder.get(submitter, 0)  # type: ignore[arg-type]
        changes = self._changes.by_shape.get(first.pair_shape)
        if changes and changes[-1][0] > self.epoch:
            epoch = self.epoch
            for at, holder, back in reversed(changes):
                if at <= epoch:
                    break
                if holder != submitter:
                    count += back
        return count


class DeferredLists:
    """The ``DeferredList`` of each (plan's deferred list, submitter), one per list
    made while no group changes (``HeldGroups.deferred_counts``): the lists of a
    class's rejections share ``Reasons.settle_deferred``'s answer, kept per list.
    The literal-Rank plan's list (``shared``), which every class of no other groups
    is given, is shared too by the submitters that hold none of its offers (their
    counts are its totals alike): one list per change. ``changes``: the held groups'
    log, which every list reads."""

    __slots__ = ("_holders", "_lists", "_sources", "changes")

    def __init__(self, changes: HeldChanges) -> None:
        self.changes = changes
        #: (id(a deferred list), submitter or None) -> (epoch, the list, its
        #: ``DeferredList``); id(a deferred list) -> (it, its ``DeferredSource``)
        self._lists: dict[tuple, tuple] = {}
        self._sources: dict[int, tuple[list, DeferredSource]] = {}
        #: (epoch, the shared list, the holders of its offers then)
        self._holders: tuple[int, list, set[str]] | None = None

    def of(self, deferred: list[tuple[Offer, HeldGroup]], submitter: str, epoch: int,
           shared: bool) -> DeferredList:
        """The ``DeferredList`` of ``deferred`` for ``submitter`` as of ``epoch``
        (now). The entry holds ``deferred``, so its id in the key stays its own."""
        holder: str | None = submitter
        if shared and submitter not in self._holders_of(deferred, epoch):
            holder = None
        key = (id(deferred), holder)
        found = self._lists.get(key)
        if found is not None and found[0] == epoch and found[1] is deferred:
            return found[2]
        source = self._sources.get(id(deferred))
        if source is None or source[0] is not deferred:
            source = self._sources[id(deferred)] = (deferred, DeferredSource(deferred))
        listed = DeferredList(source[1], holder, epoch, self.changes)
        self._lists[key] = (epoch, deferred, listed)
        return listed

    def forget_sources(self) -> None:
        """Let go of the sources made so far (the plans were made again: lists made
        from now on take new ones; those handed out keep theirs)."""
        self._sources.clear()

    def _holders_of(self, deferred: list[tuple[Offer, HeldGroup]], epoch: int) -> set[str]:
        """The holders of some offer of the shared list's groups now, worked out once
        per change."""
        found = self._holders
        if found is None or found[0] != epoch or found[1] is not deferred:
            holders = {holder for _, group in deferred
                       for holder, own in group.by_holder.items() if own}
            found = self._holders = (epoch, deferred, holders)
        return found[2]
