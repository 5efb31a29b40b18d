"""The fair-share walk of one negotiation cycle (HTCondor's ``negotiationTime`` /
``negotiateWithGroup`` / ``negotiate``), plainly. Busy slots are held by the users
their ads name, slots condorlite matched in earlier cycles by their live claims. With
accounting groups, the group turns are given (``run_turn``: which submitters, the
turn's limit and room) rather than planned here.

1. Offers: every slot ad by Name (``pool``: busy slots held by their users, live
   claims, the negotiator's ``Remote*`` attributes). The pool is the sum of every
   slot ad's weight.
2. Submitters with idle jobs, by (EUP, name); one without an accountant record has
   EUP 0.5 x DEFAULT_PRIO_FACTOR and no usage. Each submitter's idle jobs that hold
   no live claim are taken in queue order.
3. A floor round (submitters whose Floor is above their usage): one spin with
   ``limit = min(Floor, limit)``; then pie spins over every submitter. In each spin:
   ``share_i = (1/EUP_i) / sum_j 1/EUP_j``, ``limit_i = max(0, share_i x pool -
   usage_i)``, the pie left = the sum of the limits at the spin's start; each
   submitter in order gets ``min(limit_i, pie left)``, ``limit_i`` worked out with
   its usage when its turn comes (its unclaimed limit is ``limit_i`` itself). After
   spin 1 a submitter whose limit or the pie left is below the least offer weight
   waits; one whose Ceiling leaves nothing (``int(Ceiling) - int(usage)`` below the
   least weight) is done. Spins repeat while one made progress (the pie shrank or a
   submitter was done) and the floor round is not the one running.
4. A submitter's turn: its jobs in order, until what it used reaches the limit (in
   spin 1, while some held slot is left, it goes on for rank preemption only) or
   its Ceiling; a job of an autocluster rejected in this turn is skipped (unless
   NEGOTIATE_ALL_JOBS_IN_CLUSTER). A job takes the best entry of its request's match
   list (``matching``) that the limits permit, else it is rejected: "PREEMPTION_REQUIREMENTS
   == False" when the policy refused a slot in building the list, "submitter limit
   exceeded" when the limit refused one in it or only rank preemption was
   considered, else "no match found". The turn ends "done" unless the limit was
   reached or a rejection was a limit one.
5. A match: a static slot is taken (its holder preempted: the holder's usage goes
   down by the slot's weight); a partitionable slot is carved. The submitter's usage
   goes up by the match's weight.
6. With accounting groups, each given group turn runs steps 3-5 among its submitters
   on the same offers, with the pool taken as ``min(pool, the turn's limit)``, the
   pie left and each unclaimed limit never above the group's room (what it may still
   take, less each match of the turn). The negotiator's group attributes (fixed at the
   cycle's start): ``SubmitterGroup``, ``SubmitterGroupQuota``,
   ``SubmitterGroupResourcesInUse``, ``RemoteGroup*`` alike for a slot's holder, and
   the turn's ``SubmitterNegotiatingGroup`` and ``SubmitterAutoregroup``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from condorlite.core import adeval
from condorlite.core.classad.parser import parse_expr
from condorlite.core.model import (
    IDLE,
    NO_PREEMPTION,
    Claim,
    CycleResult,
    Job,
    Match,
    Rejection,
    Slot,
    Submitter,
    SubmitterReport,
)
from condorlite.core.policy import Policy
from tests.core.reference.grouping import group_jobs
from tests.core.reference.matching import (
    MatchList,
    Matchmaking,
    Permit,
    Pick,
    PolicyExprs,
    RejectCounts,
    best,
    carved_ad,
)
from tests.core.reference.pool import NO_GROUP, AccountingGroups, group_attrs, make_offers


@dataclass
class GroupTurn:
    """The group turn under way: the negotiating group, whether it is the root
    negotiating for several groups (autoregroup), and the weight it may still take."""

    group: str
    autoregroup: bool
    room: float


@dataclass
class Turn:
    """A submitter across the cycle."""

    info: Submitter
    jobs: list[Job]
    done: set[str] = field(default_factory=set)
    matched_weight: float = 0.0
    matched_jobs: int = 0
    share: float | None = None
    limit: float | None = None


class ReferenceCycle:
    """One cycle (module doc); ``run`` then ``result``."""

    def __init__(self, slots: list[Slot], jobs: list[Job],
                 submitters: dict[str, Submitter], policy: Policy, now: float,
                 accounting: AccountingGroups | None = None,
                 claims: list[Claim] | None = None) -> None:
        self.policy, self.now = policy, now
        self.accounting = accounting
        self.group_turn: GroupTurn | None = None
        self.eup = {name: s.eup for name, s in submitters.items()}
        self.usage = {name: s.usage for name, s in submitters.items()}
        exprs = PolicyExprs(*(parse_expr(text) for text in (
            policy.negotiator_pre_job_rank, policy.negotiator_post_job_rank,
            policy.preemption_rank, policy.preemption_requirements)))
        self.mm = Matchmaking(exprs, policy, now)
        self.offers = make_offers(slots, claims or [], self.eup, self.usage, accounting, now)
        self.pool = sum(s.weight for s in slots)
        self.min_weight = min([o.weight for o in self.offers] or [1.0])
        holding = {c.job for c in claims or [] if c.job}
        self.idle = [j for j in jobs if j.status == IDLE and j.id not in holding]
        self.grouping = group_jobs(slots, self.idle, (exprs.pre, exprs.post, exprs.preemption_rank,
                                                    exprs.preemption_requirements),
                                 policy.significant_attributes)
        self.turns = []
        for name in sorted({j.submitter for j in self.idle}):
            info = submitters.get(name) or Submitter(
                name, eup=0.5 * policy.default_prio_factor, usage=0.0)
            self.eup.setdefault(name, info.eup)
            self.usage.setdefault(name, info.usage)
            mine = sorted((j for j in self.idle if j.submitter == name),
                          key=lambda j: (j.queue_key(), j.index))
            self.turns.append(Turn(info, mine))
        self.turns.sort(key=lambda t: (self.eup[t.info.name], t.info.name))
        self.matches: list[Match] = []
        self.preempted: list[Claim] = []
        self.last_reject: dict[str, Rejection] = {}
        self.notes: dict[str, str] = {}

    # -- spins ---------------------------------------------------------------------------
    def run(self) -> None:
        self._rounds(list(self.turns))

    def run_turn(self, names: frozenset[str], pool_limit: float, room: float, group: str,
                 autoregroup: bool) -> dict[str, float]:
        """One group turn: the rounds among the submitters ``names`` only, with the
        pool taken as ``min(pool, pool_limit)``, the pie left never above ``room``
        (what the group may still take, less what the turn matched) and each
        submitter's unclaimed limit within it too. Returns each name's change of
        usage (sorted, zeros left out)."""
        before, whole = dict(self.usage), self.pool
        self.pool = min(whole, max(0.0, pool_limit))
        self.group_turn = GroupTurn(group, autoregroup, max(0.0, room))
        try:
            self._rounds([t for t in self.turns if t.info.name in names])
        finally:
            self.pool, self.group_turn = whole, None
        changes = {n: self.usage.get(n, 0.0) - before.get(n, 0.0)
                   for n in sorted(set(before) | set(self.usage))}
        return {n: change for n, change in changes.items() if change}

    def _rounds(self, active: list[Turn]) -> None:
        """The floor round (if any submitter is below its floor), then the main one."""
        below = [t for t in active
                 if t.info.floor > 0 and self.usage[t.info.name] < t.info.floor]
        if below:
            self._pie(below, floor_round=True)
        if active:
            self._pie(active, floor_round=False)

    def _shares(self, active: list[Turn]) -> dict[str, float]:
        """``share_i`` of step 3, as HTCondor's calculateNormalizationFactor works it
        out: ``(maxEUP / EUP_i) / sum_j (maxEUP / EUP_j)``."""
        top = max(self.eup[t.info.name] for t in active)
        scaled = {t.info.name: top / self.eup[t.info.name] for t in active}
        total = sum(scaled.values())
        return {name: value / total for name, value in scaled.items()}

    def _limit(self, share: float, turn: Turn) -> float:
        return max(0.0, share * self.pool - self.usage[turn.info.name])

    def _pie(self, active: list[Turn], floor_round: bool) -> None:
        spin = 0
        while True:
            spin += 1
            shares = self._shares(active)
            pie_left = sum(self._limit(shares[t.info.name], t) for t in active)
            if self.group_turn is not None:
                pie_left = min(pie_left, self.group_turn.room)
            pie_before, count_before = pie_left, len(active)
            for turn in list(active):
                name = turn.info.name
                # (usage now: matches earlier in the spin, and preemptions of this
                # submitter's slots, changed it since the pie was worked out)
                limit = unclaimed = self._limit(shares[name], turn)
                if self.group_turn is not None:
                    unclaimed = min(limit, self.group_turn.room)
                if floor_round:
                    limit = min(turn.info.floor, limit)
                elif turn.share is None:
                    turn.share, turn.limit = shares[name], limit
                limit = min(limit, pie_left)
                ceiling = None
                if turn.info.ceiling is not None:
                    ceiling = max(0, int(turn.info.ceiling) - int(self.usage[name]))
                if spin > 1 and (limit < self.min_weight or pie_left < self.min_weight):
                    continue
                if ceiling is not None and (ceiling == 0 or ceiling < self.min_weight):
                    active.remove(turn)
                    continue
                finished, pie_left = self._negotiate(turn, limit, unclaimed, ceiling,
                                                     spin, pie_left)
                if finished:
                    active.remove(turn)
            progress = pie_left < pie_before or len(active) < count_before
            if not (progress and active and any(o.available for o in self.offers)
                    and not floor_round):
                return

    # -- one submitter's turn ------------------------------------------------------------
    def _negotiate(self, turn: Turn, limit: float, unclaimed: float, ceiling: int | None,
                   spin: int, pie_left: float) -> tuple[bool, float]:
        """Step 4 for one submitter; returns (whether it is done, the pie left)."""
        name = turn.info.name
        used = used_unclaimed = 0.0
        limited = False
        rejected_clusters: set[int] = set()
        lists: dict[tuple[int, bool], MatchList] = {}
        job_ads: dict[int, object] = {}
        any_held = any(o.available and o.holder is not None for o in self.offers)
        for job in turn.jobs:
            if job.id in turn.done:
                continue
            only_rank = False
            if used >= limit:
                if not (spin == 1 and any_held):
                    return False, pie_left
                only_rank = True
            if ceiling is not None and used >= ceiling:
                return False, pie_left
            cluster = self.grouping.cluster_of[job.id]
            if cluster in rejected_clusters:
                self.notes[job.id] = f"skipped: autocluster {cluster} was rejected earlier"
                continue
            klass = self.grouping.match_class_of[job.id]
            own_ad = adeval.with_literals(job.ad, self._submitter_attrs(name))
            if klass not in job_ads:
                job_ads[klass] = own_ad
            mlist = lists.get((klass, only_rank))
            if mlist is None:
                counts = RejectCounts()
                entries = self.mm.entries(job_ads[klass], name, self.offers,
                                          list(range(len(self.offers))), only_rank, counts)
                mlist = lists[(klass, only_rank)] = MatchList(job_ads[klass], only_rank,
                                                             entries, counts)
            permit = Permit(used_unclaimed, used, unclaimed, limit)
            pick = best(self.mm, mlist, own_ad, name, self.offers, permit)
            if pick is None:
                limited = limited or mlist.counts.limit > 0 or only_rank
                self._reject(job, name, mlist, cluster)
                if not self.policy.negotiate_all_jobs_in_cluster:
                    rejected_clusters.add(cluster)
                continue
            self._apply(turn, job, pick, spin, cluster)
            used += pick.cost
            if pick.reason == NO_PREEMPTION:
                used_unclaimed += pick.cost
            pie_left -= pick.cost
        return not (used >= limit or limited), pie_left

    def _submitter_attrs(self, name: str) -> dict[str, object]:
        eup, turn = self.eup[name], self.group_turn
        return {"SubmitterUserPrio": eup, "SubmittorPrio": eup,
                "SubmitterUserResourcesInUse": self.usage[name],
                "SubmitterNegotiatingGroup": NO_GROUP if turn is None else turn.group,
                "SubmitterAutoregroup": turn is not None and turn.autoregroup,
                **group_attrs(self.accounting, "Submitter", name)}

    def _reject(self, job: Job, name: str, mlist: MatchList, cluster: int) -> None:
        if mlist.counts.policy:
            reason = "PREEMPTION_REQUIREMENTS == False"
        elif mlist.counts.limit or mlist.only_rank:
            reason = "submitter limit exceeded"
        else:
            reason = "no match found"
        self.last_reject[job.id] = Rejection(job.id, name, reason, cluster)
        self.notes[job.id] = f"rejected: {reason}"

    def _apply(self, turn: Turn, job: Job, pick: Pick, spin: int, cluster: int) -> None:
        offer, name = pick.offer, turn.info.name
        preempting = preempted_job = None
        resources: tuple[tuple[str, float], ...] = ()
        if pick.taken is not None:
            offer.ad = carved_ad(offer, pick.taken, self.now)
            offer.version += 1
            resources = tuple(sorted(pick.taken.items()))
        else:
            offer.available = False
            if offer.holder is not None:
                preempting, preempted_job = offer.holder, offer.holder_job
                self.usage[preempting] = max(0.0, self.usage.get(preempting, 0.0)
                                             - offer.weight)
                self.preempted.append(Claim(offer.name, preempted_job, preempting,
                                            offer.weight, self.now))
        self.usage[name] = self.usage.get(name, 0.0) + pick.cost
        if self.group_turn is not None:
            self.group_turn.room -= pick.cost
        turn.done.add(job.id)
        turn.matched_weight += pick.cost
        turn.matched_jobs += 1
        self.matches.append(Match(job.id, name, offer.name, pick.reason, pick.cost, cluster,
                                  spin, preempting, preempted_job,
                                  offer.name if offer.partitionable else None, resources))
        self.notes[job.id] = f"matched to {offer.name} ({pick.reason}) in pie spin {spin}"

    # -- result --------------------------------------------------------------------------
    def result(self) -> CycleResult:
        order = {t.info.name: i for i, t in enumerate(self.turns)}
        queue = {j.id: (j.queue_key(), j.index) for j in self.idle}
        done = {t.info.name: t.done for t in self.turns}
        rejections = sorted(
            (r for r in self.last_reject.values() if r.job not in done[r.submitter]),
            key=lambda r: (order[r.submitter], queue[r.job]))
        reports = [SubmitterReport(
            t.info.name, self.eup[t.info.name], t.share or 0.0, t.limit or 0.0,
            self.usage[t.info.name], t.matched_weight, t.matched_jobs, len(t.jobs))
            for t in self.turns]
        stats = dict(evaluations=self.mm.evaluations, matches=len(self.matches),
                     rejections=len(rejections))
        return CycleResult(self.matches, rejections, reports, stats, self.preempted,
                           dict(self.grouping.cluster_of), self._final_notes())

    def _final_notes(self) -> dict[str, str]:
        """A matched job's note is its match, whatever was noted before."""
        notes = dict(self.notes)
        for m in self.matches:
            notes[m.job] = f"matched to {m.slot} ({m.reason}) in pie spin {m.spin}"
        return notes


def run_reference_cycle(slots: list[Slot], jobs: list[Job],
                        submitters: dict[str, Submitter], policy: Policy,
                        now: float, claims: list[Claim] | None = None) -> CycleResult:
    """One cycle, the plain way (module doc)."""
    cycle = ReferenceCycle(slots, jobs, submitters, policy, now, claims=claims)
    cycle.run()
    return cycle.result()
