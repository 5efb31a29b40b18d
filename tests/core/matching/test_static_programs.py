"""Static slots evaluated by (class, static part) programs (``static_programs``).

Each case runs the optimised cycle and the plain reference cycle and requires the
same outcome, and checks that programs were made, so that the case tests them:
static slots whose ``Disk`` differs on every slot, jobs that compare with it as a
bound, compute with it, test its type (``1`` and ``1.0`` are different values), or
rank on it, held slots among them, and the realistic generator's disk share.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from condorlite.core.matching import static_programs
from condorlite.core.matching.expr_numbers import Canon
from condorlite.core.matching.shape_keys import ShapeKeys
from condorlite.core.model import Submitter
from condorlite.core.negotiation import negotiator
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import ad_text, run_both
from tests.core.negotiation.test_equivalence import _fingerprint
from tests.core.negotiation.test_equivalence_realistic import PREEMPTION, _pool
from tests.core.reference import run_reference_cycle

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import genpool  # a script directory, not a package

NOW = float(genpool.BASE_TIME)
POLICY = Policy(uid_domain="example.org")


def _slot(i: int, **extra: object) -> str:
    disk = 40000 + (i * 7919) % 60000
    attrs = dict(Name=f'"slot{i}@m{i // 4}"', Machine=f'"m{i // 4}"', State='"Unclaimed"',
                 Activity='"Idle"', Cpus=1, Memory=2048 + 1024 * (i % 2),
                 Disk=f"{disk}.0" if i % 5 == 0 else disk, Arch='"X86_64"', OpSys='"LINUX"',
                 Requirements="START", START="TARGET.RequestDisk < MY.Disk",
                 Rank="0.0", CurrentRank="0.0", SlotWeight="Cpus")
    attrs.update(extra)
    return ad_text(attrs)


def _job(cluster: int, proc: int, owner: str, **extra: object) -> str:
    attrs = dict(ClusterId=cluster, ProcId=proc, Owner=f'"{owner}@example.org"', JobStatus=1,
                 JobPrio=0, QDate=1000 + cluster, RequestCpus=1, RequestMemory=1024,
                 RequestDisk=1000,
                 Requirements='(TARGET.Arch == "X86_64") && (TARGET.Disk >= RequestDisk)')
    attrs.update(extra)
    return ad_text(attrs)


VARIANTS = [
    dict(RequestDisk=50000),
    dict(RequestDisk=90000, Rank="TARGET.Disk"),
    dict(Requirements="TARGET.Disk % 3 == 0 && TARGET.Memory >= RequestMemory"),
    dict(Requirements="isInteger(TARGET.Disk)"),
    dict(Requirements="TARGET.Disk > 2 * RequestDisk", RequestDisk=30000, Rank="-TARGET.Disk"),
    dict(RequestMemory=3000),
    {},
]


def _cycle(slot_texts: list[str], job_texts: list[str], policy: Policy = POLICY,
           subs: dict[str, Submitter] | None = None):
    return run_both(slot_texts, job_texts, policy, subs)


def _jobs(per: int = 5) -> list[str]:
    return [_job(c, p, ("alice", "bob", "carol")[c % 3]) if not VARIANTS[c - 1] else
            _job(c, p, ("alice", "bob", "carol")[c % 3], **VARIANTS[c - 1])
            for c in range(1, len(VARIANTS) + 1) for p in range(per)]


def test_static_slots_with_unique_numbers_match_as_in_full():
    fast, _ = _cycle([_slot(i) for i in range(60)], _jobs())
    programs = fast.mm.table._static_programs
    assert any(p is not None for p in programs.values())


def test_held_static_slots_among_them():
    held = [_slot(i, State='"Claimed"', Activity='"Busy"', RemoteUser='"dave@example.org"',
                  RemoteOwner='"dave@example.org"', Rank="TARGET.RequestDisk / 1000",
                  CurrentRank="10.0") for i in range(60, 100)]
    subs = {f"{n}@example.org": Submitter(f"{n}@example.org", eup=500.0 * (1 + i), usage=0.0)
            for i, n in enumerate(("alice", "bob", "carol"))}
    subs["dave@example.org"] = Submitter("dave@example.org", eup=50000.0, usage=40.0)
    policy = Policy(uid_domain="example.org", preemption_requirements="true")
    fast, result = _cycle([_slot(i) for i in range(40)] + held, _jobs(8), policy, subs)
    assert {m.reason for m in result.matches} >= {"no preemption", "rank"}
    assert any(p is not None for p in fast.mm.table._static_programs.values())


def test_parts_below_the_threshold_are_evaluated_in_full(monkeypatch):
    monkeypatch.setattr(static_programs, "SHARED", 10**9)
    fast, _ = _cycle([_slot(i) for i in range(60)], _jobs())
    assert not fast.mm.table._static_programs


@pytest.mark.parametrize("seed", [4, 5])
def test_realistic_static_pools_with_a_disk_share(tmp_path, seed):
    spec = genpool.PoolSpec(slots=200, jobs=300, submitters=8, autoclusters=40, seed=seed,
                            partitionable_fraction=0.0, realistic=True, unique=True,
                            disk_share=True, rank_fraction=0.3, claimed_fraction=0.3,
                            preemption_requirements=PREEMPTION)
    slots, jobs, subs, policy = _pool(tmp_path, spec)
    fast = negotiator.Cycle(slots, jobs, subs, [], policy, NOW)
    fast.run()
    result = fast.result()
    assert any(p is not None for p in fast.mm.table._static_programs.values())
    assert _fingerprint(result) == _fingerprint(
        run_reference_cycle(slots, jobs, subs, policy, NOW))


def _pslot(i: int, **extra: object) -> str:
    return _slot(i, Name=f'"slot1@p{i}"', Machine=f'"p{i}"', PartitionableSlot="true",
                 SlotType='"Partitionable"', Cpus=8, Memory=16384, Disk=800000, **extra)


def test_a_partitionable_slot_alone_in_its_static_part_is_evaluated_in_full():
    """Programs are made for static parts of two slots or more; a desktop whose START
    names its owner is alone in its part, and its states are evaluated in full (a
    program per class would cost more than the few states it serves)."""
    owner = '(KeyboardIdle > 900) || (TARGET.Owner == "carol@example.org")'
    slots = [_pslot(i) for i in range(4)] + [_pslot(4, START=owner, KeyboardIdle=30)]
    fast, result = _cycle(slots, _jobs(8))  # (56 jobs: more than the 32 cores of p0-p3)
    statics = {o.name: o.vector.static for o in fast.offers if o.vector is not None}
    alone = statics.pop("slot1@p4")
    assert alone not in statics.values() and len(set(statics.values())) == 1
    programs = fast.mm.table.programs
    assert all(p is None for (_, static), p in programs.items() if static == alone)
    assert any(p is not None for (_, static), p in programs.items() if static != alone)
    assert any(m.slot == "slot1@p4" and m.submitter == "carol@example.org"
               for m in result.matches)


def test_held_slots_of_many_holders_share_a_part():
    """Held static slots of four holders, each with its RemoteUserPrio: the program's
    part leaves out what only PREEMPTION_REQUIREMENTS reads, so they share parts,
    while PREEMPTION_REQUIREMENTS (reading RemoteUserPrio and the slot's own Disk)
    is still decided per slot."""
    holders = ["dave", "erin", "frank", "gina"]
    held = [_slot(i, State='"Claimed"', Activity='"Busy"',
                  RemoteUser=f'"{holders[i % 4]}@example.org"',
                  RemoteOwner=f'"{holders[i % 4]}@example.org"', RemoteUserPrio=500.0 * (i % 4 + 1),
                  Rank="0.0", CurrentRank="0.0") for i in range(100, 180)]
    subs = {f"{n}@example.org": Submitter(f"{n}@example.org", eup=500.0 * (1 + i), usage=0.0)
            for i, n in enumerate(("alice", "bob", "carol"))}
    for i, n in enumerate(holders):
        subs[f"{n}@example.org"] = Submitter(f"{n}@example.org", eup=500.0 * (i + 1),
                                             usage=20.0)
    policy = Policy(uid_domain="example.org",
                    preemption_requirements="RemoteUserPrio > SubmitterUserPrio && MY.Disk > 60000")
    fast, result = _cycle([_slot(i) for i in range(10)] + held, _jobs(12), policy, subs)
    assert "priority" in {m.reason for m in result.matches}
    parts = {v.static for seq, v in fast.mm.table._numbers._vectors.items()
             if fast.mm.shapes.registry[seq].holder is not None}
    assert len(parts) < len(holders)  # held slots of different holders share parts
    assert any(p is not None for p in fast.mm.table._static_programs.values())


def test_part_ids_by_the_identity_of_their_numbers_equal_a_key_per_slot(
        tmp_path, monkeypatch):
    """``StaticNumbers._vector`` makes a part's key only for a new (static names'
    numbers, static names, held, flags) by identity: on a realistic pool (disk share,
    claimed desktops, own literals) every static offer's vector and part id equal
    those of a cycle where ``Canon.entry_key`` hands out a new tuple each time (a key
    made, hashed and numbered per slot, as before), with far fewer keys made."""
    spec = genpool.PoolSpec(slots=300, jobs=300, submitters=8, autoclusters=40, seed=6,
                            partitionable_fraction=0.0, realistic=True, unique=True,
                            disk_share=True, rank_fraction=0.3, claimed_fraction=0.3,
                            preemption_requirements=PREEMPTION)
    slots, jobs, subs, policy = _pool(tmp_path, spec)
    made: list[int] = []
    key = ShapeKeys.key

    def counted(self, ad, walked, extra):  # type: ignore[no-untyped-def]
        made.append(1)
        return key(self, ad, walked, extra)

    monkeypatch.setattr(ShapeKeys, "key", counted)

    def parts() -> tuple[dict[int, tuple], int]:
        made.clear()
        cycle = negotiator.Cycle(slots, jobs, subs, [], policy, NOW)
        cycle.mm.table.static_vector(cycle.mm.shapes.registry[0])  # (worked out)
        vectors = cycle.mm.table._numbers._vectors
        return {seq: (v.static, v.vals, v.names) for seq, v in vectors.items()}, len(made)

    shared, keys = parts()
    entry_key = Canon.entry_key
    monkeypatch.setattr(Canon, "entry_key",
                        lambda self, ad, names: tuple(list(entry_key(self, ad, names))))
    alone, per_slot = parts()
    assert shared == alone
    assert len({static for static, _, _ in shared.values()}) > 2
    assert keys * 4 < per_slot


@pytest.mark.parametrize("disk_share", [True, False])
def test_static_vectors_are_shared_per_pair_key_made_only_for_repeated_pair_shapes(
        tmp_path, monkeypatch, disk_share):
    """``StaticNumbers._work_out`` keeps one vector per (pair shape, walked names,
    own literals and their values, holder) (``_pair_key``; every part kept here),
    but makes that key only
    for a pair shape's second offer on: offers with equal keys share one vector
    object, offers with other keys have their own, each the offer's own numbers
    (``VectorNumbers.of``), and where every static slot is its own pair shape (a
    disk share) almost no key is made."""
    spec = genpool.PoolSpec(slots=300, jobs=300, submitters=8, autoclusters=40, seed=7,
                            partitionable_fraction=0.0, realistic=True, unique=True,
                            disk_share=disk_share, owner_start_fraction=0.3,
                            claimed_fraction=0.3, preemption_requirements=PREEMPTION)
    slots, jobs, subs, policy = _pool(tmp_path, spec)
    made: list[int] = []
    pair_key = static_programs._pair_key

    def counted(offer, walk):  # type: ignore[no-untyped-def]
        made.append(1)
        return pair_key(offer, walk)

    monkeypatch.setattr(static_programs, "_pair_key", counted)
    # (every part kept, so that every static offer's vector is seen)
    monkeypatch.setattr(static_programs, "SHARED", 1)
    monkeypatch.setattr(static_programs, "SHARED_LITERALS", 1)
    cycle = negotiator.Cycle(slots, jobs, subs, [], policy, NOW)
    numbers = cycle.mm.table._numbers
    numbers.by_seq()
    worked: dict[int, object] = {}  # seq -> its vector, every offer that got one
    keys: dict[tuple, object] = {}
    for offer in cycle.mm.shapes.registry:
        if offer.partitionable or offer.vector is not None:
            continue
        walk = cycle.mm.shapes.walked[id(offer)]
        vector = numbers._vectors.get(offer.seq)
        if vector is None:
            continue
        worked[offer.seq] = vector
        key = pair_key(offer, walk)
        assert keys.setdefault(key, vector) is vector  # equal keys: one vector
        own = static_programs.VectorNumbers(numbers._resource_names).of(
            offer.state_ad, offer.literals + ((static_programs.HOLDER,) if
                                              vector.names[-1:] == (static_programs.HOLDER,)
                                              else ()))
        assert own is not None and own.vals == vector.vals and own.names == vector.names
    assert len(worked) > 100
    assert len({id(v) for v in worked.values()}) == len(keys)  # other keys: their own
    statics = sum(1 for o in cycle.mm.shapes.registry if not o.partitionable)
    if disk_share:
        assert len(made) * 10 < statics
    else:
        assert len({o.pair_shape for o in cycle.mm.shapes.registry}) < statics
