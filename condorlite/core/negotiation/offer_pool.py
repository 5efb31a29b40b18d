"""The offers of a cycle: what it starts from, who holds each, and what is left.

``build_offers(slots, claims, now, remote_of)`` (step 1 of a cycle) gives one ``Offer``
per slot that can be negotiated, in slot Name order:

* a busy slot (State Claimed or Preempting) is held by the user its ad names
  (``Slot.remote_user``: PreemptingAccountingGroup, PreemptingUser, AccountingGroup,
  RemoteUser, the first set); a busy slot that names nobody is not offered;
* a static slot condorlite matched earlier (a live claim) is held by that claim's
  submitter at CurrentRank 0, while its ad is idle (not updated yet) or still shows
  the user the claim preempted (``claims.reconcile``);
* a partitionable slot offers only what its live claims left (``claims.claims_left``).

A held offer's ad carries the holder's ``Remote*`` attributes (``remote_of(holder)``,
``submitter_attrs.remote_attrs``), worked out once per holder, as one set of entry
objects that every ad the holder holds shares (``with_remote``). An offer whose ad is
such a copy (or a partitionable slot's with what its claims left) is marked
``Offer.private``: no one else holds that ad, so the slot's rewrite
(``own_rewrites``) binds its entries in it instead of copying the 160-name table again.

``OfferPool`` holds them while the cycle consumes them (``take``): a static offer taken
is no longer available, and leaves the matchmaker's tables (``Matchmaker.retire``); a
partitionable offer is carved (``Matchmaker.carve`` for one with a resource vector, a
new ad otherwise) and stays. Invariants: ``available`` is the number of offers whose
``available`` is true, ``held_available`` the number of those a user holds (counts, so
a job's turn reads them without a pass over the offers). The pool size (the sum of
every slot ad's weight, offered or not) is the cycle's (``negotiator.Cycle.pool``).
"""

from __future__ import annotations

from collections.abc import Callable
from operator import attrgetter

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Expr, Literal
from condorlite.core.matching.matchmaker import Matchmaker
from condorlite.core.matching.offers import Offer, with_attrs
from condorlite.core.matching.pieces import carve
from condorlite.core.model import Claim, Slot
from condorlite.core.negotiation.claims import claims_left
from condorlite.core.policy import Policy

_NAME = attrgetter("name")


def build_offers(slots: list[Slot], claims: list[Claim], now: float,
                 remote_of: Callable[[str], dict[str, object]]) -> list[Offer]:
    """The offers of ``slots`` under ``claims`` (module doc), in slot Name order."""
    pending: dict[str, list[Claim]] = {}
    for claim in claims:
        pending.setdefault(claim.partitionable or claim.slot, []).append(claim)
    offers = []
    remote: dict[str, dict[str, tuple[str, Expr]]] = {}  # holder -> its Remote* entries
    for slot in sorted(slots, key=_NAME):
        mine = pending.get(slot.name, ())
        ad, holder, job, rank = slot.ad, slot.remote_user, slot.remote_job, slot.current_rank
        if slot.kind == "partitionable":
            left = claims_left(ad, [c for c in mine if c.partitionable], now)
            if left:
                ad = with_attrs(ad, left)
        elif mine and (not slot.busy or (mine[0].preempted_user is not None
                                         and mine[0].preempted_user == holder)):
            # condorlite's claim holds the slot: an idle ad not updated yet, or
            # an ad still showing the user the claim preempted (claims.reconcile)
            holder, job, rank = mine[0].submitter, mine[0].job, 0.0
        elif holder is None and slot.busy:
            continue  # claimed but nobody to attribute it to: not offered
        if holder is not None:
            entries = remote.get(holder)
            if entries is None:
                entries = remote[holder] = remote_entries(remote_of(holder))
            ad = with_remote(ad, entries)
        offer = Offer(slot, ad, holder, job, rank, slot.weight)
        # (a copy made here is the offer's alone: its rewrite may fill it in place)
        offer.private = ad is not slot.ad
        offers.append(offer)
    return offers


def remote_entries(values: dict[str, object]) -> dict[str, tuple[str, Expr]]:
    """A holder's ``Remote*`` values as table entries (lower-case name -> (spelling,
    literal)), made once per holder and shared by every ad it holds."""
    return {name.lower(): (name, Literal(value)) for name, value in values.items()}


def with_remote(ad: ClassAd, entries: dict[str, tuple[str, Expr]]) -> ClassAd:
    """A copy of ``ad`` with the holder's ``Remote*`` ``entries`` bound: the very
    entry objects, shared by every slot the holder holds (as the readers share an
    entry between ads holding the same line: ``first_states`` and the shape keys
    then find those slots alike), unless the ad spells one of the names otherwise,
    when its spelling is kept (``with_attrs``)."""
    table = adeval.table(ad)
    if table is None:
        return with_attrs(ad, {entry[0]: entry[1].value for entry in entries.values()})
    for name, entry in entries.items():
        old = table.get(name)
        if old is not None and old[0] != entry[0]:
            return with_attrs(ad, {e[0]: e[1].value for e in entries.values()})
    return adeval.with_entries(ad, entries)


class OfferPool:
    """The offers of one cycle and how many are left (module doc)."""

    __slots__ = ("_resources", "available", "held_available", "min_weight", "offers")

    def __init__(self, offers: list[Offer]) -> None:
        self.offers = offers
        #: offers still available (kept as a count: summing per job costs jobs x slots),
        #: and how many of them are held
        self.available = len(offers)
        self.held_available = sum(1 for o in offers if o.holder is not None)
        #: the smallest weight of an offer (1 without any)
        self.min_weight = min([o.weight for o in offers] or [1.0])
        #: id(taken) -> (taken, its items sorted), for ``Match.resources`` (``resources``)
        self._resources: dict[int, tuple[dict[str, float], tuple]] = {}

    def take(self, offer: Offer, taken: dict[str, float], mm: Matchmaker, policy: Policy,
             now: float) -> tuple[tuple[str, float], ...]:
        """Take ``taken`` of ``offer`` for a match (module doc). Returns the match's
        resources: ``taken``'s items sorted for a partitionable slot, () for a static
        one (whose holder, if any, the caller preempts)."""
        if offer.partitionable:
            if offer.vector is not None:
                mm.carve(offer, taken)  # (which stamps it)
            else:
                _cost, _dynamic, offer.ad = carve(offer, taken, policy, now)
                mm.stamp(offer)
                mm.prepare(offer)
            return self.resources(taken)
        offer.available = False
        mm.retire(offer)
        self.available -= 1
        if offer.holder is not None:
            self.held_available -= 1
        return ()

    def resources(self, taken: dict[str, float]) -> tuple[tuple[str, float], ...]:
        """``taken``'s items sorted: a match's resources (``take``, and
        ``TurnNegotiator.negotiate`` for a match it records itself), kept by
        ``id(taken)``: pair results share one ``taken`` dict per class and shape, and
        the entry holds it, so its id stays its own."""
        found = self._resources.get(id(taken))
        if found is None or found[0] is not taken:
            found = self._resources[id(taken)] = (taken, tuple(sorted(taken.items())))
        return found[1]
