"""``condorlite userprio``: golden tables, the JSON contract, the seeds' numbers."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from condorlite.cli import app
from condorlite.core import accounting as A
from condorlite.core.accounting import AccountantState, Record
from condorlite.store.db import open_state

GOLDEN = Path(__file__).parent.parent / "data" / "golden"
DAY = 86400
T0 = 1_700_000_000  # 2023-11-14 22:13:20 UTC


# Tables print local time: every test here runs with TZ=UTC (conftest).
pytestmark = pytest.mark.usefixtures("utc")


def run(state_dir: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, [*args, "--state-dir", str(state_dir)])
    return result.exit_code, result.output


def run_json(state_dir: Path, *args: str) -> dict:
    code, out = run(state_dir, *args, "--json")
    assert code == 0, out
    return json.loads(out)


@pytest.fixture
def pool(tmp_path) -> Path:
    """A small accountant: heavy and light users, one idle for two days, one remote."""
    store = open_state(tmp_path)
    policy = store.policy
    state = A.update_priorities(AccountantState(None), policy, T0 - 3 * DAY)
    state = A.add_match(state, policy, "carmen@cs.wisc.edu", 64.0, T0 - 3 * DAY)
    state = A.add_match(state, policy, "joey@cs.wisc.edu", 1.0, T0 - 2 * DAY)
    state = A.add_match(state, policy, "petra@cs.wisc.edu", 8.0, T0 - 3 * DAY)
    state = A.update_priorities(state, policy, T0 - 2 * DAY)
    state = A.remove_match(state, policy, "petra@cs.wisc.edu", 8.0, T0 - 2 * DAY)
    state = A.add_match(state, policy, "suzy@cs.wisc.edu", 4.0, T0 - DAY)
    state = A.update_priorities(state, policy, T0 - 9 * 3600)
    state = A.remove_match(state, policy, "suzy@cs.wisc.edu", 4.0, T0 - 9 * 3600)
    state = A.set_factor(state, policy, "carmen@cs.wisc.edu", 10.0, T0 - 9 * 3600)
    state = A.set_ceiling(state, policy, "carmen@cs.wisc.edu", 70, T0 - 9 * 3600)
    state = A.set_floor(state, policy, "joey@cs.wisc.edu", 2, T0 - 9 * 3600)
    state = A.set_priority(state, policy, "ali@proj1.wisc.edu", 0.5, T0 - 9 * 3600)
    with store.transaction() as tx:
        tx.save_accountant(state)
    return tmp_path


@pytest.mark.parametrize(
    ("golden", "args"),
    [
        ("userprio_default.txt", []),
        ("userprio_allusers_all.txt", ["--allusers", "--all"]),
        ("userprio_usage.txt", ["--usage"]),
        ("userprio_priority.txt", ["--priority", "--allusers"]),
        ("userprio_named.txt", ["petra@cs.wisc.edu", "joey"]),
        ("userprio_long.txt", ["--long", "joey@cs.wisc.edu"]),
    ],
)
def test_golden_output(pool, golden, args):
    code, out = run(pool, "userprio", "--now", str(T0), *args)
    assert code == 0, out
    path = GOLDEN / golden
    if os.environ.get("CONDORLITE_UPDATE_GOLDEN"):
        path.write_text(out)
    assert out == path.read_text()


def test_default_view_hides_records_idle_for_a_day(pool):
    names = [r["name"] for r in run_json(pool, "userprio", "--now", str(T0))["data"]["records"]]
    assert names == ["carmen@cs.wisc.edu", "joey@cs.wisc.edu", "suzy@cs.wisc.edu"]
    everyone = run_json(pool, "userprio", "--now", str(T0), "--allusers")["data"]["records"]
    assert len(everyone) == 5
    since = run_json(pool, "userprio", "--now", str(T0), "--activefrom", "11/12/2023")
    assert [r["name"] for r in since["data"]["records"]] == [
        "carmen@cs.wisc.edu", "joey@cs.wisc.edu", "suzy@cs.wisc.edu", "petra@cs.wisc.edu"]


def test_json_contract(pool):
    doc = run_json(pool, "userprio", "--now", str(T0), "--allusers")
    assert set(doc) == {"schema_version", "command", "status", "data", "errors"}
    assert (doc["schema_version"], doc["command"], doc["status"], doc["errors"]) == (
        1, "userprio", "ok", [])
    data = doc["data"]
    assert data["last_update"] == T0 and data["state_last_update"] == T0 - 9 * 3600
    keys = {"name", "is_accounting_group", "accounting_group", "effective_priority",
            "real_priority", "priority_factor", "resources_used", "weighted_resources_used",
            "accumulated_usage", "weighted_accumulated_usage", "begin_usage_time",
            "last_usage_time", "ceiling", "ceiling_unlimited", "floor",
            "hier_weighted_resources_used"}
    assert data["groups"] == [] and data["pool_size"] is None and data["layout"] == "flat"
    for rec in data["records"]:
        assert set(rec) == keys
    carmen = next(r for r in data["records"] if r["name"] == "carmen@cs.wisc.edu")
    assert carmen["resources_used"] == 1 and carmen["weighted_resources_used"] == 64
    assert carmen["weighted_accumulated_usage"] == pytest.approx(64 * 3 * DAY)
    assert carmen["ceiling"] == 70 and carmen["ceiling_unlimited"] is False
    assert carmen["effective_priority"] == pytest.approx(carmen["real_priority"] * 10)
    ali = next(r for r in data["records"] if r["name"] == "ali@proj1.wisc.edu")
    assert ali["ceiling"] is None and ali["ceiling_unlimited"] is True
    assert ali["begin_usage_time"] is None and ali["last_usage_time"] is None
    effs = [r["effective_priority"] for r in data["records"]]
    assert effs == sorted(effs)


def test_display_does_not_write(pool):
    before = (pool / "state.db").read_bytes()
    run(pool, "userprio", "--now", str(T0 + 5 * DAY), "--allusers")
    with open_state(pool).transaction(write=False) as tx:
        assert tx.load_accountant().last_update_time == T0 - 9 * 3600
    assert (pool / "state.db").read_bytes() == before


# -- the seed manual's numbers through the CLI ---------------------------------------------


def test_rup_10_is_5_after_a_halflife_and_2_5_after_two(tmp_path):
    assert run(tmp_path, "setprio", "a@x.org", "10", "--now", str(T0))[0] == 0
    for days, rup in ((1, 5.0), (2, 2.5)):
        doc = run_json(tmp_path, "userprio", "a@x.org", "--now", str(T0 + days * DAY))
        assert doc["data"]["records"][0]["real_priority"] == pytest.approx(rup)


def test_new_user_with_100_cores_through_the_cli(tmp_path):
    store = open_state(tmp_path)
    with store.transaction() as tx:
        state = A.update_priorities(tx.load_accountant(), store.policy, T0)
        tx.save_accountant(A.add_match(state, store.policy, "u@x.org", 100.0, T0))
    for dt, rup in ((60, 0.547883), (DAY, 50.25), (2 * DAY, 75.125)):
        rec = run_json(tmp_path, "userprio", "u@x.org", "--now", str(T0 + dt))["data"]
        assert rec["records"][0]["real_priority"] == pytest.approx(rup, abs=5e-7)


def test_new_local_user_shows_eup_500_with_factor_1000(tmp_path):
    run(tmp_path, "setfloor", "alice@example.org", "0", "--now", str(T0))
    code, out = run(tmp_path, "userprio", "alice@example.org", "--now", str(T0))
    assert code == 0
    line = next(ln for ln in out.splitlines() if ln.startswith("alice@example.org"))
    assert line.split()[1:3] == ["500.00", "1000.00"]


def test_bad_activefrom_is_a_usage_error(tmp_path):
    code, out = run(tmp_path, "userprio", "--activefrom", "2023-11-12", "--json")
    assert code == 2 and json.loads(out)["errors"][0]["kind"] == "usage"


def test_record_ad_round_trips_through_json_numbers():
    rec = Record("a@x", priority=0.1 + 0.2, priority_factor=3.0)
    from condorlite.cli.userprio import record_ad
    lines = dict(line.split(" = ", 1) for line in record_ad(rec, T0))
    assert float(lines["RealPriority"]) == rec.priority
    assert lines["Name"] == '"a@x"' and lines["MyType"] == '"Accounting"'


def test_a_user_holding_slots_counts_as_active_at_the_moment_of_the_match():
    """Between a cycle's matches and the next accountant update, LastUsageTime is not yet
    stamped; a submitter holding slots must still show (as used ``<now>``)."""
    from condorlite.cli.userprio import in_use_counts_as_used, select_records
    from condorlite.core import accounting as acct
    from condorlite.core.policy import Policy

    policy, now = Policy(), 1_760_000_000.0
    state = acct.update_priorities(acct.AccountantState(None, {}), policy, now)
    state = acct.add_match(state, policy, "alice@example.org", 4.0, now)
    idle = acct.new_record("bob@example.org", policy, now)
    state = acct.AccountantState(state.last_update_time, {**state.records, idle.name: idle})
    day_ago = now - 86400

    assert select_records(state.records, [], day_ago) == []
    shown = select_records(in_use_counts_as_used(state, now).records, [], day_ago)
    assert [r.name for r in shown] == ["alice@example.org"]
    assert shown[0].last_usage_time == now
