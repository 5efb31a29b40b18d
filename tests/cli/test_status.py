"""``condorlite status`` on the example pool: the condor_status views, human and JSON."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from condorlite.cli import app
from condorlite.core.accounting import ClaimRow
from condorlite.store.db import open_state

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
runner = CliRunner()


def _run(*args: str, input: str | None = None):
    return runner.invoke(app, ["status", *args], input=input)


@pytest.fixture
def state(tmp_path: Path) -> Path:
    """A fresh state: status reads one and never makes one (issue 17, item 8)."""
    open_state(tmp_path / "state")
    return tmp_path / "state"


def test_pool_view_human(state: Path) -> None:
    result = _run("--slots", str(EXAMPLES / "slots"), "--state-dir", str(state))
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == ["Name", "OpSys", "Arch", "State", "Activity", "LoadAv", "Mem",
                                "ActvtyTime"]
    rows = {line.split()[0]: line.split() for line in lines[2:36]}
    assert len(rows) == 34
    assert rows["slot1@exec03.example.org"] == [
        "slot1@exec03.example.org", "LINUX", "X86_64", "Unclaimed", "Idle", "0.000", "128000",
        "2+00:03:03"]
    assert rows["slot1_1@exec01.example.org"][3:5] == ["Claimed", "Busy"]
    assert rows["slot1@desk01.example.org"][3] == "Owner"
    # sorted by machine, then name with numbers compared as numbers
    names = [line.split()[0] for line in lines[2:36]]
    assert names[0] == "slot1@arm01.example.org"
    assert names[1:3] == ["slot1@bigmem01.example.org", "slot1@bigmem02.example.org"]
    text = result.output
    assert ("Total Owner Claimed Unclaimed Matched Preempting  Drain Backfill BkIdle") in text
    totals = {line.split()[0]: line.split()[1:] for line in lines[36:]
              if line.strip() and line.split()[0] in ("X86_64/LINUX", "aarch64/LINUX", "Total")}
    assert totals["X86_64/LINUX"] == ["33", "2", "7", "24", "0", "0", "0", "0", "0"]
    assert totals["aarch64/LINUX"] == ["1", "0", "0", "1", "0", "0", "0", "0", "0"]
    assert totals["Total"] == ["34", "2", "7", "25", "0", "0", "0", "0", "0"]
    assert f"State: {state}" in text and "last negotiation cycle: never" in text


def test_pool_view_json(state: Path) -> None:
    result = _run("--slots", str(EXAMPLES / "slots"), "--state-dir", str(state), "--json")
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["status"] == "ok" and doc["command"] == "status"
    data = doc["data"]
    assert data["state_dir"] == str(state)
    assert data["schema_version"] >= 1
    assert data["last_cycle_time"] is None
    pool = data["pool"]
    assert pool["total"] == {"total": 34, "owner": 2, "claimed": 7, "unclaimed": 25,
                             "matched": 0, "preempting": 0, "drain": 0, "backfill": 0,
                             "backfill_idle": 0}
    assert [t["platform"] for t in pool["totals"]] == ["X86_64/LINUX", "aarch64/LINUX"]
    gpu = next(s for s in pool["slots"] if s["name"] == "slot1_1@gpu01.example.org")
    assert gpu == {"name": "slot1_1@gpu01.example.org", "machine": "gpu01.example.org",
                   "opsys": "LINUX", "arch": "X86_64", "state": "Claimed", "activity": "Busy",
                   "load_avg": 3.92, "memory": 32768, "activity_time": 9000,
                   "slot_type": "Dynamic", "backfill": False, "recorded_claim": None}
    assert pool["malformed"] == 0


def test_submitters_view(state: Path) -> None:
    result = _run("--submitters", "--jobs", str(EXAMPLES / "jobs"), "--state-dir", str(state),
                  "--json")
    assert result.exit_code == 0, result.output
    subs = json.loads(result.output)["data"]["submitters"]
    got = {r["name"]: (r["machine"], r["running_jobs"], r["idle_jobs"], r["held_jobs"])
           for r in subs["submitters"]}
    assert got == {
        "alice@example.org": ("submit.example.org", 2, 22, 0),
        "bob@example.org": ("submit.example.org", 3, 11, 1),
        "dave@example.org": ("submit.example.org", 0, 3, 0),
        "group_physics.carol@example.org": ("submit.example.org", 2, 8, 0),
        "nice-user.dave@example.org": ("submit.example.org", 0, 10, 0),
    }
    assert subs["total"] == {"running_jobs": 7, "idle_jobs": 54, "held_jobs": 1}
    human = _run("--submitters", "--jobs", str(EXAMPLES / "jobs"), "--state-dir", str(state))
    assert human.exit_code == 0, human.output
    lines = human.output.splitlines()
    assert lines[0].split() == ["Name", "Machine", "RunningJobs", "IdleJobs", "HeldJobs"]
    assert lines[2].split() == ["alice@example.org", "submit.example.org", "2", "22", "0"]
    assert any(line.split() == ["Total", "7", "54", "1"] for line in lines)


def test_negotiator_view_reads_the_last_cycle(state: Path) -> None:
    empty = _run("--negotiator", "--state-dir", str(state))
    assert empty.exit_code == 0, empty.output
    assert "No negotiation cycle recorded yet" in empty.output
    store = open_state(state)
    with store.transaction() as tx:
        tx.add_history("negotiation_cycle", "older", {"cycle": {"matches": 1}}, 1000.0)
        tx.add_history("negotiation_cycle", "cycle", {"cycle": {"matches": 12, "pie_spins": 3,
                                                                "duration": 0.25}}, 2000.0)
    result = _run("--negotiator", "--state-dir", str(state), "--json")
    data = json.loads(result.output)["data"]
    assert data["last_cycle_time"] == 2000.0
    assert data["negotiator"]["last_cycle"]["data"]["cycle"]["matches"] == 12
    human = _run("--negotiator", "--state-dir", str(state))
    assert "1970-01-01 00:33:20 UTC (2000)" in human.output
    assert any(line.split() == ["pie_spins", "3"] for line in human.output.splitlines())


def test_inputs_come_from_the_config_relative_to_it(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    shutil.copytree(EXAMPLES / "slots", state / "slots")
    (state / "condorlite.toml").write_text('UID_DOMAIN = "example.org"\nSLOTS = ["slots"]\n')
    open_state(state)
    result = _run("--state-dir", str(state), "--json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["data"]["pool"]["total"]["total"] == 34


def test_no_inputs_is_a_usage_error(state: Path) -> None:
    result = _run("--state-dir", str(state), "--json")
    assert result.exit_code == 2
    assert "give --slots or set SLOTS" in json.loads(result.output)["errors"][0]["message"]


def test_bad_and_missing_files(state: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.ads"
    bad.write_text('Name = "x"\nState = \n')
    result = _run("--slots", str(bad), "--state-dir", str(state), "--json")
    assert result.exit_code == 65
    assert json.loads(result.output)["errors"][0]["message"].startswith(f"{bad}:2:")
    missing = _run("--slots", str(tmp_path / "none"), "--state-dir", str(state))
    assert missing.exit_code == 66


def test_stdin_and_malformed_totals(state: Path) -> None:
    ads = 'Name = "slot1@a"\nState = "Unclaimed"\nArch = "X86_64"\nOpSys = "LINUX"\n\n' \
          'Name = "slot1@b"\nState = "Bogus"\nArch = "X86_64"\nOpSys = "LINUX"\n\n' \
          'Name = "slot1@c"\nState = "Unclaimed"\nBackfillSlot = true\n' \
          'Arch = "X86_64"\nOpSys = "LINUX"\n'
    result = _run("--slots", "-", "--state-dir", str(state), input=ads)
    assert result.exit_code == 0, result.output
    assert "(Omitted 1 malformed ads in computed attribute totals)" in result.output
    total = next(line for line in result.output.splitlines()
                 if line.split()[:1] == ["Total"] and line.split()[1].isdigit())
    assert total.split() == ["Total", "1", "0", "0", "1", "0", "0", "0", "0", "1"]


def test_claims_view_lists_the_stored_claims(state: Path) -> None:
    empty = _run("--claims", "--state-dir", str(state))
    assert empty.exit_code == 0, empty.output
    assert empty.output.splitlines()[0] == "No stored claims."
    t0 = 1_700_000_000.0
    store = open_state(state)
    with store.transaction() as tx:
        tx.save_claims([
            ClaimRow("slot10@m", "3.0", "alice@example.org", 2.0, t0, {"observed": False}),
            ClaimRow("slot2@m", "", "bob@example.org", 1.0, t0 + 1, {"observed": True}),
            ClaimRow("p1@m#4.0", "4.0", "alice@example.org", 0.5, t0 + 2,
                     {"observed": False, "partitionable": "p1@m",
                      "resources": {"Cpus": 1, "Memory": 512}}),
            ClaimRow("slot3@m", "5.0", "carol@example.org", 1.0, t0 + 60,
                     {"observed": False, "preempted_user": "bob@example.org"}),
        ])
    result = _run("--claims", "--state-dir", str(state), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)["data"]
    assert "pool" not in data  # --claims alone reads no slot ads
    claims = data["claims"]
    # slot names with digit runs compared as numbers
    assert [c["slot"] for c in claims["claims"]] == ["p1@m#4.0", "slot2@m", "slot3@m",
                                                     "slot10@m"]
    assert claims["claims"][0] == {
        "slot": "p1@m#4.0", "job": "4.0", "submitter": "alice@example.org", "weight": 0.5,
        "since": 1_700_000_002, "observed": False, "partitionable": "p1@m",
        "preempted_user": None}
    assert claims["claims"][1]["job"] is None and claims["claims"][1]["observed"] is True
    assert claims["total_weight"] == 4.5
    human = _run("--claims", "--state-dir", str(state))
    assert human.output.splitlines()[:7] == [
        "Slot     Job Submitter         Weight Since                   State",
        "",
        "p1@m#4.0 4.0 alice@example.org    0.5 2023-11-14 22:13:22 UTC matched",
        "slot2@m  -   bob@example.org        1 2023-11-14 22:13:21 UTC observed",
        "slot3@m  5.0 carol@example.org      1 2023-11-14 22:14:20 UTC pending (preempting "
        "bob@example.org)",
        "slot10@m 3.0 alice@example.org      2 2023-11-14 22:13:20 UTC matched",
        "",
    ]
    assert "4 claims, total weight 4.5" in human.output
    assert f"State: {state}" in human.output


def test_pool_view_shows_the_state_claim_beside_the_ad(tmp_path):
    """The ads predate the cycle: a slot the cycle matched still says Unclaimed, so the
    view puts the recorded claim beside it; columns fit their widest value."""
    root = Path(__file__).resolve().parents[2] / "examples"
    shutil.copytree(root, tmp_path / "ex")
    cfg, sd = tmp_path / "ex" / "condorlite.toml", tmp_path / "s"
    done = runner.invoke(app, ["negotiate", "--config", str(cfg), "--state-dir", str(sd), "--now",
                "1760000000", "--json"])
    assert done.exit_code == 0, done.output
    matched = {m["slot"]: m for m in json.loads(done.output)["data"]["matches"]}
    out = _run("--config", str(cfg), "--state-dir", str(sd))
    lines = out.output.splitlines()
    assert lines[0].endswith("Claim in the state")
    row = next(x for x in lines if x.startswith("slot3@desk01.example.org "))
    m = matched["slot3@desk01.example.org"]
    assert " Unclaimed " in row and row.endswith(f"{m['job']} {m['submitter']}")
    arm = next(x for x in lines if x.startswith("slot1@arm01"))
    assert arm.index("Unclaimed") == lines[0].index("State")  # aarch64 no longer shifts it
    data = json.loads(_run("--config", str(cfg), "--state-dir", str(sd), "--json").output)
    rows = {r["name"]: r for r in data["data"]["pool"]["slots"]}
    assert rows["slot3@desk01.example.org"]["recorded_claim"] == {
        "jobs": [m["job"]], "submitters": [m["submitter"]], "weight": m["weight"]}
    assert rows["slot1@desk01.example.org"]["recorded_claim"] is None
