"""The run's shortcuts against the plain path they stand for, on small generated
cells (``benchmarks/gensge_dispatch.py``, seeded) part way through a run, so that the
diagrams hold running jobs, starts and reservations:

* ``place.Room`` at a later time (what ``later`` allocates with, for every slot
  count at the reservation's time) gives what ``allocate`` finds without it, and
  each instance's and host's room is ``most_slots`` at that time; so is
  ``assign.Rooms`` (a reservation's walk);
* ``assign.QuickFit`` passes a level exactly when ``level_reason`` says nothing
  (reservations made from later on on instances free now, so that some levels are
  refused "due to a reservation"), and
  ``place.sequential_now`` (quick passes, a host's answer kept for its other
  instances) gives the placement and the reasons of the plain scan, written out
  here as it was before those shortcuts.

The same on every recorded dispatch cell (``tests/data/sge``), which hold what the
generated ones lack: a consumable with a default (``d15``), a JOB consumable
(``d7``), access lists, unknown resources.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from condorlite.core.sge.dispatch import later, place
from condorlite.core.sge.dispatch.assign import QuickFit, Rooms, level_reason, most_slots
from condorlite.core.sge.dispatch.run import _Run
from condorlite.core.sge.priority import prioritise
from condorlite.store.sge_cell import read_cell
from tests.benchmarks._load import load
from tests.sge.recorded import DATA

gensge = load("gensge")
gensge_dispatch = load("gensge_dispatch")

SEEDS = (2, 5, 11)
RECORDED = sorted(p.parent for p in DATA.glob("*/*/queues") if (p.parent / "hosts").is_file())
#: a limit above any slot count (``most_slots`` of n is ``min(n, room)``)
_MANY = 10**9


def _cell_dir(tmp_path_factory: pytest.TempPathFactory, seed: int) -> Path:
    out = tmp_path_factory.mktemp(f"dispatch{seed}")
    spec = gensge.CellSpec(jobs=900, users=30, projects=4, seed=seed, reserve=0.1)
    gensge_dispatch.write_dispatch_cell(spec, gensge_dispatch.DispatchSpec(hosts=12), out)
    return out


def _taken(cell_dir: Path, jobs: int | None) -> tuple[_Run, set[str]]:
    """A run that took its first ``jobs`` pending jobs (all: None), and what became
    of them."""
    cell = read_cell(cell_dir)
    run = _Run(cell, cell.now)
    run.book_running()
    run.lists.split_initial()
    outcomes = set()
    for row in prioritise(cell, cell.now).jobs[:jobs]:
        if row.running or row.state != "qw" or row.job.hold or not run.lists.queue_list:
            continue
        outcomes.add(run.take(row.job, row.task, (row.task,), row.job.reserve))
    return run, outcomes


@pytest.fixture(scope="module", params=SEEDS)
def midway(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> _Run:
    """A run that took its first 70 pending jobs (starts and reservations made; the
    queues not all full yet)."""
    run, outcomes = _taken(_cell_dir(tmp_path_factory, request.param), 70)
    assert {"started", "reserved", "waits"} <= outcomes
    return run


@pytest.fixture(scope="module", params=SEEDS)
def reserved(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> _Run:
    """``midway``, then reservations from later on on instances with free slots now
    (a sequential job's scan then finds levels refused "due to a reservation")."""
    run, _ = _taken(_cell_dir(tmp_path_factory, request.param), 70)
    world = run.world
    free = [i for i in world.instances if i.free_slots() > 0][:10]
    assert free
    job = next(j for j in run.cell.jobs if not j.pe)
    for k, inst in enumerate(free):
        n = int(inst.free_slots())
        run.reserve(job, 1, place.Placement([(inst, n)], n, world.now + 300 * (k + 1)), 7200)
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


def test_rooms_are_most_slots(midway: _Run) -> None:
    world = midway.world
    levels = [*(i.level for i in world.instances), *world.hosts.values()]
    for job in _parallel(midway)[:8]:
        rooms = Rooms(world, job, 7200)
        for t in later._candidate_times(world)[::4]:
            for level in levels:
                for n in (1, 3):
                    assert min(n, rooms.most(level, t)) == most_slots(
                        world, job, level, False, 7200, n, t)


def _sequential(run: _Run) -> list:
    """Sequential jobs, those asking consumables (refused in more ways) first."""
    jobs = [j for j in run.cell.jobs if not j.pe]
    asking = [j for j in jobs if {"gpu", "lic", "scratch"} & {r.name for r in j.hard_requests}]
    return asking[:40] + jobs[::9][:30]


def test_quick_fit_is_level_reason_saying_nothing(reserved: _Run) -> None:
    run, world, cell = reserved, reserved.world, reserved.cell
    passed = refused = due = 0
    for job in _sequential(run):
        place.static_verdicts(world, cell, job)
        for span in (3600, 86400 * 3):
            quick = QuickFit(world, job, span)
            for inst in world.instances:
                for kind, level in (("H", world.hosts.get(inst.host)), ("Q", inst.level)):
                    says = level_reason(world, cell, job, kind, level, inst, span)
                    assert quick.passes(kind, level, inst) == (says is None), (
                        job.number, inst.name, kind, says)
                    passed += says is None
                    refused += says is not None
                    due += says is not None and says.endswith("due to a reservation")
    assert passed and refused and due


def _plain_sequential_now(world, cell, job, order, span, attempt):  # type: ignore[no-untyped-def]
    """``place.sequential_now`` before its shortcuts: every level asked in words."""
    why = level_reason(world, cell, job, "G", world.global_level, None, span)
    if why is not None:
        attempt.add(why)
        return None
    skip_queues: set[str] = set()
    skip_hosts: set[str] = set()
    kind = place.static_verdicts(world, cell, job)
    for inst in order:
        if inst.queue in skip_queues or inst.host in skip_hosts:
            continue
        why = kind.queue_said(inst)
        if why is not None:
            skip_queues.add(inst.queue)
            attempt.add(why)
            continue
        why = kind.host_said(inst.host) or level_reason(
            world, cell, job, "H", world.hosts.get(inst.host), inst, span)
        if why is not None:
            skip_hosts.add(inst.host)
            attempt.add(why)
            continue
        why = level_reason(world, cell, job, "Q", inst.level, inst, span)
        name = None if why else kind.unknown(inst)
        if name is not None:
            why = (f'(-l {kind.text}) cannot run in queue "{inst.name}" because job '
                   f"requests unknown resource ({name})")
        if why is not None:
            attempt.add(why)
            continue
        return place.Placement([(inst, 1)], 1, world.now)
    return None


def test_sequential_now_is_the_plain_scan(midway: _Run) -> None:
    placed, failed = _same_scans(midway)
    assert placed and failed


def test_sequential_now_is_the_plain_scan_by_reservations(reserved: _Run) -> None:
    _, failed = _same_scans(reserved)
    assert failed


def _same_scans(run: _Run) -> tuple[int, int]:
    """Jobs placed, and failed with several reasons, by scans found alike."""
    world, cell = run.world, run.cell
    order = run.lists.ranked({i.name for i in world.instances})
    placed = failed = 0
    for job in _sequential(run):
        for span in (3600, 86400 * 30):
            quick, plain = place.Attempt([]), place.Attempt([])
            got = place.sequential_now(world, cell, job, order, span, quick)
            expected = _plain_sequential_now(world, cell, job, order, span, plain)
            assert _grants(got) == _grants(expected), job.number
            assert quick.reasons == plain.reasons, job.number
            placed += got is not None
            failed += got is None and len(plain.reasons) > 3
    return placed, failed


def _default_on_the_host(tmp_path: Path) -> Path:
    """``d15`` with its consumable with a default (``dflt=2``, 1 by default) moved from
    the global level to the host, where a sequential job's scan checks it."""
    out = tmp_path / "d15_host"
    shutil.copytree(DATA / "d15_defaults_maxujobs" / "t0", out)
    hosts = (out / "hosts").read_text()
    assert hosts.count("complex_values        dflt=2") == 1
    hosts = hosts.replace("complex_values        dflt=2", "complex_values        NONE")
    head, _, tail = hosts.partition("hostname              vm")
    tail = tail.replace("complex_values        NONE", "complex_values        dflt=2", 1)
    (out / "hosts").write_text(head + "hostname              vm" + tail)
    return out


def test_a_default_refused_at_the_host(tmp_path: Path) -> None:
    cell_dir = _default_on_the_host(tmp_path)
    test_recorded_cells(cell_dir)
    run, _ = _taken(cell_dir, None)
    said = [w.reasons for w in run.waiting]
    assert any('at host "vm" because for default request' in r for rs in said for r in rs)


@pytest.mark.parametrize("cell_dir", RECORDED, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_recorded_cells(cell_dir: Path) -> None:
    """Half the pending jobs taken, then every job asked again: the quick passes are
    ``level_reason``'s, the scan is the plain one, the rooms are ``most_slots``."""
    cell = read_cell(cell_dir)
    pending = sum(1 for j in cell.jobs if not j.tasks or j.tasks[0].status == 0)
    run, _ = _taken(cell_dir, max(1, pending // 2))
    world = run.world
    order = run.lists.ranked({i.name for i in world.instances})
    levels = [*(i.level for i in world.instances), *world.hosts.values(), world.global_level]
    for job in cell.jobs:
        place.static_verdicts(world, cell, job)
        span = 3600
        quick = QuickFit(world, job, span)
        for inst in world.instances:
            for kind, level in (("H", world.hosts.get(inst.host)), ("Q", inst.level)):
                if level is not None:
                    says = level_reason(world, cell, job, kind, level, inst, span)
                    assert quick.passes(kind, level, inst) == (says is None)
        a, b = place.Attempt([]), place.Attempt([])
        got = place.sequential_now(world, cell, job, order, span, a)
        assert _grants(got) == _grants(_plain_sequential_now(world, cell, job, order, span, b))
        assert a.reasons == b.reasons
        rooms = Rooms(world, job, span)
        for t in later._candidate_times(world)[:5]:
            for level in levels:
                assert min(2, rooms.most(level, t)) == most_slots(
                    world, job, level, False, span, 2, t)
