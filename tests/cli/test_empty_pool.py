"""A negotiate that reads no slot ad while claims are recorded looks like a failed dump:
it is refused (65) and nothing ends, unless --allow-empty; files a directory holds that
are not ad files are reported (issue 17, item 7)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "examples" / "condorlite.toml"
ENV = {**os.environ, "NO_COLOR": "1"}


def _negotiate(state: Path, now: int, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "condorlite", "negotiate", "--config", str(CONFIG),
         "--state-dir", str(state), "--now", str(now), *extra],
        capture_output=True, text=True, env=ENV, timeout=120)


def _claims(state: Path) -> int:
    done = subprocess.run(
        [sys.executable, "-m", "condorlite", "status", "--claims", "--config", str(CONFIG),
         "--state-dir", str(state), "--json"],
        capture_output=True, text=True, env=ENV, timeout=120)
    return len(json.loads(done.stdout)["data"]["claims"]["claims"])


def test_an_empty_dump_does_not_end_the_claims(tmp_path: Path) -> None:
    state, empty = tmp_path / "state", tmp_path / "slots"
    empty.mkdir()
    (empty / "condor_status.out").write_text("Name = \"slot1@x\"\n")  # not an ad file name
    assert _negotiate(state, 1_760_000_000).returncode == 0
    before = _claims(state)
    assert before > 0
    refused = _negotiate(state, 1_760_003_600, "--slots", str(empty))
    assert refused.returncode == 65
    assert "no slot ads were read" in refused.stderr and "--allow-empty" in refused.stderr
    assert "condor_status.out" in refused.stderr  # the skipped file is reported
    assert _claims(state) == before
    allowed = _negotiate(state, 1_760_003_600, "--slots", str(empty), "--allow-empty")
    assert allowed.returncode == 0, allowed.stderr
    assert _claims(state) == 0
