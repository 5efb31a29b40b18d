"""A rank-only list (a submitter over its limit, preemption by priority off) passes
over the held groups its class's plan defers (``HeldGroups.plan``: no offer there
prefers the job by rank) instead of evaluating each one's pair: such a list lists
offers by rank alone and counts nothing. Checked against the plain reference cycle,
and shown to matter: a rank-only list that passed over every group decides
otherwise."""

from __future__ import annotations

import pytest

from condorlite.core.matching.held_groups import HeldGroups
from condorlite.core.matching.match_table import MatchTable
from condorlite.core.matching.request_lists import RequestLists
from condorlite.core.policy import Policy
from tests.core._pool import UID
from tests.core.matching._against_reference import ad_text, run_both

POLICY = Policy(uid_domain=UID, preemption_requirements="False")


def _slot(n: int, rank: str, current: float, holder: str | None) -> str:
    attrs: dict[str, object] = {
        "Name": f'"slot1_{n}@m{n}"', "Machine": f'"m{n}"', "SlotID": 1,
        "State": '"Claimed"' if holder else '"Unclaimed"',
        "Activity": '"Busy"' if holder else '"Idle"', "Cpus": 1, "Memory": 2048,
        "Disk": 100000 + 173 * n, "Arch": '"X86_64"', "OpSys": '"LINUX"',
        "Requirements": "START", "START": "true", "Rank": rank,
        "CurrentRank": current, "SlotWeight": "Cpus", "TotalJobRunTime": 100 + n}
    if holder:
        attrs.update(RemoteUser=f'"{holder}@{UID}"', RemoteOwner=f'"{holder}"')
    return ad_text(attrs)


def _job(cluster: int, proc: int, owner: str, prio: int, disk: int = 1000) -> str:
    return ad_text({
        "ClusterId": cluster, "ProcId": proc, "Owner": f'"{owner}"', "JobStatus": 1,
        "JobPrio": prio, "QDate": 1000 + cluster, "RequestCpus": 1, "RequestMemory": 1024,
        "RequestDisk": disk, "Requirements": "TARGET.Disk >= RequestDisk"})


# Two free slots; held ones (each its own Disk: its own pair shape) that a job of
# JobPrio 7 beats by rank (Rank = JobPrio against CurrentRank 5), and ones whose
# literal Rank prefers no job. Two submitters of many jobs, each soon over its limit
# (twelve more share the pie, with jobs no slot fits).
SLOTS = ([_slot(n, "0", 0.0, None) for n in range(2)]
         + [_slot(10 + n, "TARGET.JobPrio", 5.0, "old") for n in range(8)]
         + [_slot(20 + n, "0", 0.0, "old") for n in range(8)])
JOBS = ([_job(1, p, "new", 7) for p in range(6)] + [_job(2, p, "alt", 7) for p in range(6)]
        + [_job(3, p, "new", 3) for p in range(3)]
        + [_job(4 + n, 0, f"idle{n}", 0, 10**9) for n in range(12)])


def test_rank_only_lists_pass_over_deferred_groups(monkeypatch) -> None:
    rank_only: list[int] = []
    asked: list[bool] = []
    held, pair = RequestLists._held_candidates, MatchTable.pair
    in_rank_only = [False]

    def watched(self, build):  # type: ignore[no-untyped-def]
        in_rank_only[0] = build.only_rank
        rank_only.append(build.only_rank)
        try:
            return held(self, build)
        finally:
            in_rank_only[0] = False

    def counted(self, *args):  # type: ignore[no-untyped-def]
        asked.append(in_rank_only[0])
        return pair(self, *args)

    monkeypatch.setattr(RequestLists, "_held_candidates", watched)
    monkeypatch.setattr(MatchTable, "pair", counted)
    _, result = run_both(SLOTS, JOBS, POLICY)
    assert any(rank_only)  # (rank-only lists were made)
    assert any(m.reason == "rank" for m in result.matches)
    # the eight groups of a literal Rank are never evaluated for a rank-only list
    assert sum(asked) <= 4


def test_rank_only_lists_passing_over_every_group_decide_otherwise(monkeypatch) -> None:
    plan = HeldGroups.plan
    only = [False]
    held = RequestLists._held_candidates

    def watched(self, build):  # type: ignore[no-untyped-def]
        only[0] = build.only_rank
        return held(self, build)

    def blind(self, key, slot_rank, rank_key, numbers=None, row=None):  # type: ignore[no-untyped-def]
        deferred, rest = plan(self, key, slot_rank, rank_key, numbers, row)
        return (deferred, []) if only[0] else (deferred, rest)

    monkeypatch.setattr(RequestLists, "_held_candidates", watched)
    monkeypatch.setattr(HeldGroups, "plan", blind)
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, POLICY)
