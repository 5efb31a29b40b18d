"""The turn's own paths through a list and a match (session 22): the take-back of carved
slots inside ``ListWalk.pick``, a vector piece's match recorded by ``TurnNegotiator.negotiate``
itself, the usage it charges in a local, and a rejected run ended by ``Turn.run_end``."""

from __future__ import annotations

import random

from condorlite.core.matching.list_scan import ListWalk
from condorlite.core.model import Submitter
from condorlite.core.negotiation.negotiator import Cycle, run_cycle
from condorlite.core.negotiation.offer_pool import OfferPool
from condorlite.core.negotiation.turns import Turn
from condorlite.core.policy import Policy
from tests.core._pool import UID, job, slot, user
from tests.core.reference.cycle import run_reference_cycle

NOW = 1_700_000_000
POLICY = Policy(uid_domain=UID)


def _pslot(name: str, cpus: int, **extra: object):
    return slot(name, PartitionableSlot="true", SlotType='"Partitionable"', Cpus=cpus,
                Memory=cpus * 1024, **extra)


def test_a_list_that_runs_out_takes_its_carved_slots_back_within_one_pick():
    """One 3-core partitionable slot, five one-core jobs of one class: the list holds
    one entry, so each job after the first finds the list run out and takes the carved
    slot back (inside ``pick``); the slot gives three pieces and the fourth job is
    rejected, the fifth skipped with its autocluster. (A static slot no job matches
    makes the pool, and so the limit, larger than the three cores.)"""
    jobs = [job(1, p, "a") for p in range(5)]
    other = slot("slot2@m", Arch='"ARM"', Cpus=5)
    result = run_cycle([_pslot("slot1@m", 3), other], jobs,
                       {user("a"): Submitter(user("a"), 1, 0)}, [], POLICY, NOW)
    assert [(m.job, m.slot, m.partitionable) for m in result.matches] == [
        ("1.0", "slot1@m", "slot1@m"), ("1.1", "slot1@m", "slot1@m"),
        ("1.2", "slot1@m", "slot1@m")]
    assert {m.resources for m in result.matches} == {
        (("Cpus", 1), ("Disk", 1000), ("Memory", 1024))}
    assert [r.job for r in result.rejections] == ["1.3"]
    assert result.notes["1.4"].startswith("skipped: autocluster")
    reports = {r.name: r for r in result.submitters}
    assert (reports[user("a")].matched, reports[user("a")].matched_jobs) == (3.0, 3)
    assert reports[user("a")].usage == 3.0


def test_the_next_class_reads_the_usage_the_turn_charged_so_far():
    """A job ad's ``SubmitterUserResourcesInUse`` is the usage when its class's list is
    made: the pieces matched before in the same turn are charged to it (the turn charges
    in a local and writes it back before a new list's job ad is made)."""
    jobs = [job(1, p, "a") for p in range(2)]
    jobs += [job(2, 0, "a", RequestMemory=512,
                 Requirements="SubmitterUserResourcesInUse < 2")]
    jobs += [job(3, 0, "a", RequestMemory=256,
                 Requirements="SubmitterUserResourcesInUse == 2")]
    result = run_cycle([_pslot("slot1@m", 8)], jobs,
                       {user("a"): Submitter(user("a"), 1, 0)}, [], POLICY, NOW)
    assert [m.job for m in result.matches] == ["1.0", "1.1", "3.0"]
    assert [r.job for r in result.rejections] == ["2.0"]
    assert result.submitters[0].usage == 3.0


def test_rank_preemption_of_a_submitters_own_slot_charges_it_in_order():
    """A static slot the submitter itself holds, taken by rank preemption: ``_apply``
    takes the holder's weight off the usage before the match charges it (the local
    usage is written back first and read again after)."""
    policy = Policy(uid_domain=UID)
    held = slot("slot1@m", state="Claimed", user=user("a"), policy=policy,
                Rank="TARGET.JobPrio", CurrentRank="0.0")
    jobs = [job(1, 0, "a", JobPrio=5)]
    result = run_cycle([held, _pslot("slot2@m", 1)], jobs,
                       {user("a"): Submitter(user("a"), 1, 1)}, [], policy, NOW)
    assert [(m.slot, m.reason, m.preempting) for m in result.matches] == [
        ("slot1@m", "rank", user("a"))]
    assert result.submitters[0].usage == 1.0


def test_run_end_is_the_end_of_the_rows_autocluster_run():
    """``Turn.run_end(at)`` is where the run holding row ``at - 1`` ends, as the walk
    over the rows would find it."""
    rnd = random.Random(7)
    for _ in range(200):
        clusters = [rnd.choice((1, 2, 3)) for _ in range(rnd.randint(1, 30))]
        turn = Turn(Submitter("a", 1, 0), [], clusters=clusters)
        for at in range(1, len(clusters) + 1):
            end = at
            while end < len(clusters) and clusters[end] == clusters[at - 1]:
                end += 1
            assert turn.run_end(at) == end


def test_resources_are_kept_per_taken_dict():
    pool = OfferPool([])
    taken = {"Memory": 1024.0, "Cpus": 1.0}
    kept = pool.resources(taken)
    assert kept == (("Cpus", 1.0), ("Memory", 1024.0))
    assert pool.resources(taken) is kept  # (kept: the same tuple for the same dict)
    other = {"Cpus": 2.0}
    assert pool.resources(other) == (("Cpus", 2.0),)
    assert pool.resources(taken) is kept


def test_a_cycles_turn_figures_match_its_matches():
    """The turn's figures summed in locals (matched weight and jobs, the statistics)
    add up to the matches, in a pool of pieces and static slots over several spins."""
    slots = [_pslot(f"p{i}@m", 4) for i in range(3)] + [slot(f"s{i}@m") for i in range(5)]
    jobs = [job(c, p, n) for c, n in ((1, "a"), (2, "b"), (3, "c")) for p in range(9)]
    people = {user(n): Submitter(user(n), e, 0) for n, e in (("a", 1), ("b", 2), ("c", 4))}
    cycle = Cycle(slots, jobs, people, [], POLICY, NOW)
    cycle.run()
    result = cycle.result()
    assert result.stats["matches"] == len(result.matches) == 17
    for report in result.submitters:
        mine = [m for m in result.matches if m.submitter == report.name]
        assert report.matched_jobs == len(mine)
        assert report.matched == sum(m.weight for m in mine)
        assert report.usage == sum(m.weight for m in mine)


def test_a_skipped_autoclusters_later_runs_are_noted_as_the_reference_notes_them():
    """An autocluster rejected early whose jobs come again later in queue order, in
    runs between another class's jobs (and one of its jobs matched before it was
    rejected, in the first run): the turn skips each later run at its first row
    (``_skip_run``), and every job's note is the reference cycle's."""
    big = {"RequestMemory": 3072}  # (two fit the pool's memory, the third does not)
    jobs = []
    for c in range(1, 9):
        # odd clusters one autocluster (big), even ones another (small)
        extra = big if c % 2 else {}
        jobs += [job(c, p, "a", **extra) for p in range(3)]
    slots = [slot(f"s{i}@m", Memory=4096) for i in range(2)] + [
        slot(f"t{i}@m", Memory=1024) for i in range(6)]
    slots.append(slot("x@m", Arch='"ARM"', Cpus=20))  # (no job's: a larger limit)
    people = {user("a"): Submitter(user("a"), 1, 0)}
    result = run_cycle(slots, jobs, people, [], POLICY, NOW)
    expected = run_reference_cycle(slots, jobs, people, POLICY, NOW)
    assert [m.job for m in result.matches] == [m.job for m in expected.matches]
    skipped = [j for j, note in expected.notes.items() if note.startswith("skipped")]
    # (the big autocluster's later runs among them: 3.x, 5.x, 7.x)
    assert {"3.0", "5.1", "7.2"} <= set(skipped)
    assert {j.id: result.notes[j.id] for j in jobs} == {
        j.id: expected.notes[j.id] for j in jobs}


def test_a_take_back_makes_the_entries_the_general_list_makes(monkeypatch):
    """``ListWalk._take_back_carved`` makes the entries of slots nobody holds a shape at
    a time: at every take-back of a pool of partitionable slots of several sizes (states
    of several shapes, a POST_JOB_RANK that differs per state), its entries are
    exactly what ``RequestLists.candidates`` lists for the same slots
    (``_take_back_listed``), and the cycle matches as the reference cycle does."""
    rng = random.Random(7)
    slots = [_pslot(f"p{i:02d}@m{i % 5}", rng.choice((2, 3, 4, 6))) for i in range(24)]
    jobs = [job(c, p, n, RequestCpus=1 + c % 2)
            for c, n in ((1, "a"), (2, "a"), (3, "b")) for p in range(25)]
    people = {user(n): Submitter(user(n), e, 0) for n, e in (("a", 1), ("b", 3))}
    policy = Policy(uid_domain=UID, negotiator_post_job_rank="TARGET.Memory - 100 * Cpus")
    seen: list[int] = []
    take_back = ListWalk._take_back_carved

    def checked(walk: ListWalk) -> None:
        indices = sorted(set(walk.cands.carved))
        offers = walk.scan.offers
        listed = walk.scan.mm.candidates(walk.klass, walk.job_ad, walk.name,
                                         [offers[i] for i in indices], walk.only_rank,
                                         positions=indices, signature=walk.cands.signature)
        start = len(walk.cands.entries)
        take_back(walk)
        assert walk.cands.entries[start:] == listed.entries
        seen.append(len(listed.entries))

    monkeypatch.setattr(ListWalk, "_take_back_carved", checked)
    result = run_cycle(slots, jobs, people, [], policy, NOW)
    expected = run_reference_cycle(slots, jobs, people, policy, NOW)
    assert [(m.job, m.slot) for m in result.matches] == [
        (m.job, m.slot) for m in expected.matches]
    assert len(seen) >= 3 and max(seen) >= 5
