"""A held slot's job-independent ranks are worked out when first read (``lazy_ranks``):
never for a slot that is never listed, and, for one listed by preemption, the values
a full ``prepare`` gives, which order the preemption candidates."""

from __future__ import annotations

from condorlite.core.matching.first_states import FirstStates
from condorlite.core.matching.lazy_ranks import LazyRanks
from condorlite.core.negotiation import negotiator
from condorlite.core.policy import Policy
from tests.core._pool import UID, decoded_texts

NOW = 1_700_000_000


def test_a_rank_is_worked_out_once_on_its_first_read() -> None:
    asked: list[str] = []
    ranks = LazyRanks(["pre", "prank"], lambda key: asked.append(key) or float(len(key)))
    assert "pre" in ranks and "post" not in ranks and len(ranks) == 2
    assert asked == []  # (which ranks are independent is known without a value)
    assert ranks["prank"] == 5.0 and ranks["prank"] == 5.0
    assert asked == ["prank"]
    assert dict(ranks) == {**ranks} == {"pre": 3.0, "prank": 5.0} == ranks
    assert asked == ["prank", "pre"]
    assert ranks.get("post", -1.0) == -1.0


def _held(name: str, runtime: int) -> str:
    # Busy slots of one machine: the same lines but the name, the slot's id and its
    # job's run time (so they share a loose first-state record, ``first_states``).
    slot_id = name.split("@")[0][4:]
    return "\n".join([
        f'Name = "{name}"', 'Machine = "m1"', f"SlotID = {slot_id}", 'State = "Claimed"',
        'Activity = "Busy"', "Cpus = 1", "Memory = 2048", "Disk = 100000",
        'Arch = "X86_64"', 'OpSys = "LINUX"', "Requirements = START", "START = true",
        "Rank = TARGET.JobPrio", "CurrentRank = 0.0", "SlotWeight = Cpus",
        'RemoteUser = "old@example.org"', 'RemoteOwner = "old"',
        f"TotalJobRunTime = {runtime}", ""])


def _job(proc: int) -> str:
    return "\n".join([
        "ClusterId = 1", f"ProcId = {proc}", 'Owner = "new"', "JobStatus = 1",
        "JobPrio = 5", "QDate = 1000", "RequestCpus = 1", "RequestMemory = 1024",
        "RequestDisk = 1000", 'Requirements = (TARGET.Arch == "X86_64")', ""])


def _cycles(monkeypatch):
    """The cycle with first-state records (lazy ranks for held slots) and without."""
    # PREEMPTION_RANK (-TotalJobRunTime) prefers to preempt the jobs that have run
    # least: slot2's, then slot4's, which is not the order of the names.
    runtimes = {"slot1@m1": 50, "slot2@m1": 10, "slot3@m1": 900, "slot4@m1": 30}
    policy = Policy(uid_domain=UID)
    slots, jobs = decoded_texts([_held(n, r) for n, r in runtimes.items()],
                                [_job(0), _job(1)], policy, True)
    shared = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
    with monkeypatch.context() as patch:
        patch.setattr(FirstStates, "find", lambda self, ad, busy, kind: None)
        patch.setattr(FirstStates, "find_loose", lambda self, ad, busy, kind: None)
        full = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
    return shared, full


def test_held_slots_listed_by_rank_preemption_rank_as_in_full(monkeypatch) -> None:
    shared, full = _cycles(monkeypatch)
    lazy = [o for o in shared.offers if type(o.independent) is LazyRanks]
    assert len(lazy) >= 2  # (the later slots of the machine share the first's record)
    shared.run()
    full.run()
    one, two = shared.result(), full.result()
    # (by rank preemption: each slot's Rank prefers the new job)
    assert [m.slot for m in one.matches] == ["slot2@m1", "slot4@m1"]
    assert one.matches == two.matches
    assert [o.independent for o in shared.offers] == [o.independent for o in full.offers]


def test_a_held_slot_never_listed_costs_no_evaluation(monkeypatch) -> None:
    shared, full = _cycles(monkeypatch)
    assert shared.mm.evaluations < full.mm.evaluations
    # (reading them all evaluates what the full prepare did)
    for offer in shared.offers:
        dict(offer.independent)
    assert shared.mm.evaluations == full.mm.evaluations
