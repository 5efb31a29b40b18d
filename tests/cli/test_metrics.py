"""``condorlite metrics``: the output parsed back by prometheus_client's own parser."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from typer.testing import CliRunner

from condorlite.cli import app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
T0 = 1_760_000_000


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def state(tmp_path_factory) -> tuple[Path, Path]:
    work = tmp_path_factory.mktemp("metrics")
    shutil.copytree(EXAMPLES, work / "ex")
    sd, cfg = work / "state", work / "ex" / "condorlite.toml"
    for i in range(2):
        code, out = run("negotiate", "--config", str(cfg), "--state-dir", str(sd),
                        "--now", str(T0 + i * 3600))
        assert code == 0, out
    return sd, cfg


def samples(text: str) -> dict[tuple[str, tuple], float]:
    return {(s.name, tuple(sorted(s.labels.items()))): s.value
            for fam in text_string_to_metric_families(text) for s in fam.samples}


def test_parsed_back_the_figures_equal_userprio_and_the_cycle(state):
    sd, cfg = state
    at = str(T0 + 7200)
    code, text = run("metrics", "--state-dir", str(sd), "--config", str(cfg), "--now", at)
    assert code == 0, text
    got = samples(text)
    code, out = run("userprio", "--state-dir", str(sd), "--config", str(cfg), "--now", at,
                    "--json")
    records = json.loads(out)["data"]["records"]
    users = [r for r in records if not r["is_accounting_group"]]
    assert users
    for rec in users:
        key = (("group", rec["accounting_group"]), ("submitter", rec["name"]))
        assert got[("condorlite_submitter_effective_priority", key)] == pytest.approx(
            rec["effective_priority"], rel=1e-15)
        assert got[("condorlite_submitter_weighted_resources_in_use", key)] == \
            rec["weighted_resources_used"]
        assert got[("condorlite_submitter_weighted_usage_seconds", key)] == pytest.approx(
            rec["weighted_accumulated_usage"], rel=1e-15)
    assert got[("condorlite_cycle_timestamp_seconds", ())] == T0 + 3600
    assert got[("condorlite_cycle_matches", ())] == 1  # the second cycle's one match
    assert got[("condorlite_group_quota", (("group", "group_physics"),))] == 64
    for name, _ in got:
        assert re.fullmatch(r"condorlite_[a-z_]+", name)
    # the same bytes for the same state and --now
    assert run("metrics", "--state-dir", str(sd), "--config", str(cfg), "--now", at)[1] == text


def test_output_file_and_json(state, tmp_path):
    sd, cfg = state
    target = tmp_path / "condorlite.prom"
    code, out = run("metrics", "--state-dir", str(sd), "--config", str(cfg), "--now",
                    str(T0 + 7200), "--output", str(target))
    assert code == 0 and "samples to" in out
    from_file = samples(target.read_text())
    code, out = run("metrics", "--state-dir", str(sd), "--config", str(cfg), "--now",
                    str(T0 + 7200), "--json")
    data = json.loads(out)["data"]
    assert {(s["name"], tuple(sorted(s["labels"].items()))): s["value"]
            for s in data["samples"]} == from_file
    assert [p.name for p in tmp_path.iterdir()] == ["condorlite.prom"]  # no temporary left


def test_hostile_names_are_escaped_and_survive_the_format(tmp_path):
    from condorlite.core.accounting import AccountantState, Record
    from condorlite.store.db import open_state

    evil = 'ev"il\\\x1b[2J\n@x'
    store = open_state(tmp_path)  # a record from before such names were refused
    with store.transaction(write=True) as tx:
        tx.save_accountant(AccountantState(float(T0), {evil: Record(evil, last_usage_time=T0)}))
    code, text = run("metrics", "--state-dir", str(tmp_path), "--now", str(T0))
    assert code == 0 and "\x1b" not in text
    got = samples(text)
    # ESC escaped as everywhere; the newline, quote and backslash by the format itself
    key = (("group", "<none>"), ("submitter", 'ev"il\\\\x1b[2J\n@x'))
    assert got[("condorlite_submitter_priority_factor", key)] == 1000


def test_no_state_is_66(tmp_path):
    assert run("metrics", "--state-dir", str(tmp_path / "nope"))[0] == 66
