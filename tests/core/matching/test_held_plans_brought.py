"""Held plans brought up to date as offers leave (``HeldGroups.plan``, preemption by
priority off): the literal-Rank plan and the class plans lose the groups that emptied
(``_left_out``, ``_brought``), a rank key's groups of one lowest CurrentRank are split
at once (``RankKeyGroups``), instead of all being made again at every change. Checked
on cycles of
claimed desktops that prefer their owners' jobs (rank preemption empties groups; twin
desktops make groups of two offers, which lose one without emptying; a desktop of a
higher ``CurrentRank`` makes a key of mixed lowest ranks; several desktops per owner
make keys whose first group empties, which moves the keys' order), each answer
against the plans and counts of a ``HeldGroups`` made afresh at that moment, and the
cycle against the reference."""

from __future__ import annotations

import pytest

from condorlite.core.matching import held_groups
from condorlite.core.matching.held_groups import HeldGroups
from condorlite.core.policy import Policy
from tests.core._pool import UID
from tests.core.matching._against_reference import run_both
from tests.core.matching.test_held_deferred_counts import plain_counts

OWNERS = ["u0", "u1", "u2", "u3"]


def _desktop(n: int, owner: str, holder: str, current: float, twin: int = 0) -> str:
    # (twins bind alike every name a pair reads: one pair shape, a group of two)
    return "\n".join([
        f'Name = "slot1@d{n}_{twin}"', f'Machine = "d{n}_{twin}"', "SlotID = 1",
        'SlotType = "Static"', 'State = "Claimed"', 'Activity = "Busy"', "Cpus = 1",
        "Memory = 4096", f"Disk = {200000 + 1000 * n}", 'Arch = "X86_64"',
        'OpSys = "LINUX"', "Requirements = START", "START = true",
        f'Rank = TARGET.Owner == "{owner}"', f"CurrentRank = {current}",
        "SlotWeight = Cpus", f'RemoteUser = "{holder}@{UID}"',
        f'RemoteOwner = "{holder}"', "TotalJobRunTime = 100", ""])


def _job(proc: int, owner: str, disk: int) -> str:
    return "\n".join([
        "ClusterId = 1", f"ProcId = {proc}", f'Owner = "{owner}"', "JobStatus = 1",
        "JobPrio = 0", "QDate = 1000", "RequestCpus = 1", "RequestMemory = 1024",
        f"RequestDisk = {disk}", "Requirements = TARGET.Disk >= RequestDisk", ""])


def _pool() -> tuple[list[str], list[str]]:
    slots = []
    for n in range(24):
        owner = OWNERS[n % 4]
        holder = "h" + str(n % 3)
        # (one desktop of a higher CurrentRank: its key's groups split one by one)
        slots.append(_desktop(n, owner, holder, 1.0 if n == 5 else 0.0))
        if n % 6 == 1:
            slots.append(_desktop(n, owner, holder, -0.5 if n == 7 else 0.0, twin=1))
    jobs = []
    for proc in range(40):
        # (jobs of every owner and of holders, of growing disk: the later ones fit
        # fewer desktops, and some none, so that their rejections read the counts)
        owner = [*OWNERS, "h0", "h1"][proc % 6]
        jobs.append(_job(proc, owner, 150000 + 2500 * proc))
    # (enough jobs of one owner to take all its desktops, twins of unequal
    # CurrentRank among them: a group's lowest rank moves, and its plans are made anew)
    jobs += [_job(40 + proc, "u3", 150000) for proc in range(10)]
    return slots, jobs


def _fresh(held: HeldGroups) -> HeldGroups:
    """A ``HeldGroups`` of the same groups now, with no plan kept (but each pair
    shape's first offer, which the plans made in full keep too: any offer of a
    group stands for it)."""
    fresh = HeldGroups(held.registry)
    fresh.groups, fresh.epoch, fresh.added = held.groups, held.epoch, held.added
    fresh._firsts = dict(held._firsts)
    return fresh


def _checked(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    """Wrap ``plan`` and ``deferred_counts`` to compare every answer with one made
    afresh (the same lists in the same order), counting the ways taken."""
    seen = {"plans": 0, "brought": 0}
    plan, counts, brought = HeldGroups.plan, HeldGroups.deferred_counts, HeldGroups._brought

    def checked_plan(self, key, slot_rank, rank_key, numbers=None, row=None):
        got = plan(self, key, slot_rank, rank_key, numbers, row)
        # (afresh by the per-key path: no sharing by numbers, no row)
        want = plan(_fresh(self), key, slot_rank, rank_key, None, None)
        assert got == want
        seen["plans"] += 1
        return got

    def checked_counts(self, deferred, submitter):
        got = counts(self, deferred, submitter)
        assert list(got) == plain_counts(deferred, submitter)
        return got

    def counted_brought(self, found):
        seen["brought"] += 1
        return brought(self, found)

    monkeypatch.setattr(HeldGroups, "plan", checked_plan)
    monkeypatch.setattr(HeldGroups, "deferred_counts", checked_counts)
    monkeypatch.setattr(HeldGroups, "_brought", counted_brought)
    return seen


def test_plans_brought_up_to_date_are_the_plans_made_afresh(monkeypatch) -> None:
    seen = _checked(monkeypatch)
    slots, jobs = _pool()
    fast, _ = run_both(slots, jobs, Policy(uid_domain=UID))
    held = fast.mm.shapes.held
    # (the ways this test is for were taken: plans and counts brought up to date)
    assert seen["plans"] and seen["brought"], seen
    assert held.epoch > held.added


def test_a_plan_kept_with_its_emptied_groups_is_caught(monkeypatch) -> None:
    """Brought up to date without leaving out the emptied groups, the plans differ
    from those made afresh: the check above can fail."""
    _checked(monkeypatch)
    monkeypatch.setattr(held_groups, "_alive", list)
    slots, jobs = _pool()
    with pytest.raises(AssertionError):
        run_both(slots, jobs, Policy(uid_domain=UID))


def test_a_key_order_left_unmoved_is_caught(monkeypatch) -> None:
    """The rank keys taken in their old order when a key's first group has emptied
    (``_since`` never moved): the class plans differ from those made afresh."""
    _checked(monkeypatch)
    real = HeldGroups._left_out

    def unmoved(self, plan, touched):
        since = self._since
        out = real(self, plan, touched)
        if out is not None and self._since != since:
            self._since = since
            out = (out[0], out[1], {key: out[2][key] for key in plan[2] if key in out[2]})
        return out
    monkeypatch.setattr(HeldGroups, "_left_out", unmoved)
    slots, jobs = _pool()
    with pytest.raises(AssertionError):
        run_both(slots, jobs, Policy(uid_domain=UID))

