"""Reading never writes (issue 17, item 8): ``userprio``, ``status --claims`` and
``--negotiator`` and ``negotiate --dry-run`` on a state directory that does not exist
exit 66 naming it and create nothing (a typo in ``--state-dir`` used to print "0 users"
from a new empty state), and on an existing state they leave its files byte for byte as
they were. ``status`` of slot or job ads needs no state, as condor_status needs none."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from condorlite.cli import app

ROOT = Path(__file__).resolve().parents[2]
CONFIG = str(ROOT / "examples" / "condorlite.toml")
NOW = "1760000000"
READERS = {
    "userprio": ["userprio", "--json", "--now", NOW],
    "status": ["status", "--claims", "--json", "--config", CONFIG],
    "status-negotiator": ["status", "--negotiator", "--json"],
    "dry-run": ["negotiate", "--dry-run", "--json", "--config", CONFIG, "--now", NOW],
}


@pytest.mark.parametrize("command", sorted(READERS))
def test_a_missing_state_is_exit_66_and_is_not_created(tmp_path: Path, command: str) -> None:
    missing = tmp_path / "typo"
    done = CliRunner().invoke(app, [*READERS[command], "--state-dir", str(missing)])
    assert done.exit_code == 66, done.output
    error = json.loads(done.stdout)["errors"][0]
    assert error["kind"] == "input_missing" and error["message"] == f"no state at {missing}"
    assert "--state-dir" in error["hint"]
    assert not missing.exists()


@pytest.mark.parametrize("command", sorted(READERS))
def test_reading_leaves_the_state_as_it_was(tmp_path: Path, command: str) -> None:
    state = tmp_path / "state"
    made = CliRunner().invoke(app, ["negotiate", "--config", CONFIG, "--state-dir", str(state),
                                    "--now", NOW, "--json"])
    assert made.exit_code == 0, made.output
    before = {p.name: p.read_bytes() for p in state.iterdir()}
    done = CliRunner().invoke(app, [*READERS[command], "--state-dir", str(state)])
    assert done.exit_code == 0, done.output
    after = {p.name: p.read_bytes() for p in state.iterdir()}
    assert after["state.db"] == before["state.db"]
    assert set(after) - {"state.db-wal", "state.db-shm"} == set(before)


def test_status_of_ads_needs_no_state_and_makes_none(tmp_path: Path) -> None:
    missing = tmp_path / "none"
    done = CliRunner().invoke(app, ["status", "--config", CONFIG, "--state-dir", str(missing),
                                    "--json"])
    assert done.exit_code == 0, done.output
    data = json.loads(done.stdout)["data"]
    assert data["pool"]["total"]["total"] == 34
    assert data["schema_version"] is None and data["last_cycle_time"] is None
    human = CliRunner().invoke(app, ["status", "--submitters", "--config", CONFIG,
                                     "--state-dir", str(missing)])
    assert human.exit_code == 0, human.output
    assert f"State: none at {missing} (no negotiate has run there)" in human.stdout
    assert "alice@example.org" in human.stdout
    assert not missing.exists()
