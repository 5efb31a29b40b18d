"""``condorlite userprio`` with accounting groups: golden tables and the JSON contract.

The pool is the seed's example: physics has a quota of 20 and uses 15 (75%), chemistry
a quota of 10 and uses 5 (50%), so chemistry comes first in the starvation order.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from condorlite.cli import app
from condorlite.cli.history_rows import CYCLE_KIND
from condorlite.core import accounting as A
from condorlite.core.accounting import AccountantState
from condorlite.store.db import open_state

GOLDEN = Path(__file__).parent.parent / "data" / "golden"
DAY = 86400
T0 = 1_700_000_000  # 2023-11-14 22:13:20 UTC

CONFIG = """\
UID_DOMAIN = "x"
GROUP_NAMES = ["physics", "physics.hep", "chem"]
GROUP_QUOTA_physics = 20
GROUP_QUOTA_chem = 10
"GROUP_QUOTA_DYNAMIC_physics.hep" = 0.5
GROUP_ACCEPT_SURPLUS_chem = true
"""


# Tables print local time: every test here runs with TZ=UTC (conftest).
pytestmark = pytest.mark.usefixtures("utc")


def run(state_dir: Path, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, [*args, "--state-dir", str(state_dir)])
    return result.exit_code, result.output


def run_json(state_dir: Path, *args: str) -> dict:
    code, out = run(state_dir, *args, "--json")
    assert code == 0, out
    return json.loads(out)["data"]


def make_pool(where: Path, config: str = CONFIG, history: dict | None = None) -> Path:
    where.mkdir(parents=True, exist_ok=True)
    (where / "condorlite.toml").write_text(config)
    store = open_state(where)
    policy = store.policy
    state = A.update_priorities(AccountantState(None), policy, T0 - DAY)
    for name, weight in (("physics.alice@x", 15), ("chem.bob@x", 5), ("carol@x", 2),
                         ("physics.hep.dan@x", 3)):
        state = A.add_match(state, policy, name, float(weight), T0 - DAY)
    state = A.update_priorities(state, policy, T0 - 3600)
    state = A.add_match(state, policy, "chem.erin@x", 1.0, T0 - 3600)
    state = A.remove_match(state, policy, "chem.erin@x", 1.0, T0 - 1800)
    with store.transaction() as tx:
        tx.save_accountant(state)
        if history is not None:
            tx.add_history(CYCLE_KIND, "a cycle", history, T0 - 3600)
    return where


@pytest.fixture
def pool(tmp_path) -> Path:
    return make_pool(tmp_path / "state")


@pytest.mark.parametrize(
    ("golden", "args"),
    [
        ("userprio_groups_default.txt", []),
        ("userprio_groups_flat.txt", ["--flat"]),
        ("userprio_groups_quotas.txt", ["--quotas"]),
        ("userprio_groups_all.txt", ["--all"]),
        ("userprio_groups_grouporder.txt", ["--grouporder"]),
        ("userprio_groups_sortkey.txt", ["--sortkey"]),
        ("userprio_groups_rollup_usage.txt", ["--grouprollup", "--usage"]),
        ("userprio_groups_priority.txt", ["--priority"]),
        ("userprio_groups_surplus_flat.txt", ["--surplus", "--flat"]),
    ],
)
def test_golden_output(pool, golden, args):
    code, out = run(pool, "userprio", "--now", str(T0), *args)
    assert code == 0, out
    path = GOLDEN / golden
    if os.environ.get("CONDORLITE_UPDATE_GOLDEN"):
        path.write_text(out)
    assert out == path.read_text()


def test_default_is_hierarchical_in_starvation_order(pool):
    data = run_json(pool, "userprio", "--now", str(T0))
    assert data["layout"] == "hierarchical"
    names = [r["name"] for r in data["records"]]
    # hep 3/10, chem 5/10, physics 15/20, <none> last; users under their group by EUP.
    assert names == ["physics.hep", "physics.hep.dan@x", "chem", "chem.erin@x",
                     "chem.bob@x", "physics", "physics.alice@x", "<none>", "carol@x"]


def test_json_groups_contract(pool):
    data = run_json(pool, "userprio", "--now", str(T0))
    keys = {"name", "parent", "depth", "config_quota", "effective_quota", "subtree_quota",
            "is_static", "accept_surplus", "autoregroup", "requested", "allocated", "usage",
            "sort_key", "sort_key_infinite"}
    groups = {g["name"]: g for g in data["groups"]}
    assert [g["name"] for g in data["groups"]] == ["<none>", "chem", "physics", "physics.hep"]
    assert all(set(g) == keys for g in data["groups"])
    assert groups["chem"] == {
        "name": "chem", "parent": "<none>", "depth": 1, "config_quota": 10.0,
        "effective_quota": 10.0, "subtree_quota": 10.0, "is_static": True,
        "accept_surplus": True, "autoregroup": False, "requested": 5.0, "allocated": 5.0,
        "usage": 5.0, "sort_key": 0.5, "sort_key_infinite": False}
    hep = groups["physics.hep"]
    assert (hep["parent"], hep["depth"], hep["is_static"]) == ("physics", 2, False)
    assert (hep["config_quota"], hep["effective_quota"]) == (0.5, 10.0)
    assert groups["physics"]["sort_key"] == 0.75
    assert data["pool_size"] == 30 and data["pool_size_source"] == "static_quotas"
    assert data["requested_source"] == "usage"
    records = {r["name"]: r for r in data["records"]}
    assert records["physics"]["is_accounting_group"] is True
    assert records["physics"]["weighted_resources_used"] == 15
    assert records["physics"]["hier_weighted_resources_used"] == 18
    assert records["physics.hep.dan@x"]["accounting_group"] == "physics.hep"
    # physics decays towards its subtree's 18 slots: 0.5 * 0.5 + 18 * 0.5 over one day.
    assert records["physics"]["real_priority"] == pytest.approx(9.25)


def test_pool_size_and_demand_from_the_last_cycle(tmp_path):
    where = make_pool(tmp_path / "s", history={
        "cycle": {"pool_weight": 40},
        "demand": {"physics.alice@x": 40, "chem.bob@x": 5, "carol@x": 2,
                   "physics.hep.dan@x": 3}})
    data = run_json(where, "userprio", "--now", str(T0))
    assert data["pool_size"] == 40 and data["pool_size_source"] == "last_negotiation_cycle"
    assert data["requested_source"] == "last_negotiation_cycle"
    groups = {g["name"]: g for g in data["groups"]}
    assert groups["<none>"]["subtree_quota"] == 40
    # physics asks for 40 with a quota of 20 and refuses surplus from outside: it gets
    # its 20 plus the 7 its own subgroup hep (quota 10, asking 3) leaves unused.
    assert (groups["physics"]["requested"], groups["physics"]["allocated"]) == (40, 27)
    code, out = run(where, "userprio", "--now", str(T0), "--quotas")
    assert code == 0
    assert "Pool size: 40 weighted slots (last negotiation cycle)" in out.splitlines()[1]


def test_quotas_alone_lists_groups_but_counts_users(pool):
    code, out = run(pool, "userprio", "--now", str(T0), "--quotas")
    assert code == 0
    lines = out.splitlines()
    assert not any("@" in ln for ln in lines)
    assert lines[-1].startswith("Number of users: 5")
    data = run_json(pool, "userprio", "--now", str(T0), "--quotas")
    assert sum("@" in r["name"] for r in data["records"]) == 5


def test_autoregroup_puts_none_last_even_when_ordered_by_id(tmp_path):
    where = make_pool(tmp_path / "s", CONFIG + "GROUP_AUTOREGROUP_chem = true\n")
    code, out = run(where, "userprio", "--now", str(T0), "--sortkey")
    assert code == 0
    group_lines = [ln.split()[0] for ln in out.splitlines()[6:-2] if not ln.startswith(" ")]
    assert group_lines == ["chem", "physics", "physics.hep", "<none>"]
    code, out = run(where, "userprio", "--now", str(T0), "--surplus", "--flat")
    assert "Regroup" in out.splitlines()[-1]


def test_rollup_sums_the_subtree(pool):
    data = run_json(pool, "userprio", "--now", str(T0), "--grouprollup")
    # JSON records stay the accountant's own figures; the table shows the sums.
    assert {r["name"]: r["weighted_resources_used"] for r in data["records"]}["physics"] == 15
    code, out = run(pool, "userprio", "--now", str(T0), "--grouprollup", "--usage")
    assert code == 0
    physics = next(ln for ln in out.splitlines() if ln.startswith("physics "))
    none = next(ln for ln in out.splitlines() if ln.startswith("<none>"))
    assert physics.split()[1:3] == ["18", "432.00"]
    assert none.split()[1:3] == ["25", "600.50"]


def test_recent_usage_filter_applies_to_groups(pool):
    later = str(T0 + 2 * DAY)
    # The matches still run two days later, so every record stays visible.
    assert len(run_json(pool, "userprio", "--now", later)["records"]) == 9
    quiet = make_pool(pool.parent / "quiet")
    store = open_state(quiet)
    policy = store.policy
    with store.transaction() as tx:
        state = tx.load_accountant()
        for name, weight in (("physics.alice@x", 15), ("chem.bob@x", 5), ("carol@x", 2),
                             ("physics.hep.dan@x", 3)):
            state = A.remove_match(state, policy, name, float(weight), T0)
        tx.save_accountant(A.update_priorities(state, policy, T0))
    assert run_json(quiet, "userprio", "--now", later)["records"] == []
    assert len(run_json(quiet, "userprio", "--now", later, "--allusers")["records"]) == 9


def test_hierarchical_and_flat_exclude_each_other(pool):
    code, out = run(pool, "userprio", "--hierarchical", "--flat", "--json")
    assert code == 2 and json.loads(out)["errors"][0]["kind"] == "usage"


def test_without_groups_nothing_changes(tmp_path):
    where = tmp_path / "plain"
    store = open_state(where)
    state = A.update_priorities(AccountantState(None), store.policy, T0 - 3600)
    state = A.add_match(state, store.policy, "a.b@x", 1.0, T0 - 3600)
    with store.transaction() as tx:
        tx.save_accountant(state)
    data = run_json(where, "userprio", "--now", str(T0), "--hierarchical", "--quotas")
    assert data["groups"] == [] and data["layout"] == "flat"
    assert [r["name"] for r in data["records"]] == ["a.b@x"]


def test_seed_hierarchy_root_60(tmp_path):
    """The seed's hierarchy: a 10, b 20, c 30 in a pool of 60, surplus accepted."""
    config = ('UID_DOMAIN = "x"\nGROUP_NAMES = ["a", "b", "c"]\nGROUP_QUOTA_a = 10\n'
              "GROUP_QUOTA_b = 20\nGROUP_QUOTA_c = 30\nGROUP_ACCEPT_SURPLUS = true\n")
    where = make_pool(tmp_path / "s", config, history={
        "cycle": {"pool_weight": 60}, "demand": {"a.u@x": 25, "b.u@x": 5, "c.u@x": 30}})
    groups = {g["name"]: g for g in run_json(where, "userprio", "--now", str(T0))["groups"]}
    assert [groups[g]["effective_quota"] for g in "abc"] == [10, 20, 30]
    # b leaves 15 unused; a takes it as surplus: 25 in all.
    assert [groups[g]["allocated"] for g in "abc"] == [25, 5, 30]
    assert groups["<none>"]["subtree_quota"] == 60


def test_odd_history_rows_fall_back_to_the_static_quotas(tmp_path):
    where = make_pool(tmp_path / "s", history={"cycle": {"pool_weight": "lots"},
                                               "demand": ["not", "a", "mapping"]})
    data = run_json(where, "userprio", "--now", str(T0))
    assert (data["pool_size"], data["pool_size_source"]) == (30, "static_quotas")
    assert data["requested_source"] == "usage"
