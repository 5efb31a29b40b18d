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

The cycle sets up (``Cycle.__init__``: offers, idle jobs, match classes, the
matchmaker, the list walks, the turns) and runs the rounds and their pie spins here
(``Cycle._pie``: each spin's shares, limits and pie left); one submitter's turn in a
spin, its rows, matches, preemptions and rejections, is ``submitter_turn``'s
(``TurnNegotiator.negotiate``, given a ``TurnLimits``). The per-job notes are worded
when read (``cycle_notes``). The ``Remote*`` and ``Submitter*`` attributes the ads get
are ``submitter_attrs``'s.

Ties: submitters by (EUP, name); jobs by (-JobPrio, QDate, ClusterId, ProcId, input
order); candidates as ``matchmaker`` says (slot Name last). Nothing depends on hashing
or input order otherwise.
"""

from __future__ import annotations

from types import MappingProxyType

from condorlite.core import adeval
from condorlite.core.matching import columns
from condorlite.core.matching.autocluster import Autoclusters
from condorlite.core.matching.list_scan import ListScan
from condorlite.core.matching.matchmaker import Matchmaker
from condorlite.core.matching.piece_costs import PieceCosts
from condorlite.core.matching.policy_exprs import PolicyExprs
from condorlite.core.matching.significant import build_closed
from condorlite.core.model import Claim, CycleResult, Job, Slot, Submitter
from condorlite.core.negotiation import limits as lim
from condorlite.core.negotiation.cycle_notes import CycleNotes
from condorlite.core.negotiation.offer_pool import OfferPool, build_offers
from condorlite.core.negotiation.submitter_attrs import GroupFacts, GroupTurn, remote_attrs
from condorlite.core.negotiation.submitter_turn import TurnLimits, TurnNegotiator
from condorlite.core.negotiation.turns import Turn, build_turns, submitter_reports
from condorlite.core.policy import Policy


class Cycle:
    """The mutable state of one cycle; ``run_cycle`` is its only public entry."""

    def __init__(self, slots, jobs, submitters, claims, policy: Policy, now: float,
                 groups: GroupFacts | None = None) -> None:
        self.policy, self.now = policy, now
        self.groups = groups
        #: the group turn under way (``run_turn``), or None
        self.group_turn: GroupTurn | None = None
        self.usage = {name: s.usage for name, s in submitters.items()}
        self.eup = {name: s.eup for name, s in submitters.items()}
        self.known = submitters
        self.stats = dict(pies=0, pie_spins=0, jobs_considered=0, matches=0,
                          rejection_events=0, naive_evaluations=0)
        self.claims = claims
        #: the offers and what is left of them (``offer_pool``)
        self.offer_pool = OfferPool(build_offers(slots, claims, now, self._remote_attrs))
        self.offers = self.offer_pool.offers
        self.min_weight = self.offer_pool.min_weight
        self.pool = sum(s.weight for s in slots)
        held = {c.job for c in claims if c.job}
        idle = columns.idle_jobs(jobs)
        if held:
            idle = [j for j in idle if j.id not in held]
        self.idle = idle
        self.ac = self._autoclusters(slots, idle)
        reps = [rep.ad for rep in self.ac.representative.values()]
        # every name some class's representative binds: one C-level union of the
        # ClassAd-lite tables (keyed by lower-cased name), not a ``set.update`` per ad
        tables = adeval.tables(reps)
        defined = frozenset().union(*(map(adeval.lower_names, reps) if tables is None
                                      else tables))
        self.mm = Matchmaker(policy, now, self.ac.job_names, defined,
                             self.ac.target_names, self.ac.binding_refs, reps)
        self.mm.prepare_all(self.offers)
        self.costs = PieceCosts(self.offers, self.mm, policy)
        #: the walks of the candidate lists (``list_scan``)
        self.scan = ListScan(self.offers, self.mm, self.costs)
        self.turns = build_turns(idle, submitters, self.ac, policy, self.eup, self.usage)
        #: each submitter's turn in a spin (``submitter_turn``), and what the turns
        #: record: the matches, the preempted claims, the rejections, the notes
        self.negotiator = TurnNegotiator(policy, now, self.offer_pool, self.mm, self.scan,
                                         self.ac, self.usage, self.eup, groups, self.stats)
        self.matches = self.negotiator.matches
        self.preempted = self.negotiator.preempted
        self.rejections = self.negotiator.rejections
        self.notes = self.negotiator.notes

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
        self.group_turn = GroupTurn(group, autoregroup, max(0.0, room))
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
        """One round (module doc, steps 3-4): pie spins over the turns ``active``
        until a spin makes no progress; each spin works out the shares, each
        submitter's limits (``TurnLimits``) and the pie left, and runs the
        submitters' turns in order (``TurnNegotiator.negotiate``)."""
        self.stats["pies"] += 1
        spin = 0
        group_turn = self.group_turn
        while True:
            spin += 1
            self.stats["pie_spins"] += 1
            share = lim.shares({t.info.name: self.eup[t.info.name] for t in active})
            pie_left = sum(lim.limit(share[t.info.name], self.pool, self.usage[t.info.name])
                           for t in active)
            if group_turn is not None:
                # The group's room caps the whole pie: its submitters together take at
                # most turn limit - group usage.
                pie_left = min(pie_left, group_turn.room)
            pie_orig, count_orig = pie_left, len(active)
            for turn in list(active):
                name = turn.info.name
                limit = lim.limit(share[name], self.pool, self.usage[name])
                # What matches without preemption are held to (HTCondor's
                # submitterLimitUnclaimed): the fair-share limit, within the group's
                # room; the floor and the pie left cap only ``limit`` (``limits``).
                unclaimed = limit if group_turn is None else min(limit, group_turn.room)
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
                end = self.negotiator.negotiate(
                    turn, TurnLimits(limit, unclaimed, ceiling, spin == 1, spin, group_turn),
                    pie_left)
                pie_left = end.pie_left
                if end.done:
                    active.remove(turn)
            progress = pie_left < pie_orig or len(active) < count_orig
            if not (progress and active and any(o.available for o in self.offers)
                    and not floor_round):
                return

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
