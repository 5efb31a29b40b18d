"""Candidates for one request: symmetric match, rank keys, preemption reason.

For a job J of submitter S and each available offer O (HTCondor's
``matchmakingAlgorithm``):

1. J and O must match: both ``Requirements`` true (each with itself as MY and the other
   as TARGET); a partitionable slot must also have what J requests left.
2. An offer nobody holds is a candidate by reason *no preemption*. An offer held by H:
   *rank* if the slot's ``Rank`` of J is greater than its ``CurrentRank``; else, if H is
   not S, *priority*, provided ``PREEMPTION_REQUIREMENTS`` (MY = slot, TARGET = J, with
   the negotiator's attributes ``RemoteUserPrio``, ``RemoteUserResourcesInUse``,
   ``RemoteGroup`` in the slot and ``SubmitterUserPrio``, ``SubmittorPrio``,
   ``SubmitterUserResourcesInUse``, ``SubmitterGroup`` in the job) is boolean true and
   the slot's Rank of J is at least its CurrentRank; an offer held by S itself is never
   a candidate. When only rank preemption is being considered (first pie spin, over
   the submitter limit) only *rank* candidates count.
3. Candidates are ordered by, higher first: ``NEGOTIATOR_PRE_JOB_RANK``, the job's
   ``Rank``, ``NEGOTIATOR_POST_JOB_RANK``, the reason (no preemption > rank > priority),
   ``PREEMPTION_RANK`` (only for preempting candidates); then by slot Name (ascending),
   where HTCondor keeps whichever it met first.

Negotiator ranks are numbers: one that is undefined, an error or not a number ranks
lowest (-FLT_MAX), and each is rounded to single precision as HTCondor stores it; a job
``Rank`` that is not a number is 0.

Evaluations are shared: a pair (match, ranks) is evaluated once per (match class,
pair shape, Submitter* bindings when any expression reads them), except the job's
Rank of a class that reads names only jobs' Rank reads, which is read per offer and
shared by the classes with the same Rank (``rank_columns``: those names do not split
shapes), reasons and
``PREEMPTION_REQUIREMENTS`` once per (match class, shape, Submitter* bindings) (see
``autocluster``), and a policy rank that reads nothing from the job once per binding of
what it reads. The whole offer list is walked a shape at a time (``slot_walks`` finds
what a shape is made of). A partitionable slot whose resources are number literals
has a resource vector (``carving``): its states are one static part and a vector, and
a pair with such a slot is answered by the (class, static part) program at the
state's vector. Offers are prepared by ``offer_prep.OfferPrep``, carved and kept in
their shapes by ``offer_shapes.OfferShapes``, and a request's list is made by
``request_lists.RequestLists``, from the pair results ``match_table.MatchTable``
keeps; the matchmaker owns one of each (``prep``, ``shapes``, ``table``, ``lists``). Candidate
entries are built as ``candidates`` describes and kept per shape for reuse; the unheld
static offers' entries are made once per class (``static_lists``) and the held offers
are settled a group at a time (``held_groups``).
The plain reference cycle (``tests/core/reference``) shares nothing with it; the
equivalence tests hold the two to the same outcome.
"""

from __future__ import annotations

from collections.abc import Iterable

from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Expr, Literal
from condorlite.core.classad.refs import names as expr_names
from condorlite.core.matching.autocluster import ALWAYS_SIGNIFICANT, referenced_lower
from condorlite.core.matching.candidates import Candidates, PairEval
from condorlite.core.matching.carving import PairProgram
from condorlite.core.matching.evaluation_count import EvaluationCount
from condorlite.core.matching.match_table import MatchTable
from condorlite.core.matching.offer_prep import OfferPrep
from condorlite.core.matching.offer_shapes import OfferShapes
from condorlite.core.matching.offers import BASE_RESOURCES, SUBMITTER_PREFIXES, Offer
from condorlite.core.matching.own_literals import OwnLiterals
from condorlite.core.matching.own_policy import OwnPolicy
from condorlite.core.matching.own_rewrites import OwnRewrites
from condorlite.core.matching.policy_exprs import PolicyExprs
from condorlite.core.matching.rank_columns import RankColumns, rank_only_names, rank_reach
from condorlite.core.matching.request_lists import RequestLists
from condorlite.core.matching.slot_walks import SlotWalks
from condorlite.core.policy import Policy

#: Names the negotiator inserts into job ads before matching.
SUBMITTER_ATTRS = (
    "SubmitterUserPrio", "SubmittorPrio", "SubmitterUserResourcesInUse", "SubmitterGroup",
    "SubmitterNegotiatingGroup", "SubmitterAutoregroup",
)
#: Names the negotiator inserts into the ads of claimed slots.
REMOTE_ATTRS = ("RemoteUserPrio", "RemoteUserResourcesInUse", "RemoteGroup")


def _is_false_literal(expr: Expr | None) -> bool:
    return isinstance(expr, Literal) and expr.value is False


class Matchmaker:
    """Evaluates requests against offers for one cycle, sharing what can be shared.

    It owns the cycle's four parts, made here and reached through the methods below:
    ``shapes`` (``offer_shapes.OfferShapes``: the offers, prepared and kept in their
    shapes), ``table`` (``match_table.MatchTable``: a class against a shape, kept),
    ``columns`` (``rank_columns.RankColumns``: the job ranks per offer of classes whose
    Rank reads ``rank_names``) and ``lists`` (``request_lists.RequestLists``: a
    request's candidate list, from the other three). The parts refer to one another
    in that order only, never back to the matchmaker, so a cycle's tables are freed
    as soon as the cycle is."""

    def __init__(
        self,
        policy: Policy,
        now: float | None,
        job_names: frozenset[str],
        job_defined: frozenset[str],
        target_names: frozenset[str] | None = None,
        binding_refs: frozenset[str] | None = None,
        representatives: Iterable[ClassAd] = (),
    ) -> None:
        self.policy = policy
        self.now = now
        self.exprs = PolicyExprs.from_policy(policy)
        self.preemption_off = _is_false_literal(self.exprs.preemption_requirements)
        self.job_defined = job_defined | {n.lower() for n in SUBMITTER_ATTRS}
        requests = {n[7:] for n in job_names if n.startswith("request") and len(n) > 7}
        # The slot names a pair evaluation can read: what the job classes' expressions
        # refer to and the slot's own Requirements and Rank (each followed through the
        # slot ad in ``prepare``), and the resources a partitionable slot hands out.
        # Names only a job-independent policy rank reads are left out: those ranks are
        # evaluated per slot, so slots differing only there still share a shape.
        reads = job_names if target_names is None else target_names | set(ALWAYS_SIGNIFICANT)
        #: the names carving can rebind in a partitionable slot (``carving``)
        self.resource_names = frozenset(requests | {r.lower() for r in BASE_RESOURCES})
        # Names only jobs' Rank reads (``rank_columns``) do not split shapes: the
        # classes whose Rank reads them take their job rank per offer from a column.
        self.rank_names = self._rank_only(representatives, job_names, binding_refs)
        self.slot_names = frozenset((reads | self.resource_names) - self.rank_names)
        # A job class is evaluated with the submitter's attributes in the job ad; when
        # a pair evaluation can read one of them, a class's pair results are kept per
        # value of those attributes (they differ between submitters, and usage changes
        # during the cycle). PREEMPTION_REQUIREMENTS is no pair evaluation: its own
        # results are kept per value of the Submitter* names it can read
        # (SubmitterUserPrio, fixed for the cycle), not of all of them
        # (SubmitterUserResourcesInUse changes with every match).
        pair_exprs = (self.exprs.pre, self.exprs.post, self.exprs.preemption_rank)
        self.per_submitter = bool(submitter_reads(pair_exprs, job_names, binding_refs))
        self._preq_names = submitter_reads(
            (self.exprs.preemption_requirements,), job_names, binding_refs)
        self.counts = EvaluationCount()
        # what a slot's own numbers decide in its START is folded in before its walks:
        # never what the cycle rebinds (resources, a claimed slot's Remote* names)
        self.own_policy = OwnPolicy(self.resource_names
                                    | {n.lower() for n in REMOTE_ATTRS})
        # a slot's own literals compared with the job are left free in its
        # programs, as its resources are (``own_literals``; a static slot's in
        # its static part's, ``static_programs``)
        self.own_literals = OwnLiterals()
        #: both, worked out once per set of entries they read (``own_rewrites``)
        self.own_rewrites = OwnRewrites(self.own_policy, self.own_literals)
        walks = SlotWalks(self.slot_names, self.exprs, self.job_defined, self.preemption_off)
        self.shapes = OfferShapes(now, self.exprs, walks, self.resource_names, self.counts)
        #: works out each offer's walks, ranks and pair shape key into ``shapes``
        self.prep = OfferPrep(self.shapes, now, self.exprs, walks, self.resource_names,
                              self.counts)
        self.table = MatchTable(now, self.exprs, self.shapes, self.counts,
                                preemption_off=self.preemption_off,
                                per_submitter=self.per_submitter,
                                preq_names=self._preq_names,
                                resource_names=self.resource_names,
                                unhoist=self.own_literals.unhoist)
        self.columns = RankColumns(self.rank_names, self.shapes.shape_keys.canon.key, now,
                                   self.counts, self.resource_names)
        self.lists = RequestLists(self.shapes, self.table, self.columns, self.counts)
        #: ``carve(offer, taken)``: ``OfferShapes.carve`` itself (one call per match),
        #: move an offer with a resource vector to the state a match of ``taken`` leaves
        self.carve = self.shapes.carve
        #: the table's pair programs, (class, bindings, pair-static id) -> program or
        #: None: the classes that got one (the equivalence tests read it)
        self._programs = self.table.programs

    def _rank_only(self, representatives: Iterable[ClassAd], job_names: frozenset[str],
                   binding_refs: frozenset[str] | None) -> frozenset[str]:
        """``rank_columns.rank_only_names`` of the classes' representative ads: what
        each one's Rank reaches against what its other significant bindings refer
        to; the resources, requests and inserted names are never rank-only."""
        others = tuple(sorted(job_names - {"rank"}))
        rank_refs, other_refs = [], []
        for ad in representatives:
            reach = rank_reach(ad)
            other = referenced_lower(ad, others)
            rank_refs.append(reach)
            # A Rank another binding reads, or one that reads a Submitter* name (no
            # column: ``RankColumns.of_class``), is evaluated per shape: its names
            # must split shapes.
            if "rank" in other or any(n.startswith(SUBMITTER_PREFIXES) for n in reach):
                other = other | reach
            other_refs.append(other)
        # (a policy rank needs no exclusion: one that reads the job is walked with
        # the pair's names, ``slot_walks``, and one that does not is per offer)
        excluded = set(self.resource_names)
        excluded |= {n.lower() for n in (*SUBMITTER_ATTRS, *REMOTE_ATTRS)}
        return rank_only_names(rank_refs, other_refs, excluded, binding_refs)

    @property
    def evaluations(self) -> int:
        """Evaluations made so far this cycle, by all three parts."""
        return self.counts.evaluations

    # -- the offers (``shapes``) and a request's list (``lists``) -----------------------
    def prepare(self, offer: Offer) -> None:
        """``OfferPrep.prepare``: (re)compute an offer's shape and its
        job-independent policy ranks; before its first shape, the slot's own policy
        is folded (``own_policy``)."""
        if offer.seq < 0:
            # (one copy of the ad for both rewrites, made as ``OwnLiterals.hoist``
            # makes it when handed ``OwnPolicy.changes``)
            self.own_rewrites.rewrite(offer)
        self.prep.prepare(offer)

    def prepare_all(self, offers: list[Offer]) -> None:
        """``prepare`` of each of ``offers`` (none prepared before), in order, the
        same outcome: every ad rewritten first (``own_rewrites``: nothing it does
        reads the shapes), then ``OfferPrep.prepare_all``."""
        self.own_rewrites.rewrite_all(offers)
        self.prep.prepare_all(offers)

    def stamp(self, offer: Offer) -> None:
        """``OfferShapes.stamp``: a new version for an offer whose state changed."""
        self.shapes.stamp(offer)

    def retire(self, offer: Offer) -> None:
        """``OfferShapes.retire``: forget an offer that has become unavailable."""
        self.shapes.retire(offer)

    @property
    def shape_count(self) -> int:
        return self.shapes.shape_count

    def candidates(self, class_id: int, job_ad: ClassAd, submitter: str, offers: list[Offer],
                   only_rank: bool, positions: list[int] | None = None,
                   signature: tuple | None = None) -> Candidates:
        """``RequestLists.candidates``: every candidate offer for the request, best
        first."""
        return self.lists.candidates(class_id, job_ad, submitter, offers, only_rank,
                                     positions, signature)

    def refresh(self, cands: Candidates, class_id: int, job_ad: ClassAd, submitter: str,
                offer: Offer, idx: int, only_rank: bool) -> tuple | None:
        """``RequestLists.refresh``: one offer's entry in its current state."""
        return self.lists.refresh(cands, class_id, job_ad, submitter, offer, idx, only_rank)

    def settle_deferred(self, cands: Candidates, class_id: int, job_ad: ClassAd) -> None:
        """``RequestLists.settle_deferred``: count the held offers left unevaluated."""
        self.lists.settle_deferred(cands, class_id, job_ad)

    # -- the match table (``table``) ----------------------------------------------------
    def pair(self, class_id: int, job_ad: ClassAd, offer: Offer, signature: tuple = ()) -> PairEval:
        """``MatchTable.pair``: match and job-dependent ranks of a class in a shape."""
        return self.table.pair(class_id, job_ad, offer, signature)

    def program(self, klass: tuple, job_ad: ClassAd, offer: Offer) -> PairProgram | None:
        """``MatchTable.program``: the class's program for an offer's vector static."""
        return self.table.program(klass, job_ad, offer)

    def outgrown(self, klass: tuple, job_ad: ClassAd, offer: Offer) -> bool:
        """``MatchTable.outgrown``: no state of the static holds the class's requests."""
        return self.table.outgrown(klass, job_ad, offer)

    def fit(self, class_id: int, job_ad: ClassAd, offer: Offer) -> dict[str, float] | None:
        """``MatchTable.fit``: what a job of the class takes of a partitionable offer."""
        return self.table.fit(class_id, job_ad, offer)

    def preemption_allowed(self, class_id: int, job_ad: ClassAd, offer: Offer,
                           signature: tuple) -> bool:
        """``MatchTable.preemption_allowed``: PREEMPTION_REQUIREMENTS for the class."""
        return self.table.preemption_allowed(class_id, job_ad, offer, signature)

    def weight_key(self, offer: Offer, policy: Policy) -> tuple:
        """``MatchTable.weight_key``: what fixes a piece's weight but the amounts."""
        return self.table.weight_key(offer, policy)


def submitter_reads(exprs: tuple[Expr, ...], job_names: frozenset[str],
                    binding_refs: frozenset[str] | None) -> frozenset[str]:
    """The Submitter* names that evaluating ``exprs`` in a match may read, as far as the
    cycle knows: what they name, and what some slot's or job's binding of a significant
    name refers to (``Autoclusters.binding_refs``: an evaluation starts from names that
    are not the negotiator's and reads on only through bindings); without
    ``binding_refs``, every name the classes were keyed on (``job_names``)."""
    named = set(job_names if binding_refs is None else binding_refs)
    for expr in exprs:
        named |= expr_names(expr)
    return frozenset(n for n in named if n.startswith(SUBMITTER_PREFIXES))
