"""The grouped cycle (``core.negotiation.group_cycle``) in the core: no change without groups, the
group attributes of PREEMPTION_REQUIREMENTS, one pool across turns (partitionable
leftovers included), and a property test over random flat group setups."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core.model import Submitter
from condorlite.core.negotiation.group_cycle import demand_of, negotiate
from condorlite.core.negotiation.negotiator import Cycle, run_cycle
from condorlite.core.policy import Policy
from tests.core._pool import UID, job, slot

NOW = 1_700_000_000


def member(group: str, name: str = "user") -> str:
    return f"{group}.{name}@{UID}"


def grouped_job(cluster: int, proc: int, group: str, policy: Policy, index: int = 0, **kw):
    return job(cluster, proc, "user", policy=policy, index=index,
               AccountingGroup=f'"{group}.user"', **kw)


def by_group(result) -> Counter:
    return Counter(m.submitter.split("@")[0].rsplit(".", 1)[0] for m in result.matches)


def test_without_group_names_it_is_run_cycle_exactly():
    policy = Policy(uid_domain=UID)
    slots = [slot(f"slot{i}@m", index=i) for i in range(5)]
    jobs = [job(1, p, "alice", index=p) for p in range(3)] + [
        job(2, p, "bob", index=3 + p) for p in range(4)]
    result, groups = negotiate(slots, jobs, {}, [], policy, NOW)
    plain = run_cycle(slots, jobs, {}, [], policy, NOW)
    assert groups is None
    assert result.matches == plain.matches and result.stats == plain.stats
    assert result.rejections == plain.rejections and result.submitters == plain.submitters
    assert "group_turns" not in result.stats


def test_keep_receives_the_cycle_with_and_without_groups():
    """The CLI holds the cycle to the process's exit (``keep``); holding it changes
    nothing in the result."""
    policy = Policy(uid_domain=UID)
    slots = [slot(f"slot{i}@m", index=i) for i in range(3)]
    jobs = [job(1, p, "alice", index=p) for p in range(4)]
    kept: list = []
    result, _ = negotiate(slots, jobs, {}, [], policy, NOW, keep=kept)
    assert [type(c) for c in kept] == [Cycle]
    assert result.matches == negotiate(slots, jobs, {}, [], policy, NOW)[0].matches
    grouped = Policy(uid_domain=UID, group_names=("a",), group_quota={"a": 2.0})
    kept = []
    _, groups = negotiate(slots, [grouped_job(1, 0, "a", grouped)], {}, [], grouped, NOW,
                          keep=kept)
    assert groups is not None and [type(c) for c in kept] == [Cycle]


def _preemption_pool(expr: str):
    policy = Policy(uid_domain=UID, group_names=("a", "b"), group_quota={"a": 1.0, "b": 1.0},
                    preemption_requirements=expr)
    slots = [slot(f"slot{i}@m", state="Claimed", user=member("b"), policy=policy, index=i)
             for i in range(2)]
    jobs = [grouped_job(1, 0, "a", policy)]
    subs = {member("b"): Submitter(member("b"), eup=500.0, usage=2.0)}
    return negotiate(slots, jobs, subs, [], policy, NOW)


def test_preemption_requirements_sees_the_group_attributes():
    # b holds both slots (2 in use, quota 1); a (quota 1, nothing in use) asks for one
    expr = ('SubmitterGroup == "a" && RemoteGroup == "b" && SubmitterGroupQuota == 1 && '
            "SubmitterGroupResourcesInUse == 0 && RemoteGroupQuota == 1 && "
            "RemoteGroupResourcesInUse == 2")
    result, _ = _preemption_pool(expr)
    assert [(m.submitter, m.reason, m.preempting) for m in result.matches] == [
        (member("a"), "priority", member("b"))]


def test_preemption_requirements_false_on_group_figures_rejects():
    result, groups = _preemption_pool("RemoteGroupResourcesInUse < RemoteGroupQuota")
    assert result.matches == []
    assert [r.reason for r in result.rejections] == ["PREEMPTION_REQUIREMENTS == False"]
    assert groups is not None and groups.turns[0].turn.group == "a"


def test_one_pool_across_turns_and_partitionable_leftovers_stay():
    # One 4-core partitionable slot and one static slot. Group a (quota 2, first: lower
    # name at equal use) carves 2 one-core pieces; b (quota 2) gets the static slot and
    # what is left of the pslot: nothing is handed out twice.
    policy = Policy(uid_domain=UID, group_names=("a", "b"), group_quota={"a": 2.0, "b": 2.0})
    pslot = slot("slot1@p", policy=policy, index=0, Cpus=4, PartitionableSlot="true",
                 SlotType='"Partitionable"', Memory=8192)
    static = slot("slot1@s", policy=policy, index=1)
    jobs = [grouped_job(1, p, "a", policy, p) for p in range(3)] + [
        grouped_job(2, p, "b", policy, 3 + p) for p in range(3)]
    result, groups = negotiate([pslot, static], jobs, {}, [], policy, NOW)
    assert by_group(result) == {"a": 2, "b": 2}
    pieces = [m for m in result.matches if m.partitionable == "slot1@p"]
    assert len(pieces) == 3  # a's two and one of b's: 3 of the 4 cores
    assert [m.slot for m in result.matches].count("slot1@s") == 1
    assert groups is not None and groups.usage_after["a"] == 2 == groups.usage_after["b"]


def test_demand_counts_running_usage_and_idle_request_cpus():
    policy = Policy(uid_domain=UID)
    jobs = [job(1, 0, "alice", RequestCpus=4), job(1, 1, "alice", JobStatus=2),
            job(2, 0, "bob")]
    subs = {f"alice@{UID}": Submitter(f"alice@{UID}", 500.0, 3.0),
            "group_x": Submitter("group_x", 500.0, 3.0)}
    assert demand_of(jobs, subs, [], policy) == {f"alice@{UID}": 7.0, f"bob@{UID}": 1.0}
    flat = Policy(uid_domain=UID, negotiator_use_slot_weights=False)
    assert demand_of(jobs, subs, [], flat)[f"alice@{UID}"] == 4.0


@settings(max_examples=40, deadline=None)
@given(
    quotas=st.lists(st.integers(0, 4), min_size=1, max_size=4),
    surplus=st.lists(st.booleans(), min_size=4, max_size=4),
    wanted=st.lists(st.integers(0, 5), min_size=4, max_size=4),
    n_slots=st.integers(0, 10),
)
def test_random_flat_groups_never_exceed_caps_or_reuse_slots(quotas, surplus, wanted, n_slots):
    names = tuple(f"g{i}" for i in range(len(quotas)))
    policy = Policy(uid_domain=UID, group_names=names,
                    group_quota={g: float(q) for g, q in zip(names, quotas, strict=True)},
                    group_accept_surplus_by_group={g: surplus[i] for i, g in enumerate(names)})
    slots = [slot(f"slot{i}@m", policy=policy, index=i) for i in range(n_slots)]
    jobs = []
    for i, g in enumerate(names):
        jobs += [grouped_job(i + 1, p, g, policy, len(jobs)) for p in range(wanted[i])]
    result, groups = negotiate(slots, jobs, {}, [], policy, NOW)
    again, _ = negotiate(slots, jobs, {}, [], policy, NOW)
    assert [(m.job, m.slot) for m in result.matches] == [(m.job, m.slot) for m in
                                                         again.matches]
    used = [m.slot for m in result.matches]
    assert len(used) == len(set(used)) <= n_slots
    got = by_group(result)
    for i, g in enumerate(names):
        assert got[g] <= wanted[i]
        if not surplus[i]:
            assert got[g] <= quotas[i]  # a group refusing surplus stays within its quota
    assert groups is not None
    assert sum(groups.usage_after.values()) == len(result.matches)


def test_turn_attributes_change_between_turns():
    # a's jobs match only in a second-chance turn (SubmitterAutoregroup true, negotiating
    # in <none>); b's only in b's own turn
    policy = Policy(uid_domain=UID, group_names=("a", "b"), group_quota={"a": 1.0, "b": 1.0},
                    group_autoregroup=True)
    slots = [slot(f"slot{i}@m", policy=policy, index=i) for i in range(4)]
    jobs = [grouped_job(1, p, "a", policy, p,
                        Requirements='SubmitterAutoregroup =?= true && '
                                     'SubmitterNegotiatingGroup == "<none>"')
            for p in range(2)]
    jobs += [grouped_job(2, p, "b", policy, 2 + p, Requirements='SubmitterNegotiatingGroup == "b"')
             for p in range(2)]
    result, groups = negotiate(slots, jobs, {}, [], policy, NOW)
    assert groups is not None
    per_turn = [(r.turn.group, r.matched) for r in groups.turns if r.turn.round == 1]
    assert per_turn == [("a", 0), ("b", 1), ("<none>", 2)]
    assert by_group(result) == {"a": 2, "b": 1}


def _room_pool(jobs_of):
    """Group a (quota 8, no surplus) already uses 5 (a.u1, no idle jobs), so its turn
    leaves room for 3; a.user, alone in the turn, has a fair-share limit of 8."""
    policy = Policy(uid_domain=UID, group_names=("a",), group_quota={"a": 8.0})
    slots = [slot("one1@m", policy=policy, index=0, Mark1="true"),
             slot("one2@m", policy=policy, index=1, Mark1="true"),
             slot("one3@m", policy=policy, index=2, Mark1="true"),
             slot("one4@m", policy=policy, index=3, Mark1="true"),
             slot("three@m", policy=policy, index=4, Cpus=3, Mark3="true"),
             slot("filler@m", policy=policy, index=5, Cpus=7)]
    subs = {member("a", "u1"): Submitter(member("a", "u1"), 500.0, 5.0),
            member("a"): Submitter(member("a"), 500.0, 0.0)}
    return negotiate(slots, jobs_of(policy), subs, [], policy, NOW)


def test_a_free_match_is_held_to_the_groups_room():
    """HTCondor caps a group member's unclaimed limit by the group's quota less its
    usage: after a 1-core slot (room 3, used 1), the 3-core slot would bring the group
    to 9 of its 8 and is refused in the first spin, though the member's own share (8)
    would admit it. In the second spin nothing is used yet and the room (2) is
    positive, so the round-up rule lets it through, as HTCondor's would."""
    result, groups = _room_pool(lambda policy: [
        grouped_job(1, 0, "a", policy, 0, Requirements="TARGET.Mark1 =?= true"),
        grouped_job(2, 0, "a", policy, 1, RequestCpus=3,
                    Requirements="TARGET.Mark3 =?= true")])
    assert [(m.job, m.slot, m.spin) for m in result.matches] == [
        ("1.0", "one1@m", 1), ("2.0", "three@m", 2)]
    assert groups is not None and groups.usage_after["a"] == 9


def test_a_groups_room_caps_the_pie_and_ends_the_turn():
    """With room for 3, the member's limit is cut to 3 by the pie: three 1-core matches
    and the turn ends, the fourth job not considered (no rejection)."""
    result, _ = _room_pool(lambda policy: [
        grouped_job(1, p, "a", policy, p, Requirements="TARGET.Mark1 =?= true")
        for p in range(4)])
    assert [m.slot for m in result.matches] == ["one1@m", "one2@m", "one3@m"]
    assert result.rejections == []
