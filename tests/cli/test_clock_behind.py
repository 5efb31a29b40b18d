"""A negotiate whose --now is before the state's last update (a clock step back, or the
overlapping cron run that took the lock second) charges and decays nothing, keeps the
update time and says so; the usage over the whole period is the same as without it
(issue 17, item 6)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from condorlite.cli import app

CONFIG = Path(__file__).resolve().parents[2] / "examples" / "condorlite.toml"
T0 = 1_760_000_000


def _negotiate(state: Path, now: int) -> dict:
    result = CliRunner().invoke(app, ["negotiate", "--config", str(CONFIG), "--state-dir",
                                      str(state), "--now", str(now), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["data"]


def _usage(state: Path, now: int) -> dict[str, float]:
    result = CliRunner().invoke(app, ["userprio", "--allusers", "--config", str(CONFIG),
                                      "--state-dir", str(state), "--now", str(now), "--json"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["data"]["records"]
    return {r["name"]: r["weighted_accumulated_usage"] for r in rows}


def test_a_run_behind_the_clock_charges_nothing_twice(tmp_path: Path) -> None:
    stepped, straight = tmp_path / "stepped", tmp_path / "straight"
    for state in (stepped, straight):
        _negotiate(state, T0)
        _negotiate(state, T0 + 3600)
    behind = _negotiate(stepped, T0 + 1800)
    assert behind["cycle"]["clock_behind"] == 1800
    assert _negotiate(straight, T0 + 7200)["cycle"]["clock_behind"] == 0
    _negotiate(stepped, T0 + 7200)
    assert _usage(stepped, T0 + 7200) == _usage(straight, T0 + 7200)
