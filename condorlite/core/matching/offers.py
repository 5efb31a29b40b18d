"""Offers: the slots a cycle can hand out, as they change during the cycle.

An ``Offer`` wraps a ``Slot`` with what the cycle learns and changes: who holds it now
(a match makes the matched submitter the holder of a preempted static slot), what a
partitionable slot has left, and whether it is still available. Ads are never mutated:
a change builds a new ad (``with_attrs``), so the inputs stay as they were read. The
one exception is an ad no one else has seen: a copy ``offer_pool.build_offers`` made
for the offer alone (``Offer.private``), which the slot's own rewrite
(``own_rewrites``) may bind its entries in, as the first thing read of it.

Partitionable slots (HTCondor's consumption policy): a job takes, for ``Cpus``,
``Memory``, ``Disk`` and every other resource ``R`` the slot advertises and the job
asks for with ``Request<R>``, the value of ``Request<R>`` (evaluated with MY = job,
TARGET = slot; ``RequestCpus`` undefined means 1, other undefined requests take 0).
The match is charged the slot weight of a slot holding exactly what was taken (the
slot's ``SlotWeight`` evaluated with those amounts), and the partitionable slot keeps
what is left (``pieces``). It fits only if every amount is at most what is left.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Literal
from condorlite.core.matching.slot_vectors import SlotVector
from condorlite.core.model import Slot

BASE_RESOURCES = ("Cpus", "Memory", "Disk")
#: How the names the negotiator inserts into job ads begin (``Submitter*``,
#: ``SubmittorPrio``), lower-cased.
SUBMITTER_PREFIXES = ("submitter", "submittor")


def with_attrs(ad: ClassAd, values: dict[str, object]) -> ClassAd:
    """A copy of ``ad`` with ``values`` bound as literals."""
    return adeval.with_literals(ad, values)


@dataclass(slots=True)
class Offer:
    """One slot during a cycle (mutable; lives only inside ``run_cycle``; slotted: the
    cycle reads a few of its fields for every entry it walks)."""

    slot: Slot
    #: the ad of the offer's current state (read it as ``ad``: with a resource
    #: vector, carving only moves the vector and the ad is rebuilt when asked for)
    state_ad: ClassAd
    holder: str | None
    holder_job: str | None
    current_rank: float
    weight: float
    available: bool = True
    #: the carving clock's stamp of the offer's state (``Matchmaker.stamp``; 0 before
    #: the first carve), and every stamp it was given, in order
    version: int = 0
    stamps: list[int] = field(default_factory=list)
    shape: int = 0
    #: the shape as far as pair evaluations can tell (holder and CurrentRank left out)
    pair_shape: int = 0
    #: piece weights already worked out (see ``piece_weight``)
    weights: dict[tuple, float] = field(default_factory=dict)
    #: (ad, its bindings changed since the slot's original ad, its bindings of the
    #: names the weight reaches or None, resource names -> key layout), for
    #: ``piece_weight``
    changes: tuple = ()
    #: (SLOT_WEIGHT text, names the weight expressions reach or None), ``piece_weight``
    weight_names: tuple = ()
    #: position in the matchmaker's registry of prepared offers (-1: not yet prepared)
    seq: int = -1
    independent: dict[str, float | None] = field(default_factory=dict)
    #: literal request signatures that cannot fit any later state (``Fits.requested_in``)
    no_fit: set[tuple] = field(default_factory=set)
    #: a partitionable offer's resource vector when its states are evaluated by
    #: residual programs (``carving``; set by ``Matchmaker.prepare``), else None
    vector: SlotVector | None = None
    #: the shape -> members table of the matchmaker the offer is placed in
    box: dict | None = None
    #: the hidden names of the slot's own compared literals (``own_literals``),
    #: free in its vector like the resources
    literals: tuple[str, ...] = ()
    #: ``state_ad`` is a copy made for this offer alone that nothing has read yet
    #: (``offer_pool.build_offers``): its first rewrite binds its entries in it
    #: rather than in another copy (``own_rewrites``), and clears this
    private: bool = False

    #: the vector values ``state_ad`` holds (None: no vector, or not yet compared)
    ad_vals: tuple | None = None
    #: the slot's Name, and whether it is partitionable (copied: read in every walk)
    name: str = field(init=False)
    partitionable: bool = field(init=False)

    def __post_init__(self) -> None:
        self.name = self.slot.name
        self.partitionable = self.slot.kind == "partitionable"

    @property
    def ad(self) -> ClassAd:
        """The ad of the current state. With a resource vector the resources are bound
        to ``vector.vals``, so nothing else of the ad changes during a cycle."""
        vector = self.vector
        if vector is not None and self.ad_vals is not vector.vals:
            self.state_ad = with_attrs(self.state_ad, dict(zip(vector.names, vector.vals,
                                                               strict=True)))
            self.ad_vals = vector.vals
        return self.state_ad

    @ad.setter
    def ad(self, value: ClassAd) -> None:
        self.state_ad = value
        self.ad_vals = None if self.vector is None else self.vector.vals



#: Entries a ``Fits`` table holds before it starts again (memory, not correctness).
_CACHE_LIMIT = 20_000


def _requests(job_ad: ClassAd) -> tuple[tuple[str, ...], tuple | None]:
    """The job's Request<R> suffixes, and its *literal signature*: every Request*
    binding as (name, spelling, type, value), plus which of RequestCpus/Memory/Disk
    are absent, when all its Request* bindings are literals (else None). Two job ads
    with equal signatures take the same from any slot state."""
    lows = sorted(k for k in adeval.lower_names(job_ad) if k.startswith("request") and len(k) > 7)
    suffixes = tuple(adeval.spelling(job_ad, low)[7:] for low in lows)
    signature: tuple | None = None
    exprs = [adeval.attr(job_ad, low) for low in lows]
    if all(type(e) is Literal for e in exprs):
        signature = tuple((low, suffix, type(e.value).__name__, e.value)
                          for low, suffix, e in zip(lows, suffixes, exprs, strict=True))
        signature += tuple(("request" + b.lower(),) for b in BASE_RESOURCES
                           if ("request" + b.lower()) not in lows)
    return suffixes, signature


class Fits:
    """What jobs take from partitionable slot states, remembered for one cycle.

    A cycle asks for the same few job ads' requests again and again (a class's ad for
    every slot state it meets), and many classes ask for the same literal amounts: per
    job ad its ``_requests``, per slot state the ``_requested`` answer of each literal
    signature. Both tables are keyed by the ad's id and hold the ad, so an id is never
    reused while its entry lives; ads are never changed once built (``with_attrs``
    copies). An answer reads the slot's resources at ``now`` (they may be
    expressions), so a table belongs to one ``now``: the cycle's match table owns one,
    and nothing outlives the cycle."""

    def __init__(self, now: float | None) -> None:
        self.now = now
        self._requests: dict[int, tuple[ClassAd, tuple[str, ...], tuple | None]] = {}
        self._fits: dict[int, tuple[ClassAd, dict[tuple, dict[str, float] | None]]] = {}

    def requests_of(self, job_ad: ClassAd) -> tuple[tuple[str, ...], tuple | None]:
        """``_requests(job_ad)``, remembered."""
        found = self._requests.get(id(job_ad))
        if found is not None and found[0] is job_ad:
            return found[1], found[2]
        suffixes, signature = _requests(job_ad)
        if len(self._requests) >= _CACHE_LIMIT:
            self._requests.clear()
        self._requests[id(job_ad)] = (job_ad, suffixes, signature)
        return suffixes, signature

    def resource_names(self, pslot_ad: ClassAd, job_ad: ClassAd) -> list[str]:
        return resource_names(pslot_ad, job_ad, self.requests_of(job_ad)[0])

    def requested(self, pslot_ad: ClassAd, job_ad: ClassAd) -> dict[str, float] | None:
        """What the job would take from the partitionable slot, or None if it does
        not fit (``requested``); remembered per slot state for job ads whose requests
        are all literals (by their literal signature)."""
        suffixes, signature = self.requests_of(job_ad)
        if signature is None:
            return _requested(pslot_ad, job_ad, self.now, suffixes)
        taken = self._remembered(pslot_ad, job_ad, suffixes, signature)
        return None if taken is None else dict(taken)

    def requested_in(self, offer: Offer, job_ad: ClassAd) -> dict[str, float] | None:
        """``requested(offer.ad, job_ad)``, remembering per offer the literal request
        signatures that did not fit.

        Invariant: a state whose resource bindings (Cpus, Memory, Disk and the job's
        other requested resources) are all literals or absent only ever becomes
        states with those bindings equal or lower (carving binds ``left - amount``
        with ``0 <= amount <= left``; nothing else changes an offer's ad). Literal
        requests read nothing from the slot, so a signature that did not fit such a
        state never fits a later one."""
        suffixes, signature = self.requests_of(job_ad)
        if signature is None:
            return _requested(offer.ad, job_ad, self.now, suffixes)
        if signature in offer.no_fit:
            return None
        taken = self._remembered(offer.ad, job_ad, suffixes, signature)
        if taken is None:
            if _literal_resources(offer.ad, suffixes):
                offer.no_fit.add(signature)
            return None
        return dict(taken)

    def _remembered(self, pslot_ad: ClassAd, job_ad: ClassAd, suffixes: tuple[str, ...],
                    signature: tuple) -> dict[str, float] | None:
        """``_requested`` per (slot state, literal signature); the answer is shared:
        copy it before handing it out."""
        found = self._fits.get(id(pslot_ad))
        if found is None or found[0] is not pslot_ad:
            if len(self._fits) >= _CACHE_LIMIT:
                self._fits.clear()
            found = self._fits[id(pslot_ad)] = (pslot_ad, {})
        table = found[1]
        if signature not in table:
            table[signature] = _requested(pslot_ad, job_ad, self.now, suffixes)
        return table[signature]


def resource_names(pslot_ad: ClassAd, job_ad: ClassAd,
                   suffixes: tuple[str, ...] | None = None) -> list[str]:
    """Resources a job takes from a partitionable slot, in a fixed order: ``Cpus``,
    ``Memory``, ``Disk``, then each other ``Request<R>`` (by lower-cased name) whose
    ``R`` the slot has. ``suffixes``: the job's, when the caller has them."""
    names = list(BASE_RESOURCES)
    seen = {"cpus", "memory", "disk"}
    for res in _requests(job_ad)[0] if suffixes is None else suffixes:
        low = res.lower()
        if low not in seen and adeval.attr(pslot_ad, res) is not None:
            names.append(res)
            seen.add(low)
    return names


def requested(pslot_ad: ClassAd, job_ad: ClassAd, now: float | None) -> dict[str, float] | None:
    """What the job would take from the partitionable slot, or None if it does not
    fit (an amount larger than what is left, or a non-numeric request). Nothing is
    remembered: a cycle asks its ``Fits``."""
    return _requested(pslot_ad, job_ad, now)


def _literal_resources(pslot_ad: ClassAd, suffixes: tuple[str, ...]) -> bool:
    for res in (*BASE_RESOURCES, *suffixes):
        expr = adeval.attr(pslot_ad, res)
        if expr is not None and type(expr) is not Literal:
            return False
    return True


def _requested(pslot_ad: ClassAd, job_ad: ClassAd, now: float | None,
               suffixes: tuple[str, ...] | None = None) -> dict[str, float] | None:
    taken: dict[str, float] = {}
    for res in resource_names(pslot_ad, job_ad, suffixes):
        value = adeval.attr_value(job_ad, "Request" + res, pslot_ad, now)
        amount = adeval.as_float(value)
        if amount is None:
            if value is not adeval.Undefined:
                return None
            amount = 1.0 if res == "Cpus" else 0.0
        left = adeval.as_float(adeval.attr_value(pslot_ad, res, None, now)) or 0.0
        if amount < 0 or amount > left:
            return None
        taken[res] = amount
    return taken
