"""Held offers grouped by pair shape, and the classes' plans of them.

A held offer (claimed, without a resource vector) is a candidate only by preemption.
The matchmaker keeps them grouped by pair shape (``candidates.HeldGroup``: how many
there are, how many each holder holds, their ``CurrentRank`` values), so that a whole
group is settled at once (``Matchmaker._by_shape``).

When preemption by priority is off, a group none of whose offers prefers a class's job
by rank (the slot's ``Rank`` of the job no more than the lowest ``CurrentRank``) can
never be listed: it only counts, for a rejection, as offers ``PREEMPTION_REQUIREMENTS``
refused, and only once its pair is found to match (``Matchmaker.settle_deferred``). A
*plan* splits the groups into those deferred so and the rest. Groups whose slot
``Rank`` is a literal split alike for every class (planned once), the others per class
and rank key (``Reasons.rank_key``: the class's Rank asked once per key). A rank-only
list passes over the deferred groups (``RequestLists._held_candidates``): it lists by
rank alone and counts nothing.
Plans are kept while no group gains or loses an offer (``epoch``); a list's counts of
its deferred groups are worked out only when a rejection reads them (``held_counts``).
A class's split reads nothing of the class but its Rank of each rank key: classes of
equal Ranks share one plan. Where every such Rank can read only names the slot binds
to literals (or none: ``slot_ranks.rank_reads``), a class's Ranks are those of every
class whose job binds those names alike (``slot_ranks.job_numbers``), asked once for
all such classes (desktops that prefer their owner's jobs: a rank key per owner, a
class's Ranks decided by its job's ``Owner``; where those are string tests, one row
per plan: ``slot_ranks.StringRows``). A group's first offer is found once
(any offer of a held pair shape stands for it: all bind alike what a pair and a Rank
read). The order of a plan's lists does not matter, and deferring a group whose pair
is already known gives the same reason as counting it at once: a rejection asks only
whether some matching group has offers not the submitter's own.

**Brought up to date, not made again.** Once the offers are prepared, groups only
lose offers, and a split reads a group's offers only through whether it has any and
its lowest ``CurrentRank``. So while every group that lost an offer has emptied or
kept its lowest rank, the literal-Rank plan is the one made before less its emptied
groups (``_left_out``; else it is made in full), and so is a class plan made since
(``_brought``, in place for the classes that share it): the lists made afresh would
hold the other groups in the same order. The rank keys stand in the order of their
first groups; when that order moves (a key's first group emptied), the class plans
made before are split afresh (``_since``). A rank key's groups of one lowest rank (most
keys: desktops of ``CurrentRank`` 0) are split at once by one test of the class's
Rank of the key (``RankKeyGroups``). On the 10k owner-start row: one literal-Rank
plan made instead of 98, the same lists.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress
from operator import attrgetter, itemgetter

from condorlite.core import adeval
from condorlite.core.classad.ast import Literal
from condorlite.core.matching.candidates import HeldGroup
from condorlite.core.matching.held_counts import DeferredList, DeferredLists, HeldChanges
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.slot_ranks import rank_reads

#: "not in the table" (a table whose values may be None)
MISSING = object()
_SECOND = itemgetter(1)
_TOTAL = attrgetter("total")


class ClassPlan:
    """A class's split (``HeldGroups.plan``): (first offer, group) of each deferred
    group and (pair shape, group) of the others, as of ``epoch``; shared by the
    classes of equal Ranks, and brought up to date in place for all of them when
    groups have only emptied since (``HeldGroups._brought``)."""

    __slots__ = ("deferred", "epoch", "rest")

    def __init__(self, epoch: int, deferred: list, rest: list) -> None:
        self.epoch, self.deferred, self.rest = epoch, deferred, rest


class RankKeyGroups:
    """The groups of one rank key in the literal-Rank plan's others
    (``HeldGroups._literal_plan``), in order: (pair shape, group, first offer,
    lowest CurrentRank) of each; ``low``, their one lowest CurrentRank when all
    have the same (else ``MISSING``), so that a class's split takes them all
    one way at once (``as_deferred`` or ``as_rest``, in the same order) by one
    test of its Rank of the key."""

    __slots__ = ("as_deferred", "as_rest", "low", "members")

    def __init__(self, members: list[tuple]) -> None:
        self.members = members
        low = members[0][3]
        # (a NaN is no value the others equal: such a key's groups split one by one)
        self.low = low if all(member[3] == low for member in members) else MISSING
        self.as_deferred = [(first, group) for _, group, first, _ in members]
        self.as_rest = [(pair_shape, group) for pair_shape, group, _, _ in members]


def _alive(items: list) -> list:
    """The items of a plan's list (``(first or pair shape, group)``) whose group has
    offers, in order (C-level passes: no Python call per item)."""
    return list(compress(items, map(_TOTAL, map(_SECOND, items))))


class HeldGroups:
    """The held groups of one cycle's matchmaker (see the module doc)."""

    def __init__(self, registry: list[Offer]) -> None:
        #: the matchmaker's offers by ``seq`` (read, never changed here)
        self.registry = registry
        #: pair shape -> its group of available held offers
        self.groups: dict[int, HeldGroup] = {}
        #: bumped whenever a group gains or loses an offer
        self.epoch = 0
        #: bumped whenever a group gains an offer (``held_walks``: a class's matching
        #: groups stay its matching groups while only offers leave)
        self.added = 0
        #: (epoch, the literal-Rank plan: ``_literal_plan``'s three parts)
        self._literal: tuple[int, tuple[list, list, dict]] | None = None
        #: class key -> its plan (shared with ``_by_ranks``)
        self._plans: dict[tuple, ClassPlan] = {}
        #: the pair shapes that lost an offer since the literal-Rank plan was last
        #: made or brought up to date (``_literal_now``), in order, with repeats (at
        #: most one per held offer: with priority preemption on, never read)
        self._touched: list[int] = []
        #: pair shape -> the lowest CurrentRank of its group when the literal-Rank
        #: plan was made, of each group the plan holds; pair shape -> its position
        #: in ``groups`` (the order ``_literal_plan`` walks)
        self._lowest: dict[int, float] = {}
        self._order: dict[int, int] = {}
        #: pair shape -> its rank key, of the others' groups when the plan was made
        self._key_of: dict[int, int] = {}
        #: ``added`` when the literal-Rank plan was last made in full
        self._planned = -1
        #: the epoch since which the plans have only lost groups that emptied, their
        #: rank keys the same in the same order: a class plan of then or later is
        #: brought up to date by leaving those groups out (``_brought``)
        self._since = 0
        #: class key -> (the names the Ranks it was asked for read, or None; rank key
        #: -> the class's slot Rank of groups of that key: ``plan``'s ``slot_rank``,
        #: the same for every group of one rank key, and shared by the classes of
        #: equal job numbers of those names, ``_alike``)
        self._ranks: dict[tuple, tuple[tuple[str, ...] | None, dict[int, float]]] = {}
        #: (names, a job's numbers of them) -> rank key -> the slot Rank of such jobs
        self._alike: dict[tuple, dict[int, float]] = {}
        #: rank key -> the names its Rank can read (``slot_ranks.rank_reads``) or None
        self._reads: dict[int, tuple[str, ...] | None] = {}
        #: (``added`` when worked out, the names the plans' Ranks read: ``_union_reads``)
        self._union: tuple[int, tuple[str, ...] | None] | None = None
        #: the class's Rank of each rank key of the literal-Rank plan's others, in
        #: their order -> the plan of a class of those Ranks
        self._by_ranks: dict[tuple, ClassPlan] = {}
        #: pair shape -> an offer of it (any stands for the group: all bind alike
        #: what a pair and a Rank read, and a held offer's ad is never replaced)
        self._firsts: dict[int, Offer] = {}
        #: each held offer that joined or left a group, and the deferred lists
        #: whose counts, as of their making, it gives when read (``held_counts``)
        self.changes = HeldChanges()
        self._counts = DeferredLists(self.changes)
        #: pair shape -> its slot Rank's value when a literal (``adeval.slot_rank``), or None
        self._literal_ranks: dict[int, float | None] = {}

    def add(self, offer: Offer) -> dict[int, dict[int, None]]:
        """Count a held offer in its pair shape's group; returns the group's shape ->
        members table, for the matchmaker to place the offer in."""
        group = self.groups.setdefault(offer.pair_shape, HeldGroup())
        group.add(offer)
        self.epoch += 1
        self.added += 1
        self.changes.note(offer.pair_shape, self.epoch, offer.holder, -1)  # type: ignore[arg-type]
        return group.shapes

    def remove(self, offer: Offer) -> None:
        """Forget a held offer that has become unavailable."""
        self.groups[offer.pair_shape].remove(offer)
        self.epoch += 1
        self._touched.append(offer.pair_shape)
        self.changes.note(offer.pair_shape, self.epoch, offer.holder, 1)  # type: ignore[arg-type]

    def plan(self, key: tuple, slot_rank: Callable[[Offer], float],
             rank_key: Callable[[Offer], int],
             numbers: Callable[[tuple[str, ...]], tuple | None] | None = None,
             row: Callable[[tuple, Callable, Callable], tuple | None] | None = None
             ) -> tuple[list, list]:
        """The class ``key``'s split: (first offer, group) of each deferred group, and
        (pair shape, group) of the others; ``slot_rank(first)``: the slot's Rank of
        the class's job in a group whose Rank is not a literal, the same for groups
        of one ``rank_key(first)`` (``Reasons.rank_key``): asked once per rank key
        and, given ``numbers(names)`` (the class's job's numbers of ``names``, or
        None: ``slot_ranks.job_numbers``), once for the classes of equal numbers,
        unless ``row(rank keys, first offers, slot_rank)`` gives all at once
        (``Reasons.slot_row``; module doc); the split made once per change for the
        classes of equal Ranks of every rank key."""
        epoch = self.epoch
        shared = self._literal
        if shared is None or shared[0] != epoch:
            shared = self._literal = (epoch, self._literal_now(shared, rank_key))
            self._counts.forget_sources()  # (new lists take the plans made now)
        deferred, rest, others = shared[1]
        if not others:
            return deferred, rest
        found = self._plans.get(key)
        if found is not None:
            if found.epoch == epoch:
                return found.deferred, found.rest
            if found.epoch >= self._since:
                return self._brought(found)
        # (the split reads the class's Rank per rank key alone: classes of equal
        # Ranks share it, and so their submitters' deferred counts; a class's Rank
        # per rank key is asked once, whatever the plans remade as offers leave)
        ranks = None if row is None else row(tuple(others), lambda: [
            key_groups.members[0][2] for key_groups in others.values()], slot_rank)
        if ranks is None:
            reads = self._union_reads(others)
            kept = self._ranks.get(key)
            known = kept[1] if kept is not None and kept[0] == reads else self._known(
                key, reads, numbers)
            listed = []
            for rank_key, key_groups in others.items():
                rank = known.get(rank_key, MISSING)
                if rank is MISSING:
                    rank = known[rank_key] = slot_rank(key_groups.members[0][2])
                listed.append(rank)
            ranks = tuple(listed)
        found = self._by_ranks.get(ranks)
        if found is not None:
            if found.epoch == epoch:
                self._plans[key] = found
                return found.deferred, found.rest
            if found.epoch >= self._since:
                self._plans[key] = found
                return self._brought(found)
        deferred, rest = list(deferred), list(rest)
        for rank, key_groups in zip(ranks, others.values(), strict=True):
            low = key_groups.low
            if low is not MISSING:
                # (every group of the key has the same lowest CurrentRank)
                if not rank > low:  # (NaN: no rank preference)
                    deferred += key_groups.as_deferred
                else:
                    rest += key_groups.as_rest
                continue
            for pair_shape, group, first, lowest in key_groups.members:
                if not rank > lowest:
                    deferred.append((first, group))
                else:
                    rest.append((pair_shape, group))
        self._plans[key] = self._by_ranks[ranks] = ClassPlan(epoch, deferred, rest)
        return deferred, rest

    def _brought(self, found: ClassPlan) -> tuple[list, list]:
        """A class plan made since ``_since`` brought up to date, in place for every
        class that shares it: its groups that have emptied left out, as the split
        made now would (no group's lowest CurrentRank has changed since, and the
        rank keys are the same in the same order, so every other group is split as
        it was, in the same order). New lists (a list is read by id:
        ``deferred_counts``)."""
        deferred, rest = _alive(found.deferred), _alive(found.rest)
        found.epoch, found.deferred, found.rest = self.epoch, deferred, rest
        return deferred, rest

    def _literal_now(self, old: tuple[int, tuple[list, list, dict]] | None,
                     rank_key: Callable[[Offer], int]) -> tuple[list, list, dict]:
        """The literal-Rank plan now: ``old`` brought up to date when no group has
        gained an offer since it was made and each group that lost one has either
        emptied or kept its lowest CurrentRank (``_left_out``); else made in full
        (``_literal_plan``), which no class plan made before can be brought from."""
        touched, self._touched = self._touched, []
        if old is not None and self._planned == self.added:
            brought = self._left_out(old[1], touched)
            if brought is not None:
                return brought
        self._planned, self._since = self.added, self.epoch
        return self._literal_plan(rank_key)

    def _left_out(self, plan: tuple[list, list, dict], touched: list[int]
                  ) -> tuple[list, list, dict] | None:
        """``plan`` with the groups of ``touched`` that have emptied left out, in the
        order ``_literal_plan`` would give now: a split reads a group's offers only
        through whether it has any and its lowest CurrentRank, so it is the same
        while each other touched group keeps that (else None: made in full). Its
        rank keys are in the order of their first groups: when that order or the
        set of keys changes, the class plans made before split otherwise
        (``_since`` moves)."""
        lowest, groups, key_of = self._lowest, self.groups, self._key_of
        emptied = False
        #: the rank keys of the others' groups that have emptied
        changed: set[int] = set()
        for pair_shape in touched:
            was = lowest.get(pair_shape, MISSING)
            if was is MISSING:
                continue  # (not in the plan: emptied before)
            group = groups[pair_shape]
            if not group.total:
                del lowest[pair_shape]
                emptied = True
                rank_key = key_of.get(pair_shape)
                if rank_key is not None:
                    changed.add(rank_key)
                continue
            now = group.lowest_rank()
            if not (now is was or now == was):
                return None
        if not emptied:
            return plan
        deferred, rest, others = plan
        if changed:
            kept = dict(others)
            moved = False  # (whether a key's first group, or a key, has gone)
            for rank_key in changed:
                members = others[rank_key].members
                alive = [member for member in members if member[1].total]
                if not alive:
                    del kept[rank_key]
                    moved = True
                    continue
                moved = moved or alive[0] is not members[0]
                kept[rank_key] = RankKeyGroups(alive)
            if moved:
                order = self._order
                keys = sorted(kept, key=lambda rank_key: order[kept[rank_key].members[0][0]])
                if keys != list(others):
                    self._since = self.epoch
                    kept = {rank_key: kept[rank_key] for rank_key in keys}
            others = kept
        return _alive(deferred), _alive(rest), others

    def _known(self, key: tuple, reads: tuple[str, ...] | None,
               numbers: Callable[[tuple[str, ...]], tuple | None] | None
               ) -> dict[int, float]:
        """The class key's table of slot Ranks by rank key: shared by the classes of
        equal job numbers of ``reads`` (the names every Rank of the plan can read;
        None when not known: a table of its own), kept with ``reads`` (a class asked
        again under other names takes another table)."""
        alike = None if reads is None or numbers is None else numbers(reads)
        known: dict[int, float] = (
            {} if alike is None else self._alike.setdefault((reads, alike), {}))
        self._ranks[key] = (reads, known)
        return known

    def _union_reads(self, others: dict[int, RankKeyGroups]) -> tuple[str, ...] | None:
        """The names the Rank of any rank key of ``others`` can read
        (``slot_ranks.rank_reads``, read off each key's first group), sorted, or None
        when one is not known; worked out once while no group gains an offer: the
        rank keys of a later plan's ``others`` are then among those (groups only
        empty), so the names found read all their Ranks (maybe more: keying more,
        never less)."""
        found = self._union
        if found is None or found[0] != self.added:
            names: set[str] | None = set()
            reads = self._reads
            for rank_key, key_groups in others.items():
                read = reads.get(rank_key, MISSING)
                if read is MISSING:
                    read = reads[rank_key] = rank_reads(key_groups.members[0][2])
                if read is None:
                    names = None
                    break
                names.update(read)  # type: ignore[union-attr,arg-type]
            found = self._union = (self.added, None if names is None else tuple(sorted(names)))
        return found[1]

    def deferred_counts(self, deferred: list, submitter: str) -> DeferredList:
        """(first offer, offers not the submitter's own) of each deferred group with
        any, for ``Candidates.deferred``: a ``DeferredList``, its counts those of now,
        worked out when a rejection reads them (``held_counts``); one per list and
        submitter while no group changes, the literal-Rank plan's shared by the
        submitters that hold none of its offers (``DeferredLists``)."""
        return self._counts.of(deferred, submitter, self.epoch,
                               deferred is self._literal[1][0])  # type: ignore[index]

    def _literal_plan(self, rank_key: Callable[[Offer], int]) -> tuple[list, list, dict]:
        """The split of the groups whose slot Rank is a literal, and the others by
        rank key: (pair shape, group, first offer, lowest CurrentRank) of each. A
        pair shape's Rank (walked: all its offers bind it alike) is read once."""
        registry, literal_ranks = self.registry, self._literal_ranks
        deferred: list = []
        rest: list = []
        by_key: dict[int, list] = {}
        firsts = self._firsts
        lowest: dict[int, float] = {}
        key_of: dict[int, int] = {}
        self._lowest, self._order, self._key_of = lowest, {}, key_of
        order = self._order
        for pair_shape, group in self.groups.items():
            if not group.total:
                continue
            order[pair_shape] = len(order)
            first = firsts.get(pair_shape)
            if first is None:
                first = firsts[pair_shape] = registry[
                    next(iter(next(iter(group.shapes.values()))))]
            value = literal_ranks.get(pair_shape, MISSING)
            if value is MISSING:
                expr = adeval.attr(first.ad, "Rank")
                value = literal_ranks[pair_shape] = (
                    adeval.slot_rank(expr.value) if type(expr) is Literal else None)
            low = lowest[pair_shape] = group.lowest_rank()
            if value is None:
                found = key_of[pair_shape] = rank_key(first)
                by_key.setdefault(found, []).append((pair_shape, group, first, low))
            elif not value > low:
                deferred.append((first, group))
            else:
                rest.append((pair_shape, group))
        others = {found: RankKeyGroups(members) for found, members in by_key.items()}
        return deferred, rest, others
