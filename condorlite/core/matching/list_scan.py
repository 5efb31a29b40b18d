"""Walking a request's candidate list: finding the first entry a job may take (one
``ListScan`` per cycle, owned by ``negotiation.negotiator.Cycle``; one ``ListWalk`` per
list, kept by the submitter's turn between the jobs of the class).

A list (``candidates.Candidates``) is consumed from the front, as HTCondor consumes its
match list: an entry passed over (an offer taken since, a piece that does not fit or
that the submitter limit refuses) is not met again by the class's next jobs. Entries
made before an offer changed are put right as they are met (the carving clock,
``Matchmaker.stamp``); the runs not merged yet are merged on reaching them
(``Candidates.merge_more``); a list that runs out takes back the partitionable slots it
handed out, evaluated in their new states.

What the submitter's limits allow a walk, and the rules that cut one, are
``walk_limits``'s (``Bounds``, ``Permit``, ``RestFloors``); what the rules are applied
to is read off the list here. A walk the limit refuses entry after entry is cut short at
a refusal once every entry left is surely refused (no entry by rank preemption in the
list, no round-up rule): the class's cost floor refused both without preemption and by
priority, or else the entries by no preemption and those by priority bounded apart
(``RestFloors``, read off the list at the first refusal that asks, kept per walk): the
former by the class's floor without the held slots (``PieceCosts.floor``, ``held``
False), or none left at all, the latter by the least weight of the held slots the list
itself still holds. The pool's least held weight bounded both (``SPLIT`` False): on the
10,000-slot partitionable mix 45 walks then passed 42,517 refused pieces to the end of
their lists, merging their runs made on demand, because a one-core slot held elsewhere
might have been taken by priority.
"""

from __future__ import annotations

import math
from bisect import bisect_right, insort
from functools import partial
from typing import NamedTuple

from condorlite.core.classad import ClassAd
from condorlite.core.matching.candidates import (
    ENTRY_IDX,
    ENTRY_REASON,
    ENTRY_VERSION,
    Candidates,
    make_free_entries,
)
from condorlite.core.matching.matchmaker import Matchmaker
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.piece_costs import PieceCosts
from condorlite.core.matching.walk_limits import Bounds, Permit, RestFloors
from condorlite.core.model import NO_PREEMPTION, PRIO_PREEMPTION, RANK_PREEMPTION, Job

#: whether a walk's cut bounds the entries by no preemption and by priority apart
#: (module doc; False: one floor, the pool's least held weight included, for both)
SPLIT = True


class Pick(NamedTuple):
    """The entry a job takes: its offer, why it is free to the job (a reason of
    ``model``), what the job takes of a partitionable offer (else None), and its cost
    against the limits (the piece's or the slot's weight)."""

    offer: Offer
    reason: str
    taken: dict[str, float] | None
    cost: float


#: ``Pick(*fields)`` of a 4-tuple in one C call (a pick is made for every match)
_make_pick = partial(tuple.__new__, Pick)


class ListScan:
    """The list walks of one cycle (see the module doc): it reads the cycle's offers,
    matchmaker and piece costs, and counts ``walks_cut``."""

    def __init__(self, offers: list[Offer], mm: Matchmaker, costs: PieceCosts) -> None:
        self.offers, self.mm, self.costs = offers, mm, costs
        #: scans the cost floor ended early (for tests: the shortcut is taken)
        self.walks_cut = 0

    def walk(self, cands: Candidates, klass: int, job_ad: ClassAd, name: str,
             only_rank: bool, bounds: Bounds) -> ListWalk:
        """The walk of one request's list for the jobs of its class in one turn, one
        after another, under the turn's ``bounds`` (``ListWalk``)."""
        return ListWalk(self, cands, klass, job_ad, name, only_rank, bounds)


class ListWalk:
    """The walk of one request's list in one turn: ``pick`` answers, for each job of
    the class in turn, the best candidate the job may take under the turn's ``bounds``
    and what it has used, or None.

    Its place in the list is kept between jobs (in ``cands.position`` and
    ``cands.spos``): from that place the first entry the job may take is consumed with
    everything before it. Entries of unavailable offers are passed over; an offer
    changed since its entry was made is evaluated again and put back in its place
    (``_stale``); a piece that does not fit, or whose cost the limit refuses
    (``Permit``), is passed over (the latter counted in ``rej_limit``), and so
    is every entry left once the limit refuses the class's cost floor.

    A partitionable slot this list handed out leaves the list, so the class's next
    jobs spread over the other slots first (HTCondor hands a pslot to a request group
    once, NEGOTIATOR_DEPTH_FIRST = False). When the list runs out, the slots it carved
    are evaluated again for what they have left and appended, best first, so a job is
    never rejected while a carved slot still fits it.
    """

    __slots__ = ("_fixed", "_floors", "bounds", "cands", "job_ad", "klass", "name",
                 "only_rank", "scan")

    def __init__(self, scan: ListScan, cands: Candidates, klass: int, job_ad: ClassAd,
                 name: str, only_rank: bool, bounds: Bounds) -> None:
        self.scan, self.cands, self.klass = scan, cands, klass
        self.job_ad, self.name, self.only_rank = job_ad, name, only_rank
        self.bounds = bounds
        # What ``pick`` reads of the list, the cycle and the turn that never changes
        # once the list is made (its lists are changed in place, never replaced),
        # read in one step: ``pick`` runs once per job considered.
        self._fixed = (cands, cands.entries, cands.static, len(cands.static), cands.built,
                       cands.pending, cands.pairs, scan.offers, scan.mm, klass, scan,
                       *bounds)
        #: the least cost of an entry left by no preemption and by priority
        #: (``_rest_floors``), worked out at the first refusal that asks (None: not yet)
        self._floors: RestFloors | None = None

    def pick(self, job: Job, free_used: float, prio_used: float) -> Pick | None:
        """The entry ``job`` takes (class doc) under ``bounds.permit(free_used,
        prio_used)``, or None: the first entry from the walk's place that ``job`` may
        take, consumed with everything before it; when the list runs out (or the
        cost floor ends it), the slots it carved are taken back
        (``_take_back_carved``) and the walk goes on over them."""
        # The static entries are a second sorted list (``Candidates.static``): the
        # next entry is the smaller of the two heads; the runs not merged yet
        # (``Candidates.merge_more``) are merged on reaching the end.
        (cands, entries, static, send, built, pending, pairs, offers, mm, klass,
         scan, free_bound, prio_bound, free_positive, prio_positive) = self._fixed
        pos, spos, end = cands.position, cands.spos, len(entries)
        ask = True  # (whether a refusal asks ``_rest_refused``)
        try:
            while True:
                if pos >= end and pending:
                    cands.merge_more()
                    end = len(entries)
                if spos < send and (pos >= end or static[spos] < entries[pos]):
                    entry = static[spos]
                    spos += 1
                elif pos < end:
                    entry = entries[pos]
                    pos += 1
                elif cands.carved:
                    # (the list ran out: the slots it carved are appended to it)
                    self._take_back_carved()
                    end = len(entries)
                    continue
                else:
                    return None
                idx, version, reason = (entry[ENTRY_IDX], entry[ENTRY_VERSION],
                                        entry[ENTRY_REASON])
                offer = offers[idx]
                if not offer.available:
                    continue
                if offer.version != version:
                    if not _stale(offer, version, built):
                        end = self._refresh(offer, idx, pos, end)
                    continue
                if offer.partitionable:
                    # what ``Matchmaker.fit`` answers, read from the class's pair
                    # result when it holds it (this loop is the cycle's hottest)
                    known = None if pairs is None else pairs.get(offer.pair_shape)
                    taken = None if known is None else known.taken
                    if taken is None:
                        taken = mm.fit(klass, job.ad, offer)
                        if taken is None:
                            continue
                    # the cost (``PieceCosts.cost``), its first lookup made here: the
                    # weight of a piece by the one amount it reads (SlotWeight = Cpus)
                    vector = offer.vector
                    reads = None if vector is None else vector.weight_reads
                    cost = None
                    if reads and len(reads) == 1:
                        cost = vector.weights.get(taken[reads[0]])  # type: ignore[union-attr]
                    if cost is None:
                        cost = scan.costs.cost(idx, offer, taken)
                else:
                    taken, cost = None, offer.weight
                # the permit's rule (``Permit``; its round-up flags, ``Bounds.permit``)
                if reason == NO_PREEMPTION:
                    ok = free_used + cost <= free_bound or (free_used <= 0 and free_positive)
                elif reason == PRIO_PREEMPTION:
                    ok = prio_used + cost <= prio_bound or (prio_used <= 0 and prio_positive)
                else:
                    ok = True
                if ok:
                    if taken is not None:
                        cands.carved.append(idx)
                    return _make_pick((offer, reason, taken, cost))
                cands.rej_limit += 1
                if ask:
                    if self._rest_refused(self.bounds.permit(free_used, prio_used), pos,
                                          spos):
                        # The limit refuses every entry left (``_rest_refused``; the
                        # reason is settled: this refusal counted), so the walk stops
                        # here (and goes on over the slots it carved, taken back, as
                        # a list run out does).
                        scan.walks_cut += 1
                        pos, spos = end, send
                        pending.clear()
                    else:
                        # (the permit and the bounds are this pick's: the answer
                        # stays no for its other refusals)
                        ask = False
        finally:
            cands.position, cands.spos = pos, spos

    def _rest_refused(self, permit: Permit, pos: int, spos: int) -> bool:
        """Whether the limits refuse every entry left from ``pos`` (``spos`` among the
        static entries). With no entry by rank preemption in the list and no round-up
        rule in force: when they refuse the class's cost floor (the least any of its
        entries costs, ``PieceCosts.floor``, worked out once per list) both without
        preemption and by priority. Else (``SPLIT``) by what is left of each kind
        (``_rest_floors``, worked out once per walk): no entry by rank preemption,
        and, by no preemption and by priority alike, none at all, or none the round-up
        rule lets through and the least cost refused."""
        cands = self.cands
        if not (cands.has_rank or permit.free_round or permit.prio_round):
            floor = cands.floor
            if floor is None:
                floor = cands.floor = self.scan.costs.floor(
                    self.klass, cands.signature, cands.static_floor)
            if permit.refuses_floor(floor):
                return True
        if not SPLIT:
            return False
        floors = self._floors
        if floors is None:
            floors = self._floors = self._rest_floors(pos, spos)
        return floors.refused(permit)

    def _rest_floors(self, pos: int, spos: int) -> RestFloors:
        """The least cost of an entry by no preemption, and by priority preemption,
        left in the list from ``pos`` and ``spos`` or added to it later (inf: none),
        and whether an entry by rank preemption is (``RestFloors``).

        Entries of offers that have left are passed over (an offer never comes
        back). By priority, and by rank: the held slots' entries among the merged entries and the
        runs pending as made with the list (a held static slot costs its weight; a
        held piece is not bounded here: 0). By no preemption: the class's floor without
        the held slots (``PieceCosts.floor``, ``held`` False), when any such entry is
        left or may come: a static entry, a run made on demand (nobody's carved
        states), a carved slot to take back, or an entry by no preemption among the
        others.
        Later, an entry comes only by ``_refresh`` or ``_take_back_listed``, which
        forget these floors, or by taking back slots carved from entries counted
        here, by no preemption."""
        cands, offers = self.cands, self.scan.offers
        runs = [(cands.entries, pos)]
        # (an offer that has left never comes back: its entries are passed over)
        free = bool(cands.carved) or any(
            [offers[entry[ENTRY_IDX]].available for entry in cands.static[spos:]])
        for item in cands.pending:
            if len(item) == 2:
                runs.append((item[0], item[1]))
            else:
                free = True  # (a run made on demand: by no preemption alone)
        prio, rank = math.inf, False
        for run, start in runs:
            for entry in run[start:]:
                offer = offers[entry[ENTRY_IDX]]
                if not offer.available:
                    continue
                reason = entry[ENTRY_REASON]
                if reason == NO_PREEMPTION:
                    free = True
                elif reason == PRIO_PREEMPTION:
                    prio = 0.0 if offer.partitionable else min(prio, offer.weight)
                else:
                    rank = True
        free_floor = math.inf
        if free:
            free_floor = self.scan.costs.floor(self.klass, cands.signature,
                                               cands.static_floor, held=False)
        return RestFloors(free_floor, prio, rank)

    def _refresh(self, offer: Offer, idx: int, pos: int, end: int) -> int:
        """Put right an entry whose offer changed after the entry was made: the
        offer's entry in its current state, if it has one, goes into its place after
        ``pos`` among the merged entries (``end`` of them), or to the runs not merged
        yet when it sorts beyond them. Returns the new end."""
        cands = self.cands
        fresh = self.scan.mm.refresh(cands, self.klass, self.job_ad, self.name, offer, idx,
                                     self.only_rank)
        if fresh is None:
            return end
        entries = cands.entries
        if cands.pending and fresh > entries[end - 1]:
            cands.pending.append([[fresh], 0])  # (beyond what is merged)
        else:
            insort(entries, fresh, lo=pos)
            end += 1
        if fresh[ENTRY_REASON] == RANK_PREEMPTION:
            cands.has_rank = True
        self._floors = None  # (worked out again from the list, if asked)
        return end

    def _take_back_carved(self) -> None:
        """Append to a list that ran out the partitionable slots it handed out,
        evaluated in their new states, best first.

        A slot nobody holds is a candidate by no preemption alone (none in a rank-only
        list), so the entries are made here in one pass over the slots, one pair
        result per pair shape (``candidates.make_free_entries``: what
        ``RequestLists.candidates`` makes of offers at their own positions, without
        its general tests and its second look per shape): a take-back re-evaluates
        hundreds of slots, of shapes of their own on a pool of varied slots
        (10,000-slot partitionable mix: 869 take-backs, 24,364 slots, 24,364 pair
        evaluations, 21,468 entries, 17,949 of them read: a group and a
        ``make_entries`` call per slot cost more than its entry; partitionable row:
        74, 25,252, 2,292, 21,811 and 19,553). A held slot, or one not at its own
        position, goes the general way (``_take_back_listed``)."""
        cands, scan = self.cands, self.scan
        offers = scan.offers
        # (in the order carved, the list's own order, and so mostly the new entries'
        # too: their sort then merges long runs; a slot carved twice counts once)
        carved = dict.fromkeys(cands.carved)
        cands.carved.clear()
        for idx in carved:
            offer = offers[idx]
            if offer.holder is not None or offer.seq != idx:
                self._take_back_listed(sorted(carved))
                return
        if self.only_rank:
            return
        mm, klass, job_ad = scan.mm, self.klass, self.job_ad
        # (the class's pair table looked up once per take-back: a slot's shape is read
        # there, and a shape not in it, most of them, carved slots being shapes of
        # their own, worked out by the table's miss path directly, not through
        # ``Matchmaker.pair`` and ``MatchTable.pair``'s per-call key)
        table = mm.table
        key, known = table.class_pairs(klass, cands.signature)
        fresh = make_free_entries(offers, carved, known, partial(table.fresh_pair, key, job_ad),
                                  mm.columns.of_class(klass, job_ad))
        fresh.sort()
        cands.entries.extend(fresh)

    def _take_back_listed(self, indices: list[int]) -> None:
        """``_take_back_carved`` of the slots at ``indices`` by
        ``RequestLists.candidates`` (reasons worked out, held slots included)."""
        cands, offers = self.cands, self.scan.offers
        fresh = self.scan.mm.candidates(self.klass, self.job_ad, self.name,
                                        [offers[i] for i in indices], self.only_rank,
                                        positions=indices, signature=cands.signature)
        cands.entries.extend(fresh.entries)
        cands.has_rank = cands.has_rank or fresh.has_rank
        self._floors = None  # (held slots among them: worked out again, if asked)


def _stale(offer: Offer, version: int, built: int) -> bool:
    """Whether an entry made at ``version`` of an offer that has changed since is
    passed over rather than evaluated again: an entry made with the list (stamped no
    later than ``built``) whose offer had already left that state (the offer's state
    then had its own entry, or none). An entry of the state the offer had when the
    list was made, or one added since (always stamped later), is evaluated again."""
    return offer.version <= built or (
        version <= built and version != _stamp_at(offer.stamps, built))


def _stamp_at(stamps: list[int], clock: int) -> int:
    """An offer's version at carving clock ``clock``, of its ``stamps`` (0 before the
    first)."""
    at = bisect_right(stamps, clock)
    return stamps[at - 1] if at else 0
