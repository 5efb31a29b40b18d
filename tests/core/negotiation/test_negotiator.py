"""The seed documents' negotiation examples, run through the pure cycle."""

from __future__ import annotations

from collections import Counter

from condorlite.core.model import Submitter
from condorlite.core.negotiation.negotiator import Cycle, run_cycle
from condorlite.core.policy import Policy
from tests.core._pool import UID, job, slot, user

NOW = 1_700_000_000
POLICY = Policy(uid_domain=UID)


def subs(**eups_usage: tuple[float, float]) -> dict[str, Submitter]:
    return {user(n): Submitter(user(n), eup, usage) for n, (eup, usage) in eups_usage.items()}


def got(result) -> Counter:
    return Counter(m.submitter.split("@")[0] for m in result.matches)


def test_slides_pool_gives_new_matches_one_one_two():
    # 8 slots: Alice holds 3, Bob 1; EUP Alice 1000, Bob and Charlie 2000.
    held = {1: "alice", 3: "alice", 5: "alice", 4: "bob"}
    slots = [slot(f"slot{i}@m", state="Claimed" if i in held else "Unclaimed",
                  user=user(held[i]) if i in held else None) for i in range(1, 9)]
    jobs = [job(c, p, n) for c, n in ((1, "alice"), (2, "bob"), (3, "charlie")) for p in range(4)]
    result = run_cycle(slots, jobs, subs(alice=(1000, 3), bob=(2000, 1), charlie=(2000, 0)),
                       [], POLICY, NOW)
    assert got(result) == {"alice": 1, "bob": 1, "charlie": 2}
    limits = {r.name.split("@")[0]: r.limit for r in result.submitters}
    assert limits == {"alice": 1.0, "bob": 1.0, "charlie": 2.0}
    assert all(m.reason == "no preemption" for m in result.matches)
    assert {r.reason for r in result.rejections} == {"submitter limit exceeded"}


def test_eup_5_10_20_share_4_2_1():
    slots = [slot(f"slot{i}@m") for i in range(7)]
    jobs = [job(c, p, n) for c, n in ((1, "a"), (2, "b"), (3, "c")) for p in range(7)]
    result = run_cycle(slots, jobs, subs(a=(5, 0), b=(10, 0), c=(20, 0)), [], POLICY, NOW)
    assert got(result) == {"a": 4, "b": 2, "c": 1}
    shares = [round(r.share * 7, 9) for r in result.submitters]
    assert shares == [4.0, 2.0, 1.0]


def test_thirty_slots_eup_500_1000_2000_give_17_8_4():
    slots = [slot(f"slot{i:02d}@m") for i in range(30)]
    jobs = [job(c, p, n) for c, n in ((1, "a"), (2, "b"), (3, "c")) for p in range(30)]
    result = run_cycle(slots, jobs, subs(a=(500, 0), b=(1000, 0), c=(2000, 0)), [], POLICY, NOW)
    assert got(result) == {"a": 17, "b": 8, "c": 4}
    assert all(m.spin == 1 for m in result.matches)


def test_manual_rank_table_gives_slot5_slot3_slot2():
    policy = Policy(uid_domain=UID, negotiator_pre_job_rank="MY.PreVal",
                    negotiator_post_job_rank="MY.PostVal")
    table = [(100, 1, 10), (100, 2, 20), (100, 2, 30), (0, 1, 40), (200, 1, 50)]
    slots = [slot(f"slot{i}@m", policy=policy, PreVal=pre, JobRankVal=rank, PostVal=post)
             for i, (pre, rank, post) in enumerate(table, start=1)]
    jobs = [job(1, p, "a", policy=policy, Rank="TARGET.JobRankVal") for p in range(3)]
    result = run_cycle(slots, jobs, subs(a=(0.5, 0)), [], policy, NOW)
    assert [m.slot for m in result.matches] == ["slot5@m", "slot3@m", "slot2@m"]


def test_nice_user_gets_only_what_nobody_else_wants():
    slots = [slot(f"slot{i}@m") for i in range(3)]
    nice = [job(2, p, "bob", NiceUser="true") for p in range(3)]
    nice_name = "nice-user.bob@" + UID
    people = {user("alice"): Submitter(user("alice"), 500, 0),
              nice_name: Submitter(nice_name, 1e13, 0)}
    few = run_cycle(slots, [job(1, 0, "alice"), *nice], people, [], POLICY, NOW)
    # Alice takes what she wants first; the nice user gets the two slots left over.
    assert Counter(m.submitter for m in few.matches) == {user("alice"): 1, nice_name: 2}
    assert few.matches[0].submitter == user("alice")
    many = run_cycle(slots, [*(job(1, p, "alice") for p in range(3)), *nice], people, [],
                     POLICY, NOW)
    assert Counter(m.submitter for m in many.matches) == {user("alice"): 3}


def test_priority_preemption_stops_at_the_share():
    policy = Policy(uid_domain=UID,
                    preemption_requirements="RemoteUserPrio > SubmitterUserPrio * 1.2")
    slots = [slot(f"slot{i}@m", state="Claimed", user=user("bob"), policy=policy)
             for i in range(4)]
    jobs = [job(1, p, "alice", policy=policy) for p in range(4)]
    jobs += [job(2, p, "bob", policy=policy) for p in range(2)]
    result = run_cycle(slots, jobs, subs(alice=(500, 0), bob=(2000, 4)), [], policy, NOW)
    assert [m.reason for m in result.matches] == ["priority"] * 3
    assert all(m.preempting == user("bob") for m in result.matches)
    assert len(result.preempted) == 3
    # the preempted slots no longer count for bob (HTCondor's RemoveMatch)
    assert {r.name: r.usage for r in result.submitters} == {user("alice"): 3.0,
                                                             user("bob"): 1.0}


def test_preemption_off_by_default_is_reported():
    slots = [slot("slot1@m", state="Claimed", user=user("bob"))]
    result = run_cycle(slots, [job(1, 0, "alice")], subs(alice=(500, 0), bob=(2000, 1)),
                       [], POLICY, NOW)
    assert result.matches == []
    assert [r.reason for r in result.rejections] == ["PREEMPTION_REQUIREMENTS == False"]


def test_rejected_cluster_skips_its_other_jobs_unless_negotiate_all():
    slots = [slot(f"slot{i}@m") for i in range(2)]
    for everything, expected in ((False, []), (True, ["1.1"])):
        policy = Policy(uid_domain=UID, significant_attributes=("ClusterId",),
                        negotiate_all_jobs_in_cluster=everything)
        jobs = [job(1, 0, "a", policy=policy, RequestMemory=999999),
                job(1, 1, "a", policy=policy)]
        result = run_cycle(slots, jobs, subs(a=(0.5, 0)), [], policy, NOW)
        assert [m.job for m in result.matches] == expected
        assert result.rejections[0].job == "1.0"
        assert result.rejections[0].reason == "no match found"
        assert result.stats["jobs_considered"] == (2 if everything else 1)


def test_autoclusters_share_evaluations():
    slots = [slot(f"slot{i:02d}@m") for i in range(20)]
    jobs = [job(1, p, "a") for p in range(20)]
    result = run_cycle(slots, jobs, subs(a=(0.5, 0)), [], POLICY, NOW)
    assert len(result.matches) == 20
    assert result.stats["autoclusters"] == 1
    assert result.stats["slot_shapes"] == 1
    assert result.stats["evaluations"] < result.stats["naive_evaluations"] / 5


def test_a_pending_preempting_claim_holds_the_slot_its_ad_still_gives_the_old_user():
    """alice's claim preempted bob on slot1; the ad still shows bob (pending). carol,
    preempting next, preempts alice's claim, not bob's (who holds nothing any more)."""
    from condorlite.core.model import Claim

    policy = Policy(uid_domain=UID, preemption_requirements="true")
    slots = [slot("slot1@m", state="Claimed", user=user("bob"), policy=policy)]
    pending = Claim("slot1@m", "7.0", user("alice"), 1.0, NOW - 60,
                    preempted_user=user("bob"))
    jobs = [job(7, 0, "alice", policy=policy, JobStatus=2), job(9, 0, "carol", policy=policy)]
    result = run_cycle(slots, jobs, subs(alice=(5000, 1), bob=(9000, 0), carol=(500, 0)),
                       [pending], policy, NOW)
    assert [(m.job, m.preempting, m.preempted_job) for m in result.matches] == [
        ("9.0", user("alice"), "7.0")]
    assert [(c.submitter, c.job) for c in result.preempted] == [(user("alice"), "7.0")]


def test_rank_preemption_ignores_the_submitter_limit_in_the_first_spin():
    """alice is over her limit (usage 5 of a 2-slot pool), so the free slot is refused
    her; the slot bob holds ranks her job above his (slot Rank 10 > CurrentRank 0), and a
    rank preemption is offered whatever the limit (HTCondor: RANK candidates bypass the
    submitter limit), in the first spin only."""
    slots = [slot("slot1@m", state="Claimed", user=user("bob"),
                  Rank='10 * (TARGET.Owner == "alice")'),
             slot("slot2@m")]
    jobs = [job(1, p, "alice") for p in range(2)]
    result = run_cycle(slots, jobs, subs(alice=(1000, 5), bob=(500, 1)), [], POLICY, NOW)
    assert [(m.job, m.slot, m.reason, m.preempting, m.spin) for m in result.matches] == [
        ("1.0", "slot1@m", "rank", user("bob"), 1)]
    assert [(r.job, r.reason) for r in result.rejections] == [
        ("1.1", "submitter limit exceeded")]


def test_a_spin_that_only_finishes_a_submitter_is_progress():
    """Spin 1 matches nothing: alice (usage 3 of a 4-slot pool, half the share) has no
    limit left and resumes, bob's jobs match no slot and he is done. With bob gone
    the shares change, so another spin runs (HTCondor spins again while the pie shrank
    or a submitter left), and in it alice takes the one slot her whole share leaves."""
    slots = [slot(f"slot{i}@m") for i in range(4)]
    jobs = [job(1, p, "alice") for p in range(2)]
    jobs += [job(2, 0, "bob", Requirements="false")]
    result = run_cycle(slots, jobs, subs(alice=(1000, 3), bob=(1000, 0)), [], POLICY, NOW)
    assert [(m.job, m.spin) for m in result.matches] == [("1.0", 2)]
    assert result.stats["pie_spins"] == 3


def test_a_slot_nobody_holds_is_held_to_the_fair_share_limit_not_the_pie_left():
    """HTCondor keeps two limits per turn: the one the pie left caps (``limit``, at which
    the turn stops) and the unclaimed one (the fair-share limit, what a match without
    preemption must fit). Pool 9, equal EUPs: alice (usage 3) may take 1.5 and rounds up
    to her 4-core slot, leaving 2 of the pie; bob's limit 4.5 is cut to 2. His first job
    takes the 1-core slot (used 1, below 2), and his second the 2-core one, since
    1 + 2 fits his unclaimed limit of 4.5: both in the first spin."""
    slots = [slot("a4@m", Cpus=4, ForAlice="true"), slot("b1@m", ForBob="true"),
             slot("b2@m", Cpus=2, ForBob="true"), slot("b3@m", ForBob3="true"),
             slot("filler@m")]
    jobs = [job(1, 0, "alice", Requirements="TARGET.ForAlice =?= true")]
    jobs += [job(2, p, "bob", Requirements="TARGET.ForBob =?= true") for p in range(2)]
    jobs.append(job(3, 0, "bob", Requirements="TARGET.ForBob3 =?= true"))
    result = run_cycle(slots, jobs, subs(alice=(1000, 3), bob=(1000, 0)), [], POLICY, NOW)
    # (with 3 used, bob's turn stops at the limit the pie left him: his third job
    # waits for the second spin)
    assert [(m.job, m.slot, m.spin) for m in result.matches] == [
        ("1.0", "a4@m", 1), ("2.0", "b1@m", 1), ("2.1", "b2@m", 1), ("3.0", "b3@m", 2)]
    assert result.rejections == []
    assert [(r.name.split("@")[0], r.limit) for r in result.submitters] == [
        ("alice", 1.5), ("bob", 4.5)]


def test_the_floor_round_stops_at_the_floor_but_a_free_slot_may_take_the_share():
    """In the floor round the floor caps when the turn stops, not what a free slot may
    cost (HTCondor floors only ``submitterLimit``): alice (floor 2) takes the 1-core
    slot, is still below her floor, and then the 4-core slot, which her fair share of
    the whole pool (5) admits, before bob (better EUP, no floor) negotiates at all."""
    slots = [slot("s1@m", ForAlice="true"), slot("s4@m", Cpus=4)]
    jobs = [job(1, 0, "alice", Requirements="TARGET.ForAlice =?= true"),
            job(2, 0, "alice"), job(3, 0, "bob")]
    people = {user("alice"): Submitter(user("alice"), 1000, 0, floor=2),
              user("bob"): Submitter(user("bob"), 500, 0)}
    result = run_cycle(slots, jobs, people, [], POLICY, NOW)
    assert [(m.job, m.slot) for m in result.matches] == [("1.0", "s1@m"), ("2.0", "s4@m")]
    assert [(r.job, r.reason) for r in result.rejections] == [("3.0", "no match found")]


def test_a_ceiling_leaves_whole_slots_of_whole_usage():
    """HTCondor works out what a Ceiling leaves in whole numbers: ceiling 3 less the
    usage 2.5 truncated to 2 leaves one slot (not 0.5, less than a slot, which would
    end the submitter's turn); with the slot taken, the ceiling is reached."""
    slots = [slot(f"slot{i}@m") for i in range(3)]
    jobs = [job(1, p, "alice") for p in range(3)]
    people = {user("alice"): Submitter(user("alice"), 1000, 2.5, ceiling=3)}
    result = run_cycle(slots, jobs, people, [], POLICY, NOW)
    assert [m.slot for m in result.matches] == ["slot0@m"]
    assert len(result.rejections) == 0


def test_a_ceiling_stops_the_turn_once_reached_and_never_rounds_up():
    """Ceiling 2 with 1-core slots: two matches, then the turn stops (used >= what the
    ceiling left). Ceiling 1 where every slot weighs 2: what it leaves is less than the
    smallest slot, so the submitter is done before its first match (the round-up rule
    is the limit's, never the ceiling's)."""
    people = {user("alice"): Submitter(user("alice"), 1000, 0, ceiling=2)}
    jobs = [job(1, p, "alice") for p in range(3)]
    result = run_cycle([slot(f"slot{i}@m") for i in range(3)], jobs, people, [], POLICY, NOW)
    assert [m.slot for m in result.matches] == ["slot0@m", "slot1@m"]
    people = {user("alice"): Submitter(user("alice"), 1000, 0, ceiling=1)}
    result = run_cycle([slot(f"slot{i}@m", Cpus=2) for i in range(3)], jobs, people, [],
                       POLICY, NOW)
    assert result.matches == []


def test_the_floor_round_gives_each_submitter_at_most_its_share():
    """Two submitters below floors of 10 in a pool of 4: the floor round's limit is
    min(floor, fair-share limit), 2 each, so alice, first, leaves bob his two."""
    slots = [slot(f"slot{i}@m") for i in range(4)]
    jobs = [job(1, p, "alice") for p in range(4)] + [job(2, p, "bob") for p in range(4)]
    people = {user(n): Submitter(user(n), 1000, 0, floor=10) for n in ("alice", "bob")}
    result = run_cycle(slots, jobs, people, [], POLICY, NOW)
    assert got(result) == {"alice": 2, "bob": 2}


def test_the_floor_round_holds_priority_preemption_to_the_share():
    """The same with carol holding the four slots and preemption allowed: a priority
    preemption is held to the floor round's limit, min(floor, fair share) = 2, so a
    floor of 10 does not let alice preempt all four before bob's turn."""
    policy = Policy(uid_domain=UID, preemption_requirements="true")
    slots = [slot(f"slot{i}@m", state="Claimed", user=user("carol"), policy=policy)
             for i in range(4)]
    jobs = [job(1, p, "alice", policy=policy) for p in range(4)]
    jobs += [job(2, p, "bob", policy=policy) for p in range(4)]
    people = {user(n): Submitter(user(n), 1000, 0, floor=10) for n in ("alice", "bob")}
    people[user("carol")] = Submitter(user("carol"), 5000, 4)
    result = run_cycle(slots, jobs, people, [], policy, NOW)
    assert got(result) == {"alice": 2, "bob": 2}
    assert {m.reason for m in result.matches} == {"priority"}


def test_what_a_job_takes_is_read_at_each_cycles_own_time():
    """A partitionable slot whose Memory depends on time(): two cycles over the same ad
    objects at two times (as ``replay`` runs them) each read it at their own ``now``.
    The remembered fits belong to one cycle (``offers.Fits``); a process-wide table
    answered the second cycle with the first one's fit."""
    pslot = slot("slot1@m", PartitionableSlot="true", SlotType='"Partitionable"', Cpus=4,
                 Memory=f"ifThenElse(time() < {NOW + 100}, 8192, 1024)")
    # (Requirements that do not read Memory: only the fit can turn the job down)
    jobs = [job(1, 0, "a", RequestMemory=4096, Requirements='TARGET.Arch == "X86_64"')]
    early = run_cycle([pslot], jobs, subs(a=(1, 0)), [], POLICY, NOW)
    late = run_cycle([pslot], jobs, subs(a=(1, 0)), [], POLICY, NOW + 200)
    assert [m.job for m in early.matches] == ["1.0"]
    assert late.matches == [] and [r.job for r in late.rejections] == ["1.0"]


def test_offer_pool_counts_follow_the_offers_taken():
    """``OfferPool``'s counts stay those of its offers (the turn reads the counts, not
    the offers): a held static slot taken by priority preemption leaves both counts,
    an unheld one only ``available``, a busy slot that names nobody is not offered."""
    pref = "RemoteUserPrio > SubmitterUserPrio"
    policy = Policy(uid_domain=UID, preemption_requirements=pref)
    slots = [slot("slot1@m", state="Claimed", user=user("bob")),
             slot("slot2@m"), slot("slot3@m"),
             slot("slot4@m", state="Claimed", user=None)]
    jobs = [job(1, p, "alice") for p in range(3)]
    cycle = Cycle(slots, jobs, subs(alice=(500, 0), bob=(5000, 1)), [], policy, NOW)
    pool = cycle.offer_pool
    assert [o.name for o in pool.offers] == ["slot1@m", "slot2@m", "slot3@m"]
    assert (pool.available, pool.held_available) == (3, 1)
    cycle.run()
    result = cycle.result()
    assert len(result.matches) == 3 and len(result.preempted) == 1
    assert (pool.available, pool.held_available) == (0, 0)
    assert pool.available == sum(o.available for o in pool.offers)
