"""``negotiate_real.py`` on tiny pools: the real command, the priorities imported before
the timing, the figures read from its JSON, and a run that outlives its timeout."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.benchmarks._load import load

real = load("negotiate_real")


def test_rows_run_the_real_command(tmp_path: Path, capsys) -> None:
    code = real.main(["--size", "40x200", "--row", "static-mix", "--row", "baseline",
                      "--autoclusters", "20", "--submitters", "5", "--no-pairs", "--json",
                      "--work-dir", str(tmp_path)])
    rows = {r["row"]: r for r in json.loads(capsys.readouterr().out)}
    assert code == 0
    mix = rows["static-mix"]
    assert mix["exit_code"] == 0 and mix["matches"] > 0 and mix["slot_shapes"] > 0
    assert mix["preemptions"] > 0  # the imported priorities let PREEMPTION_REQUIREMENTS act
    assert mix["match_s"] is not None and mix["cpu_s"] > 0 and mix["rss_mib"] > 0
    assert rows["baseline"]["preemptions"] == 0
    assert (tmp_path / "static-mix-s40-j200-a20-seed0" / "pool.toml").exists()


def test_a_run_past_its_timeout_is_reported(tmp_path: Path, capsys) -> None:
    sleeper = tmp_path / "sleeper"
    sleeper.write_text(f"#!{sys.executable}\nimport time\ntime.sleep(60)\n")
    sleeper.chmod(0o755)
    code = real.main(["--size", "20x50", "--row", "baseline", "--no-pairs", "--timeout", "1",
                      "--command", str(sleeper), "--work-dir", str(tmp_path / "pools")])
    out = capsys.readouterr().out
    assert code == 0
    assert "| 20x50 | baseline |" in out and "timed out after 1 s" in out
