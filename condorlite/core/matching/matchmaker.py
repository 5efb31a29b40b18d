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
pair shape, Submitter* bindings when any expression reads them), reasons and
``PREEMPTION_REQUIREMENTS`` once per (match class, shape, Submitter* bindings) (see
``autocluster``), and a policy rank that reads nothing from the job once per binding of
what it reads. The whole offer list is walked a shape at a time (``slot_walks`` finds
what a shape is made of). A partitionable slot whose resources are number literals
has a resource vector (``carving``): its states are one static part and a vector, and
a pair with such a slot is answered by the (class, static part) program at the
state's vector. Offers are prepared, carved and kept in their shapes by
``offer_shapes.OfferShapes``, and a request's list is made by
``request_lists.RequestLists``; the matchmaker inherits both. Candidate entries are
built as ``candidates`` describes and kept per shape for reuse; the unheld static
offers' entries are made once per class (``static_lists``) and the held offers are
settled a group at a time (``held_groups``).
``reference_matchmaker.ReferenceMatchmaker`` shares nothing; the equivalence tests hold
the two to the same outcome.
"""

from __future__ import annotations

from dataclasses import dataclass

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Expr, Literal
from condorlite.core.classad.parser import parse_expr
from condorlite.core.classad.refs import names as expr_names
from condorlite.core.matching.autocluster import ALWAYS_SIGNIFICANT, ShapeKeys
from condorlite.core.matching.candidates import (
    NO_MATCH,
    POST,
    PRANK,
    PRE,
    PairEval,
    as_rank,
    make_pair,
)
from condorlite.core.matching.carving import PairProgram
from condorlite.core.matching.first_states import FirstStates
from condorlite.core.matching.held_groups import HeldGroups
from condorlite.core.matching.literal_ranks import LiteralRanks
from condorlite.core.matching.offer_shapes import MISSING, OfferShapes
from condorlite.core.matching.offers import (
    BASE_RESOURCES,
    Offer,
    requested_in,
    resource_names,
    weight_names,
)
from condorlite.core.matching.pair_programs import ResidualCache, job_params, pair_program
from condorlite.core.matching.request_lists import SUBMITTER_PREFIXES, RequestLists, box_pair
from condorlite.core.matching.slot_walks import SlotWalks
from condorlite.core.matching.spent_statics import SpentStatics
from condorlite.core.matching.static_lists import StaticLists
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


@dataclass(frozen=True)
class PolicyExprs:
    """The policy expressions, parsed once per cycle."""

    pre: Expr
    post: Expr
    preemption_rank: Expr
    preemption_requirements: Expr

    @classmethod
    def from_policy(cls, policy: Policy) -> PolicyExprs:
        return cls(
            pre=parse_expr(policy.negotiator_pre_job_rank),
            post=parse_expr(policy.negotiator_post_job_rank),
            preemption_rank=parse_expr(policy.preemption_rank),
            preemption_requirements=parse_expr(policy.preemption_requirements),
        )

    def all(self) -> tuple[Expr, ...]:
        return (self.pre, self.post, self.preemption_rank, self.preemption_requirements)

    def ranks(self, held: bool) -> tuple[tuple[str, Expr], ...]:
        """The policy ranks a slot gets, as (key, expression): PRE_JOB_RANK and
        POST_JOB_RANK, and PREEMPTION_RANK when the slot is held (only a held slot's
        job can be preempted)."""
        both = ((PRE, self.pre), (POST, self.post))
        return (*both, (PRANK, self.preemption_rank)) if held else both


class Matchmaker(RequestLists, OfferShapes):
    """Evaluates requests against offers for one cycle, sharing what can be shared."""

    #: whether partitionable offers get resource vectors (``carving``)
    use_vectors = True
    #: whether the cycle may bound what a class's entries cost (``PieceCosts.floor``)
    bounds_costs = True

    def __init__(
        self,
        policy: Policy,
        now: float | None,
        job_names: frozenset[str],
        job_defined: frozenset[str],
        target_names: frozenset[str] | None = None,
        binding_refs: frozenset[str] | None = None,
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
        self.slot_names = frozenset(reads | requests | {r.lower() for r in BASE_RESOURCES})
        #: the names carving can rebind in a partitionable slot (``carving``)
        self.resource_names = frozenset(requests | {r.lower() for r in BASE_RESOURCES})
        #: pair-static key -> id; (class, bindings, static) -> pair program or None;
        #: rank program key -> residual or None (see ``carving``)
        self._statics: dict[tuple, int] = {}
        #: (rank, names, ids of an ad's entries for them) -> (value, the entries);
        #: id(reach set) -> (the set, its names sorted)
        self._rank_by_ids: dict[tuple, tuple] = {}
        self._sorted_reach: dict[int, tuple[set[str], tuple[str, ...]]] = {}
        #: (rank program keys, typed state) -> independent ranks (``prepare_carved``)
        self._independent_memo: dict[tuple, dict[str, float]] = {}
        self._rank_exprs = {PRE: self.exprs.pre, POST: self.exprs.post,
                            PRANK: self.exprs.preemption_rank}
        self._programs: dict[tuple, PairProgram | None] = {}
        #: rank program keys -> a small number (``SlotVector.rank_sig``)
        self._rank_sigs: dict[tuple, int] = {}
        #: carving transitions (``carve``)
        self._transitions: dict[tuple, tuple] = {}
        #: (class, bindings, pair shape) -> the slot's Rank of the class (``_slot_rank``)
        self._slot_ranks: dict[tuple, float] = {}
        #: pair-static id -> the residuals its programs share (``pair_programs.ResidualCache``)
        self._residuals: dict[int, ResidualCache] = {}
        self._rank_programs: dict[tuple, object] = {}
        #: rank signature -> its ranks' programs, as ``_carved_ranks`` runs them
        self._rank_plans: dict[int, list[tuple[str, object, float | None]]] = {}
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
        self._shapes: dict[tuple, int] = {}
        #: (class, Submitter* bindings or ()) -> pair shape -> its result (nested, so
        #: the shape walk looks a class's table up once, not a tuple key per shape)
        self._pairs: dict[tuple, dict[int, PairEval]] = {}
        self._preq: dict[tuple, bool] = {}
        #: (class, bindings, id(deferred list)) -> (the list, what it adds to
        #: ``rej_policy``), for ``settle_deferred``
        self._settled: dict[tuple, tuple[list, int]] = {}
        #: held pair shape -> how many classes ``settle_deferred`` found it matching
        self._held_hits: dict[int, int] = {}
        self.evaluations = 0
        #: the carving clock (``stamp``)
        self.clock = 0
        #: every prepared offer, in the order first prepared (``Offer.seq``)
        self._registry: list[Offer] = []
        #: shape -> the ``seq`` of its available offers (a dict: ordered); an offer
        #: leaves when it becomes unavailable (``retire``)
        self._members: dict[int, dict[int, None]] = {}
        #: the same for the partitionable offers among them (no vector: placed again
        #: whenever carved); ``_members`` keeps the static ones, which never gain a
        #: member after they are first placed
        self._pmembers: dict[int, dict[int, None]] = {}
        #: the same for offers with a resource vector, grouped by pair-static id, and
        #: each of their shapes' resource amounts as ``carving.left`` reads them
        self._groups: dict[int, dict[int, dict[int, None]]] = {}
        #: the same for held offers without a vector, grouped by pair shape, with
        #: the classes' plans of them (``held_groups``)
        self._held = HeldGroups(self._registry)
        #: (shape, job rank, dependent ranks, reason) -> (joins, sorted entries), for
        #: held shapes and shapes of offers with a vector (``_shape_candidates``)
        self._kept_entries: dict[tuple, tuple[int, list[tuple]]] = {}
        #: shape -> how many times an offer was placed in it (``_kept_entries``)
        self._joins: dict[int, int] = {}
        self._shape_left: dict[int, tuple[float, ...]] = {}
        #: fixed requests (position, amount)... -> shape -> whether the shape holds them
        self._fitting: dict[tuple, dict[int, bool]] = {}
        self._full: list[Offer] | None = None
        #: statics left too small for a set of literal requests (``outgrown``)
        self._spent = SpentStatics()
        #: (class, static) -> the class's literal requests as ``outgrown`` asks them
        self._asked: dict[tuple, tuple] = {}
        self._shape_keys = ShapeKeys()
        self._pair_shapes: dict[tuple, int] = {}
        self._walks = SlotWalks(self.slot_names, self.exprs, self.job_defined,
                                self.preemption_off)
        #: what first states of slots gave, shared by entry identity (``first_states``)
        self._first = FirstStates()
        #: job-independent policy ranks by their literal bindings (``literal_ranks``)
        self._literal_ranks = LiteralRanks(self._shape_keys.canon.number, now, as_rank)
        #: shape -> its pair shape (a shape's offers all have the same one)
        self._pair_of_shape: dict[int, int] = {}
        #: id(offer) -> (ad walked, busy, (flags, walked names), offer)
        self._walked: dict[int, tuple] = {}
        #: the classes' lists of unheld static offers (``static_lists``)
        self._static = StaticLists(self._registry, self._members, self._pair_of_shape)

    # -- one pair -----------------------------------------------------------------------
    def pair(self, class_id: int, job_ad: ClassAd, offer: Offer, signature: tuple = ()) -> PairEval:
        """Match and job-dependent ranks of a job class in an offer's shape (cached;
        per ``signature``, the job ad's Submitter* bindings, when those are read)."""
        part = signature if self.per_submitter else ()
        table = self._pairs.get((class_id, part))
        if table is None:
            table = self._pairs[(class_id, part)] = {}
        found = table.get(offer.pair_shape)
        if found is None:
            if offer.vector is not None:
                found = self._vector_pair((class_id, part), job_ad, offer)
            else:
                found = self._evaluate_pair(job_ad, offer)
            table[offer.pair_shape] = found
        return found

    def _vector_pair(self, klass: tuple, job_ad: ClassAd, offer: Offer) -> PairEval:
        """``_evaluate_pair`` by the (class, pair-static) program at the offer's vector;
        in full when no program can be made."""
        program = self.program(klass, job_ad, offer)
        if program is None:
            return self._evaluate_pair(job_ad, offer)
        self.evaluations += 1
        out = program.run(offer.vector.vals, as_rank)  # type: ignore[union-attr]
        if not out[0]:
            return NO_MATCH
        if program.result is not None:
            return box_pair(program)
        return make_pair(out)  # (a program's outcome: match, ranks, dependent, taken)

    def program(self, klass: tuple, job_ad: ClassAd, offer: Offer) -> PairProgram | None:
        """The (class, pair-static) program of an offer with a resource vector (made
        from any state's ad: every state of the static binds the rest alike, and the
        resources are left free), or None when the pair cannot be specialised."""
        vector = offer.vector
        key = (klass, vector.static)  # type: ignore[union-attr]
        program = self._programs.get(key, MISSING)
        if program is MISSING:
            dependent = [(rank, expr) for rank, expr in self.exprs.ranks(offer.holder is not None)
                         if rank not in offer.independent]
            cache = self._residuals.get(vector.static)  # type: ignore[union-attr]
            if cache is None:
                cache = self._residuals[vector.static] = ResidualCache(  # type: ignore[union-attr]
                    self._shape_keys.canon.key)
            # (any state's ad will do, the resources being left free: the one at hand,
            # ``state_ad``, rather than one rebuilt for the current vector)
            slot_ad = offer.state_ad
            program = self._programs[key] = pair_program(
                job_ad, slot_ad, vector, resource_names(slot_ad, job_ad),  # type: ignore[arg-type]
                dependent, self.now, as_rank, cache)
        return program  # type: ignore[return-value]

    def outgrown(self, klass: tuple, job_ad: ClassAd, offer: Offer) -> bool:
        """Whether no state of the vector static of ``offer`` can hold the class's
        literal requests any more (``spent_statics``). Asked only while the class has
        no program for the static: one made is used as it is."""
        vector = offer.vector
        key = (klass, vector.static)  # type: ignore[union-attr]
        if key in self._programs:
            return False
        asked = self._asked.get(key)
        if asked is None:
            # (a class's requests are the same in every list of it: worked out once)
            names, values = job_params(job_ad, vector)  # type: ignore[arg-type]
            index = vector.index  # type: ignore[union-attr]
            asked = self._asked[key] = tuple(
                (index[name[len("request"):]], value)
                for name, value in zip(names, values, strict=True))
        if not asked:
            return False
        return self._spent.holds_none(vector.static, asked,  # type: ignore[union-attr]
                                      self._groups.get(vector.static, ()),  # type: ignore[union-attr]
                                      self._shape_left)

    def _evaluate_pair(self, job_ad: ClassAd, offer: Offer) -> PairEval:
        self.evaluations += 1
        slot_ad, now = offer.ad, self.now
        # Evaluations have no side effects, so the order of the three tests is free:
        # the fit of a partitionable slot (a few small request expressions) goes first,
        # since most carved slot states are too small for most classes.
        taken = self._fit_of(offer, job_ad) if offer.partitionable else None
        ok = not offer.partitionable or taken is not None
        ok = ok and adeval.requirements_hold(job_ad, slot_ad, now=_int(now)) and (
            adeval.requirements_hold(slot_ad, job_ad, now=_int(now)))
        if not ok:
            return PairEval(False)
        job_rank = adeval.as_float(adeval.eval_attr(job_ad, "Rank", slot_ad, now))
        slot_rank = adeval.as_float(adeval.eval_attr(slot_ad, "Rank", job_ad, now))
        dependent = {}
        for key, expr in self.exprs.ranks(offer.holder is not None):
            if key not in offer.independent:
                dependent[key] = as_rank(adeval.eval_expr(expr, slot_ad, job_ad, now))
        return PairEval(True, job_rank or 0.0, slot_rank or 0.0, dependent, taken)

    def _fit_of(self, offer: Offer, job_ad: ClassAd) -> dict[str, float] | None:
        return requested_in(offer, job_ad, self.now)

    def fit(self, class_id: int, job_ad: ClassAd, offer: Offer) -> dict[str, float] | None:
        """``offers.requested`` of a job of class ``class_id`` in a partitionable offer.

        What a job takes is read from the slot's walked bindings, so the class's pair
        result for the offer's pair shape already holds it: jobs of one class bind
        their ``Request*`` and everything those reach alike. Not shared when some
        expression reads the Submitter* attributes (the job's own ad lacks them, a
        class's ad has them), nor before the pair was evaluated."""
        if not self.per_submitter:
            table = self._pairs.get((class_id, ()))
            known = None if table is None else table.get(offer.pair_shape)
            if known is not None and known.match and known.taken is not None:
                return known.taken  # shared: callers only read it
        return requested_in(offer, job_ad, self.now)

    def preemption_allowed(
        self, class_id: int, job_ad: ClassAd, offer: Offer, signature: tuple
    ) -> bool:
        """PREEMPTION_REQUIREMENTS for this job class in this offer (cached per shape
        and binding of the Submitter* names it can read, ``_preq_names``)."""
        if self.preemption_off:
            return False
        names = self._preq_names
        key = (class_id, offer.shape,
               tuple(b for b in signature if b[0] in names) if names else ())
        found = self._preq.get(key)
        if found is None:
            self.evaluations += 1
            value = adeval.eval_expr(self.exprs.preemption_requirements, offer.ad, job_ad, self.now)
            found = self._preq[key] = adeval.as_bool(value)
        return found

    def weight_key(self, offer: Offer, policy: Policy) -> tuple:
        """What fixes a piece's weight besides the amounts taken, for an offer whose
        weight reads only resources every piece takes (``SlotVector.weight_reads``):
        its bindings of the other names the weight expressions reach."""
        vector = offer.vector
        assert vector is not None
        if vector.weight_key is None:
            names = tuple(n for n in weight_names(offer, policy) or () if n not in vector.index)
            vector.weight_key = (policy.slot_weight, names,
                                 self._shape_keys.canon.key(offer.ad, names))
        return vector.weight_key


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


def _int(now: float | None) -> int | None:
    return None if now is None else int(now)
