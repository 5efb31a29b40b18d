"""A class's held entries with priority preemption on, made once per submitter and
shared by its lists.

With ``PREEMPTION_REQUIREMENTS`` set, every held group (``held_groups``) a class
matches may be listed, and a class's matching groups are found once per class key
(``held_walks``). Listing them shape by shape in every list (``ShapeEntries.add``:
a reason, a kept-run lookup and a run per held shape) cost as much again on pools
of many claimed static slots, where a class matches nearly all of them. What a held
offer's entry and reason depend on is fixed for a list key (``HeldLists.add``):

* the class key's pair result of the offer's group (the kept walk, the same object
  while no group gains an offer) and the class's rank column (one per class);
* the reason (``reasons.Reasons.reason``, written out here): by rank when the
  pair's slot Rank beats the shape's ``CurrentRank`` (whatever the submitter);
  else none for the submitter's own offers; else ``PREEMPTION_REQUIREMENTS``
  (``MatchTable.preemption_allowed``, whose result is kept per class, shape and
  the Submitter* names it reads: ``MatchTable.preq_names``) and the rank test, each
  refusal counted.

So the entries are made once per (class key, submitter, the bindings of the names
``PREEMPTION_REQUIREMENTS`` reads), in two sorted runs: those by rank and those by
priority; a rank-only list takes the first alone (its other offers give no reason
and no count, as ``Reasons.reason`` has it). Held offers only leave once the
cycle's offers are prepared: a run's entry of an offer that has left stays in (the
scan passes over it, as over any unavailable offer) until half of the runs' offers
have left, when they are filtered, as new lists (a run handed out is never changed
in place, but for a run by priority's one making from empty, ``lazy_runs``). The
refusal counts are the offers refused that are still available, and ``has_rank``
whether an offer listed by rank still is: what the shape-by-shape walk counted over
the groups' members at the list's making.

The entries by priority of the offers that share one pair result (a box program's
with constant ranks, ``MatchTable.run_part``: every slot of a part it passes) are
made together, one ``make_entries`` per result (an entry depends on its offer and
the pair result alone; a list's runs are sorted). Those of a result without
dependent ranks depend on the offer and the job rank alone (the class's column's
value, else the pair's): they are made once per (that rank's source, offer) and
shared by every list that lists the offer by priority (``candidates.SharedEntries``).
The run by priority is made only when a list's merge reaches its head, of the offers
still available then (``held_prio``, ``lazy_runs``: most lists take what they need
before it); the settling, which the refusal counts need, is done at once.

A walk's groups left for later (``held_types.LaterPairs``: groups of one offer of a
policy key the list does not refuse, whose offer's pre-job rank does not read the
job) are settled as the walk's ``allowed`` are, but when the run by priority is made
(``_settle_later``): the run is handed out while any of their offers is available,
its head the least of their offers' own first keys (``held_prio.LaterRun``); once a
run has worked them out, a list made later settles them at once.

The groups the walk passed over (``held_refusals``: refused by the policy, none
listed by rank, whether by their policy key or, their slot Rank not beating, their
preq key: ``held_walks`` module doc, 8; the submitter's own are not kept, never
counting) are the list's
deferred groups (``Candidates.deferred``, with their offers as of the list's making,
all of one holder, not the submitter: ``HeldWalk.passed``): a rejection
settles them (``Reasons.settle_deferred``), counting a matching one as the refusals
of a settled shape would be counted. A shape of a group whose policy key the walk did
not refuse is allowed by the policy without asking it, and one of a group with a preq
key (``held_refusals.GroupKeys``) takes the key's verdict for its list.

A group of one offer (most held groups: ``HeldSlot.one``) is made and settled by that
offer alone, not shape by shape: a held group only loses offers once the types are
made, and a held static offer leaves its group exactly when it becomes unavailable.

A shape's reason is its first offer's, applied to all its offers, as the walk did:
a shape binds alike everything a reason reads (holder, ``CurrentRank``, the names
``PREEMPTION_REQUIREMENTS`` reads of the slot).
"""

from __future__ import annotations

from functools import partial

from condorlite.core.adeval import ClassAd
from condorlite.core.matching.candidates import (
    ENTRY_IDX,
    Candidates,
    HeldGroup,
    PairEval,
    SharedEntries,
    make_entries,
)
from condorlite.core.matching.held_counts import DeferredList, DeferredSource
from condorlite.core.matching.held_groups import HeldGroups
from condorlite.core.matching.held_prio import LaterRun, PrioRuns
from condorlite.core.matching.held_refusals import REFUSED
from condorlite.core.matching.held_types import HeldWalk, LaterPairs
from condorlite.core.matching.lazy_runs import LazyRun
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.preq_verdicts import PreqVerdicts
from condorlite.core.matching.rank_columns import RankColumn
from condorlite.core.model import RANK_PREEMPTION


class HeldList:
    """The held entries of one list key (module doc), and what its lists count."""

    __slots__ = ("by_prio", "by_rank", "deferred", "epoch", "others", "passed",
                 "refused_policy", "walk", "whole")

    def __init__(self, walk: HeldWalk, by_rank: list[tuple], others: list[tuple], epoch: int
                 ) -> None:
        #: the kept walk (``HeldWalks.matching``) the entries were made of
        self.walk = walk
        #: sorted entries of the offers listed by rank
        self.by_rank = by_rank
        #: (members, pair result, what is known of the policy for them: None or a
        #: preq key, from their group's keys, ``held_refusals``) of the shapes
        #: neither listed by rank nor the submitter's own (but the walk's
        #: ``allowed``, read from it), until a list that is not rank-only settles
        #: them (``HeldLists._settle``: a rank-only list asks no
        #: PREEMPTION_REQUIREMENTS)
        self.others: list[tuple] | None = others
        #: sorted entries of the offers listed by priority (once settled, a
        #: ``lazy_runs.LazyRun``, made as a list's merge reaches it: ``held_prio``)
        self.by_prio: list[tuple] = []
        #: the seqs of the offers refused by PREEMPTION_REQUIREMENTS (a rejection
        #: reads their count); only those still available as of ``epoch``. (Offers
        #: the rank test refuses are left out: no rejection reason counts them.)
        self.refused_policy: list[int] = []
        #: ``HeldGroups.epoch`` when the lists above were last filtered, and when
        #: every offer of the runs' entries was last available (made or filtered:
        #: those made since were available at their making, later)
        self.epoch = self.whole = epoch
        #: the groups the walk passed over, and (``HeldGroups.epoch``, their counts
        #: as of then), for ``Candidates.deferred`` (``held_counts``)
        self.passed: DeferredSource | None = None
        self.deferred: tuple[int, DeferredList] | None = None


class HeldLists:
    """The cycle's shared held entries (module doc). ``held``: the held groups (read
    only); ``registry``: the offers by seq; ``preq``: ``PREEMPTION_REQUIREMENTS``
    by what it reads (``preq_verdicts``); ``preq_names``: the Submitter* names it
    can read; ``shared``: the cycle's entries shared between lists
    (``candidates.SharedEntries``)."""

    def __init__(self, held: HeldGroups, registry: list[Offer], preq: PreqVerdicts,
                 preq_names: frozenset[str], shared: SharedEntries) -> None:
        self._held = held
        self._registry = registry
        self._allowed = preq.allowed
        self._preq_names = preq_names
        #: (class key, submitter, the signature's bindings of ``preq_names``) -> its list
        self._lists: dict[tuple, HeldList] = {}
        #: the lists' runs by priority, made as a list's merge reaches them, their
        #: entries without dependent ranks made once per (job rank source, offer)
        #: (``candidates.SharedEntries``)
        self._prio = PrioRuns(registry, shared, held)

    def add(self, out: Candidates, kept_runs: list[list[tuple]], klass: tuple,
            job_ad: ClassAd, submitter: str, signature: tuple, only_rank: bool,
            walk: HeldWalk, column: RankColumn | None) -> None:
        """Add the held entries of the class key ``klass`` (its job ad ``job_ad``,
        Submitter* bindings ``signature``) to the list being built: its runs to
        ``kept_runs``, its refusal counts and ``has_rank`` to ``out``, and the groups
        the walk passed over (``held_refusals``) to ``out.deferred``, with the offers
        of each not the submitter's own, for ``Reasons.settle_deferred``. ``walk``:
        the class key's walk (``HeldWalks.matching``)."""
        key = self._key(klass, submitter, signature)
        found = self._lists.get(key)
        if found is None or found.walk is not walk:
            found = self._lists[key] = self._make(submitter, walk, column)
        elif found.epoch != self._held.epoch:
            self._filter(found)
        if found.by_rank:
            kept_runs.append(found.by_rank)
            if not out.has_rank:
                registry = self._registry
                out.has_rank = any(registry[e[ENTRY_IDX]].available for e in found.by_rank)
        if only_rank:
            return
        if found.others is not None:
            self._settle(found, klass[0], job_ad, signature, column)
        by_prio = found.by_prio
        if by_prio:
            kept_runs.append(by_prio)
            if type(by_prio) is LazyRun and not by_prio.made:
                out.lazy_held = True
        out.rej_policy += len(found.refused_policy)
        if walk.passed:
            out.deferred = self._deferred(found)

    def _deferred(self, found: HeldList) -> DeferredList:
        """(first offer, offers not the submitter's own: all of them) of each group
        the walk passed over with any, as of now, worked out when a rejection reads
        them (``held_counts``): shared by the lists made while no group changes."""
        epoch = self._held.epoch
        known = found.deferred
        if known is not None and known[0] == epoch:
            return known[1]
        source = found.passed
        if source is None:
            # (groups emptied by now left out: no group gains an offer while the walk
            # is kept, ``HeldWalks.matching``, so they stay empty)
            source = found.passed = DeferredSource(
                [(slot.first, slot.group) for slot in found.walk.passed if slot.group.total])
        # (a group passed over has one holder, not the submitter: its offers are all
        # not the submitter's own, ``HeldWalk.passed``: every offer counts)
        counts = DeferredList(source, None, epoch, self._held.changes)
        found.deferred = (epoch, counts)
        return counts

    def _key(self, klass: tuple, submitter: str, signature: tuple) -> tuple:
        """What a held list depends on besides the walk (module doc): the class key,
        the submitter and its bindings of the names PREEMPTION_REQUIREMENTS reads."""
        names = self._preq_names
        return (klass, submitter, tuple(b for b in signature if b[0] in names) if names else ())

    def _make(self, submitter: str, walk: HeldWalk, column: RankColumn | None) -> HeldList:
        """The entries by rank of the walk's groups' offers, and the other shapes not
        the submitter's own (module doc); the walk's ``allowed`` have neither."""
        registry = self._registry
        by_rank: list[tuple] = []
        others: list[tuple] = []
        for group, pe, known, one in walk.matched:
            if one is not None:
                # (a group of one offer: that offer, while available, is the group,
                # ``HeldSlot.one``; its shape's members are that offer alone)
                first = registry[one]
                if not first.available:
                    continue
                if pe.slot_rank > first.current_rank:
                    by_rank.extend(make_entries(registry, (one,), pe, RANK_PREEMPTION,
                                                column=column))
                elif first.holder != submitter:
                    others.append(((one,), pe, known))
                continue
            if not group.total:
                continue
            slot_rank = pe.slot_rank
            for members in group.shapes.values():
                first = registry[next(iter(members))]
                if slot_rank > first.current_rank:
                    by_rank.extend(make_entries(registry, members, pe, RANK_PREEMPTION,
                                                column=column))
                elif first.holder != submitter:
                    others.append((members, pe, known))
        by_rank.sort()
        return HeldList(walk, by_rank, others, self._held.epoch)

    def _settle(self, found: HeldList, class_id: int, job_ad: ClassAd, signature: tuple,
                column: RankColumn | None) -> None:
        """The run by priority (made when a list's merge reaches it: ``held_prio``)
        and the refusals of the shapes ``found`` left open (``HeldList.others``) and
        of the walk's ``allowed`` groups: their offers still available."""
        registry, allowed = self._registry, self._allowed
        jobs: dict = {}  # (the job ad's numbers, for ``allowed``)
        refusals = found.walk.refusals
        verdicts, refuses = ({}, None) if refusals is None else (refusals.verdicts,
                                                                 refusals.refuses)
        #: id(pair result) -> (it, the seqs listed with it): the entries of the
        #: offers that share a pair result (a box program's, ``MatchTable.run_part``)
        #: are made together
        listed: dict[int, tuple[PairEval, list[int]]] = {}
        for members, pe, known in found.others:  # type: ignore[union-attr]
            if len(members) == 1:  # (most held shapes: one slot each)
                (seq,) = members
                first = registry[seq]
                if not first.available:
                    continue
                seqs = [seq]
            else:
                seqs = [k for k in members if registry[k].available]
                if not seqs:
                    continue
                first = registry[seqs[0]]
            if known is None:
                refused = not allowed(class_id, job_ad, first, signature, jobs)
            else:
                # (the list's verdict of the group's preq key: never the submitter's
                # own here, those left out above)
                refused = verdicts.get(known)
                if refused is None:
                    refused = refuses(known)  # type: ignore[misc]
                refused = refused == REFUSED
            if refused:
                found.refused_policy.extend(seqs)
            elif pe.slot_rank >= first.current_rank:
                # (an entry without dependent ranks depends on its offer and its job
                # rank alone: listed by where that rank comes from)
                key = id(pe) if pe.dependent else (
                    column if column is not None else pe.job_rank)
                same = listed.get(key)
                if same is None:
                    listed[key] = (pe, seqs)
                else:
                    same[1].extend(seqs)
        walk = found.walk
        self._settle_allowed(walk.allowed, column, listed)
        later = walk.later
        more = None
        if later is not None:
            resolved = later.found
            if resolved is not None:  # (worked out by another list's run: as ``allowed``)
                self._settle_allowed(resolved, column, listed)
            elif (head := later.head()) is not None:
                # (their pairs worked out, and settled as ``allowed``'s, when a run
                # made of them is made: its head bounds their offers' own first keys)
                more = LaterRun(*head, partial(self._settle_later, later, column))
        found.by_prio = (self._prio.run(list(listed.values()), column, more)
                         if listed or more is not None else [])
        found.others = None

    def _settle_later(self, later: LaterPairs, column: RankColumn | None
                      ) -> list[tuple[PairEval, list[int]]]:
        """The groups by priority of a walk's groups left for later (``LaterPairs``),
        their pairs worked out now (once per walk), as ``_settle_allowed`` settles
        them: (pair result, seqs) of each key of ``_settle``'s ``listed``."""
        listed: dict[int, tuple[PairEval, list[int]]] = {}
        self._settle_allowed(later.pairs(), column, listed)
        return list(listed.values())

    def _settle_allowed(self, allowed: list[tuple[HeldGroup, PairEval, int | None]],
                        column: RankColumn | None,
                        listed: dict[int, tuple[PairEval, list[int]]]) -> None:
        """``_settle`` of a walk's ``allowed`` groups (``HeldWalk.allowed``, or its
        ``later`` ones once worked out): their offers still available, each allowed by
        the policy and none listed by rank nor the submitter's own, go by the rank
        test alone to ``listed`` (as ``_settle``'s) or are left out."""
        registry = self._registry
        # (consecutive groups mostly share one pair result, a box program's: its
        # slot Rank and its seqs in ``listed`` looked up once per run of them)
        last: PairEval | None = None
        slot_rank = 0.0
        into: list[int] | None = None
        for group, pe, one in allowed:
            if pe is not last:
                last, slot_rank, into = pe, pe.slot_rank, None
            if one is not None:
                # (a group of one offer, most held groups: that offer, while
                # available, is the group, ``HeldSlot.one``)
                first = registry[one]
                if not first.available or not slot_rank >= first.current_rank:
                    continue
                if into is not None:
                    into.append(one)
                else:
                    into = self._listed(listed, pe, column, [one])
                continue
            if not group.total:
                continue
            for members in group.shapes.values():
                if len(members) == 1:  # (most held shapes: one slot each)
                    (seq,) = members
                    first = registry[seq]
                    if not first.available or not slot_rank >= first.current_rank:
                        continue
                    if into is not None:
                        into.append(seq)
                    else:
                        into = self._listed(listed, pe, column, [seq])
                    continue
                seqs = [k for k in members if registry[k].available]
                if not seqs:
                    continue
                if not slot_rank >= registry[seqs[0]].current_rank:
                    continue
                if into is not None:
                    into.extend(seqs)
                else:
                    into = self._listed(listed, pe, column, seqs)

    @staticmethod
    def _listed(listed: dict, pe: PairEval, column: RankColumn | None,
                seqs: list[int]) -> list[int]:
        """Add ``seqs`` to ``listed`` under the pair result's key (``_settle``: its
        own when it has dependent ranks, else where its job rank comes from), as the
        first seqs of the key or after those it has; the key's list of seqs."""
        key = id(pe) if pe.dependent else (column if column is not None else pe.job_rank)
        same = listed.get(key)
        if same is None:
            listed[key] = (pe, seqs)
            return seqs
        same[1].extend(seqs)
        return same[1]

    def _filter(self, found: HeldList) -> None:
        """Drop the refused offers that have left, and the entries of those that have
        left once they are half of the runs (new lists: a run handed out stays). The
        runs are looked over only when that many may have left: each held offer that
        leaves moves ``HeldGroups.epoch`` once, and every entry's offer was available
        at ``HeldList.whole``."""
        registry, epoch = self._registry, self._held.epoch
        found.refused_policy = [k for k in found.refused_policy if registry[k].available]
        # (a run by priority not made yet holds nothing: it is made of the offers
        # available when made)
        by_prio = found.by_prio
        unmade = type(by_prio) is LazyRun and not by_prio.made
        size = len(found.by_rank) + len(by_prio)
        if 2 * (epoch - found.whole) > size:
            alive = [[e for e in run if registry[e[ENTRY_IDX]].available]
                     for run in ((found.by_rank,) if unmade else (found.by_rank, by_prio))]
            if 2 * sum(map(len, alive)) < size:
                found.by_rank = alive[0]
                if not unmade:
                    found.by_prio = alive[1]
                found.whole = epoch
        found.epoch = epoch

