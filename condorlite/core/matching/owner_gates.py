"""A desktop's ``START`` as a function of the job's ``Owner``: one residual per pair
shape answers every class, per distinct owner.

A static desktop whose part is too small for programs (``static_programs``) is
evaluated in full once per (class, pair shape), its own ``Requirements`` first
(``MatchTable._evaluate_pair``): ``START && WithinResourceLimits`` where the folded
``START`` (``own_policy``) of a busy desktop is ``false || TARGET.Owner == "alice"``.
Almost every class fails there (at 10,000 x 100,000 owner-start, 11,790 of 14,040 full
evaluations, in 233 pair shapes and 3,272 (``START``, owner) pairs), and what decides
it is the job's ``Owner`` alone.

So per pair shape of such an offer, the leftmost operand ``L`` of its
``Requirements``' ``&&`` chain (through parentheses; the whole expression when there
is no ``&&``) is specialised against the job with the job's ``Owner`` left free
(``classad.partial``): the *gate*. It is kept only when the walk read no other name
of the job (then its value is a function of the owner alone: ``partial``'s contract,
for every job ad binding ``Owner`` to that literal) and not the slot's
``Requirements`` itself (a cycle would evaluate otherwise inside it). A class whose
owner gives ``L`` a value whose boolean is false (``false`` or ``0``) cannot match:
the evaluation of ``L && R`` returns false without walking ``R`` (``reference``'s
``&&``), and so does each enclosing ``&&`` of the chain; where ``L`` alone is the
expression, false or zero does not hold. Any other value decides nothing and the pair
is evaluated in full, as before. A leftmost operand that names an attribute the slot
binds to ``true`` (an idle desktop's folded ``START``) is not specialised: it would
rule nothing out.

Exactness also rests on the pair shape: pair results are kept per (class, pair shape)
because offers of one pair shape bind every name a pair evaluation reads alike
(``MatchTable.pair``); a gate made on one offer of the shape answers for the others
the same way. A job whose ``Owner`` is no string literal is evaluated in full. The
verdicts are kept per pair shape and owner string, so a gate runs once per owner; the
static lists ask them per owner (``rules_out``) for every desktop they walk, once for
all the classes of the owner, and leave the pairs ruled out unasked
(``owner_walks.OwnerWalks``).
"""

from __future__ import annotations

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import AttrRef, Binary, Expr, Literal, Paren
from condorlite.core.classad.operators import bool_equiv
from condorlite.core.classad.partial import Constant, specialize
from condorlite.core.classad.residuals import Residual
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.slot_vectors import int_now

#: the job name a gate leaves free (lower-case)
OWNER = "owner"


class OwnerGates:
    """The cycle's gates, per pair shape (module doc)."""

    def __init__(self, now: float | None) -> None:
        self._now = int_now(now)
        #: pair shape -> (its gate, owner string -> whether the gate rules the pair
        #: out), or None: no gate (it read more of the job, could not be made, or
        #: is a constant that rules nothing out)
        self._gates: dict[int, tuple[Residual, dict[str, bool]] | None] = {}
        #: how many gates were worked out (one specialisation each)
        self.made = 0

    def fails(self, job_ad: ClassAd, offer: Offer) -> bool:
        """Whether the gate of ``offer``'s pair shape rules a job of ``job_ad``'s
        owner out: its ``Requirements`` cannot hold. False when nothing is known."""
        owner = owner_of(job_ad)
        return owner is not None and self.rules_out(owner, job_ad, offer)

    def rules_out(self, owner: str, job_ad: ClassAd, offer: Offer) -> bool:
        """``fails`` for a job whose ``Owner`` is the string literal ``owner``
        (``owner_of(job_ad)``): the verdict depends on ``owner`` and the pair shape
        alone, ``job_ad`` only makes the gate when the shape has none yet."""
        gates = self._gates
        gate = gates.get(offer.pair_shape, gates)
        if gate is gates:
            gate = gates[offer.pair_shape] = self._gate(job_ad, offer.ad)
        if gate is None:
            return False
        residual, verdicts = gate
        found = verdicts.get(owner)
        if found is None:
            found = verdicts[owner] = bool_equiv(residual((owner,))) is False
        return found

    def _gate(self, job_ad: ClassAd, slot_ad: ClassAd
              ) -> tuple[Residual, dict[str, bool]] | None:
        requirements = adeval.attr(slot_ad, "requirements")
        if requirements is None:
            return None
        first = leftmost(requirements)
        if type(first) is AttrRef and first.scope in (None, "my"):
            # (an idle desktop's START folded to ``true``: nothing to specialise, the
            # gate would be that literal, which rules nothing out)
            bound = adeval.attr(slot_ad, first.name)
            if type(bound) is Literal and bool_equiv(bound.value) is True:
                return None
        self.made += 1
        reads: set[tuple[int, str]] = set()
        residual = specialize(first, slot_ad, job_ad, [(job_ad, OWNER)], self._now, reads)
        if residual is None:
            return None
        mine, slot = id(job_ad), id(slot_ad)
        for ad, name in reads:
            if ad == slot:
                if name == "requirements":
                    return None  # (a cycle: evaluated otherwise inside it)
            elif ad != mine or name != OWNER:
                return None  # (more of the job, or of another ad: no gate)
        if type(residual) is Constant and bool_equiv(residual.value) is not False:
            return None  # (rules nothing out: not looked at again)
        return residual, {}


def owner_of(job_ad: ClassAd) -> str | None:
    """The job's ``Owner`` when it is a string literal, else None (no gate decides
    anything for the job: it is evaluated in full)."""
    expr = adeval.attr(job_ad, OWNER)
    if type(expr) is not Literal:
        return None
    owner = expr.value
    return owner if type(owner) is str else None


def leftmost(expr: Expr) -> Expr:
    """The leftmost operand of ``expr``'s ``&&`` chain, through parentheses (``expr``
    itself, less its parentheses, when it is no ``&&``)."""
    while True:
        kind = type(expr)
        if kind is Paren:
            expr = expr.inner  # type: ignore[attr-defined]
        elif kind is Binary and expr.op == "&&":  # type: ignore[attr-defined]
            expr = expr.left  # type: ignore[attr-defined]
        else:
            return expr
