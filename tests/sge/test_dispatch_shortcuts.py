"""The run's shortcuts against the plain path they stand for, on small generated
cells (``benchmarks/gensge_dispatch.py``, seeded) part way through a run, so that the
diagrams hold running jobs, starts and reservations:

* ``place.Room`` at a later time (what ``later`` allocates with, for every slot
  count at the reservation's time) gives what ``allocate`` finds without it, and
  each instance's and host's room is ``most_slots`` at that time;
"""

from __future__ import annotations

from pathlib import Path

import pytest

from condorlite.core.sge.dispatch import later, place
from condorlite.core.sge.dispatch.assign import most_slots
from condorlite.core.sge.dispatch.run import _Run
from condorlite.core.sge.priority import prioritise
from condorlite.store.sge_cell import read_cell
from tests.benchmarks._load import load

gensge = load("gensge")
gensge_dispatch = load("gensge_dispatch")

SEEDS = (2, 5, 11)
#: a limit above any slot count (``most_slots`` of n is ``min(n, room)``)
_MANY = 10**9


def _cell_dir(tmp_path_factory: pytest.TempPathFactory, seed: int) -> Path:
    out = tmp_path_factory.mktemp(f"dispatch{seed}")
    spec = gensge.CellSpec(jobs=900, users=30, projects=4, seed=seed, reserve=0.1)
    gensge_dispatch.write_dispatch_cell(spec, gensge_dispatch.DispatchSpec(hosts=12), out)
    return out


@pytest.fixture(scope="module", params=SEEDS)
def midway(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> _Run:
    """A run that took its first 250 pending jobs (starts and reservations made)."""
    cell = read_cell(_cell_dir(tmp_path_factory, request.param))
    run = _Run(cell, cell.now)
    run.book_running()
    run.lists.split_initial()
    outcomes = set()
    for row in prioritise(cell, cell.now).jobs[:250]:
        if row.running or row.state != "qw" or row.job.hold or not run.lists.queue_list:
            continue
        outcomes.add(run.take(row.job, row.task, (row.task,), row.job.reserve))
    assert {"started", "reserved", "waits"} <= outcomes
    return run


def _parallel(run: _Run) -> list:
    return [j for j in run.cell.jobs if j.pe and j.pe_range][:20]


def test_room_at_a_later_time_is_most_slots_then(midway: _Run) -> None:
    run, world, cell = midway, midway.world, midway.cell
    order = run.lists.ranked({i.name for i in world.instances})
    differs = 0
    for job in _parallel(run):
        usable = place.usable_instances(world, cell, job, order, place.Attempt([]))
        span = 3600 * 4
        for t in later._candidate_times(world)[::3]:
            room = place.Room(world, job, usable, span, t)
            assert [min(k, _MANY) for k in room.each] == [
                most_slots(world, job, i.level, False, span, _MANY, t) for i in usable]
            for host, k in room.hosts.items():
                level = world.hosts[host]
                assert min(k, _MANY) == most_slots(world, job, level, False, span, _MANY, t)
            differs += room.each != place.Room(world, job, usable, span).each
            for pe in place.matching_pes(cell, job):
                for n in place.slot_counts(job, cell.pes[pe].slots):
                    plain = place.allocate(world, cell, job, pe, n, usable, span, t,
                                           place.Attempt([]))
                    kept = place.allocate(world, cell, job, pe, n, usable, span, t,
                                          place.Attempt([]), room)
                    assert _grants(kept) == _grants(plain), (job.number, pe, n, t)
    assert differs  # the later times see other room than now: the test can tell


def _grants(p: place.Placement | None) -> list | None:
    return None if p is None else [(i.name, n) for i, n in p.grants] + [p.slots, p.start]
