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
verdicts are kept per pair shape and owner string, so a gate runs once per owner.
"""

from __future__ import annotations

from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import AttrRef, Binary, Expr, Literal, Paren
from condorlite.core.classad.operators import bool_equiv
from condorlite.core.classad.partial import Constant, specialize
from condorlite.core.classad.residuals import Residual
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.slot_vectors import int_now

#: the job name a gate leaves free first (lower-case)
OWNER = "owner"

#: how the job's requests are named (lower-case prefix): those bound to number
#: literals are left free with the owner
REQUEST = "request"


class JobKey(NamedTuple):
    """What a gate reads of one job ad: the names it leaves free and their values."""

    #: the lower-case names of the job's ``Request*`` bindings that are integer or
    #: real literals, sorted (the gates of a pair shape are kept per this tuple)
    names: tuple[str, ...]
    #: the owner string, then the values of ``names`` (the residual's ``vals``)
    vals: tuple
    #: ``vals`` with each number's type: what a verdict is kept under (``1`` and
    #: ``1.0`` are one dict key, not one ClassAd value)
    verdict: tuple


class Gate:
    """A pair shape's residual for the jobs of one ``JobKey.names``."""

    __slots__ = ("absent", "residual", "verdicts", "whole")

    def __init__(self, residual: Residual, absent: tuple[str, ...], whole: bool) -> None:
        self.residual = residual
        #: whether the residual is of the slot's whole ``Requirements`` (else of its
        #: leftmost operand)
        self.whole = whole
        #: job names the walk looked up and found unbound: a job that binds one
        #: is not answered by this gate
        self.absent = absent
        #: ``JobKey.verdict`` -> ``OwnerGates.verdict``'s answer
        self.verdicts: dict[tuple, bool | None] = {}

    def says(self, value: object) -> bool | None:
        """The verdict of the residual's ``value``. Of the whole ``Requirements``:
        ``requirements_hold``'s rule (true, or a non-zero number, holds; anything else
        does not). Of the leftmost operand ``L``: False when its boolean is false
        (``L && R`` is then false), else None."""
        if self.whole:
            if value is True:
                return True
            kind = type(value)
            return (kind is int or kind is float) and value != 0
        return False if bool_equiv(value) is False else None


class OwnerGates:
    """The cycle's gates, per pair shape and the job's literal request names
    (module doc)."""

    def __init__(self, now: float | None) -> None:
        self._now = int_now(now)
        #: (pair shape, ``JobKey.names``) -> its gate, or None: no gate (it read more
        #: of the job, could not be made, or is a constant that rules nothing out)
        self._gates: dict[tuple[int, tuple[str, ...]], Gate | None] = {}
        #: id of a job ad -> (the ad, kept so that its id is not reused; its key, or
        #: None when its Owner is no string literal)
        self._keys: dict[int, tuple[ClassAd, JobKey | None]] = {}
        #: how many gates were worked out (one specialisation or two each)
        self.made = 0

    def verdict(self, job_ad: ClassAd, offer: Offer) -> bool | None:
        """What the gate of ``offer``'s pair shape says of the slot's
        ``Requirements`` against a job of ``job_ad``'s owner and requests: False when
        they cannot hold, True when they hold (a gate of the whole expression only),
        None when nothing is known."""
        known = self._keys.get(id(job_ad))
        if known is None:
            known = self._keys[id(job_ad)] = (job_ad, job_key(job_ad))
        key = known[1]
        if key is None:
            return None
        gates = self._gates
        where = (offer.pair_shape, key.names)
        gate = gates.get(where, gates)
        if gate is gates:
            gate = gates[where] = self._gate(job_ad, offer.ad, key.names)
        if gate is None:
            return None
        for name in gate.absent:
            if adeval.attr(job_ad, name) is not None:
                return None
        verdicts = gate.verdicts
        found = verdicts.get(key.verdict, verdicts)
        if found is verdicts:
            found = verdicts[key.verdict] = gate.says(gate.residual(key.vals))
        return found  # type: ignore[return-value]

    def fails(self, job_ad: ClassAd, offer: Offer) -> bool:
        """Whether the gate rules the pair out (``verdict`` is False)."""
        return self.verdict(job_ad, offer) is False

    def _gate(self, job_ad: ClassAd, slot_ad: ClassAd, names: tuple[str, ...]
              ) -> Gate | None:
        requirements = adeval.attr(slot_ad, "requirements")
        if requirements is None:
            return None
        free = [(job_ad, OWNER), *((job_ad, name) for name in names)]
        gate = self._made(requirements, job_ad, slot_ad, free, True)
        if gate is not None:
            return gate
        first = leftmost(requirements)
        if first is requirements:
            return None
        if type(first) is AttrRef and first.scope in (None, "my"):
            # (an idle desktop's START folded to ``true``: nothing to specialise, the
            # gate would be that literal, which rules nothing out)
            bound = adeval.attr(slot_ad, first.name)
            if type(bound) is Literal and bool_equiv(bound.value) is True:
                return None
        return self._made(first, job_ad, slot_ad, free, False)

    def _made(self, expr: Expr, job_ad: ClassAd, slot_ad: ClassAd,
              free: list[tuple[ClassAd, str]], whole: bool) -> Gate | None:
        """The gate of ``expr`` (the slot's whole Requirements, or its leftmost
        operand) with ``free`` left free, or None where it read more of the job than
        those and names it leaves unbound, or is a constant that rules nothing out."""
        self.made += 1
        reads: set[tuple[int, str]] = set()
        residual = specialize(expr, slot_ad, job_ad, free, self._now, reads)
        if residual is None:
            return None
        mine, slot = id(job_ad), id(slot_ad)
        freed = {name for _, name in free}
        absent = []
        for ad, name in reads:
            if ad == slot:
                if name == "requirements":
                    return None  # (a cycle: evaluated otherwise inside it)
            elif ad != mine:
                return None  # (another ad: no gate)
            elif name not in freed:
                if adeval.attr(job_ad, name) is not None:
                    return None  # (more of the job: no gate)
                absent.append(name)
        gate = Gate(residual, tuple(sorted(absent)), whole)
        if type(residual) is Constant and not whole and gate.says(residual.value) is None:
            return None  # (rules nothing out: not looked at again)
        return gate


def job_key(job_ad: ClassAd) -> JobKey | None:
    """What a gate reads of ``job_ad``, or None when its Owner is no string literal."""
    expr = adeval.attr(job_ad, OWNER)
    if type(expr) is not Literal or type(expr.value) is not str:
        return None
    names, vals, verdict = [], [expr.value], [expr.value]
    for name in sorted(adeval.lower_names(job_ad)):
        if name.startswith(REQUEST):
            bound = adeval.attr(job_ad, name)
            if type(bound) is Literal and type(bound.value) in (int, float):
                names.append(name)
                vals.append(bound.value)
                verdict.append((type(bound.value), bound.value))
    return JobKey(tuple(names), tuple(vals), tuple(verdict))


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
