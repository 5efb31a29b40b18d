"""The static verdicts the run keeps (``dispatch.verdicts``) against the checks they
stand for (``dispatch.static``), on every recorded dispatch cell: access lists,
project lists, hard queue lists, queue limits and unknown resources all appear
there (PEs outside a queue's pe_list in the generated cell's test,
``tests/benchmarks/test_gensge_dispatch.py``). Every job against every queue instance: the
whole verdict, and the parts a sequential scan reads (the cluster queue's, the
host's, the unknown resource)."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorlite.core.sge.dispatch.static import cqueue_reason, host_reason, static_failure, unknown
from condorlite.core.sge.dispatch.verdicts import Verdicts
from condorlite.core.sge.dispatch.world import build
from condorlite.store.sge_cell import read_cell
from tests.sge.recorded import DATA

CELLS = sorted(p.parent for p in DATA.glob("*/*/queues") if (p.parent / "hosts").is_file())


def test_there_are_cells() -> None:
    assert len(CELLS) > 20


@pytest.mark.parametrize("cell_dir", CELLS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_kept_verdicts_are_the_checks(cell_dir: Path) -> None:
    cell = read_cell(cell_dir)
    world = build(cell, cell.now)
    verdicts = Verdicts(world, cell)
    for job in cell.jobs:
        kind = verdicts.of(job)
        for inst in world.instances:
            assert kind.of(inst) == static_failure(cell, job, inst), (job.number, inst.name)
            assert kind.queue_said(inst) == cqueue_reason(cell, job, inst)
            assert kind.host_said(inst.host) == host_reason(cell, job, cell.hosts.get(inst.host))
            assert kind.unknown(inst) == unknown(cell, job, inst)


def test_the_cells_refuse_in_many_ways() -> None:
    """The recorded cells give the comparison something to compare: refusals by the
    cluster queue, by the host, by a request and by an unknown resource."""
    said: set[str] = set()
    for cell_dir in CELLS:
        cell = read_cell(cell_dir)
        world = build(cell, cell.now)
        for job in cell.jobs:
            for inst in world.instances:
                why = static_failure(cell, job, inst)
                if why is not None:
                    said.add(why)
    joined = " | ".join(sorted(said))
    for part in ("has no permission", "hard queue list",
                 "correct project", "because of cluster queue", "offers only",
                 "unknown resource"):
        assert part in joined, part
