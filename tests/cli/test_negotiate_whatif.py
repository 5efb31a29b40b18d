"""``negotiate --what-if``: each side equals the cycle the real change would give, and
nothing is written."""

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


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def run_json(*args: str) -> dict:
    code, out = run(*args, "--json")
    assert code == 0, out
    return json.loads(out)["data"]


@pytest.fixture
def pool(tmp_path) -> tuple[Path, Path]:
    """The example pool and a state made by one edit (no cycle yet)."""
    shutil.copytree(EXAMPLES, tmp_path / "ex")
    sd = tmp_path / "state"
    assert run("setfactor", "alice@example.org", "1000", "--state-dir", str(sd),
               "--now", str(T0 - 600))[0] == 0
    return sd, tmp_path / "ex" / "condorlite.toml"


def _digest(sd: Path) -> str:
    # the database and the config (SQLite's -shm index of a WAL database may appear
    # beside them on a read, as for any reader: it holds no data)
    files = [sd / "state.db", sd / "condorlite.toml"]
    return hashlib.sha256(b"".join(p.read_bytes() for p in files)).hexdigest()


def _figures(data: dict) -> dict:
    return {s["name"]: (s["effective_priority"], s["share"], s["matched"], s["matched_jobs"])
            for s in data["submitters"]}


def test_sides_equal_the_real_change_and_nothing_is_written(pool, tmp_path):
    sd, cfg = pool
    before_digest = _digest(sd)
    base = ["negotiate", "--config", str(cfg), "--state-dir", str(sd), "--now", str(T0)]
    diff = run_json(*base, "--what-if", "setfactor bob@example.org 100",
                    "--what-if", "GROUP_QUOTA_group_physics=20")
    assert _digest(sd) == before_digest
    plain = run_json(*base, "--dry-run")
    # the "before" side is the plain dry run
    for s in diff["submitters"]:
        want = next(p for p in plain["submitters"] if p["name"] == s["name"])
        assert s["before"]["effective_priority"] == want["effective_priority"]
        assert s["before"]["matched"] == want["matched"]
    # the "after" side is the cycle after really making the two changes
    changed = cfg.parent / "changed.toml"  # SLOTS and JOBS are relative to it
    changed.write_text(cfg.read_text().replace("GROUP_QUOTA_group_physics = 64.0",
                                               "GROUP_QUOTA_group_physics = 20"))
    copy = tmp_path / "copy"
    shutil.copytree(sd, copy)
    assert run("setfactor", "bob@example.org", "100", "--state-dir", str(copy),
               "--now", str(T0))[0] == 0
    real = run_json("negotiate", "--config", str(changed), "--state-dir", str(copy),
                    "--now", str(T0), "--dry-run")
    after = {s["name"]: s["after"] for s in diff["submitters"]}
    assert {n: (a["effective_priority"], a["share"], a["matched"], a["matched_jobs"])
            for n, a in after.items()} == _figures(real)
    assert diff["cycles"]["after"]["matches"] == real["cycle"]["matches"]
    bob = next(s for s in diff["submitters"] if s["name"] == "bob@example.org")
    assert bob["gained"] == bob["after"]["matched"] - bob["before"]["matched"] == 5
    moved = {j["job"]: j for j in diff["jobs"]}
    assert moved["190.4"]["change"] == "status" and moved["190.4"]["before"] is None
    assert moved["190.4"]["after"]["status"] == "matched"
    grp = next(g for g in diff["groups"] if g["name"] == "group_physics")
    assert (grp["before"]["effective_quota"], grp["after"]["effective_quota"]) == (64, 20)


def test_no_change_means_no_difference(pool):
    sd, cfg = pool
    diff = run_json("negotiate", "--config", str(cfg), "--state-dir", str(sd), "--now",
                    str(T0), "--what-if", "setfactor alice@example.org 1000")
    assert diff["jobs"] == [] and all(s["gained"] == 0 for s in diff["submitters"])
    code, out = run("negotiate", "--config", str(cfg), "--state-dir", str(sd), "--now",
                    str(T0), "--what-if", "PRIORITY_HALFLIFE=86400")
    assert code == 0 and "or rejected otherwise: 0" in out


@pytest.mark.parametrize(("change", "needle"), [
    ("setfactor bob@example.org", "setfactor takes NAME VALUE"),
    ("setfactor bob@example.org lots", "is not a float"),
    ("frobnicate bob", "not an edit"),
    ("GROUP_QUOTA_nosuch=3", "GROUP_QUOTA_nosuch"),
    ("PRIORITY_HALFLIFE=-5", "PRIORITY_HALFLIFE"),
    ("setfactor bob@example.org 0.5", "bob@example.org"),
])
def test_bad_changes_are_usage_errors_naming_them(pool, change, needle):
    sd, cfg = pool
    code, out = run("negotiate", "--config", str(cfg), "--state-dir", str(sd), "--now",
                    str(T0), "--what-if", change)
    assert code == 2, out
    assert needle in out


def test_what_if_needs_a_state_and_excludes_explain(pool, tmp_path):
    sd, cfg = pool
    code, _ = run("negotiate", "--config", str(cfg), "--state-dir", str(tmp_path / "none"),
                  "--what-if", "setfactor a@example.org 5")
    assert code == 66 and not (tmp_path / "none").exists()
    code, _ = run("negotiate", "--config", str(cfg), "--state-dir", str(sd),
                  "--what-if", "setfactor a@example.org 5", "--explain", "200.1")
    assert code == 2
