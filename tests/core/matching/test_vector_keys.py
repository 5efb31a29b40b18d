"""``vector_keys.VectorKeys``: a vector offer's pair-static id, its ranks' program keys
and its rank signature, as the offers of a cycle get them."""

from __future__ import annotations

from condorlite.core.negotiation.negotiator import Cycle
from condorlite.core.policy import Policy
from tests.core._pool import UID, job, slot

NOW = 1_700_000_000
POLICY = Policy(uid_domain=UID)


def _pslot(name: str, **extra: object):
    return slot(name, PartitionableSlot="true", SlotType='"Partitionable"', Cpus=4,
                Memory=4096, SlotID=1, **extra)


def test_slots_that_differ_in_a_constant_rank_alone_share_their_static_and_signature():
    """The default post-job rank reads KFlops, no resource: its value is each slot's
    constant, keyed by value and left out of the signature; another Arch (which the
    job's Requirements read) is another pair-static id."""
    slots = [_pslot("slot1@m1", KFlops=100), _pslot("slot1@m2", KFlops=200),
             _pslot("slot1@m3", KFlops=100, Arch='"ARM"'), slot("slot1@m4")]
    cycle = Cycle(slots, [job(1, 0, "a")], {}, [], POLICY, NOW)
    one, two, arm, static = (o.vector for o in cycle.offers)
    assert static is None  # a static slot gets no vector
    assert one.static == two.static != arm.static
    assert one.rank_sig == two.rank_sig
    assert one.constants["post"] != two.constants["post"]
    assert one.rank_keys["post"] == ("value", "post", repr(one.constants["post"]))
    keys = cycle.mm.shapes._vectors
    assert keys.statics is cycle.mm.shapes._statics
    assert sorted(keys.statics.values()) == [1, 2]  # numbered from 1 in order of first sight
