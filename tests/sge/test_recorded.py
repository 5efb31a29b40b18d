"""The differential suite: every recorded run of the real scheduler (tests/data/sge),
read by condorlite's reader and priced by its policies, agrees with what qstat printed
after the run, field by field within qstat's precision, and in the same order.

Runs recorded while the queue was enabled (dispatch runs) are compared for the jobs
still pending after the run only where nothing was dispatched (``started.txt`` empty):
a dispatch changes the figures the scheduler reports.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from condorlite.core.sge.priority import prioritise
from condorlite.store.sge_cell import read_cell
from tests.sge.recorded import differences, printed, snapshots


def _ours(row) -> dict[str, float]:
    u = row.urgency
    return {
        "prio": row.prio,
        "ntckts": row.ntckts,
        "npprior": row.npprior,
        "nurg": row.nurg,
        "urg": u.urg,
        "rrcontr": u.rrcontr,
        "wtcontr": u.wtcontr,
        "dlcontr": u.dlcontr,
        "ppri": row.job.ppri,
        "tckts": row.tickets,
        "otckt": row.otckt,
        "ftckt": row.ftckt,
        "stckt": row.stckt,
        "share": row.share,
    }


def _dispatched(snapshot: Path) -> bool:
    started = snapshot / "expected" / "started.txt"
    return started.exists() and started.read_text().strip() != ""


SNAPSHOTS = [s for s in snapshots() if not _dispatched(s)]


def test_the_suite_has_recordings() -> None:
    assert len(SNAPSHOTS) >= 10


@pytest.mark.parametrize("snapshot", SNAPSHOTS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_figures_and_order_match_the_real_scheduler(snapshot: Path) -> None:
    cell = read_cell(snapshot)
    result = prioritise(cell, cell.now)
    ours: dict[int, dict[str, float]] = {}
    for row in result.jobs:
        ours.setdefault(row.job.number, _ours(row))
    problems: list[str] = []
    qstat = printed(snapshot)
    for line in qstat:
        if line.job not in ours:
            problems.append(f"job {line.job}: condorlite has no row")
            continue
        problems += differences(ours[line.job], line)
    order: list[int] = []
    for row in result.jobs:
        if not row.running and row.job.number not in order:
            order.append(row.job.number)
    assert problems == []
    assert order == [line.job for line in qstat if "q" in line.state]
