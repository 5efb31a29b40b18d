"""Walking a request's candidate list: finding the first entry a job may take (one
``ListScan`` per cycle, owned by ``negotiation.negotiator.Cycle``).

A list (``candidates.Candidates``) is consumed from the front, as HTCondor consumes its
match list: an entry passed over (an offer taken since, a piece that does not fit or
that the submitter limit refuses) is not met again by the class's next jobs. Entries
made before an offer changed are put right as they are met (the carving clock,
``Matchmaker.stamp``); the runs not merged yet are merged on reaching them
(``Candidates.merge_more``); a list that runs out takes back the partitionable slots it
handed out, evaluated in their new states.
"""

from __future__ import annotations

from bisect import bisect_right, insort

from condorlite.core.matching.candidates import ENTRY_IDX, ENTRY_REASON, ENTRY_VERSION, Candidates
from condorlite.core.matching.matchmaker import Matchmaker
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.piece_costs import PieceCosts
from condorlite.core.model import NO_PREEMPTION, PRIO_PREEMPTION, RANK_PREEMPTION


class ListScan:
    """The list walks of one cycle (see the module doc): it reads the cycle's offers,
    matchmaker and piece costs, and counts ``walks_cut``."""

    def __init__(self, offers: list[Offer], mm: Matchmaker, costs: PieceCosts) -> None:
        self.offers, self.mm, self.costs = offers, mm, costs
        #: scans the cost floor ended early (for tests: the shortcut is taken)
        self.walks_cut = 0

    def picks(self, cands: Candidates, klass, job_ad, name, only_rank):
        """The walk of one request's list, as a generator: sent ``(permit, job)`` for
        each job of the class in turn, it answers the best candidate the job may
        take, as (offer, reason, taken, cost), or None. ``permit``: (used by no
        preemption, used in all, the bound of each of the two limits, and whether the
        round-up rule lets either through), ``limits.permits`` worked out for the
        turn's limits: a slot nobody holds is held to the unclaimed limit, a priority
        preemption to the limit, and a rank preemption to neither (HTCondor's
        ``matchmakingAlgorithm``).
        Prime it with ``next``. Its place in the list is kept between jobs (and in
        ``cands.position`` / ``cands.spos``), so the walk is not set up again per job.

        From that place, the first entry the job may take is consumed with
        everything before it. Entries of unavailable offers are passed over; an offer
        changed since its entry was made is evaluated again and put back in its place
        (see the stamps below); a piece that does not fit, or whose cost the limit
        refuses (``limits.permits``), is passed over (the latter counted in
        ``rej_limit``), and so is every entry left once the limit refuses the
        class's cost floor.

        A partitionable slot this list handed out leaves the list, so the class's
        next jobs spread over the other slots first (HTCondor hands a pslot to a
        request group once, NEGOTIATOR_DEPTH_FIRST = False). When the list runs out,
        the slots it carved are evaluated again for what they have left and
        appended, best first, so a job is never rejected while a carved slot still
        fits it.
        """
        entries, offers, mm, piece_cost = cands.entries, self.offers, self.mm, self.costs.cost
        pairs = cands.pairs  # what mm.fit would read, looked up here
        pos, end = cands.position, len(entries)
        # The static entries are a second sorted list (``Candidates.static``): the
        # next entry is the smaller of the two heads.
        static, spos, built = cands.static, cands.spos, cands.built
        send = len(static)
        # The runs not merged yet (``Candidates.merge_more``): merged on reaching the end.
        pending = cands.pending
        picked = None
        while True:
            cands.position, cands.spos = pos, spos
            (free_used, prio_used, free_bound, prio_bound, free_round, prio_round), job = (
                yield picked)
            end = len(entries)  # (nothing else grows the list; read again all the same)
            while True:
                picked = None
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
                    else:
                        break
                    idx, version, reason = (entry[ENTRY_IDX], entry[ENTRY_VERSION],
                                            entry[ENTRY_REASON])
                    offer = offers[idx]
                    if not offer.available:
                        continue
                    if offer.version != version:
                        # An entry made with the list (stamped no later than ``built``)
                        # whose offer had already left that state is passed over: the
                        # offer's state then had its own entry, or none. An entry of
                        # the state the offer had when the list was made, or one added
                        # since (always stamped later), is evaluated again.
                        if offer.version <= built or (
                                version <= built
                                and version != _stamp_at(offer.stamps, built)):
                            continue
                        end = self._refresh_entry(cands, klass, job_ad, name, only_rank,
                                                  offer, idx, pos, end)
                        continue
                    if offer.partitionable:
                        known = None if pairs is None else pairs.get(offer.pair_shape)
                        if known is not None and known.taken is not None:
                            taken = known.taken  # what mm.fit answers, without the call
                        else:
                            taken = mm.fit(klass, job.ad, offer)
                            if taken is None:
                                continue
                        # ``PieceCosts.cost``'s first lookup, made here: the weight of
                        # a piece by the one amount it reads (SlotWeight = Cpus)
                        vector = offer.vector
                        reads = None if vector is None else vector.weight_reads
                        cost = (vector.weights.get(taken[reads[0]])  # type: ignore[union-attr]
                                if reads and len(reads) == 1 else None)
                        if cost is None:
                            cost = piece_cost(idx, offer, taken)
                    else:
                        taken, cost = None, offer.weight
                    if reason == NO_PREEMPTION:
                        ok = free_used + cost <= free_bound or free_round
                    elif reason == PRIO_PREEMPTION:
                        ok = prio_used + cost <= prio_bound or prio_round
                    else:
                        ok = True
                    if not ok:
                        cands.rej_limit += 1
                        if not (cands.has_rank or free_round or prio_round) and (
                                self._refuses_floor(cands, klass, job_ad, free_used,
                                                    prio_used, free_bound, prio_bound)):
                            # Every entry left costs at least the class's floor, which
                            # the limit refuses too: it refuses them all (the reason is
                            # settled: this refusal counted), so the walk stops here.
                            self.walks_cut += 1
                            pos, spos = end, send
                            pending.clear()
                            break
                        continue
                    if taken is not None:
                        cands.carved.append(idx)
                    picked = offer, reason, taken, cost
                    break
                if picked is not None or not cands.carved:
                    break
                self._take_back_carved(cands, klass, job_ad, name, only_rank)
                end = len(entries)

    def _refresh_entry(self, cands: Candidates, klass, job_ad, name, only_rank, offer,
                       idx: int, pos: int, end: int) -> int:
        """Put right a list entry whose offer changed after the entry was made
        (``_picks``): the offer's entry in its current state, if it has one, goes
        into its place after ``pos`` among the merged entries (``end`` of them), or
        to the runs not merged yet when it sorts beyond them. Returns the new end."""
        fresh = self.mm.refresh(cands, klass, job_ad, name, offer, idx, only_rank)
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
        return end

    def _refuses_floor(self, cands: Candidates, klass, job_ad, free_used: float,
                       prio_used: float, free_bound: float, prio_bound: float) -> bool:
        """Whether the limits refuse the class's cost floor (the least any of its
        entries costs, ``PieceCosts.floor``, worked out once per list) both without
        preemption (``free_bound``) and by priority (``prio_bound``), the round-up
        rule aside."""
        floor = cands.floor
        if floor is None:
            floor = cands.floor = self.costs.floor(klass, job_ad, cands.signature,
                                                   cands.static_floor)
        return free_used + floor > free_bound and prio_used + floor > prio_bound

    def _take_back_carved(self, cands: Candidates, klass, job_ad, name, only_rank) -> None:
        """Append to a list that ran out the partitionable slots it handed out,
        evaluated in their new states, best first (``_picks``)."""
        indices = sorted(set(cands.carved))
        cands.carved.clear()
        fresh = self.mm.candidates(klass, job_ad, name, [self.offers[i] for i in indices],
                                   only_rank, positions=indices, signature=cands.signature)
        cands.entries.extend(fresh.entries)
        cands.has_rank = cands.has_rank or fresh.has_rank


def _stamp_at(stamps: list[int], clock: int) -> int:
    """An offer's version at carving clock ``clock``, of its ``stamps`` (0 before the
    first)."""
    at = bisect_right(stamps, clock)
    return stamps[at - 1] if at else 0
