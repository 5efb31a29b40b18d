"""The pool a cycle offers (step 1 of ``cycle``) and the negotiator's group attributes.

Every slot ad, by Name, is an offer. A partitionable slot offers what its live claims'
pieces left (each resource the pieces took: the ad's amount less theirs, an integral
result as an integer). A static slot whose live claim condorlite made holds it is held
by the claim's submitter, at CurrentRank 0, while its ad is idle or still shows the user
the claim preempted; any other busy static slot is held by its ad's user, and is not
offered without one. A held slot's ad gets the negotiator's ``RemoteUserPrio`` (0.5 for
a holder the accountant does not know), ``RemoteUserResourcesInUse`` and the
``RemoteGroup*`` attributes, fixed at the start of the cycle.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.model import Claim, Slot
from tests.core.reference.matching import Offer, number

NO_GROUP = "<none>"


@dataclass(frozen=True)
class AccountingGroups:
    """What a grouped cycle knows of the accounting groups at its start: each
    submitter's group (``<none>`` for a name not given), each group's quota and
    usage; fixed for the cycle, as HTCondor's PREEMPTION_REQUIREMENTS_STABLE."""

    group_of: Mapping[str, str]
    quota: Mapping[str, float]
    usage: Mapping[str, float]


def group_attrs(accounting: AccountingGroups | None, prefix: str,
                name: str) -> dict[str, object]:
    """``<prefix>Group`` of ``name``, and with accounting groups ``<prefix>GroupQuota``
    and ``<prefix>GroupResourcesInUse`` of its group."""
    if accounting is None:
        return {prefix + "Group": NO_GROUP}
    group = accounting.group_of.get(name, NO_GROUP)
    return {prefix + "Group": group, prefix + "GroupQuota": accounting.quota[group],
            prefix + "GroupResourcesInUse": accounting.usage[group]}


def make_offers(slots: list[Slot], claims: list[Claim], eup: Mapping[str, float],
                usage: Mapping[str, float], accounting: AccountingGroups | None,
                now: float) -> list[Offer]:
    """The cycle's offers (module doc), by slot Name."""
    offers = []
    for slot in sorted(slots, key=lambda s: s.name):
        ad, holder, job, rank = slot.ad, slot.remote_user, slot.remote_job, slot.current_rank
        pieces = [c for c in claims if c.partitionable == slot.name]
        mine = [c for c in claims if c.partitionable is None and c.slot == slot.name]
        if slot.kind == "partitionable" and pieces:
            ad = adeval.with_literals(ad, _left(ad, pieces, now))
        elif mine and (not slot.busy or (mine[0].preempted_user is not None
                                         and mine[0].preempted_user == holder)):
            holder, job, rank = mine[0].submitter, mine[0].job, 0.0
        elif holder is None and slot.busy:
            continue
        if holder is not None:
            ad = adeval.with_literals(ad, {
                "RemoteUserPrio": eup.get(holder, 0.5),
                "RemoteUserResourcesInUse": usage.get(holder, 0.0),
                **group_attrs(accounting, "Remote", holder)})
        offers.append(Offer(slot, ad, holder, job, rank, slot.weight))
    return offers


def _left(ad: ClassAd, pieces: list[Claim], now: float) -> dict[str, int | float]:
    """What the partitionable slot has left of each resource the pieces took."""
    left: dict[str, float] = {}
    for claim in pieces:
        for res, amount in claim.resources:
            if res not in left:
                left[res] = adeval.as_float(adeval.eval_attr(ad, res, None, now)) or 0.0
            left[res] -= amount
    return {res: number(value) for res, value in left.items()}
