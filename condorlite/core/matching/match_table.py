"""The match table: one request class against one offer shape, answered once.

``MatchTable.pair`` is the match and the job-dependent ranks of a job class in an
offer's pair shape (kept per class, Submitter* bindings when read, and pair shape),
by full evaluation or by a residual program (a partitionable slot's vector static;
a static slot of a shared static part, ``static_programs``), a static desktop's full
evaluation spared where its ``START`` rules the job's owner out (``owner_gates``) or
a request of the class's is more than the slot has (``resource_limits``), and its
job's ``Requirements`` not evaluated where the held walks know they hold
(``pair``'s ``job_holds``; ``class_pairs`` and ``fresh_pair``: a class's table of
them and the work on a shape not in it, for a caller asking many shapes of one class);
``program`` the class's residual program for a vector static (``carving``,
``pair_programs``; one that never matches where the class's Requirements rule the
static out, ``never_matches``); ``outgrown`` whether no state of a static can hold the class's
literal requests any more; ``preemption_allowed`` PREEMPTION_REQUIREMENTS per (class,
shape, the Submitter* bindings it reads); ``fit`` what a job takes of a partitionable
offer. The rules are in ``matchmaker``'s module doc. One table per cycle, owned by the
``Matchmaker``; it reads the offers' shapes (``offer_shapes.OfferShapes``: their
shape keys, spent statics and resource amounts) and counts its evaluations in the
cycle's ``EvaluationCount``.
"""

from __future__ import annotations

from collections.abc import Callable

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.partial import Constant
from condorlite.core.matching.candidates import NO_MATCH, PairEval, as_rank, box_pair, make_pair
from condorlite.core.matching.carving import PairProgram
from condorlite.core.matching.evaluation_count import EvaluationCount
from condorlite.core.matching.never_matches import NeverMatches
from condorlite.core.matching.offer_shapes import OfferShapes
from condorlite.core.matching.offers import Fits, Offer
from condorlite.core.matching.owner_gates import OwnerGates
from condorlite.core.matching.pair_programs import ResidualCache, job_params, pair_program
from condorlite.core.matching.pieces import weight_names
from condorlite.core.matching.policy_exprs import PolicyExprs
from condorlite.core.matching.resource_limits import ResourceLimits
from condorlite.core.matching.slot_vectors import SlotVector, StaticVector
from condorlite.core.matching.static_programs import StaticNumbers
from condorlite.core.policy import Policy

#: "not in the table" for tables whose values may be None
MISSING = object()


class MatchTable:
    """A cycle's pair results (see the module doc). ``per_submitter``: pair results are
    kept per binding of the Submitter* attributes (some pair evaluation reads them);
    ``preq_names``: the Submitter* names PREEMPTION_REQUIREMENTS can read."""

    def __init__(self, now: float | None, exprs: PolicyExprs, shapes: OfferShapes,
                 counts: EvaluationCount, *, preemption_off: bool, per_submitter: bool,
                 preq_names: frozenset[str], resource_names: frozenset[str],
                 unhoist: Callable[[Offer], None] = lambda offer: None) -> None:
        self.now = now
        #: what jobs take from partitionable slot states, for this cycle's ``now``
        self.fits = Fits(now)
        self.exprs = exprs
        self.preemption_off = preemption_off
        self.per_submitter = per_submitter
        self.counts = counts
        self._preq_names = preq_names
        #: the same, read by the held lists (``held_lists``) to key what it decides
        self.preq_names = preq_names
        self._shapes = shapes
        #: (class, Submitter* bindings or ()) -> pair shape -> its result (nested, so
        #: the shape walk looks a class's table up once, not a tuple key per shape)
        self.pairs: dict[tuple, dict[int, PairEval]] = {}
        #: (class, shape, the Submitter* bindings PREEMPTION_REQUIREMENTS reads) -> it
        self._preq: dict[tuple, bool] = {}
        #: (class, bindings, pair-static id) -> pair program or None (``carving``)
        self.programs: dict[tuple, PairProgram | None] = {}
        #: pair-static id -> the residuals its programs share (``pair_programs.ResidualCache``)
        self._residuals: dict[int, ResidualCache] = {}
        #: (class, vector names) -> the class's literal requests as ``outgrown`` asks
        #: them (positions in the names, amounts)
        self._asked: dict[tuple, tuple] = {}
        #: (class, vector names) -> ``job_params`` of the class's ad: what both
        #: ``literal_requests`` and the class's programs of such vectors read
        self._params: dict[tuple, tuple[tuple[str, ...], tuple]] = {}
        #: static offers of shared static parts, as vectors (``static_programs``), and
        #: their (class, part) programs and residuals, as ``programs`` and
        #: ``_residuals`` keep those of partitionable statics
        self._numbers = StaticNumbers(shapes, resource_names, unhoist)
        self._static_programs: dict[tuple, PairProgram | None] = {}
        #: id(a program of ``_static_programs``, which keeps it) -> its one pair
        #: result when a box with constant ranks (``run_part``)
        self._part_pairs: dict[int, PairEval] = {}
        self._static_counts: dict[int, int] | None = None
        self._static_residuals: dict[int, ResidualCache] = {}
        #: whether the job's Requirements of a class hold in no state of a static,
        #: shared between statics by what it read (``never_matches``), and the
        #: program that stands for that verdict (it never matches)
        self._never = NeverMatches(shapes.shape_keys.canon.key, now)
        #: a static desktop's Requirements as its job's Owner decides them, per pair
        #: shape (``owner_gates``): most classes fail there before a full evaluation
        #: (the static lists ask them per owner too: ``owner_walks.OwnerWalks``)
        self.gates = OwnerGates(now)
        #: a static slot's Requirements' tests of the job's requests against its
        #: literal resources, per pair shape (``resource_limits``): compared directly
        self._limits = ResourceLimits()
        false = Constant(False)
        self._never_matching = PairProgram([], [false], false, false, [], as_rank)

    # -- one pair -----------------------------------------------------------------------
    def pair(self, class_id: int, job_ad: ClassAd, offer: Offer, signature: tuple = (), *,
             job_holds: bool = False) -> PairEval:
        """Match and job-dependent ranks of a job class in an offer's shape (cached;
        per ``signature``, the job ad's Submitter* bindings, when those are read).
        ``job_holds``: the class's job ``Requirements`` are known to hold at this
        static offer (``held_walks``: the held type's verdict passed at the slot's
        numbers, or every bound of it surely holds there), so a full evaluation
        evaluates only the slot's side and the ranks (``_evaluate_pair``); the result
        is the same."""
        part = signature if self.per_submitter else ()
        table = self.pairs.get((class_id, part))
        if table is None:
            table = self.pairs[(class_id, part)] = {}
        found = table.get(offer.pair_shape)
        if found is None:
            # (``fresh_pair``'s dispatch written out: a static or vector-less offer's
            # miss costs no extra call)
            if offer.vector is not None:
                found = self.fresh_pair((class_id, part), job_ad, offer)
            elif offer.partitionable:
                found = self._evaluate_pair(job_ad, offer)
            else:
                found = self._static_pair((class_id, part), job_ad, offer,
                                          job_holds=job_holds)
            table[offer.pair_shape] = found
        return found

    def class_pairs(self, class_id: int, signature: tuple = ()
                    ) -> tuple[tuple, dict[int, PairEval]]:
        """The class key ``pair`` keeps a job class's results under ((class, its
        Submitter* bindings or ())) and its table of them by pair shape: what ``pair``
        reads and fills, handed to a caller that asks many shapes of one class
        (``list_scan``'s take-back: one key built and hashed per take-back, not per
        slot). A shape not in the table is ``fresh_pair(klass, ...)``, kept there."""
        klass = (class_id, signature if self.per_submitter else ())
        table = self.pairs.get(klass)
        if table is None:
            table = self.pairs[klass] = {}
        return klass, table

    def fresh_pair(self, klass: tuple, job_ad: ClassAd, offer: Offer, *,
                   job_holds: bool = False) -> PairEval:
        """``pair``'s result for a shape not in the class key's table (``klass``, as
        ``class_pairs`` gives it), worked out and not kept (the caller keeps it): by
        the (class, pair-static) program at the offer's vector (in full when no
        program can be made), a partitionable offer without a vector in full, a
        static one by ``_static_pair`` (``job_holds``: as ``_evaluate_pair``'s)."""
        vector = offer.vector
        if vector is None:
            if offer.partitionable:
                return self._evaluate_pair(job_ad, offer)
            return self._static_pair(klass, job_ad, offer, job_holds=job_holds)
        # (the program kept looked up here, ``program`` called only to make one: a
        # take-back asks a new shape per slot, of a few statics)
        program = self.programs.get((klass, vector.static), MISSING)
        if program is MISSING:
            program = self.program(klass, job_ad, offer)
        if program is None:
            return self._evaluate_pair(job_ad, offer)
        self.counts.evaluations += 1
        out = program.run(vector.vals, as_rank)  # type: ignore[union-attr]
        if not out[0]:
            return NO_MATCH
        if program.result is not None:  # type: ignore[union-attr]
            return box_pair(program)  # type: ignore[arg-type]
        return make_pair(out)  # (a program's outcome: match, ranks, dependent, taken)

    def _static_pair(self, klass: tuple, job_ad: ClassAd, offer: Offer, *,
                     job_holds: bool = False) -> PairEval:
        """``_evaluate_pair`` of a static offer: by the (class, static part) program at
        the offer's numbers when the part is shared (``static_programs``), else (or
        when no program can be made) in full (``job_holds``: as ``_evaluate_pair``)."""
        vector = self._numbers.of(offer)
        if vector is None:
            return self._evaluate_pair(job_ad, offer, job_holds=job_holds)
        program = self._part_program(klass, job_ad, offer, vector)
        if program is None:
            return self._evaluate_pair(job_ad, offer, job_holds=job_holds)
        return self.run_part(program, vector)

    def run_part(self, program: PairProgram, vector: StaticVector) -> PairEval:
        """The pair result of a static offer of a shared part (``vector``, its
        numbers) by the class's program of the part (``static_program``), counted
        as one evaluation: what ``pair`` gives for it."""
        self.counts.evaluations += 1
        return self.part_pair(program, program.run(vector.vals, as_rank))

    def part_pair(self, program: PairProgram, out: tuple) -> PairEval:
        """The pair result of ``out``, what ``program.run`` gave for a static offer
        (``run_part``; the held walks run their programs themselves and count the
        runs once per walk)."""
        if not out[0]:
            return NO_MATCH
        if out is program.result:
            # (a box with constant ranks: one result for every slot it passes, made
            # once, so lists of a class can make the entries of those slots together)
            found = self._part_pairs.get(id(program))
            if found is None:
                found = self._part_pairs[id(program)] = make_pair(
                    (True, out[1], out[2], out[3], None))
            return found
        return make_pair((True, out[1], out[2], out[3], None))  # (no fit: never carved)

    def static_vector(self, offer: Offer) -> StaticVector | None:
        """The vector of a static offer whose static part is shared (its part:
        ``StaticVector.static``), else None: its pairs are evaluated in full
        (``static_programs``)."""
        return self._numbers.of(offer)

    def static_vectors(self) -> dict[int, StaticVector]:
        """``static_vector`` of every static offer whose part is shared, by ``seq``."""
        return self._numbers.by_seq()

    def static_program(self, klass: tuple, job_ad: ClassAd, offer: Offer) -> PairProgram | None:
        """The program ``pair`` runs for the class ``klass`` (class, Submitter*
        bindings or ()) in every static offer of ``offer``'s shared static part; None
        when the part is not shared or no program can be made (``pair`` evaluates
        in full)."""
        vector = self._numbers.of(offer)
        return None if vector is None else self._part_program(klass, job_ad, offer, vector)

    def _part_program(self, klass: tuple, job_ad: ClassAd, offer: Offer,
                      vector: StaticVector) -> PairProgram | None:
        key = (klass, vector.static)
        program = self._static_programs.get(key, MISSING)
        if program is MISSING:
            # (no resources: a static slot is matched, never carved, so no fit)
            program = self._static_programs[key] = self._new_program(
                klass, job_ad, offer.ad, offer, vector, (), self._static_residuals)
        return program  # type: ignore[return-value]

    def program(self, klass: tuple, job_ad: ClassAd, offer: Offer) -> PairProgram | None:
        """The (class, pair-static) program of an offer with a resource vector (made
        from any state's ad: every state of the static binds the rest alike, and the
        resources are left free), or None when the pair cannot be specialised."""
        vector = offer.vector
        key = (klass, vector.static)  # type: ignore[union-attr]
        program = self.programs.get(key, MISSING)
        if program is not MISSING:
            return program  # type: ignore[return-value]
        # (any state's ad will do, the resources being left free: the one at hand,
        # ``state_ad``, rather than one rebuilt for the current vector)
        slot_ad = offer.state_ad
        never = self._never
        made = never.made
        # (a verdict is worked out for a static of one slot, whose states would be
        # evaluated in full, where it costs less than those evaluations; a program
        # made works the same out on its way, so other statics only use a verdict
        # shared with them)
        alone = self._alone(vector.static)  # type: ignore[union-attr]
        if never.never(klass, job_ad, slot_ad, vector, alone):  # type: ignore[arg-type]
            # the job's Requirements hold in no state (``never_matches``): no program
            # to make, one that never matches stands for it
            program = self._never_matching
        elif alone:
            program = None  # (a static of one slot: its states are evaluated in full)
        else:
            program = self._new_program(
                klass, job_ad, slot_ad, offer, vector, self.fits.resource_names(slot_ad, job_ad),  # type: ignore[arg-type]
                self._residuals)
        self.counts.evaluations += never.made - made
        self.programs[key] = program
        return program

    def _new_program(self, klass: tuple, job_ad: ClassAd, slot_ad: ClassAd, offer: Offer,
                     vector: SlotVector | StaticVector, resources: tuple[str, ...] | list[str],
                     residuals: dict[int, ResidualCache]) -> PairProgram | None:
        """``pair_programs.pair_program`` of the class against ``slot_ad`` (a state of
        ``offer``, whose part ``vector.static`` names), with the policy ranks that
        read the job in this offer and the part's residuals in ``residuals``."""
        dependent = [(rank, expr) for rank, expr in self.exprs.ranks(offer.holder is not None)
                     if rank not in offer.independent]
        cache = residuals.get(vector.static)
        if cache is None:
            cache = residuals[vector.static] = ResidualCache(self._shapes.shape_keys.canon.key)
        return pair_program(job_ad, slot_ad, vector, resources, dependent, self.now, as_rank,
                            cache, self._job_params(klass, job_ad, vector))

    def _alone(self, static: int) -> bool:
        """Whether only one partitionable slot has this static part (worked out for
        every static at the first call, when the offers are all prepared)."""
        counts = self._static_counts
        if counts is None:
            counts = self._static_counts = {}
            for other in self._shapes.registry:
                if other.vector is not None:
                    counts[other.vector.static] = counts.get(other.vector.static, 0) + 1
        return counts.get(static, 0) < 2

    def outgrown(self, klass: tuple, job_ad: ClassAd, offer: Offer) -> bool:
        """Whether no state of the vector static of ``offer`` can hold the class's
        literal requests any more (``spent_statics``). Asked only while the class has
        no program for the static: one made is used as it is."""
        vector = offer.vector
        key = (klass, vector.static)  # type: ignore[union-attr]
        if key in self.programs:
            return False
        asked = self.literal_requests(klass, job_ad, offer)
        if not asked:
            return False
        shapes = self._shapes
        return shapes.spent.holds_none(vector.static, asked,  # type: ignore[union-attr]
                                       shapes.groups.get(vector.static, ()),  # type: ignore[union-attr]
                                       shapes.shape_left)

    def literal_requests(self, klass: tuple, job_ad: ClassAd, offer: Offer
                         ) -> tuple[tuple[int, float], ...]:
        """The class's requests of the resources of ``offer``'s vector that are number
        literals (``pair_programs.job_params``), as (position in the vector, amount):
        a state with less of a resource than such an amount cannot hold a job of the
        class (``spent_statics``)."""
        vector = offer.vector
        # (a class's requests are the same in every list of it, and what it asks of
        # a vector depends only on the vector's names: worked out once per both)
        key = (klass, vector.names)  # type: ignore[union-attr]
        asked = self._asked.get(key)
        if asked is None:
            names, values = self._job_params(klass, job_ad, vector)  # type: ignore[arg-type]
            index = vector.index  # type: ignore[union-attr]
            asked = self._asked[key] = tuple(
                (index[name[len("request"):]], value)
                for name, value in zip(names, values, strict=True))
        return asked

    def _job_params(self, klass: tuple, job_ad: ClassAd, vector: SlotVector | StaticVector
                    ) -> tuple[tuple[str, ...], tuple]:
        """``job_params`` of the class ``klass`` (its ad ``job_ad``) for ``vector``,
        worked out once per (class, vector names): it reads only the ad's requests
        of those names."""
        key = (klass, vector.names)
        found = self._params.get(key)
        if found is None:
            found = self._params[key] = job_params(job_ad, vector)  # type: ignore[arg-type]
        return found

    def _evaluate_pair(self, job_ad: ClassAd, offer: Offer, *, job_holds: bool = False
                       ) -> PairEval:
        """The pair in full: the match (the fit of a partitionable slot, both
        ``Requirements``), then the job's ``Rank``, the slot's and the policy ranks
        that read the job. ``job_holds``: the job's ``Requirements`` are known to hold
        at this slot (``pair``'s ``job_holds``), so only the slot's are evaluated (exact: an
        evaluation has no side effects)."""
        self.counts.evaluations += 1
        slot_ad, now = offer.ad, self.now
        # Evaluations have no side effects, so the order of the three tests is free:
        # the fit of a partitionable slot (a few small request expressions) goes first,
        # since most carved slot states are too small for most classes.
        # A slot that compares literals of its own with the job (a desktop's folded
        # START naming its owner, ``own_literals``) fails most classes on that test:
        # its Requirements go before the job's.
        taken = self._fit_of(offer, job_ad) if offer.partitionable else None
        ok = not offer.partitionable or taken is not None
        if not offer.partitionable and (
                (offer.literals and self.gates.fails(job_ad, offer))
                or self._limits.fails(job_ad, offer)):
            # (the slot's Requirements cannot hold: ``owner_gates``, ``resource_limits``;
            # the owner's verdict first, kept per owner, it rules most desktops out)
            return NO_MATCH
        if offer.literals:
            ok = ok and adeval.requirements_hold(slot_ad, job_ad, now=_int(now)) and (
                job_holds or adeval.requirements_hold(job_ad, slot_ad, now=_int(now)))
        else:
            ok = ok and (job_holds or adeval.requirements_hold(job_ad, slot_ad, now=_int(now))
                         ) and adeval.requirements_hold(slot_ad, job_ad, now=_int(now))
        if not ok:
            return PairEval(False)
        job_rank = adeval.as_float(adeval.eval_attr(job_ad, "Rank", slot_ad, now))
        slot_rank = adeval.slot_rank(adeval.eval_attr(slot_ad, "Rank", job_ad, now))
        dependent = {}
        for key, expr in self.exprs.ranks(offer.holder is not None):
            if key not in offer.independent:
                dependent[key] = as_rank(adeval.eval_expr(expr, slot_ad, job_ad, now))
        return PairEval(True, job_rank or 0.0, slot_rank, dependent, taken)

    def _fit_of(self, offer: Offer, job_ad: ClassAd) -> dict[str, float] | None:
        return self.fits.requested_in(offer, job_ad)

    def fit(self, class_id: int, job_ad: ClassAd, offer: Offer) -> dict[str, float] | None:
        """``offers.requested`` of a job of class ``class_id`` in a partitionable offer.

        What a job takes is read from the slot's walked bindings, so the class's pair
        result for the offer's pair shape already holds it: jobs of one class bind
        their ``Request*`` and everything those reach alike. Not shared when some
        expression reads the Submitter* attributes (the job's own ad lacks them, a
        class's ad has them), nor before the pair was evaluated."""
        if not self.per_submitter:
            table = self.pairs.get((class_id, ()))
            known = None if table is None else table.get(offer.pair_shape)
            if known is not None and known.match and known.taken is not None:
                return known.taken  # shared: callers only read it
        return self.fits.requested_in(offer, job_ad)

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
                                 self._shapes.shape_keys.canon.key(offer.ad, names))
        return vector.weight_key


def _int(now: float | None) -> int | None:
    return None if now is None else int(now)
