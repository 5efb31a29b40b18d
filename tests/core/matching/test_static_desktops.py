"""Static desktops whose ``START`` names their owner share their machine type's static
part (``own_literals`` hoisted for static slots too, ``static_programs`` keeping the
owner in the vector): their pairs are answered by the (class, part) program instead
of a full evaluation each, once their part holds ``SHARED_LITERALS`` pair shapes (a
smaller part's desktops get their ads back, ``OwnLiterals.unhoist``). Checked against
the plain reference cycle; without the owner in the vector every desktop is a part of
its own again."""

from __future__ import annotations

from condorlite.core import adeval
from condorlite.core.matching import static_programs
from condorlite.core.matching.own_literals import HIDDEN
from condorlite.core.matching.slot_vectors import VectorNumbers, vector_of
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import ad_text, run_both

POLICY = Policy(uid_domain="example.org")
USERS = ("alice", "bob", "carol", "dave")


def _desktop(i: int) -> str:
    owner = USERS[i % len(USERS)]
    # a static slot each, its own Disk (its own pair shape); the keyboard in use on
    # every third, where START is the owner's test alone once folded (``own_policy``)
    return ad_text(dict(
        Name=f'"slot1@desk{i}"', Machine=f'"desk{i}"', State='"Unclaimed"',
        Activity='"Idle"', Cpus=4, Memory=8192, Disk=50000 + 1000 * i,
        Arch='"X86_64"', OpSys='"LINUX"', KeyboardIdle=60 if i % 3 == 0 else 3600,
        Start=f'(KeyboardIdle > 15 * 60) || (TARGET.Owner == "{owner}")',
        Requirements="START", Rank="0", CurrentRank="0.0", SlotWeight="Cpus"))


def _job(cluster: int, proc: int, owner: str, disk: int) -> str:
    return ad_text(dict(
        ClusterId=cluster, ProcId=proc, Owner=f'"{owner}"', JobStatus=1, JobPrio=0,
        QDate=1000 + cluster, RequestCpus=1, RequestMemory=1024, RequestDisk=disk,
        Requirements='TARGET.OpSys == "LINUX" && TARGET.Disk >= RequestDisk'))


SLOTS = [_desktop(i) for i in range(60)]  # 20 busy, 40 idle
#: alice's, bob's and erin's jobs (erin owns no desktop), the Disk bound on the way
JOBS = ([_job(1, p, "alice", 60000) for p in range(8)]
        + [_job(2, p, "bob", 80000) for p in range(6)]
        + [_job(3, p, "erin", 51000) for p in range(30)])


def test_static_desktops_share_their_types_part_and_decide_as_the_reference(
        monkeypatch) -> None:
    # (a part of desktops gets programs from SHARED_LITERALS pair shapes; 20 here)
    monkeypatch.setattr(static_programs, "SHARED_LITERALS", 16)
    fast, result = run_both(SLOTS, JOBS, POLICY)
    numbers = fast.mm.table._numbers
    parts = {numbers.of(o).static for o in fast.offers
             if numbers.of(o) is not None}
    # the busy desktops' folded START names the owner: one part for them all, and
    # one for the idle ones (START true), not one per owner
    assert 1 <= len(parts) <= 2
    # (programmed desktops keep the hoisted ad: their programs read the owner)
    assert all(adeval.attr(o.ad, o.literals[0]) is not None
               for o in fast.offers if o.literals)
    assert sum(numbers.of(o) is not None for o in fast.offers) == len(SLOTS)
    # erin's jobs find only idle desktops
    busy = {f"slot1@desk{i}" for i in range(0, 60, 3)}
    assert all(m.slot not in busy for m in result.matches if m.job.startswith("3."))
    assert len(result.matches) > 14


def test_without_the_owner_in_the_vector_each_busy_desktop_is_its_own_part(
        monkeypatch) -> None:
    monkeypatch.setattr(static_programs, "SHARED_LITERALS", 16)
    class WithoutLiterals(VectorNumbers):  # (the static offers' maker only)
        def of(self, ad, literals=()):  # type: ignore[no-untyped-def]
            return vector_of(ad, self._resource_names)

    monkeypatch.setattr(static_programs, "VectorNumbers", WithoutLiterals)
    fast, _ = run_both(SLOTS, JOBS, POLICY)
    numbers = fast.mm.table._numbers
    shared = [o for o in fast.offers if numbers.of(o) is not None]
    # (the idle desktops still share one; the busy ones, an owner each, do not)
    assert len(shared) < len(SLOTS)


def test_a_part_of_desktops_below_shared_literals_is_evaluated_in_full() -> None:
    # 20 busy desktops (20 pair shapes) share a part, below SHARED_LITERALS (64):
    # no program for it; the 40 idle ones (no literal in their vector) have one
    assert static_programs.SHARED_LITERALS > 20 >= static_programs.SHARED
    fast, result = run_both(SLOTS, JOBS, POLICY)
    numbers = fast.mm.table._numbers
    shared = [o for o in fast.offers if numbers.of(o) is not None]
    assert len(shared) == 40
    assert all(numbers.of(o).literals == 0 for o in shared)
    # the busy desktops were hoisted, then given their ads back (``unhoist``): their
    # full evaluations read the owner's literal, not the hidden reference
    busy_offers = [o for o in fast.offers if o.literals]
    assert len(busy_offers) == 20
    assert all(adeval.attr(o.ad, o.literals[0]) is None for o in busy_offers)
    assert all(HIDDEN not in repr(adeval.attr(o.ad, "start")) for o in busy_offers)
    busy = {f"slot1@desk{i}" for i in range(0, 60, 3)}
    assert all(m.slot not in busy for m in result.matches if m.job.startswith("3."))
