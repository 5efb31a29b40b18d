"""``condorlite release``: ending stored claims by hand, charged as HTCondor's RemoveMatch.

Claims are made by real ``negotiate`` cycles; the figures are checked against the
accountant's own arithmetic (usage charged up to the release, not after) and against
the same claim ending because its job left the queue.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from typer.testing import CliRunner

from condorlite.cli import app
from tests.cli.test_negotiate import (
    DOM,
    HOUR,
    T0,
    db_dump,
    job_ad,
    negotiate,
    records,
    slot_ad,
    write,
)

runner = CliRunner()
ALICE, BOB = f"alice@{DOM}", f"bob@{DOM}"


def release(state: Path, *args: str, now: float = T0 + HOUR) -> tuple[int, str, str]:
    result = runner.invoke(app, ["release", *args, "--state-dir", str(state),
                                 "--now", str(now)])
    return result.exit_code, result.stdout, result.stderr


def release_json(state: Path, *args: str, now: float = T0 + HOUR) -> dict:
    code, out, _err = release(state, *args, "--json", now=now)
    doc = json.loads(out)
    assert doc["command"] == "release"
    assert code == (0 if doc["status"] == "ok" else code)
    return doc


def stored(state: Path) -> list[tuple[str, str, str]]:
    conn = sqlite3.connect(state / "state.db")
    try:
        return list(conn.execute("SELECT slot, job, submitter FROM claims ORDER BY slot"))
    finally:
        conn.close()


def history(state: Path) -> list[tuple[str, str, dict]]:
    conn = sqlite3.connect(state / "state.db")
    try:
        rows = conn.execute("SELECT kind, what, data FROM history ORDER BY id")
        return [(k, w, json.loads(d)) for k, w, d in rows]
    finally:
        conn.close()


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "state"


@pytest.fixture
def three(tmp_path: Path, state: Path) -> tuple[Path, Path]:
    """Three one-core slots held by alice's jobs 1.0, 1.1 and 2.0 since T0."""
    slots = write(tmp_path / "slots.ads", [slot_ad(f"slot{i}@m") for i in range(3)])
    jobs = write(tmp_path / "jobs.ads", [job_ad(1, 0, "alice"), job_ad(1, 1, "alice"),
                                         job_ad(2, 0, "alice")])
    assert len(negotiate(state, slots, jobs, T0)["matches"]) == 3
    return slots, jobs


def test_release_a_job_charges_up_to_now_and_forgets_the_claim(state: Path, three) -> None:
    doc = release_json(state, "1.1")
    data = doc["data"]
    assert doc["status"] == "ok" and data["dry_run"] is False
    [claim] = data["released"]
    assert claim["job"] == "1.1" and claim["submitter"] == ALICE and claim["weight"] == 1
    assert claim["since"] == T0 and claim["observed"] is False
    assert data["usage"] == [{"name": ALICE, "resources_used": 2,
                              "weighted_resources_used": 2}]
    assert [job for _slot, job, _who in stored(state)] == ["1.0", "2.0"]
    # three slots for the first hour, two for the second: 5 core-hours, no more
    rec = records(state, T0 + 2 * HOUR)[ALICE]
    assert rec["accumulated_usage"] == pytest.approx(5 * HOUR)
    assert rec["resources_used"] == 2 and rec["weighted_resources_used"] == 2
    kind, what, row = history(state)[-1]
    assert kind == "edit" and row["command"] == "release" and row["jobs"] == ["1.1"]
    assert [c["job"] for c in row["claims"]] == ["1.1"]
    assert what.startswith("released 1 claim: ")


def test_release_is_charged_as_the_job_leaving_the_queue(tmp_path: Path, three) -> None:
    """Two states from the same start: one releases job 1.1 by hand at T0+1h, the
    other's job 1.1 leaves the queue in a cycle at T0+1h. Every record agrees after."""
    slots, _jobs = three
    by_hand = tmp_path / "state"
    by_cycle = tmp_path / "other"
    jobs = write(tmp_path / "all.ads", [job_ad(1, 0, "alice"), job_ad(1, 1, "alice"),
                                        job_ad(2, 0, "alice")])
    negotiate(by_cycle, slots, jobs, T0)
    assert release(by_hand, "1.1")[0] == 0
    left = write(tmp_path / "left.ads", [job_ad(1, 0, "alice"), job_ad(2, 0, "alice")])
    assert [r["job"] for r in negotiate(by_cycle, slots, left, T0 + HOUR)["released"]] == [
        "1.1"]
    assert records(by_hand, T0 + 5 * HOUR) == records(by_cycle, T0 + 5 * HOUR)


def test_a_cluster_or_several_jobs_at_once(state: Path, three) -> None:
    data = release_json(state, "1")["data"]
    assert [c["job"] for c in data["released"]] == ["1.0", "1.1"]
    assert data["usage"][0]["weighted_resources_used"] == 1
    assert [job for _s, job, _w in stored(state)] == ["2.0"]
    # numbers compare as numbers; the same claim named twice is released once
    data = release_json(state, "002.0", "2.0", now=T0 + 2 * HOUR)["data"]
    assert [c["job"] for c in data["released"]] == ["2.0"] and stored(state) == []


def test_slot_names_a_claim_and_a_pslot_names_its_pieces(tmp_path: Path, state: Path) -> None:
    slots = write(tmp_path / "slots.ads", [
        slot_ad("p1@m", cpus=4, memory=8192, PartitionableSlot="true",
                SlotType='"Partitionable"'),
        slot_ad("s1@m")])
    jobs = write(tmp_path / "jobs.ads", [job_ad(1, p, "alice") for p in range(5)])
    assert len(negotiate(state, slots, jobs, T0)["matches"]) == 5
    # four one-core pieces of the 4-core pslot and the static slot, whichever jobs
    pieces = [s for s, _j, _w in stored(state) if s.startswith("p1@m#")]
    assert len(pieces) == 4 and [s for s, _j, _w in stored(state)] == [*pieces, "s1@m"]
    one = release_json(state, "--slot", pieces[1])["data"]["released"]
    assert [(c["slot"], c["partitionable"]) for c in one] == [(pieces[1], "p1@m")]
    rest = release_json(state, "--slot", "p1@m", "--slot", "s1@m",
                        now=T0 + 2 * HOUR)["data"]["released"]
    assert sorted(c["slot"] for c in rest) == sorted([*pieces[:1], *pieces[2:], "s1@m"])
    assert stored(state) == []
    assert records(state, T0 + 2 * HOUR)[ALICE]["weighted_resources_used"] == 0


def test_an_unknown_job_or_slot_exits_1_and_writes_nothing(state: Path, three) -> None:
    before = db_dump(state)
    code, out, err = release(state, "1.0", "9.9", "7")
    assert code == 1 and out == ""
    assert "no stored claim of job 9.9, job 7" in err
    assert "condorlite status --claims" in err
    doc = release_json(state, "--slot", "slot0@m", "--slot", "nowhere@m")
    assert doc["status"] == "error" and doc["data"] is None
    [error] = doc["errors"]
    assert error["kind"] == "domain" and "slot nowhere@m" in error["message"]
    assert "status --claims" in error["hint"]
    assert db_dump(state) == before


@pytest.mark.parametrize("args", [(), ("1.0", "--slot", "slot0@m"), ("1.x",), ("-3",)])
def test_usage_errors_exit_2_and_write_nothing(state: Path, three, args) -> None:
    before = db_dump(state)
    code, _out, _err = release(state, *args)
    assert code == 2
    assert db_dump(state) == before


def test_dry_run_shows_the_release_and_writes_nothing(state: Path, three) -> None:
    before = db_dump(state)
    code, out, _err = release(state, "2.0", "--dry-run")
    assert code == 0
    assert out.splitlines() == [
        f"Would release the claim of slot2@m (job 2.0, {ALICE}, weight 1)",
        f"{ALICE} now uses 2 (weighted) in 2 slot(s)",
        "(dry run: nothing was written)"]
    assert release_json(state, "2.0", "--dry-run")["data"]["dry_run"] is True
    assert db_dump(state) == before


def test_human_output_and_a_locked_state(state: Path, three) -> None:
    holder = sqlite3.connect(state / "state.db", isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        code, _out, err = release(state, "1.0", "--lock-timeout", "0.2")
        assert code == 75, err
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    code, out, _err = release(state, "1.0")
    assert code == 0
    assert out.splitlines() == [
        f"Released the claim of slot0@m (job 1.0, {ALICE}, weight 1)",
        f"{ALICE} now uses 2 (weighted) in 2 slot(s)"]


def test_an_observed_claim_comes_back_while_its_ad_shows_it(tmp_path: Path,
                                                            state: Path) -> None:
    slots = write(tmp_path / "slots.ads", [
        slot_ad("slot1@m", state="Claimed", user="bob", cpus=2, JobId='"5.0"')])
    empty = write(tmp_path / "none.ads", [])
    assert negotiate(state, slots, empty, T0)["cycle"]["claims_observed"] == 1
    code, out, _err = release(state, "5.0")
    assert code == 0
    assert "Note: slot1@m came from slot ads" in out
    assert records(state, T0 + HOUR)[BOB]["weighted_resources_used"] == 0
    assert records(state, T0 + HOUR)[BOB]["weighted_accumulated_usage"] == pytest.approx(
        2 * HOUR)
    again = negotiate(state, slots, empty, T0 + 2 * HOUR)
    assert again["cycle"]["claims_observed"] == 1
    # bob was not charged for the hour between the release and the next cycle
    assert records(state, T0 + 2 * HOUR)[BOB]["weighted_accumulated_usage"] == \
        pytest.approx(2 * HOUR)
