"""``vector_keys.VectorKeys``: a vector offer's pair-static id, its ranks' program keys
and its rank signature, as the offers of a cycle get them."""

from __future__ import annotations

import sys
from pathlib import Path

from condorlite.core.matching.first_states import FirstStates
from condorlite.core.matching.kind_records import KindRecords
from condorlite.core.matching.vector_keys import VectorKeys
from condorlite.core.negotiation.negotiator import Cycle
from condorlite.core.policy import Policy
from tests.core._pool import UID, decoded_pool, job, slot
from tests.core.matching.test_init_sharing import _prepared

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import genpool  # a script directory, not a package

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
    keys = cycle.mm.prep._vectors
    assert sorted(keys.statics.values()) == [1, 2]  # numbered from 1 in order of first sight


def test_record_slots_key_their_vectors_from_one_plan_per_record_and_names(tmp_path,
                                                                           monkeypatch):
    """Partitionable slots that found a ``kind_records`` record get their static id,
    rank keys and signature from one ``VectorPlan`` per (record, vector names), and
    end up exactly as a full ``prepare`` leaves them. A pre-job rank reads a resource
    and KFlops (a literal of each slot's own: its key read per slot), the post-job
    rank KFlops and SlotID alone (a constant), and Disk is each slot's own."""
    policy = Policy(uid_domain="example.org", negotiator_pre_job_rank="Cpus * 10 + KFlops")
    spec = genpool.PoolSpec(slots=120, jobs=400, submitters=4, autoclusters=12, seed=5,
                            realistic=True, unique=True, disk_share=True,
                            claimed_fraction=0.2, partitionable_fraction=0.9)
    slots, jobs = decoded_pool(genpool.write_pool(spec, tmp_path), policy, True)
    planned: list[object] = []
    made: list[object] = []
    method, plan = VectorKeys._planned, VectorKeys._plan

    def counting(self, ad, vector, walked, extra, reaches, independent, record, row):
        planned.append(record)
        return method(self, ad, vector, walked, extra, reaches, independent, record, row)

    def making(self, ad, names, *rest):
        made.append(names)
        return plan(self, ad, names, *rest)

    no_first = {"find": lambda self, ad, busy, kind: None,
                "find_loose": lambda self, ad, busy, kind: None}
    with monkeypatch.context() as patch:
        for name, fake in no_first.items():
            patch.setattr(FirstStates, name, fake)
        patch.setattr(VectorKeys, "_planned", counting)
        patch.setattr(VectorKeys, "_plan", making)
        shared = Cycle(slots, jobs, {}, [], policy, NOW)
    with monkeypatch.context() as patch:
        for name, fake in no_first.items():
            patch.setattr(FirstStates, name, fake)
        patch.setattr(KindRecords, "find_read", lambda self, ad, busy, kind: None)
        full = Cycle(slots, jobs, {}, [], policy, NOW)
    assert len(planned) > 20 and len(made) < len(planned) // 4
    plans = shared.mm.prep._vectors._plans.values()
    assert len(plans) == len(made)
    # the pre-job rank's key reads KFlops per slot; the post-job rank is a constant
    assert all(p.ranks["pre"].key is None and p.ranks["pre"].plan.literals
               and p.ranks["post"].constant for p in plans)
    assert _prepared(shared) == _prepared(full)
    assert [o.vector.constants for o in shared.offers if o.vector] == [
        o.vector.constants for o in full.offers if o.vector]
    assert shared.mm.evaluations == full.mm.evaluations
    shared.run()
    full.run()
    one, two = shared.result(), full.result()
    assert one.matches and one.matches == two.matches and one.rejections == two.rejections
