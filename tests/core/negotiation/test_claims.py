"""``reconcile``: stored claims against a new cycle's slot and job ads."""

from __future__ import annotations

from dataclasses import replace

from condorlite.core.model import Claim
from condorlite.core.negotiation.claims import claims_left, reconcile
from tests.core._pool import job, slot, user

NOW = 1_700_000_000.0
A, B = user("alice"), user("bob")


def claim(slot_name: str, job_id: str | None, who: str = A, **kw) -> Claim:
    return Claim(slot_name, job_id, who, 1.0, NOW - 100, **kw)


def test_claims_of_present_slots_and_live_jobs_are_kept() -> None:
    slots = [slot("s1@m"), slot("s2@m")]
    jobs = [job(1, 0, "alice"), job(1, 1, "alice", JobStatus=2)]
    stored = [claim("s2@m", "1.1"), claim("s1@m", "1.0")]
    rec = reconcile(stored, slots, jobs, NOW)
    assert rec.ended == [] and rec.added == []
    assert [c.slot for c in rec.live] == ["s1@m", "s2@m"]  # sorted by slot
    assert rec.live[0].start_time == NOW - 100  # kept as stored


def test_claims_end_with_their_job_or_slot() -> None:
    slots = [slot("s0@m"), slot("s1@m"), slot("s2@m"), slot("s3@m")]
    jobs = [job(1, 1, "alice", JobStatus=5), job(1, 2, "alice", JobStatus=4),
            job(1, 3, "alice", JobStatus=3), job(1, 4, "alice")]
    stored = [claim("s1@m", "1.0"), claim("s2@m", "1.1"), claim("s3@m", "1.2"),
              claim("s4@m", "1.4"), claim("s0@m", "1.3")]
    rec = reconcile(stored, slots, jobs, NOW)
    assert {c.slot: why for c, why in rec.ended} == {
        "s0@m": "job is removed", "s1@m": "job left the queue", "s2@m": "job is held",
        "s3@m": "job is completed", "s4@m": "slot disappeared"}
    assert rec.live == []


def test_a_slot_showing_another_user_ends_the_claim_and_is_observed() -> None:
    slots = [slot("s1@m", state="Claimed", user=B, JobId='"7.0"', Cpus=4)]
    rec = reconcile([claim("s1@m", "1.0")], slots, [job(1, 0, "alice")], NOW)
    assert [(c.slot, why) for c, why in rec.ended] == [("s1@m", "slot shows another user")]
    assert rec.added == [Claim("s1@m", "7.0", B, 4.0, NOW, observed=True)]


def test_busy_slots_become_observed_claims_once() -> None:
    slots = [slot("s1@m", state="Claimed", user=B), slot("s2@m", state="Claimed", user=B),
             slot("s3@m", state="Claimed")]  # claimed but nobody named: not a claim
    first = reconcile([], slots, [], NOW)
    assert [(c.slot, c.submitter, c.observed) for c in first.added] == [
        ("s1@m", B, True), ("s2@m", B, True)]
    again = reconcile(first.live, slots, [], NOW + 60)
    assert again.added == [] and again.ended == [] and len(again.kept) == 2
    # observed claims follow the slot ad, not the job input
    gone = reconcile(first.live, [slots[0], slot("s2@m")], [], NOW + 120)
    assert [(c.slot, why) for c, why in gone.ended] == []
    assert [c.slot for c in gone.live] == ["s1@m", "s2@m"]


def test_a_busy_slot_names_the_job_of_a_claim_that_had_none() -> None:
    slots = [slot("s1@m", state="Claimed", user=B, JobId='"8.1"')]
    stored = [Claim("s1@m", None, B, 1.0, NOW - 5, observed=True)]
    rec = reconcile(stored, slots, [], NOW)
    assert rec.kept[0].job == "8.1" and rec.kept[0].start_time == NOW - 5


def test_a_piece_of_a_pslot_ends_when_its_job_starts_on_a_dynamic_slot() -> None:
    pslot = slot("slot1@m", PartitionableSlot="true", Cpus=8)
    piece = claim("slot1@m#1.0", "1.0", partitionable="slot1@m",
                  resources=(("Cpus", 1.0), ("Memory", 1024.0)))
    other = claim("slot1@m#1.1", "1.1", partitionable="slot1@m")
    jobs = [job(1, 0, "alice", JobStatus=2), job(1, 1, "alice")]
    quiet = reconcile([piece, other], [pslot], jobs, NOW)
    assert quiet.ended == [] and len(quiet.kept) == 2
    dynamic = slot("slot1_1@m", state="Claimed", user=A, SlotType='"Dynamic"',
                   JobId='"1.0"')
    rec = reconcile([piece, other], [pslot, dynamic], jobs, NOW)
    assert [(c.slot, why) for c, why in rec.ended] == [
        ("slot1@m#1.0", "job started on slot1_1@m")]
    assert [(c.slot, c.job, c.observed) for c in rec.added] == [("slot1_1@m", "1.0", True)]
    # the parent gone ends every piece
    lost = reconcile([piece, other], [], jobs, NOW)
    assert {why for _c, why in lost.ended} == {"slot disappeared"}


# -- a claim made by preempting: pending while the slot ad shows the preempted user -------

C = user("carol")


def pending(job_id: str = "1.0") -> Claim:
    """alice's claim of s1@m, made by preempting bob."""
    return claim("s1@m", job_id, A, preempted_user=B)


def test_a_pending_claim_is_kept_while_the_ad_shows_the_preempted_user() -> None:
    old_ad = slot("s1@m", state="Claimed", user=B, JobId='"7.0"')
    rec = reconcile([pending()], [old_ad], [job(1, 0, "alice")], NOW)
    assert rec.ended == []
    # kept as stored (still pending, its own job), and bob gets no observed claim back
    assert rec.kept == [pending()] and rec.added == []
    # the slot ad in the Preempting state says the same
    leaving = slot("s1@m", state="Preempting", user=B, JobId='"7.0"')
    assert reconcile([pending()], [leaving], [job(1, 0, "alice")], NOW).kept == [pending()]


def test_the_ad_showing_the_new_user_confirms_a_pending_claim() -> None:
    mine = slot("s1@m", state="Claimed", user=A, JobId='"1.0"')
    rec = reconcile([pending()], [mine], [job(1, 0, "alice", JobStatus=2)], NOW)
    assert rec.ended == [] and rec.added == []
    assert rec.kept == [replace(pending(), preempted_user=None)]
    # HTCondor's startd names the incoming user as PreemptingUser while it preempts
    handing = slot("s1@m", state="Preempting", user=B, PreemptingUser=f'"{A}"')
    rec = reconcile([pending()], [handing], [job(1, 0, "alice")], NOW)
    assert rec.kept == [replace(pending(), preempted_user=None)] and rec.added == []
    # once confirmed, the old user showing up again is another user
    back = reconcile(rec.kept, [slot("s1@m", state="Claimed", user=B)], [job(1, 0, "alice")],
                     NOW + 60)
    assert [why for _c, why in back.ended] == ["slot shows another user"]


def test_a_third_user_ends_a_pending_claim() -> None:
    third = slot("s1@m", state="Claimed", user=C, JobId='"9.0"')
    rec = reconcile([pending()], [third], [job(1, 0, "alice")], NOW)
    assert [(c, why) for c, why in rec.ended] == [(pending(), "slot shows another user")]
    assert [(c.submitter, c.job, c.observed) for c in rec.added] == [(C, "9.0", True)]


def test_a_pending_claim_still_follows_its_job_and_slot() -> None:
    old_ad = slot("s1@m", state="Claimed", user=B, JobId='"7.0"')
    rec = reconcile([pending()], [old_ad], [job(1, 0, "alice", JobStatus=5)], NOW)
    assert [why for _c, why in rec.ended] == ["job is held"]
    assert [(c.submitter, c.observed) for c in rec.added] == [(B, True)]  # bob's again
    assert [why for _c, why in reconcile([pending()], [], [job(1, 0, "alice")],
                                         NOW).ended] == ["slot disappeared"]
    # an idle ad in between does not end the wait: the preempted user is remembered
    idle = reconcile([pending()], [slot("s1@m")], [job(1, 0, "alice")], NOW)
    assert idle.kept == [pending()]
    assert reconcile(idle.kept, [old_ad], [job(1, 0, "alice")], NOW + 60).kept == [pending()]


def test_claims_left_is_what_the_pieces_leave_integral_amounts_as_integers() -> None:
    """A partitionable slot offers what its live pieces leave: Cpus 8 - 2 - 1 = 5 stays
    an integer (``isInteger(Cpus)``, ``string(Cpus)`` and the carving keys tell 5 from
    5.0), a fractional remainder stays real, and no claims leave nothing to rebind."""
    pslot = slot("slot1@m", Cpus=8, Memory=4096, Disk=1000)
    pieces = [claim("slot1@m#1.0", "1.0", partitionable="slot1@m",
                    resources=(("Cpus", 2.0), ("Memory", 1024.5))),
              claim("slot1@m#1.1", "1.1", partitionable="slot1@m",
                    resources=(("Cpus", 1.0), ("Memory", 1024.0)))]
    left = claims_left(pslot.ad, pieces, NOW)
    assert left == {"Cpus": 5, "Memory": 2047.5}
    assert type(left["Cpus"]) is int and type(left["Memory"]) is float
    assert claims_left(pslot.ad, [], NOW) == {}

