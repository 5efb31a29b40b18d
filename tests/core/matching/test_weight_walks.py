"""``pieces.WeightWalks``: the names a slot's weight reaches, one walk shared by the
slots whose ads bind every name it visits to the same table entries."""

from __future__ import annotations

from dataclasses import replace

from condorlite.core import adeval
from condorlite.core.classad.parser import parse_expr
from condorlite.core.matching import pieces
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.pieces import WeightWalks, weight_names
from condorlite.core.policy import Policy
from tests.core._pool import UID, slot


def _offer(pslot) -> Offer:
    return Offer(pslot, pslot.ad, None, None, 0.0, pslot.weight)


def _like(pslot, **values: object):
    """``pslot`` with ``values`` bound in a copy of its ad: the other names keep
    their table entries (the same objects), as the readers share them between the
    slots of one machine type."""
    return replace(pslot, ad=adeval.with_literals(pslot.ad, values))


def _like_exprs(pslot, **texts: str):
    """``_like`` with expressions (parsed: new entries) in place of literals."""
    entries = {name.lower(): (name, parse_expr(text)) for name, text in texts.items()}
    return replace(pslot, ad=adeval.with_entries(pslot.ad, entries))


def test_fill_equals_weight_names_and_walks_once_per_kind(monkeypatch) -> None:
    """Each offer's names equal a walk of its own ad (``weight_names``); offers
    binding the walk's names to the same entries share one walk, and a binding that
    changes what the walk reaches (another entry) gets its own."""
    policy = replace(Policy(uid_domain=UID), slot_weight="Cpus * 2 + Memory / 4096")
    base = slot("slot1@big", policy=policy, Cpus=16, Memory=65536, Disk=800000,
                PartitionableSlot="true", SlotType='"Partitionable"',
                SlotWeight="Cpus * Factor", Factor="Memory / 2048")
    same = [_like(base, Arch="ARM"), _like(base, Machine="other")]
    reaching_disk = _like_exprs(base, Factor="Disk / 1000")
    dynamic = _like_exprs(base, SlotWeight='eval("Cpus")')
    slots = [base, *same, reaching_disk, dynamic, _like(base, Cpus=8)]
    walked: list[object] = []
    walk = pieces._weight_walk

    def counted(ad, policy):
        walked.append(ad)
        return walk(ad, policy)

    monkeypatch.setattr(pieces, "_weight_walk", counted)
    walks = WeightWalks(policy)
    offers = [_offer(s) for s in slots]
    for offer in offers:
        walks.fill(offer)
        walks.fill(offer)  # (filled once: asked again, nothing walked)
    monkeypatch.setattr(pieces, "_weight_walk", walk)
    for pslot, offer in zip(slots, offers, strict=True):
        assert offer.weight_names == (policy.slot_weight, weight_names(_offer(pslot), policy))
    # base and the two alike: one walk; each other binding of a walked name: its own
    assert len(walked) == 4
    assert offers[0].weight_names[1] == ("cpus", "factor", "memory", "slotweight")
    assert "disk" in offers[3].weight_names[1]
    assert offers[4].weight_names[1] is None  # (eval: the reach is unknown)


def test_a_policy_change_is_walked_again() -> None:
    """An offer's names are kept with the SLOT_WEIGHT text they were walked for."""
    policy = replace(Policy(uid_domain=UID), slot_weight="Cpus")
    pslot = slot("slot1@big", policy=policy, Cpus=16, Memory=65536, Disk=800000,
                 PartitionableSlot="true", SlotType='"Partitionable"')
    del pslot.ad["SlotWeight"]
    offer = _offer(pslot)
    WeightWalks(policy).fill(offer)
    assert offer.weight_names == ("Cpus", ("cpus", "slotweight"))
    other = replace(policy, slot_weight="Memory / 1024")
    WeightWalks(other).fill(offer)
    assert offer.weight_names == ("Memory / 1024", ("memory", "slotweight"))
