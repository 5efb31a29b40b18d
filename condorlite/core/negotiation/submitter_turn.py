"""One submitter's turn in one pie spin (HTCondor's negotiate() for one submitter), and
what it records: matches, preempted claims, rejections, the per-job notes.

``negotiator.Cycle._pie`` hands each submitter's turn its limits (``TurnLimits``) and
the pie left; ``TurnNegotiator.negotiate`` walks the turn's rows (``turns.Turn``) in
queue order:

1. a row already matched (``Turn.done``) is passed over;
2. once what the turn used reaches ``limit`` the turn ends (RESUME), unless in the
   first spin held slots are offered: the rest of the rows are then offered only
   slots whose Rank prefers the job (rank preemption ignores limits, "only rank");
   once it reaches ``ceiling`` the turn ends;
3. a row of an autocluster already rejected in this turn is skipped, and the rest of
   its run of rows with it (``_skip_run``, one note for them all);
4. otherwise the row's class's candidate list (made once per turn and class, with the
   class's job ad: ``_start_walk``) is walked by its ``list_scan.ListWalk``: the first
   entry the limits permit (``unclaimed`` for slots nobody holds, ``limit`` for
   priority preemption: the turn's ``walk_limits.Bounds``, given to its walks, and what
   it used so far, given to each pick) is the match, else the row is rejected
   (``_reject_row``, for the reason the list's counts give) and, unless
   NEGOTIATE_ALL_JOBS_IN_CLUSTER, its autocluster is skipped for the rest of the turn.

The turn ends DONE when every row was matched or rejected for no reason of limits;
RESUME when it hit a limit (it goes on in the next spin). ``TurnEnd`` says which,
with the pie left after what it matched.

A match (``negotiate`` for a piece of a slot with a resource vector, the usual case,
written out in the loop; ``_apply`` otherwise) takes the offer from the pool
(``OfferPool.take``, or ``Matchmaker.carve``), preempts its holder when it was held
(the holder's usage less the slot's weight, a ``Claim`` in ``preempted``), is
appended to ``matches`` and charges the submitter's usage. Invariant: the submitter's
usage in the cycle's ``usage`` is what it was plus every cost charged, summed in
match order, whenever something reads it (a new list's job ad, ``_apply``, the end
of the turn): the loop keeps it in a local and writes it back before those reads.
With accounting groups the group turn's room (``GroupTurn.room``) shrinks by every
cost.

The turn's statistics (jobs considered, naive evaluations, matches) are summed in
locals and added to the cycle's ``stats`` on the way out, so the loop does no dict
update per row.
"""

from __future__ import annotations

from itertools import islice
from typing import NamedTuple

from condorlite.core.adeval import ClassAd
from condorlite.core.matching.autocluster import Autoclusters
from condorlite.core.matching.candidates import Candidates
from condorlite.core.matching.list_scan import ListScan, ListWalk, Pick
from condorlite.core.matching.matchmaker import Matchmaker
from condorlite.core.matching.offers import with_attrs
from condorlite.core.matching.walk_limits import Bounds
from condorlite.core.model import NO_PREEMPTION, Claim, Job, Match, make_match
from condorlite.core.negotiation import limits as lim
from condorlite.core.negotiation.cycle_notes import NoteLog, Rejections, rejection_reason
from condorlite.core.negotiation.offer_pool import OfferPool
from condorlite.core.negotiation.submitter_attrs import GroupFacts, GroupTurn, submitter_attrs
from condorlite.core.negotiation.turns import Turn
from condorlite.core.policy import Policy


class TurnLimits(NamedTuple):
    """What a pie spin allows one submitter's turn (``negotiator.Cycle._pie``)."""

    #: the fair-share limit, cut to the pie left (and to the floor in the floor round):
    #: what all the turn's matches may use
    limit: float
    #: what matches without preemption may use (HTCondor's submitterLimitUnclaimed)
    unclaimed: float
    #: what the submitter's Ceiling leaves (``limits.ceiling_left``), or None
    ceiling: float | None
    #: the first spin: a turn over its limit is still offered rank preemptions
    ignore_limit: bool
    #: the spin's number (from 1), recorded on each match
    spin: int
    #: the group turn under way, whose room every match shrinks, or None
    group_turn: GroupTurn | None


class TurnEnd(NamedTuple):
    """How a turn ended: ``done`` (every row matched or rejected, not for a limit)
    or not (it resumes in the next spin), and the pie left after its matches."""

    done: bool
    pie_left: float


class TurnNegotiator:
    """The submitters' turns of one cycle (module doc): one ``negotiate`` per turn and
    spin, on the cycle's offers, matchmaker, list walks and usage; it keeps what the
    turns record (``matches``, ``preempted``, ``rejections``, ``notes``) and adds to
    the cycle's ``stats``."""

    def __init__(self, policy: Policy, now: float, offer_pool: OfferPool, mm: Matchmaker,
                 scan: ListScan, ac: Autoclusters, usage: dict[str, float],
                 eup: dict[str, float], groups: GroupFacts | None,
                 stats: dict[str, int]) -> None:
        self.policy, self.now = policy, now
        self.offer_pool, self.offers = offer_pool, offer_pool.offers
        self.mm, self.scan, self.ac = mm, scan, ac
        #: the cycle's usage per submitter, charged by the matches (module doc)
        self.usage, self.eup, self.groups = usage, eup, groups
        self.stats = stats
        self.matches: list[Match] = []
        self.preempted: list[Claim] = []
        self.rejections = Rejections()
        #: the raw per-job notes as written (``cycle_notes``)
        self.notes = NoteLog()

    def negotiate(self, turn: Turn, limits: TurnLimits, pie_left: float) -> TurnEnd:
        """One submitter's turn in one spin (module doc): its rows in queue order, each
        job given the first entry of its class's list that the limits permit
        (``ListWalk.pick``) or rejected, until what it used reaches ``limits.limit``
        or ``limits.ceiling``."""
        name, done, limit, ceiling = turn.info.name, turn.done, limits.limit, limits.ceiling
        used = used_unclaimed = 0.0
        limited = False
        skipped: set[int] = set()
        cache: dict[tuple[int, bool], Candidates] = {}
        #: the walk of each list (``ListWalk``), kept between the class's jobs
        walks: dict[tuple[int, bool], ListWalk] = {}
        job_ads: dict[int, ClassAd] = {}
        offer_pool, stats, spin = self.offer_pool, self.stats, limits.spin
        any_held = offer_pool.held_available > 0
        # limits.permits(used, cost, limit) is used + cost <= bound, or the round-up
        # rule: the bounds of the two limits are fixed for the turn (its walks'
        # ``walk_limits.Bounds``), what is used changes with every match
        bounds = Bounds(lim.permit_bound(limits.unclaimed), lim.permit_bound(limit),
                        limits.unclaimed > 0, limit > 0)
        # (the rows as the turn keeps them, a list per field: ``turns``)
        row_iter = zip(turn.ids, turn.clusters, turn.classes, turn.jobs, strict=True)
        at = 0  # the position in the turn's rows of the row after the current one
        considered = naive = 0  # (the per-row statistics, added on the way out)
        # the list last walked, looked up again only when the row's class or mode differs
        last_key, walk = None, None
        usage, matches_append, carve = self.usage, self.matches.append, self.mm.carve
        # (a run of matches of one class on one shape takes one ``taken`` dict: its
        # resources are looked up again only when it changes)
        last_taken: dict[str, float] | None = None
        resources: tuple = ()
        done_add, group_turn = done.add, limits.group_turn
        matched, matched_weight = 0, turn.matched_weight
        # the submitter's usage, charged here and written back to ``usage`` before
        # anything reads it (module doc): ``written`` is the matches it holds
        charged, written = usage.get(name, 0.0), 0
        try:
            for job_id, cluster, klass, job in row_iter:
                at += 1
                if job_id in done:
                    continue
                only_rank = False
                if used >= limit:
                    if not (limits.ignore_limit and any_held):
                        return TurnEnd(False, pie_left)
                    only_rank = True
                if ceiling is not None and used >= ceiling:
                    return TurnEnd(False, pie_left)
                if cluster in skipped:
                    # (and the rest of its run with it: a skipped autocluster's
                    # other runs in queue order are met a row at a time otherwise)
                    at = self._skip_run(turn, at - 1, at, row_iter, cluster)
                    continue
                considered += 1
                naive += offer_pool.available
                if klass != last_key or only_rank:
                    walk = walks.get((klass, only_rank))
                    if walk is None:
                        if written != matched:
                            usage[name], written = charged, matched
                        walk = self._start_walk(klass, only_rank, name, group_turn,
                                                job_ads, cache, walks, bounds)
                    last_key = None if only_rank else klass
                picked = walk.pick(job, used_unclaimed, used)
                if picked is None:
                    cands = cache[(klass, only_rank)]
                    limited = limited or cands.rej_limit > 0 or only_rank
                    at = self._reject_row(turn, at, row_iter, cands, klass, cluster,
                                          job_ads[klass], job, only_rank, skipped)
                    continue
                offer, reason, taken, cost = picked
                if taken is not None and offer.vector is not None:
                    # ``_apply`` for a piece of a slot with a resource vector (most
                    # matches), written out: ``OfferPool.take`` carves it, the
                    # match's resources kept per ``taken`` dict
                    carve(offer, taken)
                    if taken is not last_taken:
                        last_taken, resources = taken, offer_pool.resources(taken)
                    slot = offer.name
                    matches_append(make_match((job_id, name, slot, reason, cost, cluster,
                                               spin, None, None, slot, resources)))
                else:
                    if written != matched:
                        usage[name], written = charged, matched
                    self._apply(name, job, picked, spin, cluster)  # (may charge a holder)
                    charged = usage.get(name, 0.0)
                charged += cost
                if group_turn is not None:
                    group_turn.room -= cost
                done_add(job_id)
                matched += 1
                matched_weight += cost
                used += cost
                if reason == NO_PREEMPTION:
                    used_unclaimed += cost
                pie_left -= cost
            return TurnEnd(not (used >= limit or limited), pie_left)
        finally:
            stats["jobs_considered"] += considered
            stats["naive_evaluations"] += naive
            stats["matches"] += matched
            turn.matched_jobs += matched
            turn.matched_weight = matched_weight
            if written != matched:
                usage[name] = charged

    def _start_walk(self, klass: int, only_rank: bool, name: str,
                    group_turn: GroupTurn | None, job_ads: dict[int, ClassAd],
                    cache: dict[tuple[int, bool], Candidates],
                    walks: dict[tuple[int, bool], ListWalk], bounds: Bounds) -> ListWalk:
        """The list of a class in a submitter's turn (its job ad: the class's first
        job with the submitter's attributes, ``submitter_attrs``, made once per turn),
        and its walk (``ListWalk``) under the turn's ``bounds``; both kept under
        (class, only_rank)."""
        job_ad = job_ads.get(klass)
        if job_ad is None:
            job_ad = job_ads[klass] = with_attrs(
                self.ac.representative[klass].ad,
                submitter_attrs(name, self.eup, self.usage, self.groups, group_turn))
        key = (klass, only_rank)
        cands = cache[key] = self.mm.candidates(klass, job_ad, name, self.offers, only_rank)
        walk = walks[key] = self.scan.walk(cands, klass, job_ad, name, only_rank, bounds)
        return walk

    def _skip_run(self, turn: Turn, start: int, at: int, row_iter, cluster: int) -> int:
        """Pass over the run of rows from ``at`` on that belong to the autocluster
        ``cluster`` (an autocluster's jobs mostly come in runs in queue order: the
        procs of one job cluster; ``Turn.run_end``), after the row at ``at - 1`` was
        rejected or met while its autocluster is skipped, as the loop would: the rows
        from ``start`` (``at - 1`` for a row met while skipped, else ``at``) to the
        run's end are noted as skipped, one log entry for them all (``NoteLog``;
        worded when read, ``cycle_notes``). Nothing a row's checks read changes while a
        cluster is skipped (no match, no charge), so the loop's limit checks would pass
        them all. Returns the position after them."""
        end = turn.run_end(at)
        if end > start:
            self.notes.skipped(turn.ids, start, end, cluster)
        if end > at:
            next(islice(row_iter, end - at - 1, None), None)  # (advances end - at rows)
        return end

    def _apply(self, name: str, job: Job, picked: Pick, spin: int, cluster: int) -> None:
        """Record the match of ``job`` to the offer ``ListWalk.pick`` found: carve a
        partitionable slot, take a static one (preempting its holder). The caller
        charges the submitter (``negotiate``, which also records a piece of a slot
        with a resource vector itself)."""
        offer, reason, taken, cost = picked
        preempting = preempted_job = None
        resources = self.offer_pool.take(offer, taken, self.mm, self.policy, self.now)
        if not offer.partitionable and offer.holder is not None:
            preempting, preempted_job = offer.holder, offer.holder_job
            self.usage[preempting] = max(0.0, self.usage.get(preempting, 0.0) - offer.weight)
            self.preempted.append(Claim(offer.name, preempted_job, preempting, offer.weight,
                                        self.now))
        # (the match is the job's note, and a rejection of it in an earlier spin is
        # dropped, when the result is made: ``Cycle.result``, ``cycle_notes``)
        self.matches.append(make_match((job.id, name, offer.name, reason, cost, cluster, spin,
                                        preempting, preempted_job,
                                        offer.name if offer.partitionable else None,
                                        resources)))

    def _reject_row(self, turn: Turn, at: int, row_iter, cands: Candidates, klass: int,
                    cluster: int, job_ad: ClassAd, job: Job, only_rank: bool,
                    skipped: set[int]) -> int:
        """Reject the job of the row at ``at - 1``, whose class's list gave it nothing,
        for the reason the list's counts give (``rejection_reason``; the deferred held
        groups settled first when the reason depends on them), and, unless
        NEGOTIATE_ALL_JOBS_IN_CLUSTER, skip its autocluster for the rest of the turn,
        starting with the rest of its run (``_skip_run``). Returns the position of the
        row the loop takes next."""
        if cands.deferred and not cands.rej_policy:
            self.mm.settle_deferred(cands, klass, job_ad)
        reason = rejection_reason(cands, only_rank)
        self.stats["rejection_events"] += 1
        self.rejections.add(job, turn.info.name, reason, cluster)
        self.notes.note(job.id, f"rejected: {reason}")
        if self.policy.negotiate_all_jobs_in_cluster:
            return at
        skipped.add(cluster)
        return self._skip_run(turn, at, at, row_iter, cluster)
