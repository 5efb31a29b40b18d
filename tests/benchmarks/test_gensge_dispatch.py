"""The dispatch cell generator, and the dispatch shortcuts checked on what it makes.

A generated cell of 20 hosts (45 queue instances) and 1,500 jobs is small enough to
run in a test and large enough for load-ordered hosts, full instances, categories and
parallel reservations: the kept ranking must equal a fresh ranking of any subset,
``_feasible`` must say what ``allocate`` finds, at every candidate time, and the static
verdicts kept per cluster queue, host and request must be ``static_failure``'s.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from condorlite.core.sge.dispatch import later, order, place, schedule
from condorlite.core.sge.dispatch.run import _Run
from condorlite.core.sge.dispatch.static import cqueue_reason, static_failure, unknown
from condorlite.core.sge.dispatch.verdicts import Verdicts
from condorlite.core.sge.dispatch.world import build
from condorlite.core.sge.priority import prioritise
from condorlite.store.sge_cell import read_cell
from tests.benchmarks._load import load

gensge = load("gensge")
gensge_dispatch = load("gensge_dispatch")


@pytest.fixture(scope="module")
def cell_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dispatch")
    spec = gensge.CellSpec(jobs=1500, users=40, projects=5, seed=2, reserve=0.05)
    gensge_dispatch.write_dispatch_cell(spec, gensge_dispatch.DispatchSpec(hosts=20), out)
    return out


def test_the_cell_reads_and_runs(cell_dir: Path) -> None:
    cell = read_cell(cell_dir)
    assert len(cell.hosts) == 21 and len(cell.queue_instances) == 45
    assert cell.sched_conf.max_reservation == 50
    assert not cell.warnings
    run = schedule(cell, prioritise(cell, cell.now), cell.now)
    assert run.started and run.reservations and run.waiting
    # the jobs of one category that were not tried wait with its first job's reasons
    by_reasons: dict[tuple[str, ...], int] = {}
    for w in run.waiting:
        by_reasons[w.reasons] = by_reasons.get(w.reasons, 0) + 1
    assert max(by_reasons.values()) > 1


def test_kept_ranking_is_a_fresh_ranking(cell_dir: Path) -> None:
    """Host values moving and instances entering and leaving the active set in any
    order: the kept members, in order, are a fresh ``ranked`` of the set."""
    cell = read_cell(cell_dir)
    run = _Run(cell, cell.now)
    run.book_running()
    lists = run.lists
    rng = random.Random(1)
    active = set(rng.sample([i.name for i in run.world.instances], 20))
    ranking = order.Ranking(cell, run.world.instances, lists.host_value, active)
    fresh = order.ranked(cell, [i for i in run.world.instances if i.name in active],
                         {i.host: lists.host_value(i.host) for i in run.world.instances})
    assert ranking.active() == fresh
    hosts = sorted({i.host for i in run.world.instances})
    for _ in range(60):
        host = rng.choice(hosts)
        lists.corrections[host] += rng.choice((1, 2, 8))
        ranking.update(host)
        inst = rng.choice(run.world.instances)
        if inst.name in active:
            active.discard(inst.name)
            ranking.leave(inst)
        else:
            active.add(inst.name)
            ranking.enter(inst)
        assert ranking.exact
        members = [i for i in run.world.instances if i.name in active]
        values = {i.host: lists.host_value(i.host) for i in members}
        assert ranking.active() == order.ranked(cell, members, values)
        assert lists.ranked(active) == ranking.active()


def test_feasible_says_what_allocate_finds(cell_dir: Path) -> None:
    cell = read_cell(cell_dir)
    run = _Run(cell, cell.now)
    run.book_running()
    world = run.world
    order_now = run.lists.ranked({i.name for i in world.instances})
    parallel = [j for j in cell.jobs if j.pe and j.pe_range][:25]
    assert parallel
    outcomes: set[bool] = set()
    for job in parallel:
        usable = place.usable_instances(world, cell, job, order_now, place.Attempt([]))
        by_host: dict[str, list] = {}
        for inst in usable:
            by_host.setdefault(inst.host, []).append(inst)
        span = 3600
        for pe in place.matching_pes(cell, job):
            counts = place.slot_counts(job, cell.pes[pe].slots)
            for n in counts[:1] + counts[-1:]:
                times = later._candidate_times(world)
                for t in times[:20] + times[-20:]:  # the latest and the earliest
                    found = place.allocate(world, cell, job, pe, n, usable, span, t,
                                           place.Attempt([]))
                    feasible = later._feasible(world, cell, job, pe, n, by_host, span, t)
                    assert feasible == (found is not None), (job.number, pe, n, t)
                    outcomes.add(feasible)
    assert outcomes == {True, False}


def test_kept_verdicts_are_static_failure(cell_dir: Path) -> None:
    """Every job against every instance, in an order that mixes kinds (each kind's
    parts are kept at its first question): the same text or None as the check."""
    cell = read_cell(cell_dir)
    world = build(cell, cell.now)
    verdicts = Verdicts(world, cell)
    rng = random.Random(3)
    jobs = list(cell.jobs)
    rng.shuffle(jobs)
    seen: set[str | None] = set()
    for job in jobs[:400]:
        kind = verdicts.of(job)
        for inst in rng.sample(world.instances, len(world.instances)):
            expected = static_failure(cell, job, inst)
            assert kind.of(inst) == expected, (job.number, inst.name)
            assert kind.queue_said(inst) == cqueue_reason(cell, job, inst)
            assert kind.unknown(inst) == unknown(cell, job, inst)
            seen.add(expected)
    assert None in seen and len(seen) > 5
    assert any(s and "is not in pe list" in s for s in seen)


def test_candidate_times_are_the_diagrams_points(cell_dir: Path) -> None:
    """The times kept at each debit are every diagram's points, after running jobs
    are booked and after jobs are started and reserved."""
    cell = read_cell(cell_dir)
    prioritisation = prioritise(cell, cell.now)
    run = _Run(cell, cell.now)
    run.book_running()
    run.lists.split_initial()

    def points() -> list[int]:
        world = run.world
        levels = [world.global_level, *world.hosts.values(), *world.pes.values(),
                  *(i.level for i in world.instances)]
        times = {world.now} | {t for level in levels for d in level.diagrams.values()
                               for t, _ in d.points if world.now < t < later.INFINITY}
        return sorted(times, reverse=True)

    assert len(points()) > 10
    assert later._candidate_times(run.world) == points()
    outcomes = set()
    for row in prioritisation.jobs[:300]:
        if row.running or row.state != "qw" or row.job.hold:
            continue
        outcomes.add(run.take(row.job, row.task, (row.task,), row.job.reserve))
    assert {"started", "reserved"} <= outcomes
    assert later._candidate_times(run.world) == points()
