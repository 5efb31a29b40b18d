"""``sge explain JOB`` says where the next run puts the job: the same started tasks,
reservations and waiting reasons as ``sge schedule --dry-run`` (checked against the
real scheduler by test_dispatch), per job."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from condorlite.cli import app

DATA = Path(__file__).resolve().parents[1] / "data" / "sge"


def _json(*args: str) -> dict:
    done = CliRunner().invoke(app, [*args, "--json"])
    assert done.exit_code == 0, done.output
    return json.loads(done.output)["data"]


def test_the_seed_license_example_job_by_job():
    cell = DATA / "dispatch_license" / "run1"
    run = _json("sge", "schedule", "--cell", str(cell), "--dry-run")
    started = {s["job"] for s in run["started"]}
    reserved = {r["job"] for r in run["reservations"]}
    waiting = {w["job"]: w["reasons"] for w in run["waiting"]}
    assert started and reserved
    for job in sorted(started | reserved | set(waiting)):
        placed = _json("sge", "explain", str(job), "--cell", str(cell))["placement"]
        if job in started:
            assert placed["status"] == "starts"
        elif job in reserved:
            assert placed["status"] == "reserves"
            assert placed["reasons"] == waiting.get(job, [])
        else:
            assert placed["status"] == "waits" and placed["reasons"] == waiting[job]
    text = CliRunner().invoke(app, ["sge", "explain", "386", "--cell", str(cell)]).output
    assert "reserves all.q@vm=1 from" in text and "cannot run globally" in text
