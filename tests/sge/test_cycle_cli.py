"""``condorlite sge schedule`` (recorded cycles) and ``sge clearusage`` end to end: what
is written, consistency from one cycle to the next, the --now rule, nothing written on
bad input, the JSON shape, and the reading commands' usage precedence."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from condorlite.cli import app
from tests.sge.recorded import DATA

runner = CliRunner()
#: alice's and bob's jobs burn CPU (running); seven jobs pending; a share tree of users.
RUNNING = DATA / "s6_usage_users" / "t1_bob_done"
#: two slots free: the run starts two jobs.
STARTS = DATA / "d3_backfill" / "t0"


def _cli(*args: str):
    return runner.invoke(app, ["sge", *args])


def _json(*args: str) -> dict:
    out = _cli(*args, "--json")
    doc = json.loads(out.output)
    assert out.exit_code == 0, out.output
    return doc


def _without_share_mon(src: Path, tmp: Path) -> Path:
    dst = tmp / src.name
    shutil.copytree(src, dst)
    (dst / "share_mon").unlink(missing_ok=True)
    return dst


def _rows(state: Path, table: str) -> list[tuple]:
    conn = sqlite3.connect(state / "state.db")
    try:
        return conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3").fetchall()
    finally:
        conn.close()


def test_a_cycle_records_runs_usage_and_history(tmp_path: Path) -> None:
    cell, state = _without_share_mon(RUNNING, tmp_path), tmp_path / "state"
    doc = _json("schedule", "--cell", str(cell), "--state-dir", str(state))
    data = doc["data"]
    assert doc["command"] == "sge schedule" and data["dry_run"] is False
    cycle = data["cycle"]
    assert cycle["time"] == 1795642720 and cycle["previous"] is None
    assert cycle["usage_source"] == "state" and cycle["clock_behind"] == 0
    assert [(c["job"], c["user"], c["cpu"]) for c in cycle["charged"]] == [
        (15042, "alice", 33.04), (15043, "bob", 39.042554)]
    assert cycle["charged"][0]["to"] == [{"kind": "user", "name": "alice", "project": None}]
    assert cycle["ended"] == [{"job": 15043, "task": 1, "user": "bob", "reason": "finished"}]
    assert [(r["job"], r["start_time"], r["source"]) for r in data["running"]] == [
        (15042, 1795642651, "input")]
    assert {(u["name"], u["cpu"]) for u in data["usage"]} == {
        ("alice", 33.04), ("bob", 39.042554)}
    assert sorted(data) == sorted(["now", "dry_run", "started", "reservations", "waiting",
                                   "messages", "schedule", "warnings", "cycle", "running",
                                   "usage"])
    history = _json("schedule", "--cell", str(cell), "--state-dir", str(state), "--dry-run")
    assert history["data"]["dry_run"] is True
    rows = _rows(state, "history")
    assert [r[2] for r in rows] == ["sge_cycle"]


def test_the_next_cycle_decays_and_charges_only_the_growth(tmp_path: Path) -> None:
    cell, state = _without_share_mon(RUNNING, tmp_path), tmp_path / "state"
    _json("schedule", "--cell", str(cell), "--state-dir", str(state))
    later = 1795642720 + 3600
    data = _json("schedule", "--cell", str(cell), "--state-dir", str(state),
                 "--now", str(later))["data"]
    assert data["cycle"]["previous"] == 1795642720 and data["cycle"]["charged"] == []
    alice = next(u for u in data["usage"] if u["name"] == "alice")
    # halftime 168 h: (1 - 60 ln2 / (168 * 3600)) ** 60 over one hour
    assert alice["cpu"] == pytest.approx(33.04 * (1 - 60 * 0.6931471805599453 / 604800) ** 60)
    assert alice["ltcpu"] == 33.04 and alice["usage_time"] == later


def test_a_job_gone_from_the_input_ends_its_run(tmp_path: Path) -> None:
    cell, state = _without_share_mon(RUNNING, tmp_path), tmp_path / "state"
    _json("schedule", "--cell", str(cell), "--state-dir", str(state))
    empty = _without_share_mon(DATA / "s6_usage_users" / "t2_cf5", tmp_path)
    data = _json("schedule", "--cell", str(empty), "--state-dir", str(state))["data"]
    assert {(e["job"], e["reason"]) for e in data["cycle"]["ended"]} >= {
        (15042, "gone from the input")}
    assert data["running"] == []
    assert _rows(state, "sge_runs") == [] or all(r[4] == "finished"
                                                for r in _rows(state, "sge_runs"))


def test_started_jobs_run_in_the_next_cycle_and_are_charged(tmp_path: Path) -> None:
    state = tmp_path / "state"
    first = _json("schedule", "--cell", str(STARTS), "--state-dir", str(state))["data"]
    started = [(s["job"], s["task"]) for s in first["started"]]
    assert len(started) == 2
    assert [(r["job"], r["source"]) for r in first["running"]] == [
        (j, "condorlite") for j, _ in sorted(started)]
    at = first["now"] + 30
    second = _json("schedule", "--cell", str(STARTS), "--state-dir", str(state),
                   "--now", str(at))["data"]
    # the input still has them pending: they run (not started again) and use the slots
    assert not {(s["job"], s["task"]) for s in second["started"]} & set(started)
    assert sorted((c["job"], c["cpu"]) for c in second["cycle"]["charged"]) == [
        (j, 30.0) for j, _ in sorted(started)]


def test_now_before_the_last_cycle_charges_nothing(tmp_path: Path) -> None:
    cell, state = _without_share_mon(RUNNING, tmp_path), tmp_path / "state"
    _json("schedule", "--cell", str(cell), "--state-dir", str(state))
    before = _rows(state, "sge_usage")
    out = _cli("schedule", "--cell", str(cell), "--state-dir", str(state), "--now",
               "1795642000", "--json")
    assert out.exit_code == 0
    data = json.loads(out.stdout)["data"]
    assert data["cycle"]["clock_behind"] == 720 and data["cycle"]["charged"] == []
    assert "before the last recorded cycle" in out.stderr
    assert _rows(state, "sge_usage") == before
    conn = sqlite3.connect(state / "state.db")
    last = conn.execute("SELECT value FROM meta WHERE key='sge_last_cycle'").fetchone()[0]
    conn.close()
    assert int(last) == 1795642720


def test_bad_input_writes_nothing(tmp_path: Path) -> None:
    cell, state = _without_share_mon(RUNNING, tmp_path), tmp_path / "state"
    _json("schedule", "--cell", str(cell), "--state-dir", str(state))
    snapshot = {t: _rows(state, t) for t in ("sge_usage", "sge_runs", "history")}
    broken = tmp_path / "broken"
    shutil.copytree(cell, broken)
    (broken / "sched_conf").write_text("halftime notanumber\n")
    out = _cli("schedule", "--cell", str(broken), "--state-dir", str(state), "--json")
    assert out.exit_code == 65
    missing = _cli("schedule", "--cell", str(tmp_path / "nope"), "--state-dir", str(state))
    assert missing.exit_code in (2, 66)
    unwritable = _cli("schedule", "--cell", str(cell), "--state-dir", str(state), "--now",
                      "1795650000", "--schedule-file", str(tmp_path / "no" / "schedule"))
    assert unwritable.exit_code == 74
    assert {t: _rows(state, t) for t in snapshot} == snapshot
    fresh = tmp_path / "fresh"
    assert _cli("schedule", "--cell", str(broken), "--state-dir", str(fresh)).exit_code == 65
    assert not fresh.exists()


def test_clearusage_all_and_by_name(tmp_path: Path) -> None:
    cell, state = _without_share_mon(RUNNING, tmp_path), tmp_path / "state"
    _json("schedule", "--cell", str(cell), "--state-dir", str(state))
    bad = _cli("clearusage", "nobody", "--state-dir", str(state), "--json")
    assert bad.exit_code == 1 and "no recorded usage for nobody" in bad.output
    one = _json("clearusage", "bob", "--state-dir", str(state), "--now", "1795642800")
    assert one["command"] == "sge clearusage"
    assert one["data"] == {"time": 1795642800.0, "names": ["bob"],
                           "cleared": [{"kind": "user", "name": "bob", "project": None}]}
    usage = {r[1]: r for r in _rows(state, "sge_usage")}
    assert usage["bob"][3] == 0.0 and usage["bob"][6] == 39.042554  # long-term kept
    assert usage["alice"][3] == 33.04
    _json("clearusage", "--state-dir", str(state))
    assert all(r[3] == 0.0 for r in _rows(state, "sge_usage"))
    assert [r[2] for r in _rows(state, "history")] == [
        "sge_cycle", "sge_clearusage", "sge_clearusage"]


def test_reading_commands_use_recorded_usage_without_share_mon(tmp_path: Path) -> None:
    cell, state = _without_share_mon(RUNNING, tmp_path), tmp_path / "state"
    args = ("--cell", str(cell), "--state-dir", str(state))
    assert _json("sharetree", *args)["data"]["usage_source"] == "none"
    assert not state.exists()  # reading never creates the state
    _json("schedule", *args)
    tree = _json("sharetree", *args)["data"]
    assert tree["usage_source"] == "state"
    usage = {n["node"]: n["usage"] for n in tree["nodes"]}
    weights = 1.0  # usage_weight_list cpu=1 mem=0 io=0
    assert usage["/alice"] == pytest.approx(33.04 * weights)
    assert _json("qstat", *args)["data"]["usage_source"] == "state"
    assert _json("explain", "15044", *args)["data"]["usage_source"] == "state"
    # a dump with share_mon keeps it
    real = ("--cell", str(RUNNING), "--state-dir", str(state))
    assert _json("sharetree", *real)["data"]["usage_source"] == "share_mon"


def test_a_second_writer_waits_then_exits_75(tmp_path: Path) -> None:
    cell, state = _without_share_mon(RUNNING, tmp_path), tmp_path / "state"
    _json("schedule", "--cell", str(cell), "--state-dir", str(state))
    before = _rows(state, "sge_usage")
    holder = sqlite3.connect(state / "state.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        out = _cli("schedule", "--cell", str(cell), "--state-dir", str(state), "--now",
                   "1795650000", "--lock-timeout", "0.2", "--json")
        assert out.exit_code == 75, out.output
        cleared = _cli("clearusage", "--state-dir", str(state), "--lock-timeout", "0.2")
        assert cleared.exit_code == 75
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert _rows(state, "sge_usage") == before


def test_dry_run_prices_with_the_state_and_writes_nothing(tmp_path: Path) -> None:
    cell, state = _without_share_mon(RUNNING, tmp_path), tmp_path / "state"
    _json("schedule", "--cell", str(cell), "--state-dir", str(state))
    before = {t: _rows(state, t) for t in ("sge_usage", "sge_runs", "history")}
    dry = _json("schedule", "--cell", str(cell), "--state-dir", str(state), "--dry-run",
                "--now", "1795650000")["data"]
    assert dry["dry_run"] is True and dry["usage_source"] == "state"
    assert {t: _rows(state, t) for t in before} == before


def test_a_state_of_an_older_schema_is_read_as_no_usage(tmp_path: Path) -> None:
    cell, state = _without_share_mon(RUNNING, tmp_path), tmp_path / "state"
    _json("schedule", "--cell", str(cell), "--state-dir", str(state))
    conn = sqlite3.connect(state / "state.db")
    conn.execute("PRAGMA user_version = 2")
    conn.close()
    tree = _json("sharetree", "--cell", str(cell), "--state-dir", str(state))["data"]
    assert tree["usage_source"] == "none"


def test_a_dump_with_share_mon_prices_with_it_and_the_cycle_still_charges(tmp_path):
    state = tmp_path / "state"
    data = _json("schedule", "--cell", str(RUNNING), "--state-dir", str(state))["data"]
    assert data["cycle"]["usage_source"] == "share_mon"
    assert {u["name"] for u in data["usage"]} == {"alice", "bob"}


def test_what_if_prices_both_sides_with_the_recorded_usage(tmp_path: Path) -> None:
    """Without share_mon, ``qstat --what-if`` takes the state's recorded usage, as plain
    qstat does: its "before" is plain qstat's figures, its "after" plain qstat's on the
    dump changed for real, both priced with the same recorded usage."""
    from condorlite.store.sge_cell import changed_dump, parse_change

    cell, state = _without_share_mon(RUNNING, tmp_path), tmp_path / "state"
    args = ("--cell", str(cell), "--state-dir", str(state))
    _json("schedule", *args)
    change = "sharetree /bob shares=5"
    diff = _json("qstat", *args, "--what-if", change)["data"]
    assert diff["usage_source"] == "state"
    assert diff["moved"], "the change moves nothing: the test proves nothing"
    changed = tmp_path / "changed"
    changed.mkdir()
    changed_dump(cell, [parse_change(change)], changed)
    plain = {"before": _json("qstat", *args)["data"],
             "after": _json("qstat", "--cell", str(changed), "--state-dir", str(state))["data"]}
    for side, data in plain.items():
        assert data["usage_source"] == "state"
        rows = {(j["job"], j["task"]): j for j in data["jobs"] if j["state"] != "r"}
        for moved in diff["moved"]:
            figures = moved[side]
            if figures is None:
                continue
            row = rows[(moved["job"], moved["task"])]
            assert (figures["prio"], figures["tckts"], figures["stckt"]) == (
                row["prio"], row["tckts"], row["stckt"]), (side, moved)
