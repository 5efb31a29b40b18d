"""Candidates for one job, through the cycle: rank key order, preemption reasons,
carving partitionable slots."""

from __future__ import annotations

from condorlite.core.model import Claim, Submitter
from condorlite.core.negotiation.negotiator import run_cycle
from condorlite.core.policy import Policy
from tests.core._pool import UID, job, slot, user

NOW = 1_700_000_000
A, B = user("alice"), user("bob")
FLAT = dict(negotiator_pre_job_rank="MY.Pre", negotiator_post_job_rank="MY.Post")


def subs(**eup: float) -> dict[str, Submitter]:
    return {user(n): Submitter(user(n), e, 0.0) for n, e in eup.items()}


def first_slot(policy: Policy, slots, jobs=None, **eup) -> str:
    jobs = jobs or [job(1, 0, "alice", policy=policy, Rank="TARGET.JR")]
    result = run_cycle(slots, jobs, subs(**(eup or {"alice": 500})), [], policy, NOW)
    return result.matches[0].slot


def test_rank_keys_in_order_pre_then_job_rank_then_post_then_name() -> None:
    policy = Policy(uid_domain=UID, **FLAT)

    def pool(*rows):
        return [slot(name, policy=policy, Pre=pre, JR=jr, Post=post)
                for name, pre, jr, post in rows]

    # PRE_JOB_RANK outweighs everything after it
    assert first_slot(policy, pool(("a@m", 1, 100, 100), ("b@m", 2, 0, 0))) == "b@m"
    # then the job's Rank
    assert first_slot(policy, pool(("a@m", 1, 1, 100), ("b@m", 1, 2, 0))) == "b@m"
    # then POST_JOB_RANK
    assert first_slot(policy, pool(("a@m", 1, 1, 5), ("b@m", 1, 1, 4))) == "a@m"
    # then the slot Name, ascending, whatever the input order
    assert first_slot(policy, pool(("z@m", 1, 1, 1), ("c@m", 1, 1, 1))) == "c@m"


def test_an_undefined_policy_rank_ranks_lowest() -> None:
    policy = Policy(uid_domain=UID, **FLAT)
    slots = [slot("a@m", policy=policy, Post=0), slot("b@m", policy=policy, Pre=-1e30,
                                                     Post=0)]
    assert first_slot(policy, slots) == "b@m"  # a@m's Pre is undefined: -FLT_MAX


def test_unclaimed_before_rank_preemption_before_priority_preemption() -> None:
    policy = Policy(uid_domain=UID, preemption_requirements="True",
                    negotiator_pre_job_rank="0", negotiator_post_job_rank="0")
    prio = slot("a@m", state="Claimed", user=B, policy=policy)
    rank = slot("b@m", state="Claimed", user=B, policy=policy, Rank='TARGET.Owner == "alice"')
    free = slot("c@m", policy=policy)
    jobs = [job(1, p, "alice", policy=policy) for p in range(3)]
    result = run_cycle([prio, rank, free], jobs, subs(alice=500, bob=5000), [], policy, NOW)
    assert [(m.slot, m.reason, m.preempting) for m in result.matches] == [
        ("c@m", "no preemption", None), ("b@m", "rank", B), ("a@m", "priority", B)]
    assert sorted(c.slot for c in result.preempted) == ["a@m", "b@m"]


def test_priority_preemption_needs_preemption_requirements() -> None:
    full = [slot(f"s{i}@m", state="Claimed", user=B) for i in range(2)]
    off = run_cycle(full, [job(1, 0, "alice")], subs(alice=500, bob=5000), [],
                    Policy(uid_domain=UID), NOW)
    assert off.matches == []
    assert [r.reason for r in off.rejections] == ["PREEMPTION_REQUIREMENTS == False"]
    policy = Policy(uid_domain=UID,
                    preemption_requirements="RemoteUserPrio > SubmitterUserPrio * 1.2")
    full = [slot(f"s{i}@m", state="Claimed", user=B, policy=policy) for i in range(2)]
    on = run_cycle(full, [job(1, 0, "alice", policy=policy)], subs(alice=500, bob=5000), [],
                   policy, NOW)
    assert [(m.reason, m.preempting) for m in on.matches] == [("priority", B)]
    # ... and never against a slot the slot's own Rank prefers keeping (CurrentRank).
    kept = [slot("s0@m", state="Claimed", user=B, policy=policy, CurrentRank=5)]
    none = run_cycle(kept, [job(1, 0, "alice", policy=policy)], subs(alice=500, bob=5000),
                     [], policy, NOW)
    assert none.matches == [] and none.rejections[0].reason == "no match found"


def test_a_submitter_never_preempts_itself() -> None:
    policy = Policy(uid_domain=UID, preemption_requirements="True")
    mine = [slot("s0@m", state="Claimed", user=A, policy=policy)]
    result = run_cycle(mine, [job(1, 0, "alice", policy=policy)], subs(alice=500), [],
                       policy, NOW)
    assert result.matches == []


def _pslot(**extra):
    return slot("slot1@m", PartitionableSlot="true", SlotType='"Partitionable"', Cpus=8,
                Memory=8192, Disk=100000, **extra)


def test_a_partitionable_slot_is_carved_while_it_fits() -> None:
    jobs = [job(1, p, "alice", RequestCpus=2, RequestMemory=2048, RequestDisk=1000)
            for p in range(5)]
    result = run_cycle([_pslot()], jobs, subs(alice=500), [], Policy(uid_domain=UID), NOW)
    assert [m.job for m in result.matches] == ["1.0", "1.1", "1.2", "1.3"]
    first = result.matches[0]
    assert (first.slot, first.partitionable, first.weight) == ("slot1@m", "slot1@m", 2.0)
    assert dict(first.resources) == {"Cpus": 2.0, "Memory": 2048.0, "Disk": 1000.0}
    # Memory runs out before the cores: 2 x 3000 MB of 8192 fit, the third does not.
    jobs = [job(1, p, "alice", RequestCpus=2, RequestMemory=3000) for p in range(4)]
    result = run_cycle([_pslot()], jobs, subs(alice=500), [], Policy(uid_domain=UID), NOW)
    assert [m.job for m in result.matches] == ["1.0", "1.1"]
    assert [(r.job, r.reason) for r in result.rejections] == [("1.2", "no match found")]
    assert result.notes["1.3"].startswith("skipped: autocluster")


def test_carving_takes_custom_resources_and_respects_live_pieces() -> None:
    pslot = _pslot(GPUs=2)
    jobs = [job(1, p, "alice", RequestCpus=1, RequestGPUs=1, RequestMemory=1024)
            for p in range(3)]
    result = run_cycle([pslot], jobs, subs(alice=500), [], Policy(uid_domain=UID), NOW)
    assert [dict(m.resources)["GPUs"] for m in result.matches] == [1.0, 1.0]
    # A piece matched in an earlier cycle (a live claim) is no longer on offer.
    piece = Claim("slot1@m#9.0", "9.0", B, 6.0, NOW - 60, "slot1@m",
                  (("Cpus", 6.0), ("Memory", 1024.0)))
    jobs = [job(1, p, "alice", RequestCpus=1, RequestMemory=1024) for p in range(4)]
    left = run_cycle([_pslot()], jobs, subs(alice=500, bob=500), [piece],
                     Policy(uid_domain=UID), NOW)
    assert len(left.matches) == 2  # 8 cores - 6 taken


def test_a_class_spreads_over_pslots_then_comes_back_to_them() -> None:
    policy = Policy(uid_domain=UID, negotiator_pre_job_rank="0", negotiator_post_job_rank="0")
    pslots = [slot(n, policy=policy, PartitionableSlot="true", Cpus=2, Memory=4096)
              for n in ("b@m", "a@m")]
    jobs = [job(1, p, "alice", policy=policy) for p in range(5)]
    result = run_cycle(pslots, jobs, subs(alice=500), [], policy, NOW)
    assert [m.slot for m in result.matches] == ["a@m", "b@m", "a@m", "b@m"]
    assert [(r.job, r.reason) for r in result.rejections] == []  # limit (4 cores) reached


def test_requested_remembered_per_slot_state_equals_evaluating_afresh() -> None:
    """offers.requested shares results between job ads with equal literal requests;
    every answer must equal a fresh evaluation, including requests that are not
    literals (not shared), absent ones and custom resources the slot lacks."""
    from condorlite.core.matching.offers import _requested, requested
    from tests.core._pool import ad

    pslots = [ad(Cpus=c, Memory=m, Disk=1000, GPUs=g) for c in (1, 4) for m in (1024, 4096)
              for g in (0, 1)]
    jobs = [ad(RequestCpus=c, RequestMemory=m, **extra)
            for c in (1, 2, 1.0, "true") for m in (1024, 2048, "MY.RequestCpus * 1024")
            for extra in ({}, {"RequestGPUs": 1}, {"RequestDisk": 2000}, {"RequestFoo": 1})]
    checked = fits = 0
    for _ in range(2):  # the second pass answers from the remembered results
        for pslot in pslots:
            for job_ad in jobs:
                got = requested(pslot, job_ad, NOW)
                assert got == _requested(pslot, job_ad, NOW)
                if got is not None:
                    assert [type(v) for v in got.values()] == [float] * len(got)
                    fits += 1
                checked += 1
    assert checked == 2 * len(pslots) * len(jobs) and 0 < fits < checked


def test_piece_weight_remembered_equals_weighing_the_dynamic_ad() -> None:
    """pieces.piece_weight keys its memory on the names the weight expressions reach
    (or, with eval(), on everything changed); each answer must equal building the
    dynamic slot ad and weighing it, across carved states of the slot."""
    from dataclasses import replace

    from condorlite.core.matching.offers import Offer
    from condorlite.core.matching.pieces import _dynamic, carve, piece_weight
    from condorlite.core.model import slot_weight

    weights = {
        "cpus": "Cpus",
        "memory-and-type": 'Cpus + Memory / 1024.0 + (SlotType == "Dynamic")',
        "indirect": "Cpus * Factor",
        "eval": 'eval("Cpus") + Disk / 1000',
        "absent": None,  # SLOT_WEIGHT from the policy
    }
    for label, weight in weights.items():
        extra = {"Factor": "Memory / 2048"} if label == "indirect" else {}
        if weight is not None:
            extra["SlotWeight"] = weight
        policy = replace(Policy(uid_domain=UID), slot_weight="Cpus * 2 + Memory / 4096")
        pslot = slot("slot1@big", policy=policy, Cpus=16, Memory=65536, Disk=800000,
                     PartitionableSlot="true", SlotType='"Partitionable"', **extra)
        if weight is None:
            del pslot.ad["SlotWeight"]
        offer = Offer(pslot, pslot.ad, None, None, 0.0, pslot.weight)
        pieces = [{"Cpus": c, "Memory": m, "Disk": 1000.0} for c in (1.0, 2.0)
                  for m in (1024.0, 4096.0)]
        seen = set()
        for _ in range(3):  # three states: carve the first piece each round
            for taken in pieces:
                got = piece_weight(offer, taken, policy)
                assert got == slot_weight(_dynamic(offer, taken), policy), (label, taken)
                seen.add(got)
            _cost, _dyn, rest = carve(offer, pieces[0], policy, NOW)
            offer.ad = rest
        assert len(seen) > 1, label
        # the names path is taken unless eval() hides what is read
        assert (offer.weight_names[1] is None) == (label == "eval"), label
