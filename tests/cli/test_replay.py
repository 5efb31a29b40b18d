"""``condorlite replay``: cycles on a copy of the state; the real state is only read."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from condorlite.cli import app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
T0 = 1_760_000_000
HOUR = 3600


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture
def pool(tmp_path) -> tuple[Path, Path]:
    shutil.copytree(EXAMPLES, tmp_path / "ex")
    sd = tmp_path / "state"
    assert run("setfactor", "alice@example.org", "1000", "--state-dir", str(sd),
               "--now", str(T0 - 600))[0] == 0
    return sd, tmp_path / "ex" / "condorlite.toml"


def _digest(sd: Path) -> str:
    return hashlib.sha256((sd / "state.db").read_bytes()).hexdigest()


def test_replay_equals_the_real_cycles_and_writes_nothing(pool, tmp_path):
    sd, cfg = pool
    before = _digest(sd)
    code, out = run("replay", "--config", str(cfg), "--state-dir", str(sd), "--from",
                    str(T0), "--to", str(T0 + 3 * HOUR), "--every", str(HOUR), "--json",
                    "--what-if", "setfactor bob@example.org 100")
    assert code == 0, out
    assert _digest(sd) == before
    data = json.loads(out)["data"]
    base, changed = data["runs"]
    assert [c["time"] for c in base["cycles"]] == [float(T0 + i * HOUR) for i in range(4)]
    # the same four cycles run for real on a copy give the same figures
    copy = tmp_path / "copy"
    shutil.copytree(sd, copy)
    for i in range(4):
        assert run("negotiate", "--config", str(cfg), "--state-dir", str(copy), "--now",
                   str(T0 + i * HOUR))[0] == 0
    code, out = run("history", "--state-dir", str(copy), "--json")
    real = {a["name"]: a["points"] for a in json.loads(out)["data"]["accounts"]}
    got = {a["name"]: a["points"] for a in base["accounts"]}
    assert got == real
    # the change: bob's factor 100 from the first cycle on
    bob = next(a for a in changed["accounts"] if a["name"] == "bob@example.org")
    assert {p["factor"] for p in bob["points"]} == {100.0}
    assert sum(p["matched"] for p in bob["points"]) == 53
    code, text = run("replay", "--config", str(cfg), "--state-dir", str(sd), "--from",
                     str(T0), "--to", str(T0 + HOUR), "--what-if",
                     "setfactor bob@example.org 100", "--no-chart")
    assert code == 0 and "eup first -> last (what if)" in text


@pytest.mark.parametrize(("args", "needle"), [
    (("--from", str(T0), "--to", str(T0 - 1)), "--to is before --from"),
    (("--from", str(T0), "--to", str(T0 + 10), "--every", "0"), "--every"),
    (("--from", str(T0), "--to", str(T0 + 10**9), "--every", "1"), "at most"),
    (("--from", str(T0 - 10**6), "--to", str(T0)), "last update"),
    (("--from", str(T0), "--to", str(T0), "--what-if", "NOSUCH_KNOB=1"), "NOSUCH_KNOB"),
])
def test_usage_errors(pool, args, needle):
    sd, cfg = pool
    code, out = run("replay", "--config", str(cfg), "--state-dir", str(sd), *args)
    assert code == 2 and needle in out, out
