"""The edit commands: condor_userprio's confirmations, history rows, JSON, exit codes."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from condorlite.cli import app
from condorlite.store.db import open_state

T0 = 1_700_000_000


def run(state_dir, *args):
    result = CliRunner().invoke(app, [*args, "--state-dir", str(state_dir), "--now", str(T0)])
    return result.exit_code, result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["setprio", "alice@example.org", "10"],
         "The priority of alice@example.org was set to 10.000000"),
        (["setfactor", "alice@example.org", "2"],
         "The priority factor of alice@example.org was set to 2.000000"),
        (["setaccum", "alice@example.org", "3600"],
         "The Accumulated Usage of alice@example.org was set to 3600.000000"),
        (["setbegin", "alice@example.org", "1690000000"],
         "The Begin Usage Time of alice@example.org was set to 1690000000"),
        (["setlast", "alice@example.org", "1690000100"],
         "The Last Usage Time of alice@example.org was set to 1690000100"),
        (["setceiling", "alice@example.org", "-1"],
         "The ceiling of alice@example.org was set to -1"),
        (["setfloor", "alice@example.org", "4"], "The floor of alice@example.org was set to 4"),
    ],
)
def test_set_edits_print_condor_userprio_confirmations(tmp_path, args, message):
    code, out = run(tmp_path, *args)
    assert code == 0 and out == message + "\n"
    with open_state(tmp_path).transaction(write=False) as tx:
        row = tx.last_history("edit")
    assert row["what"] == message and row["data"]["command"] == args[0]
    assert row["data"]["name"] == "alice@example.org" and row["time"] == T0


def test_json_returns_the_record_after_the_edit(tmp_path):
    code, out = run(tmp_path, "setfactor", "bob@example.org", "3", "--json")
    doc = json.loads(out)
    assert code == 0 and doc["command"] == "setfactor" and doc["status"] == "ok"
    assert doc["data"]["priority_factor"] == 3.0
    assert doc["data"]["effective_priority"] == 1.5
    code, out = run(tmp_path, "setaccum", "bob@example.org", "7200", "--json")
    assert json.loads(out)["data"]["weighted_accumulated_usage"] == 7200.0


def test_resetusage_resetall_delete(tmp_path):
    run(tmp_path, "setaccum", "a@x.org", "7200")
    run(tmp_path, "setaccum", "b@x.org", "3600")
    assert run(tmp_path, "resetusage", "a@x.org") == (
        0, "The accumulated usage of a@x.org was reset\n")
    code, out = run(tmp_path, "resetall", "--json")
    assert code == 0
    assert json.loads(out)["data"] == {"records_reset": 2}
    assert run(tmp_path, "resetall")[1] == "The accumulated usage was reset for all users\n"
    assert run(tmp_path, "delete", "a@x.org") == (
        0, "The accountant record named a@x.org was deleted\n")
    with open_state(tmp_path).transaction(write=False) as tx:
        state = tx.load_accountant()
        history = tx.history()
    assert list(state.records) == ["b@x.org"]
    assert state.records["b@x.org"].weighted_accumulated_usage == 0
    assert state.records["b@x.org"].begin_usage_time == T0
    assert len(history) == 6


@pytest.mark.parametrize(
    ("args", "code", "kind", "fragment"),
    [
        (["setfactor", "a@x.org", "0.5"], 2, "usage", "greater than or equal to 1"),
        (["setprio", "a@x.org", "-3"], 2, "usage", ">= 0"),
        (["setceiling", "a@x.org", "-2"], 2, "usage", "greater than or equal to -1"),
        (["setfloor", "a@x.org", "-1"], 2, "usage", "greater than or equal to 0"),
        (["setprio", "alice", "3"], 2, "usage", "user@domain"),
        (["delete", "ghost@x.org"], 1, "domain", "no accountant record named ghost@x.org"),
        (["resetusage", "ghost@x.org"], 1, "domain", "no accountant record"),
    ],
)
def test_refused_edits(tmp_path, args, code, kind, fragment):
    got, out = run(tmp_path, *args, "--json")
    doc = json.loads(out)
    assert got == code and doc["status"] == "error"
    assert doc["errors"][0]["kind"] == kind and fragment in doc["errors"][0]["message"]
    with open_state(tmp_path).transaction(write=False) as tx:
        assert tx.load_accountant().records == {} and tx.history() == []


def test_non_numeric_value_is_typer_usage_error(tmp_path):
    assert run(tmp_path, "setfactor", "a@x.org", "lots")[0] == 2


def test_edit_happens_at_now_so_decay_starts_there(tmp_path):
    run(tmp_path, "setprio", "a@x.org", "1")  # first update: baseline T0
    result = CliRunner().invoke(app, ["setprio", "a@x.org", "10", "--state-dir",
                                      str(tmp_path), "--now", str(T0 + 43200)])
    assert result.exit_code == 0
    result = CliRunner().invoke(app, ["userprio", "a@x.org", "--json", "--state-dir",
                                      str(tmp_path), "--now", str(T0 + 43200 + 86400)])
    assert json.loads(result.output)["data"]["records"][0]["real_priority"] == pytest.approx(5)


def test_a_ceiling_or_floor_past_any_integer_sqlite_stores_is_a_usage_error(tmp_path):
    """99999999999999999999999 was an internal error (70) when saved (issue 17, item 3)."""
    from typer.testing import CliRunner as _Runner

    from condorlite.cli import app as _app

    for command in ("setceiling", "setfloor"):
        result = _Runner().invoke(_app, [command, "a@x.org", "99999999999999999999999",
                                         "--state-dir", str(tmp_path), "--now", "1760000000"])
        assert result.exit_code == 2, result.output
        assert "at most" in result.output
