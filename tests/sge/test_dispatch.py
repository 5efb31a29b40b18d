"""One scheduling run against the real scheduler's recorded runs.

Every recorded run with the dispatch files (``hosts``, ``queues``, ``expected/schedule``,
``expected/started.txt``) is replayed: the jobs condorlite starts, with their queue
instance, and the run's schedule-file section, line for line, must be the real
scheduler's. The dispatch scenarios (``tools/sge/scenarios/d*.sh``, ``dispatch_license``)
are the ones that exercise it: reservation and backfilling, PEs, host and queue
consumables, maxujobs, sequence numbers, the hard queue list; every other recording
checks that the same jobs start (or none, with the queue disabled). ``d6_reasons`` also
keeps ``qstat -j``'s scheduling info, compared with the waiting reasons.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from condorlite.cli import app
from condorlite.core.sge.dispatch import SEPARATOR, schedule
from condorlite.core.sge.dispatch.diagram import INFINITY, Diagram, amount
from condorlite.core.sge.priority import prioritise
from condorlite.store.sge_cell import read_cell
from tests.sge.recorded import DATA

RUNS = sorted(
    p.parent.parent
    for p in DATA.glob("*/*/expected/started.txt")
    if (p.parent.parent / "hosts").is_file() and (p.parent / "schedule").is_file()
)
DISPATCH = [r for r in RUNS if r.parent.name.startswith(("d", "dispatch_"))]
runner = CliRunner()


def _name(run: Path) -> str:
    return f"{run.parent.name}/{run.name}"


def _run(path: Path):
    cell = read_cell(path)
    return schedule(cell, prioritise(cell, cell.now), cell.now)


def test_the_dispatch_recordings_are_there() -> None:
    scenarios = {r.parent.name for r in DISPATCH}
    assert {"dispatch_license", "d1_dispatch_order", "d3_backfill", "d4_pe"} <= scenarios
    assert len(DISPATCH) >= 20


@pytest.mark.parametrize("run", RUNS, ids=_name)
def test_started_jobs_and_schedule_lines_match_the_real_run(run: Path) -> None:
    """started.txt lists each job pending before the run and running after it, once:
    an array job with tasks already running is listed whether or not a task started,
    so those jobs are left to the schedule lines."""
    cell = read_cell(run)
    result = schedule(cell, prioritise(cell, cell.now), cell.now)
    before = {g.job for g in cell.running}
    lines = (run / "expected" / "started.txt").read_text().splitlines()
    expected = {
        (job, queue)
        for job, queue, *_ in (line.split() for line in lines if line.strip())
        if int(job) not in before
    }
    started = {
        (str(s.job), s.grants[0].queue_instance) for s in result.started if s.job not in before
    }
    assert started == expected
    assert list(result.schedule) == (run / "expected" / "schedule").read_text().splitlines()


def test_the_seed_license_example_run_by_run() -> None:
    """The seed's L4_RR/L5_RR/L1_RR example: alice's lic=4 job starts, bob's lic=5 job
    reserves at its end (h_rt 30 + the 60 s offset), carol's lic=1 job cannot backfill
    (its 91 s would reach into bob's reservation) and reserves after bob."""
    run1 = _run(DATA / "dispatch_license" / "run1")
    assert [(s.job, s.start, s.duration) for s in run1.started] == [(385, 1795639075, 90)]
    assert [(r.job, r.start, r.duration) for r in run1.reservations] == [
        (386, 1795639165, 90),
        (387, 1795639255, 91),
    ]
    run3 = _run(DATA / "dispatch_license" / "run3")
    assert [s.job for s in run3.started] == [386]
    assert [(r.job, r.start) for r in run3.reservations] == [(387, 1795639188)]


def _why(path: Path) -> list[str]:
    text = path.read_text().replace("scheduling info:", "", 1)
    return [line.strip() for line in text.splitlines() if line.strip()]


WHY = sorted(p.parent.parent for p in DATA.glob("*/*/expected/why"))


def test_the_reason_recordings_are_there() -> None:
    assert {r.parent.name for r in WHY} >= {"d6_reasons", "d7_arrays_jobconsumable"}


@pytest.mark.parametrize("run", WHY, ids=_name)
def test_waiting_reasons_are_qstat_j_scheduling_info(run: Path) -> None:
    """Each job the run leaves waiting has qstat -j's scheduling info, line for line:
    the run-wide messages (queue instances dropped as overloaded, disabled, full) and
    its own (a consumable that falls short, the hard queue list, a PE's slots)."""
    result = _run(run)
    started = {s.job for s in result.started}
    waiting = {w.job: list(result.messages + w.reasons) for w in result.waiting}
    for why in sorted((run / "expected" / "why").glob("*.txt")):
        job = int(why.stem)
        if job in waiting:
            assert waiting[job] == _why(why), job
        else:  # started in this run or running before it
            assert job in started or job in {g.job for g in read_cell(run).running}


def test_a_run_past_its_end_is_held_until_the_next_interval() -> None:
    """A running job already past start + duration stays booked until now +
    schedule_interval (the real scheduler hopes it ends by the next run)."""
    cell = read_cell(DATA / "dispatch_license" / "run2")
    late = 1795639075 + 500
    result = schedule(cell, prioritise(cell, late), late)
    running = [line for line in result.schedule if ":RUNNING:" in line]
    assert running and all(f":{500 + 600}:" in line for line in running)


def test_without_reservation_there_are_no_schedule_lines() -> None:
    result = _run(DATA / "d1_dispatch_order" / "run1")
    assert list(result.schedule) == [SEPARATOR]
    assert len(result.started) == 2


# --- the resource diagram -------------------------------------------------------------


def test_diagram_steps_max_and_below() -> None:
    d = Diagram()
    d.add(100, 190, 4.0)
    d.add(190, 280, 5.0)
    assert d.points == [(100, 4.0), (190, 5.0), (280, 0.0)]
    assert d.max_over(0, 100) == 0.0
    assert d.max_over(150, 191) == 5.0
    assert d.below(0.0) == 280
    assert d.below(1.0) == 280
    assert d.below(4.0) == 280
    assert d.below(5.0) == 0
    assert d.queue_end() == 0.0


def test_diagram_forever() -> None:
    d = Diagram()
    d.add(100, INFINITY, 1.0)
    assert d.below(0.0) == INFINITY
    assert d.queue_end() == 1.0


@pytest.mark.parametrize(
    ("text", "kind", "value"),
    [
        ("4G", "MEMORY", 4 * 1024**3),
        ("1.5k", "MEMORY", 1500.0),
        ("0:1:30", "TIME", 90.0),
        ("90", "TIME", 90.0),
        ("true", "BOOL", 1.0),
        ("infinity", "MEMORY", float(INFINITY)),
        ("x", "INT", None),
        ("lx-amd64", "STRING", None),
    ],
)
def test_amounts(text: str, kind: str, value: float | None) -> None:
    assert amount(text, kind) == value


# --- the command --------------------------------------------------------------------------


def _cli(*args: str):
    return runner.invoke(app, ["sge", "schedule", *args])


def test_command_json() -> None:
    out = _cli("--cell", str(DATA / "dispatch_license" / "run1"), "--dry-run", "--json")
    assert out.exit_code == 0, out.output
    doc = json.loads(out.output)
    data = doc["data"]
    assert doc["command"] == "sge schedule" and data["dry_run"] is True
    assert [s["job"] for s in data["started"]] == [385]
    assert data["started"][0]["queue_instances"] == [
        {"queue_instance": "all.q@vm", "host": "vm", "slots": 1}
    ]
    assert [r["start_time"] for r in data["reservations"]] == [1795639165, 1795639255]
    assert data["schedule"][0] == SEPARATOR and len(data["schedule"]) == 7
    assert {w["job"] for w in data["waiting"]} == {386, 387}
    assert all(w["reserved"] for w in data["waiting"])


def test_command_text_and_schedule_file(tmp_path: Path) -> None:
    target = tmp_path / "schedule"
    cell = str(DATA / "d3_backfill" / "t0")
    for _ in range(2):
        out = _cli("--cell", cell, "--dry-run", "--schedule-file", str(target))
        assert out.exit_code == 0, out.output
    assert "Reserving (1):" in out.output and "Started (2):" in out.output
    expected = (DATA / "d3_backfill" / "t0" / "expected" / "schedule").read_text()
    assert target.read_text() == expected * 2


def test_command_without_dry_run_records_a_cycle(tmp_path: Path) -> None:
    """Without --dry-run the run is recorded (tests/sge/test_cycle_cli.py has the rest)."""
    state = tmp_path / "state"
    out = _cli("--cell", str(DATA / "d3_backfill" / "t0"), "--state-dir", str(state), "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.output)["data"]
    assert data["dry_run"] is False and len(data["started"]) == 2
    assert (state / "state.db").is_file()


def test_command_unwritable_schedule_file(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "schedule"
    out = _cli(
        "--cell", str(DATA / "d3_backfill" / "t0"), "--dry-run", "--schedule-file", str(target)
    )
    assert out.exit_code == 74
    assert re.search(r"cannot write", out.output)
