"""The benchmark harness around ``condorlite negotiate``, driven with a stand-in command."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pytest

from tests.benchmarks._load import load

harness = load("negotiate")

FAKE = """
import json, sys
blob = bytearray(64 * 1024 * 1024)  # touch 64 MiB so the peak RSS is visible
for i in range(0, len(blob), 4096):
    blob[i] = 1
args = sys.argv[1:]
assert args[:3] == ["negotiate", "--dry-run", "--json"], args
slots = open(args[args.index("--slots") + 1]).read().count("\\nName = ") + 1
print(json.dumps({"schema_version": 1, "command": "negotiate", "status": "ok", "errors": [],
                  "data": {"cycle": {"duration": 1.25, "matchmaking_duration": 0.5,
                                     "slots": slots, "pie_spins": 2},
                           "matches": [{"job": "1.0"}, {"job": "1.1"}]}}))
"""


def test_parse_size() -> None:
    assert harness.parse_size("10000x100000") == (10_000, 100_000)
    assert harness.parse_size("10kx1M") == (10_000, 1_000_000)
    for bad in ("10000", "axb", "1x2x3", "x5"):
        with pytest.raises(argparse.ArgumentTypeError):
            harness.parse_size(bad)


def test_timings_are_picked_from_the_cycle() -> None:
    cycle = {"duration": 2.0, "matchmaking_duration": 0.7, "phase1_seconds": 0.1,
             "slots": 10, "dry_run": True}
    timings = harness.cycle_timings(cycle)
    assert timings == {"duration": 2.0, "matchmaking_duration": 0.7, "phase1_seconds": 0.1}
    assert harness.matchmaking_seconds(timings) == 0.7
    assert harness.matchmaking_seconds({"duration": 1.0}) is None


def test_a_run_reports_wall_time_rss_and_cycle_figures(tmp_path: Path) -> None:
    fake = tmp_path / "fake_condorlite.py"
    fake.write_text(FAKE)
    spec = harness.genpool.PoolSpec(slots=30, jobs=50, submitters=3, autoclusters=5)
    run = harness.measure(spec, "old", tmp_path / "pools", [sys.executable, str(fake)], 2)
    assert run.exit_code == 0
    assert run.match_s == 0.5
    assert run.matches == 2
    assert run.timings["duration"] == 1.25
    assert run.rss_mib > 64  # the child's own peak, measured by wait4
    assert run.wall_s > 0
    # the pool is reused, not regenerated, for the same spec
    again = harness.measure(spec, "old", tmp_path / "pools", [sys.executable, str(fake)], 1)
    assert again.gen_s == 0.0
    table = harness.markdown([run, again])
    assert table.splitlines()[0].startswith("| slots | jobs |")
    assert "| 30 | 50 | 3 | 5 | old |" in table


def test_main_prints_json_and_fails_on_a_failing_command(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture) -> None:
    rc = harness.main(["--size", "5x5", "--submitters", "1", "--autoclusters", "1",
                       "--work-dir", str(tmp_path), "--command",
                       f"{sys.executable} -c raise(SystemExit(3))",
                       "--json"])
    assert rc == 1
    runs = json.loads(capsys.readouterr().out)
    assert runs[0]["slots"] == 5 and runs[0]["matches"] is None and runs[0]["exit_code"] == 3
    # the child's peak memory is its own, not the (bigger) test process's
    assert runs[0]["rss_mib"] < 40
