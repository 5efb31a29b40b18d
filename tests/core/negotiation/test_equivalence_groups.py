"""With accounting groups, each group turn of the optimised cycle decides what the
reference cycle's does.

``group_cycle.negotiate`` plans the turns (``group_plan``) and runs each on one
``negotiator.Cycle``; the reference (``tests/core/reference``) plans nothing: it is
given the same turns (which submitters, the turn's limit, the group's room, the
negotiating group) and the same group facts (each submitter's group, the quotas and
usage the ``*Group*`` attributes carry), and runs them on its own offers. So this
holds the matchmaking and the fair-share walk inside group turns to the plain ones:
one pool of offers across turns (a slot taken in one turn is gone for the next, a
partitionable slot offers what it has left), the pool cut to the turn's limit, the
pie and the unclaimed limit cut to the room, and the ``SubmitterGroup*`` /
``RemoteGroup*`` attributes policies read. The group plan itself (quotas, surplus,
rounds) is tested in ``test_groups`` and ``test_negotiator_groups``.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from condorlite.core.model import Submitter
from condorlite.core.negotiation import group_cycle
from condorlite.store.config import load_policy
from tests.core._pool import decoded_pool
from tests.core.negotiation.test_equivalence import NOW, _fingerprint
from tests.core.reference.cycle import ReferenceCycle
from tests.core.reference.pool import AccountingGroups

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import genpool  # a script directory, not a package

GROUPS = ("group_a", "group_b", "group_b.sub", "group_c")

#: preemption between groups, reading every group attribute the negotiator inserts:
#: a group takes slots from groups that use more than it does
GROUP_PREEMPTION = dict(
    preemption_requirements=("RemoteGroup =!= SubmitterGroup && RemoteGroupQuota > 0 && "
                             "RemoteGroupResourcesInUse > SubmitterGroupResourcesInUse && "
                             "SubmitterGroupQuota > 0"),
    preemption_rank="RemoteUserPrio * 10 - TotalJobRunTime",
    # group_a's turns prefer the largest memory, the others' the smallest
    negotiator_pre_job_rank='ifThenElse(SubmitterNegotiatingGroup =?= "group_a", 1, -1) * Memory',
)

KNOBS = {
    "surplus": {},
    "no-surplus": dict(group_accept_surplus=False),
    "group-preemption": GROUP_PREEMPTION,
    # jobs negotiating in an autoregroup turn prefer the fewest cores, else the most
    "autoregroup": dict(group_autoregroup=True, group_accept_surplus=False,
                        negotiator_pre_job_rank="ifThenElse(SubmitterAutoregroup, -Cpus, Cpus)"),
}


class _Recording(group_cycle.Cycle):
    """The engine's cycle, keeping the group facts it was given and every turn run."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.turns_run: list[tuple[tuple, dict[str, float]]] = []

    def run_turn(self, names, pool_limit, room, group, autoregroup):
        changes = super().run_turn(names, pool_limit, room, group, autoregroup)
        self.turns_run.append(((names, pool_limit, room, group, autoregroup), changes))
        return changes


def _grouped_pool(tmp: Path, seed: int, knobs: dict):
    spec = genpool.PoolSpec(slots=60, jobs=240, submitters=8, autoclusters=16, seed=seed,
                            claimed_fraction=0.35, groups=GROUPS,
                            partitionable_fraction=0.5)
    files = genpool.write_pool(spec, tmp)
    policy = replace(load_policy(files.config_path), **knobs)
    slots, jobs = decoded_pool(files, policy, shared=True)
    usage: dict[str, float] = {}
    for slot in slots:
        if slot.remote_user:
            usage[slot.remote_user] = usage.get(slot.remote_user, 0.0) + slot.weight
    names = sorted({j.submitter for j in jobs} | set(usage))
    subs = {n: Submitter(n, eup=500.0 * (1 + (i * 7) % 11), usage=usage.get(n, 0.0))
            for i, n in enumerate(names)}
    return slots, jobs, subs, policy


@pytest.mark.parametrize("name", sorted(KNOBS))
@pytest.mark.parametrize("seed", [1, 2])
def test_group_turns_equal_the_reference(tmp_path, monkeypatch, name, seed):
    slots, jobs, subs, policy = _grouped_pool(tmp_path, seed, KNOBS[name])
    cycles: list[_Recording] = []

    def recording(*args, **kwargs):
        cycles.append(_Recording(*args, **kwargs))
        return cycles[-1]

    monkeypatch.setattr(group_cycle, "Cycle", recording)
    fast, _outcome = group_cycle.negotiate(slots, jobs, subs, [], policy, NOW)
    (engine,) = cycles
    assert len(engine.turns_run) > len(GROUPS)  # several rounds of turns
    facts = engine.groups
    assert facts is not None
    names = {j.submitter for j in jobs} | set(subs)
    accounting = AccountingGroups({n: facts.group_of(n) for n in names},
                                  dict(facts.quota), dict(facts.usage))
    plain = ReferenceCycle(slots, jobs, subs, policy, NOW, accounting)
    for args, changes in engine.turns_run:
        assert plain.run_turn(*args) == changes
    if name == "autoregroup":
        assert any(autoregroup for (*_, autoregroup), _ in engine.turns_run)
    assert _fingerprint(fast) == _fingerprint(plain.result())
    assert fast.matches
    if name == "group-preemption":
        assert any(m.reason == "priority" for m in fast.matches)
