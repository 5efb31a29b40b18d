"""``PREEMPTION_REQUIREMENTS`` of held offers, kept by what it reads of both ads.

The match table keeps the policy's verdict per (class, slot shape, the Submitter*
bindings it can read) (``MatchTable.preemption_allowed``). On a pool of claimed
static slots every held slot is its own shape (its own ``Disk``, ``KFlops`` ...) and
a class is mostly one submitter's, so nearly every (class, held shape) asked is a new
evaluation, although the usual policy, ``RemoteUserPrio > SubmitterUserPrio * 1.2``,
reads one name of each ad: a few hundred distinct (holder's priority, submitter's
priority) answer a hundred thousand questions.

``PreqVerdicts.allowed`` specialises the expression against the slot (MY) and the
job (TARGET) with nothing left free (``classad.partial.specialize``), which records
every name it looked up in either ad (found or not, ``reads``); the result is a
constant equal to the full evaluation (``partial``'s contract) and depends on
nothing but the bindings of those names and ``now`` (fixed for the cycle). It is
kept under (names read in the job ad, names read in the slot ad) -> (the job's
numbers of the first, the slot's of the second) (``expr_numbers.Canon.key``:
equal numbers, equal expressions), so every later (job, slot) that binds them alike
takes it without an evaluation. Names looked up in another ad (a nested record's)
are keyed in both ads, which keys more than needed, never less: a record is reached
through a binding of one of the two. Where the specialisation cannot be made, the
match table's evaluation decides, and nothing is kept.

The specialisation costs about three evaluations, and on a pool where most
(holder, submitter) pairs are asked once (claimed preemption at 1,000 slots) nearly
every question is a miss. So where the expression's names can be read off its tree
(``preq_reads.static_reads``) and both ads bind each of them to a literal or not at
all, a question is first asked of a second table, keyed by the job's and the slot's
numbers of those names: a miss there is one plain evaluation
(``adeval.eval_expr``, as the match table's), whose verdict depends on nothing but
those bindings and ``now``. An ad binding one of them to anything but a literal (an
expression that reads further names) takes the specialisation, as before.

That miss is not evaluated in full either (``_static_miss``): on a pool of claimed
slots it is asked once per (submitter's job numbers, holder's slot numbers), 6,491
times on the 1k static mix for 100 jobs' numbers, each a full evaluation. The
expression is specialised at most once per (the job's numbers of the static names,
which of them the slot binds) with the slot's bindings of those left free
(``classad.partial.specialize``: the residual equals the full evaluation at every
literal value of the free names), and each later miss runs that residual at the slot's
literal values (a key's first miss is evaluated in full: a residual costs about three
evaluations, and pays from its second run). Exact: the slot binds each static name to
a literal or not at all, so which it binds and their values are everything the
evaluation reads of it; the job's numbers are everything it reads of the job. A miss
still counts one evaluation (the specialisations are not counted); where no residual
can be made, the miss is evaluated in full as before. A list key's refusals
(``held_refusals``) ask the static table straight (``static_allowed``): their job and
every key's offer bind the static names to literals, known before they ask, and a
slot's bound names and values are kept per offer, asked by about a hundred jobs' numbers.
Where the residual of a refusals' job numbers is one comparison of the one name a key's
offer binds with a number (``static_bound``: the usual policy's ``RemoteUserPrio > p``),
the refusals compare the key's value themselves and keep the verdict here
(``static_known``), counted as the miss it replaces.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Expr, Literal
from condorlite.core.classad.partial import Constant, specialize
from condorlite.core.classad.residuals import PY_COMPARE, Residual
from condorlite.core.matching.evaluation_count import EvaluationCount
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.preq_reads import static_reads
from condorlite.core.matching.slot_vectors import int_now

#: at most this many sets of names read are kept (a lookup tries each; one policy
#: expression reads one or two sets: where its ``&&`` and ``||`` stop)
MAX_NAME_SETS = 16

#: "not in the table"
MISSING = object()

#: an ad binds one of the static names to something other than a literal
NOT_LITERAL = object()

#: a residual key (``PreqVerdicts._residuals``) missed once: evaluated in full
ONCE = object()

#: the key of the job ad's static numbers in the caller's ``jobs`` table (whose other
#: keys are tuples of names)
STATIC_JOB = None


class PreqBound(NamedTuple):
    """A job's verdict against every slot binding the static names ``names`` alone,
    the first to a number of type ``kind``: ``compare(value, number)`` (the residual
    of the job's numbers is that one comparison, ``PreqVerdicts.static_bound``)."""

    names: tuple[str, ...]
    compare: Callable[[object, object], bool]
    number: int | float
    kind: type


class PreqVerdicts:
    """A cycle's ``PREEMPTION_REQUIREMENTS`` verdicts by what they read (module doc).
    ``expr``: the policy expression; ``number(ad, names)``: the numbers of the ad's
    bindings of ``names`` (``expr_numbers.Canon.key``); ``fallback``: the match
    table's ``preemption_allowed``, for what cannot be specialised."""

    def __init__(self, expr: Expr, number: Callable[[ClassAd, tuple[str, ...]], tuple],
                 now: float | None, counts: EvaluationCount,
                 fallback: Callable[[int, ClassAd, Offer, tuple], bool]) -> None:
        self._expr = expr
        self._number = number
        self._now = int_now(now)
        self._counts = counts
        self._fallback = fallback
        #: (job names, slot names) -> (job numbers, slot numbers) -> verdict
        self._verdicts: dict[tuple, dict[tuple, bool]] = {}
        #: slot names -> offer seq -> the offer's numbers of them (a held static
        #: offer's ad is never replaced)
        self._slots: dict[tuple[str, ...], dict[int, tuple]] = {}
        #: the names the expression can read of either ad (``static_reads``), or None
        self._static = static_reads(expr)
        #: (job numbers, slot numbers) of ``_static`` -> verdict, for ads binding
        #: them to literals
        self._by_static: dict[tuple, bool] = {}
        #: offer seq -> its numbers of ``_static``, or NOT_LITERAL
        self._static_slots: dict[int, object] = {}
        #: (job numbers of ``_static``, the static names a slot binds) -> the
        #: expression's residual with the slot's bindings of those free, None (none
        #: can be made: evaluated in full) or ``ONCE`` (``_static_miss``)
        self._residuals: dict[tuple, Residual | object | None] = {}
        #: offer seq -> the static names its ad binds and their literals' values, or
        #: None (one bound to a non-literal) (``_static_miss``)
        self._slot_sides: dict[int, tuple[tuple[str, ...], tuple] | None] = {}

    def allowed(self, class_id: int, job_ad: ClassAd, offer: Offer, signature: tuple,
                jobs: dict) -> bool:
        """Whether the policy lets the class's job ``job_ad`` preempt ``offer``'s
        holder. ``jobs``: the caller's table of the job ad's numbers by names (one
        per job ad: filled here; its numbers of the static names under
        ``STATIC_JOB``); ``class_id`` and ``signature`` are for the fallback."""
        slot_ad = offer.ad
        if self._static is not None:
            found = self._static_verdict(job_ad, offer, jobs)
            if found is not MISSING:
                return found  # type: ignore[return-value]
        for names, verdicts in self._verdicts.items():
            job_names, slot_names = names
            mine = jobs.get(job_names)
            if mine is None:
                mine = jobs[job_names] = self._number(job_ad, job_names)
            found = verdicts.get((mine, self._slot_numbers(slot_names, offer)), MISSING)
            if found is not MISSING:
                return found  # type: ignore[return-value]
        reads: set[tuple[int, str]] = set()
        residual = specialize(self._expr, slot_ad, job_ad, (), self._now, reads)
        if type(residual) is not Constant:
            return self._fallback(class_id, job_ad, offer, signature)
        self._counts.evaluations += 1
        found = adeval.as_bool(residual.value)
        job, slot = id(job_ad), id(slot_ad)
        job_names = tuple(sorted({name for ad, name in reads if ad != slot}))
        slot_names = tuple(sorted({name for ad, name in reads if ad != job}))
        names = (job_names, slot_names)
        if names in self._verdicts or len(self._verdicts) < MAX_NAME_SETS:
            mine = jobs.get(job_names)
            if mine is None:
                mine = jobs[job_names] = self._number(job_ad, job_names)
            self._verdicts.setdefault(names, {})[
                (mine, self._slot_numbers(slot_names, offer))] = found
        return found

    def slot_key(self, offer: Offer) -> tuple | None:
        """The offer's numbers of the names the policy can read (``static_reads``),
        when it binds each to a literal or not at all; else None. A verdict of a job
        with a ``job_key`` depends on nothing of the slot but these (module doc)."""
        if self._static is None:
            return None
        seq = offer.seq
        theirs = self._static_slots.get(seq)
        if theirs is None:
            theirs = self._static_slots[seq] = self._literal_numbers(offer.ad)
        return None if theirs is NOT_LITERAL else theirs  # type: ignore[return-value]

    def job_key(self, job_ad: ClassAd, jobs: dict) -> tuple | None:
        """The job ad's numbers of the names the policy can read, as ``slot_key``
        (kept in the caller's ``jobs`` table, as ``allowed`` keeps them)."""
        if self._static is None:
            return None
        mine = jobs.get(STATIC_JOB, MISSING)
        if mine is MISSING:
            mine = jobs[STATIC_JOB] = self._literal_numbers(job_ad)
        return None if mine is NOT_LITERAL else mine  # type: ignore[return-value]

    def _slot_numbers(self, names: tuple[str, ...], offer: Offer) -> tuple:
        by_seq = self._slots.get(names)
        if by_seq is None:
            by_seq = self._slots[names] = {}
        found = by_seq.get(offer.seq)
        if found is None:
            found = by_seq[offer.seq] = self._number(offer.ad, names)
        return found

    def _static_verdict(self, job_ad: ClassAd, offer: Offer,
                        jobs: dict) -> bool | object:
        """The verdict by the static names' bindings (module doc), evaluated on a
        miss; MISSING when either ad binds one of them to a non-literal."""
        mine = jobs.get(STATIC_JOB, MISSING)
        if mine is MISSING:
            mine = jobs[STATIC_JOB] = self._literal_numbers(job_ad)
        if mine is NOT_LITERAL:
            return MISSING
        seq = offer.seq
        theirs = self._static_slots.get(seq)
        if theirs is None:
            theirs = self._static_slots[seq] = self._literal_numbers(offer.ad)
        if theirs is NOT_LITERAL:
            return MISSING
        key = (mine, theirs)
        found = self._by_static.get(key)
        if found is None:
            self._counts.evaluations += 1
            found = self._by_static[key] = self._static_miss(job_ad, mine, offer)
        return found

    def static_allowed(self, job_ad: ClassAd, mine: tuple, offer: Offer) -> bool:
        """``allowed`` for a job whose numbers of the static names are ``mine``
        (``job_key``, not None) and an offer whose ``slot_key`` is not None (a policy
        key's offer, ``held_refusals``): the static table's verdict, its residual
        run on a miss (module doc), with nothing else to check."""
        key = (mine, self.slot_key(offer))
        found = self._by_static.get(key)
        if found is None:
            self._counts.evaluations += 1
            found = self._by_static[key] = self._static_miss(job_ad, mine, offer)
        return found

    def _static_miss(self, job_ad: ClassAd, mine: object, offer: Offer) -> bool:
        """The verdict of a job and a slot that bind every static name to a literal
        or not at all (the job's numbers of them ``mine``), asked for the first time:
        the residual of the job's numbers and the names the slot binds, run at the
        slot's values of them (module doc); evaluated in full where no residual can
        be made."""
        slot_ad = offer.ad
        side = self.slot_side(offer)
        if side is None:  # (``_literal_numbers`` rules it out)
            return self._evaluated(job_ad, slot_ad)
        bound, values = side  # type: ignore[misc]
        key = (mine, bound)
        residual = self._residuals.get(key, MISSING)
        if residual is MISSING:
            # (a key's first miss is evaluated in full, its residual made at the
            # second: a key asked once costs no specialisation, about three
            # evaluations)
            self._residuals[key] = ONCE
            return self._evaluated(job_ad, slot_ad)
        if residual is ONCE:
            residual = self._residuals[key] = specialize(
                self._expr, slot_ad, job_ad, [(slot_ad, name) for name in bound], self._now)
        if residual is None:
            return self._evaluated(job_ad, slot_ad)
        return adeval.as_bool(residual(values))  # type: ignore[operator]

    def slot_side(self, offer: Offer) -> tuple[tuple[str, ...], tuple] | None:
        """The static names the offer's ad binds and their literals' values, or None
        (one bound to a non-literal); kept per offer (a held static offer's ad is
        never replaced)."""
        seq = offer.seq
        side = self._slot_sides.get(seq, MISSING)
        if side is MISSING:
            side = self._slot_sides[seq] = _bound_literals(offer.ad, self._static)  # type: ignore[arg-type]
        return side  # type: ignore[return-value]

    def static_bound(self, job_ad: ClassAd, mine: tuple, offer: Offer) -> PreqBound | None:
        """For a job of numbers ``mine`` (``job_key``) and an offer whose ``slot_key``
        is not None and that binds one static name: the job's verdicts as one
        comparison of that name's value (``PreqBound``), or None. The residual of the
        job's numbers with that name free (``_static_miss``'s, made now: the caller
        asks it of every policy key) is exactly ``vals[0] op number`` when it is its
        own one atom with a number operand (``residuals.comparison``: for a value of
        the number's type, Python's operator; for any other, ``operators.compare``,
        which the bound leaves to ``static_allowed``). So for every slot binding that
        name alone to a literal of that type, ``compare(value, number)`` is
        ``static_allowed``'s verdict (the usual policy, ``RemoteUserPrio >
        SubmitterUserPrio * 1.2``: ``RemoteUserPrio > p``, ``p`` the job's
        ``SubmitterUserPrio * 1.2``)."""
        side = self.slot_side(offer)
        if side is None or len(side[0]) != 1:
            return None
        bound = side[0]
        key = (mine, bound)
        residual = self._residuals.get(key, MISSING)
        if residual is MISSING or residual is ONCE:
            residual = self._residuals[key] = specialize(
                self._expr, offer.ad, job_ad, [(offer.ad, bound[0])], self._now)
        atoms = getattr(residual, "atoms", None)
        if atoms is None or len(atoms) != 1:
            return None
        atom = atoms[0]
        number = atom.operand
        kind = type(number)
        if atom.test is not residual or atom.index != 0 or (
                kind is not int and kind is not float):
            return None  # (a conjunction, a wrapped comparison, or a free operand)
        return PreqBound(bound, PY_COMPARE[atom.op], number, kind)

    def static_known(self, mine: tuple, theirs: tuple, verdict: bool) -> bool:
        """Keep ``verdict``, worked out without the table (``static_bound``), as the
        static table's for (the job's numbers ``mine``, the slot's ``theirs``),
        counted as the evaluation a miss there counts; returns it."""
        key = (mine, theirs)
        if key not in self._by_static:
            self._counts.evaluations += 1
            self._by_static[key] = verdict
        return verdict

    def _evaluated(self, job_ad: ClassAd, slot_ad: ClassAd) -> bool:
        """The verdict evaluated in full (as the match table's)."""
        return adeval.as_bool(adeval.eval_expr(self._expr, slot_ad, job_ad, self._now))

    def _literal_numbers(self, ad: ClassAd) -> object:
        """The ad's numbers of the static names, or NOT_LITERAL when it binds one of
        them to anything but a literal."""
        names = self._static
        assert names is not None
        for name in names:
            bound = adeval.attr(ad, name)
            if bound is not None and type(bound) is not Literal:
                return NOT_LITERAL
        return self._number(ad, names)


def _bound_literals(ad: ClassAd, names: tuple[str, ...]) -> tuple[tuple[str, ...], tuple] | None:
    """The names of ``names`` the ad binds and the values of their literals, or None
    when it binds one of them to anything but a literal."""
    bound: list[str] = []
    values: list[object] = []
    for name in names:
        expr = adeval.attr(ad, name)
        if expr is None:
            continue
        if type(expr) is not Literal:
            return None
        bound.append(name)
        values.append(expr.value)  # type: ignore[attr-defined]
    return tuple(bound), tuple(values)
