"""One request against the pool: HTCondor's ``matchmakingAlgorithm`` and its match list.

For a job J of submitter S (J's ad carrying the negotiator's ``Submitter*`` values) and
each available offer O:

1. A partitionable O must have left what J requests (``fit``: ``Cpus``, ``Memory``,
   ``Disk`` and every ``Request<R>`` whose ``R`` O advertises; ``RequestCpus``
   undefined means 1, others 0; a request that is not a number does not fit).
2. Both ``Requirements`` hold (each ad as MY, the other as TARGET).
3. The reason: O nobody holds is *no preemption*; O held by H is *rank* when
   ``MY.Rank > MY.CurrentRank`` (MY = O, TARGET = J) is true; else, when H is not S,
   *priority* if ``PREEMPTION_REQUIREMENTS`` is true (counted as refused by the policy
   if it is not) and ``MY.Rank >= MY.CurrentRank`` is true. "True" is boolean true:
   a Rank that is undefined for J neither preempts by rank nor lets J preempt by
   priority (HTCondor's ``rankCondStd`` / ``rankCondPrioPreempt``). When only rank
   preemption is considered (a submitter over its limit in the first spin) only
   *rank* candidates count.
4. The order, best first: ``NEGOTIATOR_PRE_JOB_RANK``, J's ``Rank``,
   ``NEGOTIATOR_POST_JOB_RANK``, the reason (no preemption > rank > priority),
   ``PREEMPTION_RANK`` (preempting candidates only), then slot Name. Negotiator ranks
   that are not numbers rank lowest (-FLT_MAX) and are rounded to single precision; a
   job Rank that is not a number is 0.

The match list (``MatchList``) is built for a request's first job in a submitter's turn
and consumed from the front by the request's jobs: an entry passed over (its offer
taken, a piece the limit refuses) is not met again. An entry whose offer was carved
since is evaluated again in the offer's new state and put back in its order among the
entries left. A partitionable slot the list hands out leaves it, so a request spreads
over the partitionable slots first (``NEGOTIATOR_DEPTH_FIRST = False``); when the list
runs out, the slots it carved are evaluated again and appended, best first.
"""

from __future__ import annotations

import struct
from bisect import insort
from dataclasses import dataclass, field
from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Expr
from condorlite.core.classad.parser import parse_expr
from condorlite.core.model import (
    NO_PREEMPTION,
    PRIO_PREEMPTION,
    RANK_PREEMPTION,
    REASON_ORDER,
    Slot,
    slot_weight,
)
from condorlite.core.policy import Policy

FLT_MAX = 3.4028234663852886e38
#: HTCondor's ``rankCondStd`` and ``rankCondPrioPreempt`` (``Matchmaker::Matchmaker``),
#: evaluated in the slot ad with TARGET = the job; each holds only when boolean true
RANK_ABOVE = parse_expr("MY.Rank > MY.CurrentRank")
RANK_AT_LEAST = parse_expr("MY.Rank >= MY.CurrentRank")
BASE_RESOURCES = ("Cpus", "Memory", "Disk")


@dataclass
class Offer:
    """A slot as the cycle changes it: its current ad, holder and availability;
    ``version`` counts the times it was carved."""

    slot: Slot
    ad: ClassAd
    holder: str | None
    holder_job: str | None
    current_rank: float
    weight: float
    available: bool = True
    version: int = 0

    @property
    def name(self) -> str:
        return self.slot.name

    @property
    def partitionable(self) -> bool:
        return self.slot.kind == "partitionable"


@dataclass(frozen=True)
class PolicyExprs:
    pre: Expr
    post: Expr
    preemption_rank: Expr
    preemption_requirements: Expr


class Entry(NamedTuple):
    """One candidate of a match list; tuples compare field by field, best first."""

    neg_pre: float
    neg_job_rank: float
    neg_post: float
    neg_reason: int
    neg_preemption_rank: float
    name: str
    position: int
    version: int
    reason: str


def negotiator_rank(value: object) -> float:
    """A number rounded to single precision (clamped to +-FLT_MAX), else -FLT_MAX."""
    number = adeval.as_float(value)
    if number is None:
        return -FLT_MAX
    number = max(-FLT_MAX, min(FLT_MAX, number))
    return struct.unpack("f", struct.pack("f", number))[0]


def number(value: float) -> int | float:
    """An amount as carving binds it: integral amounts as integers."""
    return int(value) if float(value).is_integer() else value


def fit(pslot_ad: ClassAd, job_ad: ClassAd, now: float) -> dict[str, float] | None:
    """What J takes from the partitionable slot (step 1), or None."""
    names = list(BASE_RESOURCES)
    for low in sorted(adeval.lower_names(job_ad)):
        if low.startswith("request") and len(low) > 7 and low[7:] not in {
                n.lower() for n in names}:
            spelled = adeval.spelling(job_ad, low)[7:]
            if adeval.attr(pslot_ad, spelled) is not None:
                names.append(spelled)
    taken = {}
    for res in names:
        value = adeval.eval_attr(job_ad, "Request" + res, pslot_ad, now)
        amount = adeval.as_float(value)
        if amount is None:
            if value is not adeval.Undefined:
                return None
            amount = 1.0 if res == "Cpus" else 0.0
        left = adeval.as_float(adeval.eval_attr(pslot_ad, res, None, now)) or 0.0
        if amount < 0 or amount > left:
            return None
        taken[res] = amount
    return taken


def piece_ad(offer: Offer, taken: dict[str, float]) -> ClassAd:
    """The dynamic slot a match carves: the slot's ad holding exactly ``taken``."""
    values: dict[str, object] = {res: number(v) for res, v in taken.items()}
    values.update(PartitionableSlot=False, SlotType="Dynamic")
    return adeval.with_literals(offer.ad, values)


def carved_ad(offer: Offer, taken: dict[str, float], now: float) -> ClassAd:
    """The partitionable slot's ad with ``taken`` removed."""
    left = {}
    for res, amount in taken.items():
        have = adeval.as_float(adeval.eval_attr(offer.ad, res, None, now)) or 0.0
        left[res] = number(have - amount)
    return adeval.with_literals(offer.ad, left)


@dataclass
class Matchmaking:
    """Evaluates requests for one cycle; ``evaluations`` counts offers looked at."""

    exprs: PolicyExprs
    policy: Policy
    now: float
    evaluations: int = 0

    def entry(self, job_ad: ClassAd, submitter: str, offer: Offer, position: int,
              only_rank: bool, counts: RejectCounts) -> Entry | None:
        """Steps 1-4 for one offer: its entry, or None (refusals added to ``counts``)."""
        if not offer.available:
            return None
        self.evaluations += 1
        now = int(self.now)
        if offer.partitionable and fit(offer.ad, job_ad, self.now) is None:
            return None
        if not (adeval.requirements_hold(job_ad, offer.ad, now=now)
                and adeval.requirements_hold(offer.ad, job_ad, now=now)):
            return None
        if offer.holder is None:
            if only_rank:
                return None
            reason = NO_PREEMPTION
        elif self._holds(RANK_ABOVE, offer, job_ad):
            reason = RANK_PREEMPTION
        elif only_rank or offer.holder == submitter:
            return None
        elif not self._holds(self.exprs.preemption_requirements, offer, job_ad):
            counts.policy += 1
            return None
        elif not self._holds(RANK_AT_LEAST, offer, job_ad):
            return None
        else:
            reason = PRIO_PREEMPTION
        job_rank = adeval.as_float(adeval.eval_attr(job_ad, "Rank", offer.ad, self.now)) or 0.0
        pre, post = (negotiator_rank(adeval.eval_expr(e, offer.ad, job_ad, self.now))
                     for e in (self.exprs.pre, self.exprs.post))
        prank = -FLT_MAX if reason == NO_PREEMPTION else negotiator_rank(
            adeval.eval_expr(self.exprs.preemption_rank, offer.ad, job_ad, self.now))
        return Entry(-pre, -job_rank, -post, -REASON_ORDER[reason], -prank, offer.name,
                     position, offer.version, reason)

    def _holds(self, expr: Expr, offer: Offer, job_ad: ClassAd) -> bool:
        """Whether ``expr`` (MY = the slot, TARGET = the job) is boolean true."""
        return adeval.as_bool(adeval.eval_expr(expr, offer.ad, job_ad, self.now))

    def entries(self, job_ad: ClassAd, submitter: str, offers: list[Offer],
                positions: list[int], only_rank: bool, counts: RejectCounts) -> list[Entry]:
        found = [self.entry(job_ad, submitter, offers[i], i, only_rank, counts)
                 for i in positions]
        return sorted(e for e in found if e is not None)

    def cost(self, offer: Offer, taken: dict[str, float] | None) -> float:
        """What a match weighs: the static slot's weight, or the piece's."""
        return offer.weight if taken is None else slot_weight(piece_ad(offer, taken),
                                                              self.policy)


@dataclass
class RejectCounts:
    policy: int = 0
    limit: int = 0


@dataclass(frozen=True)
class Permit:
    """What a submitter used in this spin and may use: a match without preemption
    must fit ``unclaimed`` counting only such matches, a priority preemption must fit
    ``limit`` counting every match, a rank preemption is held to neither. A cost c
    fits a limit L after using u when u + c <= L (relative tolerance 1e-6), or when
    u = 0 and L > 0 (the round-up rule)."""

    used_unclaimed: float
    used: float
    unclaimed: float
    limit: float

    def allows(self, reason: str, cost: float) -> bool:
        if reason == NO_PREEMPTION:
            return _fits(self.used_unclaimed, cost, self.unclaimed)
        if reason == PRIO_PREEMPTION:
            return _fits(self.used, cost, self.limit)
        return True


def _fits(used: float, cost: float, allowed: float) -> bool:
    return used + cost <= allowed + 1e-6 * max(1.0, abs(allowed)) or used <= 0 < allowed


@dataclass
class MatchList:
    """A request's candidates in one submitter turn (module doc), consumed from
    ``position``; ``handed_out``: the partitionable slots it gave pieces of since it
    last took them back."""

    job_ad: ClassAd
    only_rank: bool
    entries: list[Entry]
    counts: RejectCounts
    position: int = 0
    handed_out: list[int] = field(default_factory=list)


class Pick(NamedTuple):
    offer: Offer
    reason: str
    taken: dict[str, float] | None
    cost: float


def best(mm: Matchmaking, mlist: MatchList, job_ad: ClassAd, submitter: str,
         offers: list[Offer], permit: Permit) -> Pick | None:
    """The first entry of ``mlist`` that job ``job_ad`` may take; everything before
    it, and it, consumed."""
    while True:
        while mlist.position < len(mlist.entries):
            entry = mlist.entries[mlist.position]
            mlist.position += 1
            offer = offers[entry.position]
            if not offer.available:
                continue
            if offer.version != entry.version:
                fresh = mm.entry(mlist.job_ad, submitter, offer, entry.position,
                                 mlist.only_rank, RejectCounts())
                if fresh is not None:
                    insort(mlist.entries, fresh, lo=mlist.position)
                continue
            taken = fit(offer.ad, job_ad, mm.now) if offer.partitionable else None
            if offer.partitionable and taken is None:
                continue
            cost = mm.cost(offer, taken)
            if not permit.allows(entry.reason, cost):
                mlist.counts.limit += 1
                continue
            if taken is not None:
                mlist.handed_out.append(entry.position)
            return Pick(offer, entry.reason, taken, cost)
        if not mlist.handed_out:
            return None
        back = sorted(set(mlist.handed_out))
        mlist.handed_out.clear()
        mlist.entries.extend(mm.entries(mlist.job_ad, submitter, offers, back,
                                        mlist.only_rank, RejectCounts()))
