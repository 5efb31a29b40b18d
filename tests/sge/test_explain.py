"""``sge explain`` takes a job's tickets apart: on every recorded run, for every job,
the parts it names add up to the figures the policies gave (and so to qstat's)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from condorlite.core.sge.explain import explain
from condorlite.core.sge.priority import prioritise
from condorlite.store.sge_cell import read_cell
from tests.sge.recorded import snapshots

RUNS = [s for s in snapshots() if "mix_all" in str(s) or "rnd_1" in str(s) or "o6" in str(s)]


@pytest.mark.parametrize("snapshot", RUNS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_parts_add_up(snapshot: Path) -> None:
    cell = read_cell(snapshot)
    result = prioritise(cell, cell.now)
    total = cell.sched_conf.weight_tickets_share
    for row in result.jobs:
        if row.state not in ("qw", "r"):
            continue
        assert math.isclose(sum(p.tickets for p in row.override_parts), row.otckt, abs_tol=1e-6)
        assert math.isclose(sum(row.functional_parts), row.ftckt, abs_tol=1e-6)
        part = row.sharetree_part
        shared = part.target * part.fraction * total if part else 0.0
        # running jobs with job shares are truncated to whole tickets, as the scheduler does
        assert abs(shared - row.stckt) < 1.0, (row.job.number, part, row.stckt)


def test_lift_puts_a_job_ahead() -> None:
    snapshot = next(s for s in RUNS if s.name == "t0_all_pending")
    cell = read_cell(snapshot)
    result = prioritise(cell, cell.now)
    pending = [r for r in result.jobs if r.state == "qw"]
    e = explain(result, cell, pending[5].job.number)
    assert e.position == 6 and e.lift is not None
    assert e.lift.ahead_job == pending[4].job.number
    assert e.lift.gap == pytest.approx(pending[4].prio - pending[5].prio)
