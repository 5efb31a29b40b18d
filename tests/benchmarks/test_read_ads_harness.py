"""benchmarks/read_ads.py on a tiny generated pool: one row per format and file, with
the ad counts the generator wrote and positive figures for both libraries."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.benchmarks._load import BENCHMARKS, load


def _rows(stdout: str) -> list[list[str]]:
    lines = [line for line in stdout.splitlines() if line.startswith("| ")]
    return [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[1:]]


def test_child_reports_counts_and_memory(tmp_path):
    read_ads = load("read_ads")
    path = tmp_path / "two.ads"
    path.write_text('A = 1\nB = "x"\n\nA = 2\nB = "y"\n\n')
    figures = read_ads.child("condorlite", "old", str(path))
    assert figures["ads"] == 2
    assert figures["seconds"] > 0
    assert figures["peak_b_per_ad"] >= 0


def test_row_marks_a_library_not_measured():
    read_ads = load("read_ads")
    ours = {"ads": 10, "seconds": 0.5, "kept_b_per_ad": 1000.0, "peak_b_per_ad": 1200.0}
    python = {"ads": 10, "seconds": 1.5, "kept_b_per_ad": 1100.0, "peak_b_per_ad": 1300.0}
    line = read_ads.row("old", "slots", {"condorlite": ours, "condorlite-python": python,
                                         "classad2": None})
    cells = [c.strip() for c in line.strip("|").split("|")]
    assert cells == ["old", "slots", "10", "0.50", "1.50", "-", "-", "1,000", "1,100", "-",
                     "1,200", "1,300", "-"]
    assert len(cells) == read_ads.HEADER.count("|") - 1


@pytest.mark.parametrize("library", [["--library", "condorlite"], []])
def test_whole_run_on_a_tiny_pool(tmp_path, library):
    if library == []:
        pytest.importorskip("htcondor2")
    proc = subprocess.run(
        [sys.executable, str(BENCHMARKS / "read_ads.py"), "--slots", "30", "--jobs", "60",
         "--submitters", "3", "--autoclusters", "5", "--work-dir", str(tmp_path), *library],
        capture_output=True, text=True, check=False, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    rows = _rows(proc.stdout)
    assert [(r[0], r[1], r[2]) for r in rows] == [
        ("old", "slots", "30"), ("old", "jobs", "60"), ("json", "slots", "30"),
        ("json", "jobs", "60")]
    for r in rows:
        assert float(r[3]) >= 0
        if library:
            assert r[4] == r[5] == r[6] == "-"
        else:
            assert float(r[4]) >= 0 and float(r[5]) >= 0 and r[6].endswith("x")
