"""The optimised negotiation cycle decides exactly what the plain reference cycle does.

The reference is ``tests/core/reference`` (``run_reference_cycle``): a whole cycle
written from HTCondor's documented semantics that shares nothing with the optimised
engine but the data model and the ClassAd language: its own significant attributes
and autoclusters, its own offers, carving and piece weights, every request evaluated
against every slot in full, its own match lists, limits and pie spins. Pools come from
``benchmarks/genpool.py`` (partitionable and static slots, claimed slots, several job
shapes per submitter) and are read through the real ad reader, so expressions are
interned as in production; one case parses every ad separately so that no expression
objects are shared at all.

Compared: every match (slot, reason, weight, autocluster, spin, preemption, pieces),
every rejection, every submitter figure, the preempted claims, the autocluster of
every job and the per-job notes.
"""

from __future__ import annotations

import sys
from dataclasses import astuple, replace
from pathlib import Path

import pytest

from condorlite.cli.negotiate_claims import LiveClaims
from condorlite.core.ad_decoder import slot_from_ad
from condorlite.core.matching.candidates import Candidates
from condorlite.core.matching.matchmaker import Matchmaker
from condorlite.core.model import Submitter
from condorlite.core.negotiation import negotiator
from condorlite.core.negotiation.claims import reconcile
from condorlite.core.policy import Policy
from tests.core._pool import decoded_pool, job
from tests.core._pool import slot as make_slot
from tests.core.reference import run_reference_cycle

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import genpool  # a script directory, not a package

NOW = float(genpool.BASE_TIME)


def _load(tmp: Path, spec: genpool.PoolSpec, policy: Policy, shared: bool):
    return decoded_pool(genpool.write_pool(spec, tmp), policy, shared)


def _submitters(slots, jobs) -> dict[str, Submitter]:
    """Spread EUPs (a fixed formula of the name's rank) so priority preemption has
    both winners and losers; usage is what the claimed slots say."""
    names = sorted({j.submitter for j in jobs} | {s.remote_user for s in slots if s.remote_user})
    usage: dict[str, float] = {}
    for slot in slots:
        if slot.remote_user:
            usage[slot.remote_user] = usage.get(slot.remote_user, 0.0) + slot.weight
    return {n: Submitter(n, eup=500.0 * (1 + (i * 7) % 11), usage=usage.get(n, 0.0))
            for i, n in enumerate(names)}


def _fingerprint(result) -> tuple:
    return (
        [tuple(m) for m in result.matches],
        [astuple(r) for r in result.rejections],
        [astuple(s) for s in result.submitters],
        [astuple(c) for c in result.preempted],
        sorted(result.autocluster_of.items()),
        sorted(result.notes.items()),
    )


def _both(monkeypatch, slots, jobs, subs, policy):
    """The optimised cycle's result and the reference's (no live claims)."""
    fast = negotiator.run_cycle(slots, jobs, subs, [], policy, NOW)
    return fast, run_reference_cycle(slots, jobs, subs, policy, NOW)


def _both_cycles(monkeypatch, slots, jobs, subs, policy):
    """``_both``, the optimised ``Cycle`` object run (for what it counted on the way)."""
    fast = negotiator.Cycle(slots, jobs, subs, [], policy, NOW)
    fast.run()
    return fast, run_reference_cycle(slots, jobs, subs, policy, NOW)


PREEMPTIVE = dict(
    preemption_requirements="RemoteUserPrio > SubmitterUserPrio * 1.5",
    preemption_rank="RemoteUserPrio * 10 - TotalJobRunTime",
)

POLICIES = {
    "default": {},
    "preemption": PREEMPTIVE,
    "preemption-all-jobs": dict(PREEMPTIVE, negotiate_all_jobs_in_cluster=True),
    "job-dependent-ranks": dict(
        PREEMPTIVE,
        negotiator_pre_job_rank="(TARGET.RequestMemory * 2 <= Memory) + Cpus / 64.0",
        negotiator_post_job_rank="ifThenElse(TARGET.JobPrio > 0, -Cpus, KFlops / 1e6)",
    ),
    "submitter-dependent": dict(
        PREEMPTIVE,
        negotiator_pre_job_rank="TARGET.SubmitterUserPrio * Cpus + TARGET.RequestCpus",
        negotiator_post_job_rank="SubmitterUserResourcesInUse - Memory / 1024",
    ),
    "configured-significant": dict(significant_attributes=("RequestCpus", "Owner")),
    "all-jobs-in-cluster": dict(negotiate_all_jobs_in_cluster=True),
}


@pytest.mark.parametrize("name", sorted(POLICIES))
@pytest.mark.parametrize("seed", [1, 2])
def test_optimised_cycle_equals_reference(tmp_path, monkeypatch, name, seed):
    policy = replace(Policy(uid_domain="example.org"), **POLICIES[name])
    spec = genpool.PoolSpec(slots=40, jobs=160, submitters=5, autoclusters=12, seed=seed,
                            claimed_fraction=0.4)
    slots, jobs = _load(tmp_path, spec, policy, shared=True)
    subs = _submitters(slots, jobs)
    fast, plain = _both(monkeypatch, slots, jobs, subs, policy)
    assert fast.matches, "the pool should produce matches"
    if "preemption_requirements" in POLICIES[name]:
        assert fast.preempted, "the policy should preempt somebody"
    assert _fingerprint(fast) == _fingerprint(plain)


def test_unshared_expressions_give_the_same_cycle(tmp_path, monkeypatch):
    """Ads parsed one by one share no expression objects: classes still form by
    equal expressions, and the outcome is the same as with the interning reader."""
    policy = replace(Policy(uid_domain="example.org"), **PREEMPTIVE)
    spec = genpool.PoolSpec(slots=30, jobs=120, submitters=4, autoclusters=9, seed=3,
                            claimed_fraction=0.3)
    slots, jobs = _load(tmp_path / "a", spec, policy, shared=False)
    subs = _submitters(slots, jobs)
    fast, plain = _both(monkeypatch, slots, jobs, subs, policy)
    assert _fingerprint(fast) == _fingerprint(plain)
    slots2, jobs2 = _load(tmp_path / "b", spec, policy, shared=True)
    interned = negotiator.run_cycle(slots2, jobs2, subs, [], policy, NOW)
    assert _fingerprint(interned) == _fingerprint(fast)
    assert fast.stats["match_classes"] == interned.stats["match_classes"] < len(jobs)


def test_partitionable_pool_is_carved_in_both(tmp_path, monkeypatch):
    """A larger pool: partitionable slots are carved several times (pieces in the
    matches) and both cycles agree on every piece."""
    policy = Policy(uid_domain="example.org")
    spec = genpool.PoolSpec(slots=120, jobs=600, submitters=8, autoclusters=30, seed=5)
    slots, jobs = _load(tmp_path, spec, policy, shared=True)
    subs = _submitters(slots, jobs)
    fast, plain = _both(monkeypatch, slots, jobs, subs, policy)
    pieces = [m for m in fast.matches if m.partitionable]
    assert len(pieces) > len({m.partitionable for m in pieces}) > 0
    assert _fingerprint(fast) == _fingerprint(plain)
    # sharing did happen: fewer evaluations than the plain cycle made
    assert fast.stats["evaluations"] < plain.stats["evaluations"]


def test_walks_the_limit_refuses_are_cut_short_alike(tmp_path, monkeypatch):
    """A submitter left with a fraction of a slot walks a list the limit refuses entry
    after entry; the optimised cycle stops at the first refusal when the class's cost
    floor is refused too (``PieceCosts.floor``), the plain one walks every entry.
    The shortcut must be taken here, and change nothing."""
    policy = Policy(uid_domain="example.org")
    spec = genpool.PoolSpec(slots=120, jobs=600, submitters=8, autoclusters=30, seed=5)
    slots, jobs = _load(tmp_path, spec, policy, shared=True)
    subs = _submitters(slots, jobs)
    fast, plain = _both_cycles(monkeypatch, slots, jobs, subs, policy)
    assert fast.walks_cut > 0
    assert _fingerprint(fast.result()) == _fingerprint(plain)


def _cheap_slots_pool(policy: Policy):
    """Four 4-core static slots, four 1-core ones the jobs cannot use, and one 1-core
    slot held by a poor user that they can (``HasCheap``); alice, with half the pool,
    has 4-core jobs enough to be left with a fraction of one."""
    from tests.core._pool import job, slot, user

    slots = [slot(f"big{i}@m", Cpus=4, index=i, policy=policy) for i in range(4)]
    slots += [slot(f"small{i}@m", index=4 + i, policy=policy) for i in range(4)]
    slots.append(slot("cheap@m", user=user("carol"), state="Claimed", index=8,
                      policy=policy, HasCheap="true", TotalJobRunTime=100))
    wants = "(TARGET.Cpus >= RequestCpus) || (TARGET.HasCheap =?= true)"
    jobs = [job(30, p, "alice", index=p, policy=policy, RequestCpus=4, Requirements=wants)
            for p in range(4)]
    jobs += [job(40, p, "bob", index=4 + p, policy=policy) for p in range(2)]
    subs = {user("alice"): Submitter(user("alice"), eup=500.0, usage=0.0),
            user("bob"): Submitter(user("bob"), eup=500.0, usage=0.0),
            user("carol"): Submitter(user("carol"), eup=5000.0, usage=1.0)}
    return slots, jobs, subs


def test_the_cost_floor_counts_only_static_slots_the_list_holds(monkeypatch):
    """The floor of a list bounds the unheld static slots the class matches, not every
    static slot of the pool: alice's 4-core class never lists the 1-core slots, so
    once her limit refuses a 4-core slot the walk is cut (it was walked to the end
    while the pool's least weight, 1, was the floor)."""
    policy = Policy(uid_domain="example.org")
    slots, jobs, subs = _cheap_slots_pool(policy)
    fast, plain = _both_cycles(monkeypatch, slots, jobs, subs, policy)
    assert fast.walks_cut > 0
    assert _fingerprint(fast.result()) == _fingerprint(plain)


def test_the_cost_floor_counts_held_slots_preemption_may_take(monkeypatch):
    """With PREEMPTION_REQUIREMENTS not false, a held static slot is listed by
    priority preemption after the free ones, at its own weight: the floor must count
    it, or the cut would hide the 1-core held slot alice's limit still permits."""
    policy = Policy(uid_domain="example.org", **PREEMPTIVE)
    slots, jobs, subs = _cheap_slots_pool(policy)
    fast, plain = _both(monkeypatch, slots, jobs, subs, policy)
    assert _fingerprint(fast) == _fingerprint(plain)
    assert any(m.slot == "cheap@m" and m.preempting for m in fast.matches)


def test_submitter_attributes_are_not_shared_between_submitters(monkeypatch):
    """Two submitters with identical requests share a match class; a policy rank that
    reads ``SubmitterUserPrio`` must still be evaluated for each of them."""
    from tests.core._pool import job, slot, user

    policy = Policy(uid_domain="example.org", negotiator_pre_job_rank=(
        "ifThenElse(TARGET.SubmitterUserPrio > 600, Memory, -Memory)"))
    slots = [slot(f"slot{i}@m{i}", Memory=1024 * (i + 1), index=i, policy=policy)
             for i in range(4)]
    jobs = [job(10 + k, 0, name, index=k, policy=policy)
            for k, name in enumerate(["alice", "bob", "alice", "bob"])]
    subs = {user("alice"): Submitter(user("alice"), eup=500.0, usage=0.0),
            user("bob"): Submitter(user("bob"), eup=700.0, usage=0.0)}
    fast, plain = _both(monkeypatch, slots, jobs, subs, policy)
    assert fast.stats["match_classes"] == 1
    assert _fingerprint(fast) == _fingerprint(plain)
    # alice (EUP 500) takes the smallest slots, bob (EUP 700) the largest
    by_owner = {m.job: m.slot for m in fast.matches}
    assert by_owner["10.0"] == "slot0@m0" and by_owner["11.0"] == "slot3@m3"


#: where a Submitter* name is read -> (policy knobs, slot extras, job extras, whether
#: a class's pair results must be kept per Submitter* binding)
SUBMITTER_READERS = {
    "preemption-requirements-only": (
        dict(preemption_requirements="RemoteUserPrio > SubmitterUserPrio"), {}, {}, False),
    "job-requirements": ({}, {}, dict(Requirements="SubmitterUserPrio < 600"), True),
    "slot-requirements": ({}, dict(Requirements="TARGET.SubmitterUserPrio < 600"), {}, True),
    "slot-binding": ({}, dict(Requirements="START", START="Who < 600",
                              Who="TARGET.SubmitterUserPrio"), {}, True),
    "preemption-rank": (dict(preemption_rank="SubmitterUserResourcesInUse"), {}, {}, True),
}


@pytest.mark.parametrize("where", sorted(SUBMITTER_READERS))
def test_pair_results_are_per_submitter_only_when_a_pair_reads_one(monkeypatch, where):
    """Pair results are kept per Submitter* binding only when a pair evaluation can
    read one (``matchmaker.submitter_reads``): PREEMPTION_REQUIREMENTS alone does not split
    them (its own results are kept per binding anyway). Either way the cycle is the
    plain one's."""
    from tests.core._pool import job, slot, user

    knobs, slot_extra, job_extra, expected = SUBMITTER_READERS[where]
    policy = Policy(uid_domain="example.org", **knobs)
    slots = [slot(f"slot{i}@m{i}", Memory=1024 * (i + 1), index=i, policy=policy,
                  **slot_extra) for i in range(4)]
    jobs = [job(10 + k, 0, name, index=k, policy=policy, **job_extra)
            for k, name in enumerate(["alice", "bob", "alice", "bob"])]
    subs = {user("alice"): Submitter(user("alice"), eup=500.0, usage=0.0),
            user("bob"): Submitter(user("bob"), eup=700.0, usage=0.0)}
    cycle = negotiator.Cycle(slots, jobs, subs, [], policy, NOW)
    assert cycle.mm.per_submitter is expected
    if where == "preemption-requirements-only":
        # its own results are kept per SubmitterUserPrio alone, which is fixed for the
        # cycle, not per SubmitterUserResourcesInUse, which changes with every match
        assert cycle.mm._preq_names == frozenset({"submitteruserprio"})
    fast, plain = _both(monkeypatch, slots, jobs, subs, policy)
    assert _fingerprint(fast) == _fingerprint(plain)
    owners = {m.job for m in fast.matches}
    if where in ("job-requirements", "slot-requirements", "slot-binding"):
        assert owners == {"10.0", "12.0"}  # only alice (EUP 500) matches


def test_rank_preemption_and_mixed_holders(monkeypatch):
    """Busy static slots held by several users whose Rank prefers some jobs (rank
    preemption), identical slots held by different users (one pair shape, several
    shapes), and priority preemption, in one cycle."""
    from tests.core._pool import job, slot, user

    policy = Policy(uid_domain="example.org", **PREEMPTIVE)
    slots = []
    for i in range(12):
        holder = ["carol", "dave", None][i % 3]
        extra = {} if holder is None else {"TotalJobRunTime": 100 * i}
        slots.append(slot(f"slot{i}@m{i // 4}", user=user(holder) if holder else None,
                          state="Claimed" if holder else "Unclaimed", index=i, policy=policy,
                          Rank="TARGET.JobPrio * (Memory > 1000)", CurrentRank="1.0", **extra))
    jobs = [job(20 + k, p, name, index=2 * k + p, policy=policy, JobPrio=k % 3)
            for k, name in enumerate(["alice", "bob", "alice", "bob", "erin", "erin"])
            for p in range(2)]
    subs = {user(n): Submitter(user(n), eup=e, usage=u) for n, e, u in (
        ("alice", 500.0, 0.0), ("bob", 800.0, 0.0), ("carol", 5000.0, 4.0),
        ("dave", 900.0, 4.0), ("erin", 100000.0, 0.0))}
    fast, plain = _both(monkeypatch, slots, jobs, subs, policy)
    reasons = {m.reason for m in fast.matches}
    assert reasons == {"no preemption", "rank", "priority"}, reasons
    assert fast.preempted
    assert _fingerprint(fast) == _fingerprint(plain)


@pytest.mark.parametrize("shared", [True, False])
def test_shared_slot_closures_equal_plain_ones(tmp_path, shared):
    """``closure_union`` (walks shared between slots binding every visited name alike)
    gives the plain union of each slot's own closure, for the roots the cycle uses."""
    from condorlite.core.matching.autocluster import closure, closure_union

    policy = Policy(uid_domain="example.org")
    spec = genpool.PoolSpec(slots=60, jobs=60, submitters=3, autoclusters=6, seed=7,
                            claimed_fraction=0.3)
    slots, _jobs = _load(tmp_path, spec, policy, shared=shared)
    for roots in ({"Requirements", "Rank"}, {"memory", "cpus", "start"}, {"nosuchname"}):
        plain: set[str] = set()
        for s in slots:
            plain |= closure(s.ad, roots)
        assert closure_union(slots, roots) == plain
        if "Rank" in roots:  # the slots' Requirements lead on to other names
            assert len(plain) > len(roots)
    assert closure_union([], {"rank"}) == frozenset()


def _with(slot, policy, index, **exprs):
    """The slot again, with some attributes bound to expressions (texts)."""
    from condorlite.core.classad.parser import parse_expr

    ad = slot.ad.copy()
    for name, text in exprs.items():
        ad[name] = parse_expr(text)
    return slot_from_ad(ad, policy, index)


@pytest.mark.parametrize("variant", ["expression-memory", "eval-start", "weight-reads-memory"])
def test_partitionable_fallbacks_give_the_same_cycle(tmp_path, monkeypatch, variant):
    """Partitionable slots that cannot take the residual path (a resource bound to an
    expression, an ``eval`` in START) or whose weight reads more than the cores are
    carved exactly as the plain cycle carves them."""
    policy = Policy(uid_domain="example.org")
    spec = genpool.PoolSpec(slots=40, jobs=160, submitters=5, autoclusters=12, seed=3,
                            claimed_fraction=0.2)
    slots, jobs = _load(tmp_path, spec, policy, shared=True)
    changed = {
        "expression-memory": {"Memory": "TotalSlotMemory - 0"},
        "eval-start": {"Start": 'eval("true")'},
        "weight-reads-memory": {"SlotWeight": "Cpus + Memory / 65536.0"},
    }[variant]
    slots = [_with(s, policy, i, **changed) if s.kind == "partitionable" and i % 2 == 0
             else s for i, s in enumerate(slots)]
    subs = _submitters(slots, jobs)
    fast, plain = _both(monkeypatch, slots, jobs, subs, policy)
    pieces = [m for m in fast.matches if m.partitionable]
    assert len(pieces) > len({m.partitionable for m in pieces}) > 0
    assert _fingerprint(fast) == _fingerprint(plain)


#: the largest state first: a slot carved after a list was made sorts later than it did
WORST_FIT = dict(negotiator_pre_job_rank="Cpus * 100000 + Memory")


@pytest.mark.parametrize("name", ["default", "preemption", "job-dependent-ranks", "worst-fit"])
def test_lists_merged_an_entry_at_a_time_give_the_same_cycle(tmp_path, monkeypatch, name):
    """The candidate lists are merged a part at a time (``Candidates.merge_more``):
    with parts of one entry per run, and worst fit first, entries evaluated again
    (slots carved since their list was made) land beyond the merged part, and the
    cycle is still the plain one's."""
    worst = name == "worst-fit"
    policy = replace(Policy(uid_domain="example.org"), **(WORST_FIT if worst else POLICIES[name]))
    size = dict(slots=300, jobs=1500) if worst else dict(slots=120, jobs=600)
    spec = genpool.PoolSpec(**size, submitters=8, autoclusters=30, seed=7, claimed_fraction=0.3)
    slots, jobs = _load(tmp_path, spec, policy, shared=True)
    subs = _submitters(slots, jobs)
    merge, refresh = Candidates.merge_more, Matchmaker.refresh
    calls = {"merge": 0, "refresh": 0}

    def one_at_a_time(self):
        self.chunk = 1
        calls["merge"] += 1
        merge(self)

    def counted(self, *args):
        calls["refresh"] += 1
        return refresh(self, *args)

    with monkeypatch.context() as patch:
        patch.setattr(Candidates, "merge_more", one_at_a_time)
        patch.setattr(Matchmaker, "refresh", counted)
        fast = negotiator.run_cycle(slots, jobs, subs, [], policy, NOW)
    plain = _both(monkeypatch, slots, jobs, subs, policy)[1]
    assert calls["merge"] > 50
    assert calls["refresh"] > 0 or not worst
    assert _fingerprint(fast) == _fingerprint(plain)


def test_a_static_too_small_for_a_class_gets_no_program(monkeypatch):
    """Once carving has left no state of a partitionable static with the cores a class
    asks for, the class's list passes the static over without making its program
    (``spent_statics``); the cycle decides as the plain one does."""
    policy = Policy(uid_domain="example.org")
    slots = [make_slot(f"slot1@node{i}", policy=policy, index=i, SlotType='"Partitionable"',
                       PartitionableSlot="true", Cpus=4, Memory=8192) for i in range(2)]
    # (a slot no job matches, so that the limit leaves room for the narrow class)
    slots.append(make_slot("slot1@arm", policy=policy, index=2, Arch='"ARM"', Cpus=4))
    jobs = [job(1, p, "u", policy=policy, index=p, RequestCpus=4) for p in range(2)]
    jobs += [job(2, p, "u", policy=policy, index=2 + p, RequestCpus=2) for p in range(2)]
    subs = _submitters(slots, jobs)
    fast, plain = _both_cycles(monkeypatch, slots, jobs, subs, policy)
    wide, narrow = (fast.ac.cluster_of[j] for j in ("1.0", "2.0"))
    built = {klass for (klass, _part), _static in fast.mm._programs}
    assert wide in built and narrow not in built
    assert _fingerprint(fast.result()) == _fingerprint(plain)
    assert [r.job for r in fast.result().rejections] == ["2.0"]


def test_a_negative_zero_amount_is_its_own_state(monkeypatch):
    """``0.0`` and ``-0.0`` are equal reals but two ClassAd values (``string`` tells
    them apart): partitionable slots whose amounts differ only so are not one state."""
    policy = Policy(uid_domain="example.org")
    slots = [make_slot(f"slot1@node{i}", policy=policy, index=i, SlotType='"Partitionable"',
                       PartitionableSlot="true", Cpus=4, Memory=value)
             for i, value in enumerate(["-0.0", "0.0", "-0.0", "0.0"])]
    jobs = [job(1, p, "u", policy=policy, index=p, RequestMemory=0,
                Requirements='string(TARGET.Memory) != "-0.0"') for p in range(4)]
    subs = _submitters(slots, jobs)
    fast, plain = _both(monkeypatch, slots, jobs, subs, policy)
    assert _fingerprint(fast) == _fingerprint(plain)
    assert {m.partitionable for m in fast.matches} == {"slot1@node1", "slot1@node3"}


def test_literals_of_different_types_are_not_one_binding(monkeypatch):
    """``1``, ``1.0`` and ``true`` are equal Python values but three ClassAd values
    (``=?=``, ``isInteger`` and ``string`` tell them apart): slots or jobs that differ
    only so are not one shape or one match class."""
    policy = Policy(uid_domain="example.org")
    slots = [make_slot(f"slot1@node{i}", policy=policy, index=i, HasX=value,
                  START="isInteger(TARGET.RequestCpus) || TARGET.Wide =?= true")
             for i, value in enumerate(["1", "true", "1.0", "1", "true", "1.0"])]
    jobs = [job(c, p, "u", policy=policy, index=c * 10 + p, RequestCpus=cpus,
                Requirements="TARGET.HasX =?= true", Wide="false")
            for c, cpus in ((1, "1"), (2, "1.0")) for p in range(3)]
    subs = _submitters(slots, jobs)
    fast, plain = _both(monkeypatch, slots, jobs, subs, policy)
    assert _fingerprint(fast) == _fingerprint(plain)
    # only the slots binding HasX to true match, and only the jobs with an integer
    # RequestCpus get one
    assert sorted((m.job, m.slot) for m in fast.matches) == [
        ("1.0", "slot1@node1"), ("1.1", "slot1@node4")]


#: (first job's X, second job's X, the slots' START): the START holds for the first
#: job's X only (classad2 agrees: ``isInteger(1.0)``, ``true =?= 1`` are false,
#: ``string(-0.0)`` is "-0.0")
TYPED_BINDINGS = {
    "int-real": ("1", "1.0", "isInteger(TARGET.X)"),
    "int-bool": ("1", "true", "TARGET.X =?= 1"),
    "zero-negative-zero": ("0.0", "-0.0", 'string(TARGET.X) == "0.0"'),
}


@pytest.mark.parametrize("case", sorted(TYPED_BINDINGS))
def test_a_job_binding_another_literal_type_is_its_own_request(monkeypatch, case):
    """A job whose significant attribute differs from an earlier job's only in the
    literal's type is another request: the slots' START holds for the first job only,
    so the second must be rejected, not matched as the first one's class."""
    first, second, start = TYPED_BINDINGS[case]
    policy = Policy(uid_domain="example.org")
    slots = [make_slot(f"slot1@node{i}", policy=policy, index=i, START=start)
             for i in range(4)]
    jobs = [job(1, 0, "u", policy=policy, index=0, X=first),
            job(2, 0, "u", policy=policy, index=1, X=second)]
    subs = _submitters(slots, jobs)
    fast, plain = _both(monkeypatch, slots, jobs, subs, policy)
    assert [m.job for m in plain.matches] == ["1.0"]
    assert [(r.job, r.reason) for r in plain.rejections] == [("2.0", "no match found")]
    assert _fingerprint(fast) == _fingerprint(plain)


def test_an_entry_another_class_carved_is_evaluated_again(monkeypatch):
    """Class X lists a static slot, then a partitionable one; class Y (same submitter,
    queued between X's jobs) carves the partitionable slot. X's second job meets the
    entry of the slot's old state, evaluates the new one (``ListWalk._refresh``)
    and takes it: dropping the entry would reject the job while the slot still fits it.
    (The expected matches are written out too, not only compared with the reference.)"""
    policy = Policy(uid_domain="example.org")
    slots = [make_slot("a-static@m", policy=policy, index=0, Memory=4096),
             make_slot("slot1@p", policy=policy, index=1, SlotType='"Partitionable"',
                       PartitionableSlot="true", Cpus=8, Memory=8192)]
    jobs = [job(1, 0, "u", policy=policy, index=0),
            job(2, 0, "u", policy=policy, index=1, RequestMemory=2048,
                Requirements='TARGET.PartitionableSlot =?= true'),
            job(3, 0, "u", policy=policy, index=2)]
    subs = _submitters(slots, jobs)
    refreshed = []
    refresh = Matchmaker.refresh
    with monkeypatch.context() as patch:
        patch.setattr(Matchmaker, "refresh",
                      lambda self, *a: refreshed.append(a[4].slot.name) or refresh(self, *a))
        fast = negotiator.run_cycle(slots, jobs, subs, [], policy, NOW)
    plain = _both(monkeypatch, slots, jobs, subs, policy)[1]
    assert refreshed == ["slot1@p"]
    assert _fingerprint(fast) == _fingerprint(plain)
    assert [(m.job, m.slot) for m in fast.matches] == [
        ("1.0", "a-static@m"), ("2.0", "slot1@p"), ("3.0", "slot1@p")]
    assert not fast.rejections


def test_a_walk_is_cut_only_when_the_floor_is_refused_without_preemption_too(monkeypatch):
    """The limit counts matches without preemption apart (``limits``: HTCondor's
    limitUsedUnclaimed): alice, having preempted 10 cores and taken 1 free one under a
    limit of 11.5, is refused the 16-core slot her class ranks first, but a 1-core
    free slot is still permitted (1 + 1 <= 11.5) though 11 + 1 is not. The walk must
    not be cut there (``ListWalk._floor_refused``): she takes the 1-core slot in the
    first spin, and the 16-core one only in the second."""
    from tests.core._pool import user

    policy = Policy(uid_domain="example.org", negotiator_pre_job_rank="Cpus", **PREEMPTIVE)
    carol = user("carol")
    slots = [make_slot(f"held{i}@m", policy=policy, index=i, state="Claimed", user=carol,
                       Cpus=5, HeldMark="true", TotalJobRunTime=100) for i in range(2)]
    slots += [make_slot("big@m", policy=policy, index=2, Cpus=16, FreeMark="true"),
              make_slot("small@m", policy=policy, index=3, FreeMark="true"),
              make_slot("tiny@m", policy=policy, index=4, TinyMark="true")]
    jobs = [job(1, p, "alice", policy=policy, index=p, Requirements="TARGET.HeldMark =?= true")
            for p in range(2)]
    jobs.append(job(2, 0, "alice", policy=policy, index=2,
                    Requirements="TARGET.TinyMark =?= true"))
    jobs += [job(3, p, "alice", policy=policy, index=3 + p,
                 Requirements="TARGET.FreeMark =?= true") for p in range(2)]
    # bob matches nothing; his EUP leaves alice 23/56 of the 28 cores: 11.5
    jobs.append(job(4, 0, "bob", policy=policy, index=5, Requirements="false"))
    subs = {user("alice"): Submitter(user("alice"), eup=1650.0, usage=0.0),
            user("bob"): Submitter(user("bob"), eup=1150.0, usage=0.0),
            carol: Submitter(carol, eup=5000.0, usage=10.0)}
    fast, plain = _both_cycles(monkeypatch, slots, jobs, subs, policy)
    result = fast.result()
    assert [s.limit for s in result.submitters if s.name == user("alice")] == [
        pytest.approx(11.5)]
    assert [(m.job, m.slot, m.spin) for m in result.matches] == [
        ("1.0", "held0@m", 1), ("1.1", "held1@m", 1), ("2.0", "tiny@m", 1),
        ("3.0", "small@m", 1), ("3.1", "big@m", 2)]
    assert fast.walks_cut == 0
    assert _fingerprint(result) == _fingerprint(plain)


def test_a_submitter_at_its_limit_with_no_held_slot_left_waits(monkeypatch):
    """In spin 1 a submitter at its limit goes on only for rank preemption, and only
    while some held slot is left: with none, its turn ends and its last jobs are
    neither rejected nor noted (they wait for the next spin, which has no room)."""
    from tests.core._pool import user

    policy = Policy(uid_domain="example.org")
    slots = [make_slot(f"slot{i}@m", policy=policy, index=i) for i in range(4)]
    jobs = [job(10 + k, p, name, policy=policy, index=4 * k + p)
            for k, name in enumerate(["alice", "bob"]) for p in range(4)]
    subs = {user(n): Submitter(user(n), eup=500.0, usage=0.0) for n in ("alice", "bob")}
    fast, plain = _both(monkeypatch, slots, jobs, subs, policy)
    assert _fingerprint(fast) == _fingerprint(plain)
    assert sorted(m.job for m in plain.matches) == ["10.0", "10.1", "11.0", "11.1"]
    assert not plain.rejections
    assert not set(plain.notes) & {"10.2", "10.3", "11.2", "11.3"}


@pytest.mark.parametrize("name", ["default", "preemption"])
def test_floors_and_ceilings(tmp_path, monkeypatch, name):
    """Submitters with a Floor above their usage (a floor round first) and with
    Ceilings, some fractional (worked out in whole numbers), some below what they
    hold: both cycles run the same rounds."""
    policy = replace(Policy(uid_domain="example.org"), **POLICIES[name])
    spec = genpool.PoolSpec(slots=60, jobs=240, submitters=6, autoclusters=14, seed=4,
                            claimed_fraction=0.3)
    slots, jobs = _load(tmp_path, spec, policy, shared=True)
    subs = _submitters(slots, jobs)
    shaped = {}
    for i, (n, s) in enumerate(sorted(subs.items())):
        floor = [0.0, s.usage + 6.0, 0.0, 25.5][i % 4]
        ceiling = [None, None, s.usage + 7.5, max(0.0, s.usage - 2.0), 12.0, 3.9][i % 6]
        shaped[n] = replace(s, floor=floor, ceiling=ceiling)
    fast, plain = _both(monkeypatch, slots, jobs, shaped, policy)
    assert _fingerprint(fast) == _fingerprint(plain)
    assert fast.stats["pies"] == 2  # the floor round ran
    # the ceilings bind: without them the capped submitters get more
    free = {n: replace(s, ceiling=None) for n, s in shaped.items()}
    uncapped = run_reference_cycle(slots, jobs, free, policy, NOW)
    capped = {n for n, s in shaped.items() if s.ceiling is not None}

    def capped_weight(result):
        return sum(r.matched for r in result.submitters if r.name in capped)

    assert capped_weight(plain) < capped_weight(uncapped)


def test_a_fraction_of_a_slot_left_after_spin_one_is_not_handed_out(monkeypatch):
    """Three submitters with a third of five slots each (1.67): in spin 1 each takes
    one free slot and is refused a second by its limit; the held slot is refused by
    PREEMPTION_REQUIREMENTS, which names the rejection (it comes before the limit).
    In spin 2 each has 0.67 left, below the least slot weight, so all wait and the
    fourth free slot stays free (the round-up rule would have handed it out)."""
    from tests.core._pool import user

    policy = Policy(uid_domain="example.org")
    slots = [make_slot(f"free{i}@m", policy=policy, index=i) for i in range(4)]
    slots.append(make_slot("held@m", policy=policy, index=4, state="Claimed",
                           user=user("carol")))
    names = ["alice", "bob", "dave"]
    jobs = [job(10 + k, p, name, policy=policy, index=2 * k + p)
            for k, name in enumerate(names) for p in range(2)]
    subs = {user(n): Submitter(user(n), eup=500.0, usage=0.0) for n in names}
    subs[user("carol")] = Submitter(user("carol"), eup=5000.0, usage=1.0)
    fast, plain = _both(monkeypatch, slots, jobs, subs, policy)
    assert _fingerprint(fast) == _fingerprint(plain)
    assert sorted(m.slot for m in plain.matches) == ["free0@m", "free1@m", "free2@m"]
    assert {(r.job, r.reason) for r in plain.rejections} == {
        (f"{c}.1", "PREEMPTION_REQUIREMENTS == False") for c in (10, 11, 12)}


def test_partitionable_requests_undefined_custom_and_unfit(monkeypatch):
    """What a piece takes: an undefined RequestCpus is 1 and an undefined RequestDisk
    0; a Request<R> the slot advertises (Gpus) is taken, one it does not (Foo) is
    not; a request that is not a number, or more than is left, does not fit."""
    policy = Policy(uid_domain="example.org")
    pslot = dict(SlotType='"Partitionable"', PartitionableSlot="true", Cpus=8,
                 Memory=16384, Disk=100000, Gpus=2)
    slots = [make_slot(f"slot1@node{i}", policy=policy, index=i, **pslot) for i in range(2)]
    asks = [dict(RequestCpus="undefined", RequestDisk="undefined"),
            dict(RequestCpus=2, RequestGpus=1), dict(RequestFoo=5),
            dict(RequestCpus='"two"'), dict(RequestGpus=3)]
    jobs = [job(1 + k, 0, "u", policy=policy, index=k, **extra)
            for k, extra in enumerate(asks)]
    subs = _submitters(slots, jobs)
    fast, plain = _both(monkeypatch, slots, jobs, subs, policy)
    assert _fingerprint(fast) == _fingerprint(plain)
    taken = {m.job: dict(m.resources) for m in plain.matches}
    assert taken == {
        "1.0": {"Cpus": 1.0, "Memory": 1024.0, "Disk": 0.0},
        "2.0": {"Cpus": 2.0, "Memory": 1024.0, "Disk": 1000.0, "Gpus": 1.0},
        "3.0": {"Cpus": 1.0, "Memory": 1024.0, "Disk": 1000.0}}
    assert [r.job for r in plain.rejections] == ["4.0", "5.0"]


#: case -> (the held slot's CurrentRank, PREEMPTION_REQUIREMENTS)
UNDEFINED_RANK_CASES = {
    "priority": ("0.0", "True"),  # 0 >= 0 lets the engine preempt by priority
    "rank": ("-1.0", "False"),  # 0 > -1 lets the engine preempt by rank
}


@pytest.mark.parametrize("case", sorted(UNDEFINED_RANK_CASES))
def test_a_rank_undefined_for_the_job_preempts_nothing(monkeypatch, case):
    """A machine owner's ``Rank = TARGET.Department == "physics"`` is undefined for a
    job without ``Department``: that job may not preempt the slot's running job, by
    rank or by priority (classad2, HTCondor's own library, gives undefined)."""
    from tests.core._pool import user

    classad2 = pytest.importorskip("classad2")
    current, preq = UNDEFINED_RANK_CASES[case]
    policy = Policy(uid_domain="example.org", preemption_requirements=preq)
    slots = [make_slot("held@m", policy=policy, index=0, state="Claimed",
                       user=user("carol"), Rank='TARGET.Department == "physics"',
                       CurrentRank=current, TotalJobRunTime=100)]
    jobs = [job(1, 0, "alice", policy=policy, index=0)]
    subs = {user("alice"): Submitter(user("alice"), eup=500.0, usage=0.0),
            user("carol"): Submitter(user("carol"), eup=5000.0, usage=1.0)}
    slot_ad = classad2.ClassAd({"Rank": classad2.ExprTree('TARGET.Department == "physics"'),
                                "CurrentRank": float(current)})
    job_ad = classad2.ClassAd({"Owner": "alice"})
    for condition in ("MY.Rank > MY.CurrentRank", "MY.Rank >= MY.CurrentRank"):
        value = classad2.ExprTree(condition).eval(slot_ad, job_ad)
        assert value is classad2.Value.Undefined
    fast, plain = _both(monkeypatch, slots, jobs, subs, policy)
    assert not plain.matches
    assert _fingerprint(fast) == _fingerprint(plain)


def test_autoclusters_do_not_depend_on_the_pool_being_empty(monkeypatch):
    """Job 2's Requirements reads ``Bar``, so ``Bar`` is significant and jobs 1.0 and
    1.1 (Bar 5 and 6) are two autoclusters: with one slot (that nobody matches) the
    engine says so, with none it makes them one."""
    policy = Policy(uid_domain="example.org")
    jobs = [job(1, 0, "u", policy=policy, index=0, Bar=5),
            job(1, 1, "u", policy=policy, index=1, Bar=6),
            job(2, 0, "u", policy=policy, index=2, Requirements="Bar > 1", Bar=1)]
    subs = _submitters([], jobs)
    unmatched = [make_slot("arm@m", policy=policy, index=0, Arch='"ARM"')]
    for slots in (unmatched, []):
        fast, plain = _both(monkeypatch, slots, jobs, subs, policy)
        assert dict(plain.autocluster_of) == {"1.0": 1, "1.1": 2, "2.0": 3}
        assert _fingerprint(fast) == _fingerprint(plain)


@pytest.mark.parametrize("name", ["default", "preemption"])
def test_a_second_cycle_on_the_claims_of_the_first(tmp_path, monkeypatch, name):
    """The claims a cycle leaves (``LiveClaims``, reconciled against the same ads, not
    updated yet) are live in the next, which sees the whole queue: pieces taken from
    partitionable slots, static slots held by their claims (pending ones still
    showing the preempted user), idle jobs holding a claim not negotiated, usage
    charged. Both cycles agree again."""
    policy = replace(Policy(uid_domain="example.org"), **POLICIES[name])
    spec = genpool.PoolSpec(slots=60, jobs=300, submitters=6, autoclusters=14, seed=8,
                            claimed_fraction=0.3, partitionable_fraction=0.5)
    slots, jobs = _load(tmp_path, spec, policy, shared=True)
    subs = _submitters(slots, jobs)
    # (the first cycle sees part of the queue, so that the second has slots left)
    first, _plain = _both(monkeypatch, slots, jobs[:120], subs, policy)
    later = NOW + 300
    claims = reconcile(LiveClaims({}, first.matches, first.preempted, NOW).claims(),
                       slots, jobs, later).live
    usage = {n: s.usage for n, s in subs.items()}
    for m in first.matches:
        usage[m.submitter] = usage.get(m.submitter, 0.0) + m.weight
    for c in first.preempted:
        usage[c.submitter] = max(0.0, usage[c.submitter] - c.weight)
    subs2 = {n: replace(s, usage=usage[n]) for n, s in subs.items()}
    fast = negotiator.run_cycle(slots, jobs, subs2, claims, policy, later)
    plain = run_reference_cycle(slots, jobs, subs2, policy, later, claims)
    assert any(c.partitionable for c in claims)
    assert any(c.preempted_user for c in claims) or name == "default"
    assert fast.matches
    assert _fingerprint(fast) == _fingerprint(plain)
