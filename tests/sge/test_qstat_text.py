"""``condorlite sge qstat --ext --urg --pri`` prints, line for line, what the real qstat
printed after the run (trailing blanks aside), on every recorded run in which the
scheduler started no job (a start changes the figures qstat shows)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from rich.console import Console

from condorlite.cli.sge.qstat import _qstat
from tests.sge.recorded import snapshots

ENV = {**os.environ, "TZ": "UTC", "NO_COLOR": "1", "COLUMNS": "400"}

#: Runs whose text cannot match, with the reason (the figures match within qstat's
#: precision all the same: tests/sge/test_recorded.py).
DIFFERENT = {
    "f5_all/t0_sfs_true": "a job's 999999.99... tickets, which the scheduler's order of "
    "additions gives and qstat truncates to 999999, come out 1000000.0 in condorlite's",
    "f5_all/t1_sfs_false": "the same 999999.99... against 1000000.0",
    "s6_usage_users/t0_running": "the scheduler had not seen a running task's usage yet "
    "(test_recorded.RACES)",
    "c1_cycle_usage/r1": "the same race (test_recorded.RACES)",
    "c1_cycle_usage/r3": "share_mon's estimate of booked usage (test_recorded.RACES)",
}


def _policy_runs() -> list:
    runs = []
    for s in snapshots():
        started = s / "expected" / "started.txt"
        if started.exists() and started.read_text().strip():
            continue
        key = f"{s.parent.name}/{s.name}"
        marks = [pytest.mark.xfail(reason=DIFFERENT[key], strict=True)] if key in DIFFERENT else []
        runs.append(pytest.param(s, marks=marks, id=key))
    return runs


@pytest.fixture
def utc():
    before = os.environ.get("TZ")
    os.environ["TZ"] = "UTC"
    time.tzset()
    yield
    if before is None:
        del os.environ["TZ"]
    else:
        os.environ["TZ"] = before
    time.tzset()


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines()]


@pytest.mark.parametrize("snapshot", _policy_runs())
def test_text_matches_qstat(snapshot: Path, utc) -> None:
    result = _qstat(snapshot, None, None, None, None, True, True, True)
    buffer = io.StringIO()
    assert result.human is not None
    result.human(Console(file=buffer, width=1000, force_terminal=False))
    assert _lines(buffer.getvalue()) == _lines((snapshot / "expected" / "qstat.txt").read_text())


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "condorlite", "sge", *args],
                          capture_output=True, text=True, env=ENV, timeout=60)


def test_json_envelope_and_keys() -> None:
    snapshot = next(s for s in snapshots() if s.parent.name == "o6_running")
    out = _cli("qstat", "--cell", str(snapshot), "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["command"] == "sge qstat" and doc["status"] == "ok"
    job = doc["data"]["jobs"][0]
    for key in ("prio", "nurg", "npprior", "ntckts", "urg", "rrcontr", "wtcontr", "dlcontr",
                "ppri", "tckts", "ovrts", "otckt", "ftckt", "stckt", "share", "user", "queue",
                "slots", "state", "tasks"):
        assert key in job
    assert job["state"] == "r" and job["queue"] == "all.q@vm"


def test_missing_cell_and_unknown_job_exit_codes(tmp_path: Path) -> None:
    assert _cli("qstat", "--cell", str(tmp_path / "no")).returncode == 66
    snapshot = next(s for s in snapshots() if s.parent.name == "o1_user")
    unknown = _cli("explain", "999999", "--cell", str(snapshot))
    assert unknown.returncode == 1 and "not in the dump" in unknown.stderr
