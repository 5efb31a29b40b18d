"""One negotiation cycle (HTCondor's negotiateWithGroup / negotiate), pure.

Inputs: slots, jobs, the accountant's view of every submitter (EUP, usage, floor,
ceiling), the live claims, the policy and ``now``. Output: a ``CycleResult``.

The cycle:

1. Offers are built from the slots (``offer_pool``): a busy slot is held by its user;
   a slot or piece of a partitionable slot condorlite already matched (a live claim) is
   held by that claim (a partitionable slot offers only what its claims left). Pool
   size = sum of the weights of all slot ads. Idle jobs that already hold a claim are
   not negotiated.
2. Submitters with idle jobs are ordered by EUP, best (lowest) first; ties by name
   (``turns``).
3. A floor round, when some submitter has a ``Floor`` above its usage: one pie spin
   among those submitters with ``limit = min(Floor, limit)``.
4. The main round: pie spins over every submitter with idle jobs. Each spin recomputes
   shares and limits (``limits``) from current usage; each submitter in order
   negotiates: its idle jobs in queue order (JobPrio desc, QDate, ClusterId, ProcId)
   each get the best candidate its limits permit (``matchmaker``; ``limits``: the
   unclaimed limit for slots nobody holds, the limit cut to the pie left for priority
   preemption), until its limit or its ``Ceiling`` (new weight this spin <=
   ``limits.ceiling_left``) is reached. A submitter
   whose jobs are all matched or rejected is done; one that hit its limit resumes in
   the next spin. Spins repeat while a spin made progress (the pie shrank or a
   submitter finished) and offers and submitters remain. After the first spin, a
   submitter whose limit (or the pie left) is below the smallest slot weight waits.
   In the first spin a submitter over its limit is still offered slots whose Rank
   prefers its job to the running one (rank preemption ignores limits).
5. After a job is rejected, the rest of its autocluster is skipped for the rest of that
   submitter's turn in this spin, unless NEGOTIATE_ALL_JOBS_IN_CLUSTER.

With accounting groups (GROUP_NAMES), ``core.negotiation.group_cycle`` builds one ``Cycle`` (one
pool of offers) and calls ``run_turn`` once per group turn instead of ``run``: steps 3-4
among that turn's submitters only, the pool size taken as ``min(pool, turn limit)`` and
the pie left capped by the group's room (turn limit minus the group's usage).

Statistics: ``rejections`` is the number of jobs left rejected at the end (the length of
the list); ``rejection_events`` counts every rejection, a job rejected in several spins
or turns counting each time (HTCondor's LastNegotiationCycleRejections).

A job's candidate list is walked by a ``list_scan.ListWalk`` (made by ``Cycle.scan``),
and the per-job notes are worded when read (``cycle_notes``). The ``Remote*`` and
``Submitter*`` attributes the ads get are ``submitter_attrs``'s.

Ties: submitters by (EUP, name); jobs by (-JobPrio, QDate, ClusterId, ProcId, input
order); candidates as ``matchmaker`` says (slot Name last). Nothing depends on hashing
or input order otherwise.
"""

from __future__ import annotations

from itertools import compress, islice, repeat
from operator import attrgetter, eq
from types import MappingProxyType

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.matching.autocluster import Autoclusters
from condorlite.core.matching.candidates import Candidates
from condorlite.core.matching.list_scan import ListScan, ListWalk, Pick, make_permit
from condorlite.core.matching.matchmaker import Matchmaker
from condorlite.core.matching.offers import with_attrs
from condorlite.core.matching.piece_costs import PieceCosts
from condorlite.core.matching.policy_exprs import PolicyExprs
from condorlite.core.matching.significant import build_closed
from condorlite.core.model import (
    IDLE,
    NO_PREEMPTION,
    Claim,
    CycleResult,
    Job,
    Match,
    Slot,
    Submitter,
    make_match,
)
from condorlite.core.negotiation import limits as lim
from condorlite.core.negotiation.cycle_notes import (
    CycleNotes,
    NoteLog,
    Rejections,
    rejection_reason,
)
from condorlite.core.negotiation.offer_pool import OfferPool, build_offers
from condorlite.core.negotiation.submitter_attrs import (
    GroupFacts,
    remote_attrs,
    submitter_attrs,
)
from condorlite.core.negotiation.turns import Turn, build_turns, submitter_reports
from condorlite.core.policy import Policy

DONE, RESUME = "done", "resume"


class Cycle:
    """The mutable state of one cycle; ``run_cycle`` is its only public entry."""

    def __init__(self, slots, jobs, submitters, claims, policy: Policy, now: float,
                 groups: GroupFacts | None = None) -> None:
        self.policy, self.now = policy, now
        self.groups = groups
        #: the group turn under way: (negotiating group, autoregroup, room left) or None
        self.group_turn: tuple[str, bool, float] | None = None
        self.usage = {name: s.usage for name, s in submitters.items()}
        self.eup = {name: s.eup for name, s in submitters.items()}
        self.known = submitters
        self.matches: list[Match] = []
        self.preempted: list[Claim] = []
        self.rejections = Rejections()
        #: the raw per-job notes as written (``cycle_notes``)
        self.notes = NoteLog()
        self.stats = dict(pies=0, pie_spins=0, jobs_considered=0, matches=0,
                          rejection_events=0, naive_evaluations=0)
        self.claims = claims
        #: the offers and what is left of them (``offer_pool``)
        self.offer_pool = OfferPool(build_offers(slots, claims, now, self._remote_attrs))
        self.offers = self.offer_pool.offers
        self.min_weight = self.offer_pool.min_weight
        self.pool = sum(s.weight for s in slots)
        held = {c.job for c in claims if c.job}
        # (a C-level pass: the status test runs over every job of the queue)
        idle = list(compress(jobs, map(eq, map(_STATUS, jobs), repeat(IDLE))))
        if held:
            idle = [j for j in idle if j.id not in held]
        self.idle = idle
        self.ac = self._autoclusters(slots, idle)
        defined: set[str] = set()
        for rep in self.ac.representative.values():
            defined.update(adeval.lower_names(rep.ad))  # (ClassAd-lite: its table's keys)
        self.mm = Matchmaker(policy, now, self.ac.job_names, frozenset(defined),
                             self.ac.target_names, self.ac.binding_refs,
                             [rep.ad for rep in self.ac.representative.values()])
        for offer in self.offers:
            self.mm.prepare(offer)
        self.costs = PieceCosts(self.offers, self.mm, policy)
        #: the walks of the candidate lists (``list_scan``)
        self.scan = ListScan(self.offers, self.mm, self.costs)
        self.turns = build_turns(idle, submitters, self.ac, policy, self.eup, self.usage)

    @property
    def walks_cut(self) -> int:
        """Scans the cost floor ended early (``ListScan.walks_cut``)."""
        return self.scan.walks_cut

    # -- setup ----------------------------------------------------------------------------
    def _autoclusters(self, slots: list[Slot], idle: list[Job]) -> Autoclusters:
        # Job attributes can lead back into slot attributes that read the job again:
        # the significant set is the closed one (``significant``).
        return build_closed(slots, idle, PolicyExprs.from_policy(self.policy).all(),
                            self.policy.significant_attributes)

    def _remote_attrs(self, holder: str) -> dict[str, object]:
        return remote_attrs(holder, self.eup, self.usage, self.groups)

    # -- rounds ---------------------------------------------------------------------------
    def run(self) -> None:
        below = [t for t in self.turns
                 if t.info.floor > 0 and self.usage[t.info.name] < t.info.floor]
        if below:
            self._pie(below, floor_round=True)
        self._pie(list(self.turns), floor_round=False)

    def run_turn(self, names: frozenset[str], pool_limit: float, room: float,
                 group: str, autoregroup: bool) -> dict[str, float]:
        """One group turn (module doc): the floor round and the pie spins among the
        submitters ``names``, with the pool size ``min(pool, pool_limit)`` and at most
        ``room`` new weight in all. Returns the change of usage per submitter (matches
        plus, preempted claims minus), names sorted, zero changes left out."""
        before = dict(self.usage)
        whole = self.pool
        self.pool = min(whole, max(0.0, pool_limit))
        self.group_turn = (group, autoregroup, max(0.0, room))
        try:
            active = [t for t in self.turns if t.info.name in names]
            below = [t for t in active
                     if t.info.floor > 0 and self.usage[t.info.name] < t.info.floor]
            if below:
                self._pie(below, floor_round=True)
            if active:
                self._pie(active, floor_round=False)
        finally:
            self.pool, self.group_turn = whole, None
        changes = {}
        for name in sorted(set(before) | set(self.usage)):
            change = self.usage.get(name, 0.0) - before.get(name, 0.0)
            if change:
                changes[name] = change
        return changes

    def _pie(self, active: list[Turn], floor_round: bool) -> None:
        self.stats["pies"] += 1
        spin = 0
        while True:
            spin += 1
            self.stats["pie_spins"] += 1
            ignore_limit = spin == 1
            share = lim.shares({t.info.name: self.eup[t.info.name] for t in active})
            pie_left = sum(lim.limit(share[t.info.name], self.pool, self.usage[t.info.name])
                           for t in active)
            if self.group_turn is not None:
                # The group's room caps the whole pie: its submitters together take at
                # most turn limit - group usage.
                pie_left = min(pie_left, self.group_turn[2])
            pie_orig, count_orig = pie_left, len(active)
            for turn in list(active):
                name = turn.info.name
                limit = lim.limit(share[name], self.pool, self.usage[name])
                # What matches without preemption are held to (HTCondor's
                # submitterLimitUnclaimed): the fair-share limit, within the group's
                # room; the floor and the pie left cap only ``limit`` (``limits``).
                unclaimed = limit if self.group_turn is None else min(
                    limit, self.group_turn[2])
                if floor_round:
                    limit = min(turn.info.floor, limit)
                elif turn.share is None:
                    turn.share, turn.limit = share[name], limit
                limit = min(limit, pie_left)
                ceiling = None
                if turn.info.ceiling is not None:
                    ceiling = lim.ceiling_left(turn.info.ceiling, self.usage[name])
                if spin > 1 and (limit < self.min_weight or pie_left < self.min_weight):
                    continue
                if ceiling is not None and (ceiling == 0 or ceiling < self.min_weight):
                    active.remove(turn)
                    continue
                result, pie_left = self._negotiate(turn, limit, unclaimed, ceiling,
                                                   ignore_limit, pie_left, spin)
                if result == DONE:
                    active.remove(turn)
            progress = pie_left < pie_orig or len(active) < count_orig
            if not (progress and active and any(o.available for o in self.offers)
                    and not floor_round):
                return

    # -- one submitter's turn -------------------------------------------------------------
    def _negotiate(self, turn: Turn, limit, unclaimed, ceiling, ignore_limit, pie_left,
                   spin):
        """One submitter's turn in one spin (module doc, steps 4-5): its rows in queue
        order, each job given the first entry of its class's list that the limits
        permit (``ListWalk.pick``: ``unclaimed`` for slots nobody holds, ``limit``
        for priority preemption) or rejected, until what it used reaches ``limit`` or
        ``ceiling``. Returns (DONE or RESUME, the pie left after what it matched)."""
        name = turn.info.name
        used = used_unclaimed = 0.0
        limited = False
        skipped: set[int] = set()
        cache: dict[tuple[int, bool], Candidates] = {}
        #: the walk of each list (``ListWalk``), kept between the class's jobs
        walks: dict[tuple[int, bool], ListWalk] = {}
        job_ads: dict[int, ClassAd] = {}
        offer_pool = self.offer_pool
        any_held = offer_pool.held_available > 0
        # limits.permits(used, cost, limit) is used + cost <= bound, or the round-up
        # rule: the bounds of the two limits are fixed for the turn
        bound, positive = lim.permit_bound(limit), limit > 0
        free_bound, free_positive = lim.permit_bound(unclaimed), unclaimed > 0
        done, stats = turn.done, self.stats
        # (the rows as the turn keeps them, a list per field: ``turns``)
        row_iter = zip(turn.ids, turn.clusters, turn.classes, turn.jobs, strict=True)
        at = 0  # the position in the turn's rows of the row after the current one
        # (the per-row statistics are summed in locals and added on the way out)
        considered = naive = 0
        # what the walk needs of the limits (a ``list_scan.Permit``): changed by a match only
        permit = make_permit((used_unclaimed, used, free_bound, bound,
                              used_unclaimed <= 0 and free_positive, used <= 0 and positive))
        # the list last walked, looked up again only when the row's class or mode differs
        last_key, walk = None, None
        # (per match: the match recorded and the turn's figures summed in locals, added
        # on the way out; the usage is the cycle's, read by the next list's job ad)
        usage, matches_append, carve = self.usage, self.matches.append, self.mm.carve
        # (a run of matches of one class on one shape takes one ``taken`` dict: its
        # resources are looked up again only when it changes)
        last_taken: dict[str, float] | None = None
        resources: tuple = ()
        done_add = done.add
        # (the group turn is set for a whole turn: ``run_turn``)
        grouped = self.group_turn is not None
        matched, matched_weight = 0, turn.matched_weight
        # the submitter's usage, charged match by match here and written back to the
        # cycle's before anything reads it (a new list's job ad, ``_apply``) and on the
        # way out: the same sums in the same order
        charged, written = usage.get(name, 0.0), 0
        try:
            for job_id, cluster, klass, job in row_iter:
                at += 1
                if job_id in done:
                    continue
                only_rank = False
                if used >= limit:
                    if not (ignore_limit and any_held):
                        return RESUME, pie_left
                    only_rank = True
                if ceiling is not None and used >= ceiling:
                    return RESUME, pie_left
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
                        walk = self._start_walk(klass, only_rank, name, job_ads, cache, walks)
                    last_key = None if only_rank else klass
                picked = walk.pick(permit, job)
                if picked is None:
                    cands = cache[(klass, only_rank)]
                    limited = limited or cands.rej_limit > 0 or only_rank
                    self._reject_row(cands, klass, job_ads[klass], job, name, cluster,
                                     only_rank)
                    if not self.policy.negotiate_all_jobs_in_cluster:
                        skipped.add(cluster)
                        at = self._skip_run(turn, at, at, row_iter, cluster)
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
                if grouped:
                    group, regroup, room = self.group_turn  # type: ignore[misc]
                    self.group_turn = (group, regroup, room - cost)
                done_add(job_id)
                matched += 1
                matched_weight += cost
                used += cost
                if reason == NO_PREEMPTION:
                    used_unclaimed += cost
                pie_left -= cost
                permit = make_permit((used_unclaimed, used, free_bound, bound,
                                      used_unclaimed <= 0 and free_positive,
                                      used <= 0 and positive))
            return (RESUME if used >= limit or limited else DONE), pie_left
        finally:
            stats["jobs_considered"] += considered
            stats["naive_evaluations"] += naive
            stats["matches"] += matched
            turn.matched_jobs += matched
            turn.matched_weight = matched_weight
            if written != matched:
                usage[name] = charged

    def _start_walk(self, klass: int, only_rank: bool, name: str,
                    job_ads: dict[int, ClassAd], cache: dict[tuple[int, bool], Candidates],
                    walks: dict[tuple[int, bool], ListWalk]) -> ListWalk:
        """The list of a class in a submitter's turn (its job ad: the class's first
        job with the submitter's attributes, made once per turn), and its walk
        (``ListWalk``); both kept under (class, only_rank)."""
        job_ad = job_ads.get(klass)
        if job_ad is None:
            job_ad = job_ads[klass] = with_attrs(self.ac.representative[klass].ad,
                                                 self._submitter_attrs(name))
        key = (klass, only_rank)
        cands = cache[key] = self.mm.candidates(klass, job_ad, name, self.offers, only_rank)
        walk = walks[key] = self.scan.walk(cands, klass, job_ad, name, only_rank)
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

    def _submitter_attrs(self, name: str) -> dict[str, object]:
        return submitter_attrs(name, self.eup, self.usage, self.groups, self.group_turn)

    def _apply(self, name: str, job: Job, picked: Pick, spin, cluster) -> None:
        """Record the match of ``job`` to the offer ``ListWalk.pick`` found: carve a
        partitionable slot, take a static one (preempting its holder). The caller
        charges the submitter (``_negotiate``, which also records a piece of a slot
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
        # dropped, when the result is made: ``result``, ``cycle_notes``)
        self.matches.append(make_match((job.id, name, offer.name, reason, cost, cluster, spin,
                                        preempting, preempted_job,
                                        offer.name if offer.partitionable else None,
                                        resources)))

    def _reject_row(self, cands: Candidates, klass: int, job_ad: ClassAd, job: Job,
                    name: str, cluster: int, only_rank: bool) -> None:
        """Reject a job whose class's list gave it nothing, for the reason the list's
        counts give (``rejection_reason``; the deferred held groups settled first when the
        reason depends on them)."""
        if cands.deferred and not cands.rej_policy:
            self.mm.settle_deferred(cands, klass, job_ad)
        self._reject(job, name, rejection_reason(cands, only_rank), cluster)

    def _reject(self, job: Job, name: str, reason: str, cluster: int) -> None:
        self.stats["rejection_events"] += 1
        self.rejections.add(job, name, reason, cluster)
        self.notes.note(job.id, f"rejected: {reason}")

    # -- result ---------------------------------------------------------------------------
    def result(self) -> CycleResult:
        # A job rejected in one spin and matched in a later one is no rejection.
        rejections = self.rejections.standing(self.turns)
        reports = submitter_reports(self.turns, self.eup, self.usage)
        stats = dict(self.stats)
        stats.update(
            rejections=len(rejections),
            slots=len(self.offers) + 0, pool_weight=self.pool,
            candidate_slots=len(self.offers), idle_jobs=len(self.idle),
            active_submitters=len(self.turns), autoclusters=self.ac.count,
            match_classes=len(self.ac.representative), slot_shapes=self.mm.shape_count,
            evaluations=self.mm.evaluations,
        )
        return CycleResult(self.matches, rejections, reports, stats, self.preempted,
                           MappingProxyType(self.ac.cluster_of),
                           CycleNotes(self.notes, self.matches))


_STATUS = attrgetter("status")


def run_cycle(
    slots: list[Slot],
    jobs: list[Job],
    submitters: dict[str, Submitter],
    claims: list[Claim],
    policy: Policy,
    now: float,
) -> CycleResult:
    """Run one negotiation cycle (see the module doc)."""
    cycle = Cycle(slots, jobs, submitters, claims, policy, now)
    cycle.run()
    return cycle.result()
