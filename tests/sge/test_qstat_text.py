"""``condorlite sge qstat --ext --urg --pri`` prints, line for line, what the real qstat
printed after the run (trailing blanks aside), on every recorded policy run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sge.recorded import snapshots

ENV = {**os.environ, "TZ": "UTC", "NO_COLOR": "1", "COLUMNS": "400"}


def _policy_runs() -> list[Path]:
    return [s for s in snapshots() if not (s / "expected" / "started.txt").exists()]


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.splitlines()]


@pytest.mark.parametrize("snapshot", _policy_runs()[:12], ids=lambda p: f"{p.parent.name}/{p.name}")
def test_text_matches_qstat(snapshot: Path) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "condorlite",
            "sge",
            "qstat",
            "--cell",
            str(snapshot),
            "--ext",
            "--urg",
            "--pri",
        ],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
        check=True,
    ).stdout
    assert _lines(out) == _lines((snapshot / "expected" / "qstat.txt").read_text())


def test_json_envelope_and_keys(tmp_path: Path) -> None:
    snapshot = _policy_runs()[0]
    out = subprocess.run(
        [sys.executable, "-m", "condorlite", "sge", "qstat", "--cell", str(snapshot), "--json"],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
        check=True,
    ).stdout
    import json

    doc = json.loads(out)
    assert doc["command"] == "sge qstat" and doc["status"] == "ok"
    job = doc["data"]["jobs"][0]
    for key in (
        "prio",
        "nurg",
        "npprior",
        "ntckts",
        "urg",
        "rrcontr",
        "wtcontr",
        "dlcontr",
        "ppri",
        "tckts",
        "ovrts",
        "otckt",
        "ftckt",
        "stckt",
        "share",
        "user",
    ):
        assert key in job


def test_missing_cell_and_unknown_job_exit_codes(tmp_path: Path) -> None:
    missing = subprocess.run(
        [sys.executable, "-m", "condorlite", "sge", "qstat", "--cell", str(tmp_path / "no")],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
    )
    assert missing.returncode == 66
    snapshot = _policy_runs()[0]
    unknown = subprocess.run(
        [sys.executable, "-m", "condorlite", "sge", "explain", "999999", "--cell", str(snapshot)],
        capture_output=True,
        text=True,
        env=ENV,
        timeout=60,
    )
    assert unknown.returncode == 1 and "not in the dump" in unknown.stderr
