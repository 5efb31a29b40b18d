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
``request_lists.RequestLists``; the matchmaker owns one of each (``shapes``,
``lists``) and is itself the match table they ask. Candidate entries are
built as ``candidates`` describes and kept per shape for reuse; the unheld static
offers' entries are made once per class (``static_lists``) and the held offers are
settled a group at a time (``held_groups``).
``reference_matchmaker.ReferenceMatchmaker`` shares nothing; the equivalence tests hold
the two to the same outcome.
"""

from __future__ import annotations

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Expr, Literal
from condorlite.core.classad.refs import names as expr_names
from condorlite.core.matching.autocluster import ALWAYS_SIGNIFICANT
from condorlite.core.matching.candidates import (
    NO_MATCH,
    Candidates,
    PairEval,
    as_rank,
    make_pair,
)
from condorlite.core.matching.carving import PairProgram
from condorlite.core.matching.offer_shapes import MISSING, EvaluationCount, OfferShapes
from condorlite.core.matching.offers import (
    BASE_RESOURCES,
    Offer,
    requested_in,
    resource_names,
    weight_names,
)
from condorlite.core.matching.pair_programs import ResidualCache, job_params, pair_program
from condorlite.core.matching.policy_exprs import PolicyExprs
from condorlite.core.matching.request_lists import SUBMITTER_PREFIXES, RequestLists, box_pair
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

    The matchmaker is the match table (``pair``, ``program``, ``preemption_allowed``,
    ``fit``: results kept per class and shape) and owns the two parts that use it:
    ``shapes`` (``offer_shapes.OfferShapes``: the offers, prepared and kept in their
    shapes) and ``lists`` (``request_lists.RequestLists``: a request's candidate
    list), both made here and reached through the methods below."""

    #: whether partitionable offers get resource vectors (``carving``)
    use_vectors = True
    #: whether the cycle may bound what a class's entries cost (``PieceCosts.floor``)
    bounds_costs = True
    #: whether a list of every prepared offer is walked a shape at a time (else offer
    #: by offer, ``RequestLists.candidates``)
    lists_by_shape = True

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
        #: (class, Submitter* bindings or ()) -> pair shape -> its result (nested, so
        #: the shape walk looks a class's table up once, not a tuple key per shape)
        self._pairs: dict[tuple, dict[int, PairEval]] = {}
        #: (class, shape, the Submitter* bindings PREEMPTION_REQUIREMENTS reads) -> it
        self._preq: dict[tuple, bool] = {}
        #: (class, bindings, pair-static id) -> pair program or None (``carving``)
        self._programs: dict[tuple, PairProgram | None] = {}
        #: pair-static id -> the residuals its programs share (``pair_programs.ResidualCache``)
        self._residuals: dict[int, ResidualCache] = {}
        #: (class, static) -> the class's literal requests as ``outgrown`` asks them
        self._asked: dict[tuple, tuple] = {}
        walks = SlotWalks(self.slot_names, self.exprs, self.job_defined, self.preemption_off)
        self.shapes = OfferShapes(now, self.exprs, walks, self.resource_names,
                                  self.use_vectors, self.counts)
        self.lists = RequestLists(
            self.shapes, self._pairs, self.counts, now=now, per_submitter=self.per_submitter,
            preemption_off=self.preemption_off, by_shape=self.lists_by_shape,
            pair=self.pair, preemption_allowed=self.preemption_allowed,
            program=self.program, outgrown=self.outgrown)

    @property
    def evaluations(self) -> int:
        """Evaluations made so far this cycle, by the table and its parts."""
        return self.counts.evaluations

    @evaluations.setter
    def evaluations(self, value: int) -> None:
        self.counts.evaluations = value

    # -- the offers (``shapes``) and a request's list (``lists``) -----------------------
    def prepare(self, offer: Offer) -> None:
        """``OfferShapes.prepare``: (re)compute an offer's shape and its
        job-independent policy ranks."""
        self.shapes.prepare(offer)

    def carve(self, offer: Offer, taken: dict[str, float]) -> None:
        """``OfferShapes.carve``: move an offer with a resource vector to the state a
        match of ``taken`` leaves."""
        self.shapes.carve(offer, taken)

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
        self.counts.evaluations += 1
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
                    self.shapes.shape_keys.canon.key)
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
        shapes = self.shapes
        return shapes.spent.holds_none(vector.static, asked,  # type: ignore[union-attr]
                                       shapes.groups.get(vector.static, ()),  # type: ignore[union-attr]
                                       shapes.shape_left)

    def _evaluate_pair(self, job_ad: ClassAd, offer: Offer) -> PairEval:
        self.counts.evaluations += 1
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
            self.counts.evaluations += 1
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
                                 self.shapes.shape_keys.canon.key(offer.ad, names))
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
