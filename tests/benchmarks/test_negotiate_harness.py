"""The benchmark harness around ``condorlite negotiate``, driven with a stand-in command."""

from __future__ import annotations

import argparse
import functools
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
                                     "slots": slots, "pie_spins": 2,
                                     "evaluations": 40, "naive_evaluations": 1500},
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
    assert (run.evaluations, run.naive) == (40, 1500)
    assert run.pairs is None  # not asked for
    assert run.rss_mib > 64  # the child's own peak, measured by wait4
    assert run.wall_s > 0
    # the pool is reused, not regenerated, for the same spec
    again = harness.measure(spec, "old", tmp_path / "pools", [sys.executable, str(fake)], 1)
    assert again.gen_s == 0.0
    table = harness.markdown([run, again])
    assert table.splitlines()[0].startswith("| slots | jobs |")
    assert "| 30 | 50 | 3 | 5 | old |" in table
    assert "| matches | evaluations | naive | exit |" in table.splitlines()[0]
    assert "| 2 | 40 | 1,500 | 0 |" in table.splitlines()[2]
    assert "pairs/s" not in table  # no symmetric-match table without measurements


VARYING = """
import json, pathlib, sys
counter = pathlib.Path(sys.argv[0]).with_suffix(".count")
n = int(counter.read_text()) if counter.exists() else 0
counter.write_text(str(n + 1))
print(json.dumps({"schema_version": 1, "command": "negotiate", "status": "ok", "errors": [],
                  "data": {"cycle": {"duration": 1.0, "matchmaking_duration": [0.9, 0.4, 0.7][n]},
                           "matches": []}}))
"""


def test_matchmaking_is_the_best_of_the_repeats(tmp_path: Path) -> None:
    fake = tmp_path / "varying.py"
    fake.write_text(VARYING)
    spec = harness.genpool.PoolSpec(slots=10, jobs=20, submitters=2, autoclusters=3)
    run = harness.measure(spec, "old", tmp_path / "pools", [sys.executable, str(fake)], 3)
    assert run.match_s == 0.4  # the second run's, not the last one's


def test_cycle_counts_are_integers_only() -> None:
    cycle = {"evaluations": 12, "naive_evaluations": 3.5, "dry_run": True}
    assert harness.cycle_count(cycle, "evaluations") == 12
    assert harness.cycle_count(cycle, "naive_evaluations") is None
    assert harness.cycle_count(cycle, "dry_run") is None
    assert harness.cycle_count(cycle, "missing") is None


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


def _tiny_main(tmp_path: Path, *extra: str) -> list[str]:
    fake = tmp_path / "fake_condorlite.py"
    fake.write_text(FAKE)
    return ["--size", "40x120", "--submitters", "3", "--autoclusters", "12",
            "--work-dir", str(tmp_path / "pools"), "--command", f"{sys.executable} {fake}",
            "--sample-jobs", "6", "--sample-slots", "10", "--pair-repeat", "2", *extra]


def test_one_command_measures_both_formats_and_the_symmetric_match(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    pytest.importorskip("htcondor2")
    rc = harness.main(_tiny_main(tmp_path, "--format", "old", "--format", "json",
                                 "--format", "old", "--json"))
    assert rc == 0
    runs = json.loads(capsys.readouterr().out)
    assert [r["format"] for r in runs] == ["old", "json"]  # a repeated format runs once
    for run in runs:
        assert (run["evaluations"], run["naive"], run["ok"]) == (40, 1500, True)
        row = run["pairs"]
        assert (row["jobs"], row["slots"], row["pairs"]) == (6, 10, 60)
        assert row["ok"] and row["disagreements"] == 0 and row["note"] == ""
        assert row["condorlite_per_s"] > 0 and row["classad2_per_s"] > 0
        assert row["ratio"] == pytest.approx(row["condorlite_per_s"] / row["classad2_per_s"])
        assert 0 < row["matching"] < 60  # a sample with both answers in it
    # both formats hold the same ads, so the same pairs are sampled
    assert runs[0]["pairs"]["matching"] == runs[1]["pairs"]["matching"]
    assert (tmp_path / "pools" / "s40-j120-u3-a12-seed0-json" / "jobs.json").exists()


def test_the_markdown_tables_carry_the_symmetric_match_rows(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    pytest.importorskip("htcondor2")
    assert harness.main(_tiny_main(tmp_path)) == 0
    out = capsys.readouterr().out.splitlines()
    head = out.index("| slots | jobs | format | pairs (jobs x slots) | slot kinds | matching "
                     "| condorlite pairs/s | classad2 pairs/s | ratio | agree |")
    row = out[head + 2]
    assert row.startswith("| 40 | 120 | old | 60 (6 x 10) |") and row.endswith("x | yes |")


def test_a_disagreement_fails_the_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture) -> None:
    pytest.importorskip("htcondor2")
    from condorlite.core.classad import symmetric_match

    def wrong(job, slot) -> bool:  # a condorlite that answers every pair backwards
        return not symmetric_match(job, slot)

    pairs = harness.pairs
    monkeypatch.setattr(pairs, "measure_pairs",
                        functools.partial(pairs.measure_pairs, ours=wrong))
    assert harness.main(_tiny_main(tmp_path)) == 1
    captured = capsys.readouterr()
    assert "| NO: 60 pairs differ |" in captured.out
    assert captured.err.count("disagreement (40x120 old): ") == pairs.EXAMPLES


def test_without_classad2_the_row_says_so_and_the_rest_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture) -> None:
    def missing():
        raise ImportError("No module named 'classad2'")

    monkeypatch.setattr(harness.pairs, "load_oracle", missing)
    assert harness.main(_tiny_main(tmp_path)) == 0
    out = capsys.readouterr().out
    assert "| 40 | 120 | old | 60 (6 x 10) | " in out
    assert "| n/a | n/a | n/a | n/a | classad2 not importable (No module named 'classad2') |" in out
    assert "| 2 | 40 | 1,500 | 0 |" in out  # the cycle row is still there


def test_no_pairs_skips_the_measurement(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert harness.main(_tiny_main(tmp_path, "--no-pairs", "--json")) == 0
    assert json.loads(capsys.readouterr().out)[0]["pairs"] is None
