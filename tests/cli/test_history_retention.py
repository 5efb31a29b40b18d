"""negotiate prunes history older than HISTORY_RETENTION (default 90 days) in its own
transaction, keeping the newest row of each kind (issue 17, item 10)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from condorlite.cli import app
from condorlite.store.db import open_state

ROOT = Path(__file__).resolve().parents[2]
DAY = 86400
T0 = 1_760_000_000


def _negotiate(state: Path, now: int, config: Path) -> None:
    result = CliRunner().invoke(app, ["negotiate", "--config", str(config),
                                      "--state-dir", str(state), "--now", str(now)])
    assert result.exit_code == 0, result.output


def _kinds(state: Path) -> list[tuple[str, float]]:
    with open_state(state).transaction(write=False) as tx:
        return [(r["kind"], r["time"]) for r in tx.history(limit=1000)]


def test_rows_older_than_the_retention_go(tmp_path: Path) -> None:
    config = ROOT / "examples" / "condorlite.toml"
    state = tmp_path / "state"
    for day in (0, 1, 2):
        _negotiate(state, T0 + day * DAY, config)
    CliRunner().invoke(app, ["setfactor", "a@x.org", "2", "--config", str(config),
                             "--state-dir", str(state), "--now", str(T0 + 3 * DAY)])
    assert len(_kinds(state)) == 4
    _negotiate(state, T0 + 92 * DAY, config)
    kinds = _kinds(state)
    # day 0 and day 1 are older than 90 days; day 2 (90 days old exactly) stays; the
    # edit is the newest "edit" row and stays whatever its age.
    assert [t for k, t in kinds if k == "negotiation_cycle"] == [T0 + 92 * DAY, T0 + 2 * DAY]
    assert [k for k, _ in kinds].count("edit") == 1


def test_zero_keeps_everything(tmp_path: Path) -> None:
    config = tmp_path / "condorlite.toml"
    text = (ROOT / "examples" / "condorlite.toml").read_text()
    for name in ("slots", "jobs"):  # the example's ad directories, relative to it
        text = text.replace(f'["{name}"]', f'["{ROOT / "examples" / name}"]')
    config.write_text(text + "\nHISTORY_RETENTION = 0\n")
    state = tmp_path / "state"
    for day in (0, 100, 200):
        _negotiate(state, T0 + day * DAY, config)
    assert len(_kinds(state)) == 3
