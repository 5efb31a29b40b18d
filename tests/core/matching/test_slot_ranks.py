"""``slot_ranks``: a held slot's ``Rank`` of a class is shared between the classes that
bind alike what it reads of the job (known from its tree, both ads binding it to
literals). Checked against the plain reference cycle with preemption by priority on
and off, and shown to matter: a key blind to the job's numbers decides otherwise."""

from __future__ import annotations

import pytest

from condorlite.core.matching import request_lists
from condorlite.core.matching.held_groups import HeldGroups
from condorlite.core.matching.slot_ranks import SharedRanks
from condorlite.core.policy import Policy
from tests.core._pool import UID
from tests.core.matching._against_reference import run_both
from tests.core.matching.test_held_rank_keys import SLOTS


def _job(owner: str, cluster: int, proc: int, prio: int, disk: int) -> str:
    return "\n".join([
        f"ClusterId = {cluster}", f"ProcId = {proc}", f'Owner = "{owner}"', "JobStatus = 1",
        f"JobPrio = {prio}", f"QDate = {1000 + cluster}", "RequestCpus = 1",
        "RequestMemory = 1024", f"RequestDisk = {disk}",
        "Requirements = TARGET.Disk >= RequestDisk", ""])


# (The slots' Rank is TARGET.JobPrio + Bonus, CurrentRank 6: Bonus 0 on slots 0-3, 3
# on slots 4-7.) Submitter a's classes 1 and 2 differ in RequestDisk alone: one Rank
# per rank key for both. Submitter b (negotiated after a) has JobPrio 7, which beats
# CurrentRank on slots 0-3 too: its five jobs need them.
JOBS = [_job("a", 1, 0, 5, 1000), _job("a", 2, 0, 5, 2000), _job("a", 2, 1, 5, 2000),
        *[_job("b", 3, p, 7, 1000) for p in range(5)]]


@pytest.mark.parametrize("requirements", ["False", "True"])
def test_shared_ranks_decide_as_the_reference(requirements: str) -> None:
    policy = Policy(uid_domain=UID, preemption_requirements=requirements)
    fast, _ = run_both(SLOTS, JOBS, policy)
    reasons = fast.mm.lists.reasons
    if requirements == "False":
        # (preemption by priority off: a class's plan asks both rank keys, once per
        # job numbers of what the Ranks read, ``HeldGroups.plan``: classes 1 and 2
        # share theirs; three classes, two job numbers)
        assert len(fast.mm.lists._held._alike) == 2
        assert len(reasons._shared.values) == 4
        assert len(reasons._slot_ranks) < 6


def test_plans_blind_to_the_job_decide_otherwise(monkeypatch) -> None:
    # Every class one job number in the plans' key (``slot_ranks.job_numbers``): a's
    # Ranks stand for b's, whose plan then defers the slots 0-3 it beats by rank.
    monkeypatch.setattr(request_lists, "job_numbers", lambda number, job_ad, names: ())
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, Policy(uid_domain=UID, preemption_requirements="False"))


def test_a_key_blind_to_the_job_decides_otherwise(monkeypatch) -> None:
    # Every class one job number: a's Rank (JobPrio 5) stands for b's, which loses
    # the slots 0-3 it beats by rank.
    key = SharedRanks.key

    def blind(self, klass, job_ad, offer, expr, rank_key):  # type: ignore[no-untyped-def]
        found = key(self, klass, job_ad, offer, expr, rank_key)
        return None if found is None else (found[0], ())

    monkeypatch.setattr(SharedRanks, "key", blind)
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, Policy(uid_domain=UID, preemption_requirements="False"))


def test_classes_of_equal_ranks_share_their_plan() -> None:
    # With preemption by priority off, the classes of the same Rank on each rank key
    # share one split of the held groups while no group changes (``HeldGroups.plan``;
    # asked after a cycle of a's first job alone, which leaves seven groups held).
    fast, _ = run_both(SLOTS, JOBS[:1],
                       Policy(uid_domain=UID, preemption_requirements="False"))
    held, rank_key = fast.mm.lists._held, fast.mm.lists.reasons.rank_key
    one = held.plan((101, ()), lambda first: 5.0, rank_key)
    two = held.plan((102, ()), lambda first: 5.0, rank_key)
    assert two[0] is one[0] and two[1] is one[1]  # (the same lists)
    other = held.plan((103, ()), lambda first: 7.0, rank_key)
    assert other != one  # (JobPrio 7 beats CurrentRank 6 on slots 0-3 too)


class _AnyRanks(dict):
    """A table of plans by Ranks that gives its first plan whatever the Ranks."""

    def get(self, key, default=None):  # type: ignore[no-untyped-def]
        return next(iter(self.values()), default)


def test_plans_shared_whatever_the_ranks_decide_otherwise(monkeypatch) -> None:
    # Slots 0-3 alone (Bonus 0). a's one job fits no slot (its list takes no held
    # offer: no group changes), and every class takes a's split: b's list defers
    # every group, and b's job, which beats CurrentRank on them, is left without one.
    jobs = [_job("a", 1, 0, 5, 10**9), _job("b", 3, 0, 7, 1000)]
    init = HeldGroups.__init__

    def any_ranks(self, registry):  # type: ignore[no-untyped-def]
        init(self, registry)
        self._by_ranks = _AnyRanks()

    policy = Policy(uid_domain=UID, preemption_requirements="False")
    run_both(SLOTS[:4], jobs, policy)
    monkeypatch.setattr(HeldGroups, "__init__", any_ranks)
    with pytest.raises(AssertionError):
        run_both(SLOTS[:4], jobs, policy)


def test_a_class_s_ranks_asked_once_whatever_the_plans_remade() -> None:
    # A class's Rank per rank key is kept per class key (``HeldGroups.plan``): a plan
    # remade after a group changed asks none again.
    fast, _ = run_both(SLOTS, JOBS[:1],
                       Policy(uid_domain=UID, preemption_requirements="False"))
    held, rank_key = fast.mm.lists._held, fast.mm.lists.reasons.rank_key
    asked: list[object] = []
    one = held.plan((201, ()), lambda first: asked.append(first) or 5.0, rank_key)
    assert len(asked) == 2  # (the two rank keys)
    held.epoch += 1  # (as a group losing an offer moves it)
    two = held.plan((201, ()), lambda first: asked.append(first) or 5.0, rank_key)
    assert len(asked) == 2 and two == one


class _OneTable(dict):
    """Class keys -> one table of Ranks for all of them."""

    def get(self, key, default=None):  # type: ignore[no-untyped-def]
        return next(iter(self.values()), default)


def test_ranks_kept_for_every_class_alike_decide_otherwise(monkeypatch) -> None:
    # One table of Ranks for every class key: b's classes take a's (JobPrio 5), and
    # lose the slots 0-3 that b beats by rank.
    init = HeldGroups.__init__

    def one_table(self, registry):  # type: ignore[no-untyped-def]
        init(self, registry)
        self._ranks = _OneTable()

    policy = Policy(uid_domain=UID, preemption_requirements="False")
    monkeypatch.setattr(HeldGroups, "__init__", one_table)
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, policy)
