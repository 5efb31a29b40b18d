"""``condorlite import``: condor_userprio -long (modular and legacy), round trip, errors."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from condorlite.cli import app
from condorlite.core import accounting as A
from condorlite.core.accounting import AccountantState
from condorlite.store.db import open_state

T0 = 1_700_000_000
DAY = 86400

# As a modern condor_userprio -allusers -long prints it: one ad per record, the root
# group's pseudo-record first.
MODULAR = """\
AccountingGroup = "<none>"
IsAccountingGroup = true
Name = "<none>"
Priority = 500.0
PriorityFactor = 0.0
WeightedAccumulatedUsage = 0.0

AccountingGroup = "<none>"
AccumulatedUsage = 3600.0
BeginUsageTime = 1690000000
Ceiling = 12
Floor = 0
IsAccountingGroup = false
LastUpdate = 1700000000
LastUsageTime = 1699999000
MyType = "Accounting"
Name = "alice@example.org"
Priority = 4000.0
PriorityFactor = 1000.0
ResourcesUsed = 0
WeightedAccumulatedUsage = 14400.0
WeightedResourcesUsed = 0.0

LastUpdate = 1700000000
Name = "bob@example.org"
Priority = 1000.0
PriorityFactor = 2000.0
ResourcesUsed = 2
WeightedResourcesUsed = 8.0
"""

# The legacy single ad of HTCondor's ReportState (NameN, PriorityN, ...).
LEGACY = """\
LastUpdate = 1700000000
Name1 = "carol@example.org"
Priority1 = 1500.000000
ResourcesUsed1 = 1
WeightedResourcesUsed1 = 4.000000
AccumulatedUsage1 = 3600.000000
WeightedAccumulatedUsage1 = 7200.000000
BeginUsageTime1 = 1690000000
LastUsageTime1 = 1699990000
PriorityFactor1 = 1000.000000
AccountingGroup1 = "<none>"
IsAccountingGroup1 = FALSE
Name2 = "nice-user.dave@example.org"
Priority2 = 5000000000.000000
PriorityFactor2 = 0.000000
NumSubmittors = 2
"""


def invoke(state_dir, *args, stdin=None):
    result = CliRunner().invoke(app, [*args, "--state-dir", str(state_dir)], input=stdin)
    return result.exit_code, result.output


def records(state_dir):
    with open_state(state_dir).transaction(write=False) as tx:
        return tx.load_accountant().records


def test_modular_long_output(tmp_path):
    src = tmp_path / "prio.txt"
    src.write_text(MODULAR)
    code, out = invoke(tmp_path / "s", "import", str(src), "--now", str(T0), "--json")
    doc = json.loads(out)
    assert code == 0, out
    assert doc["data"] == {"imported": 2, "names": ["alice@example.org", "bob@example.org"],
                           "skipped": ["<none>"]}
    recs = records(tmp_path / "s")
    alice, bob = recs["alice@example.org"], recs["bob@example.org"]
    assert (alice.priority, alice.priority_factor, alice.ceiling) == (4.0, 1000.0, 12)
    assert (alice.accumulated_usage, alice.weighted_accumulated_usage) == (3600.0, 14400.0)
    assert (alice.begin_usage_time, alice.last_usage_time) == (1690000000, 1699999000)
    assert (bob.priority, bob.priority_factor) == (0.5, 2000.0)
    assert (bob.resources_used, bob.weighted_resources_used) == (2, 8.0)


def test_legacy_numbered_form_from_stdin(tmp_path):
    code, out = invoke(tmp_path, "import", "-", "--now", str(T0), stdin=LEGACY)
    assert code == 0 and "Imported 2 accountant records from <stdin>" in out
    recs = records(tmp_path)
    assert recs["carol@example.org"].priority == 1.5
    assert recs["carol@example.org"].weighted_accumulated_usage == 7200.0
    # factor 0 means "not set yet": the new-record rules give the nice-user factor
    dave = recs["nice-user.dave@example.org"]
    assert dave.priority_factor == 1e10 and dave.priority == 0.5


def test_imported_figures_are_brought_forward_from_their_last_update(tmp_path):
    src = tmp_path / "prio.txt"
    src.write_text(MODULAR)
    invoke(tmp_path / "s", "import", str(src), "--now", str(T0 + DAY))
    bob = records(tmp_path / "s")["bob@example.org"]
    # one half-life with 8 weighted slots in use: 0.5/2 + 8/2
    assert bob.priority == pytest.approx(4.25)
    assert bob.weighted_accumulated_usage == pytest.approx(8 * DAY)


def test_round_trip_with_userprio_long(tmp_path):
    store = open_state(tmp_path / "a")
    p = store.policy
    st = A.update_priorities(AccountantState(None), p, T0 - DAY)
    st = A.add_match(st, p, "x@h.org", 6.0, T0 - DAY)
    st = A.set_factor(st, p, "y@h.org", 3.5, T0 - DAY)
    st = A.set_priority(st, p, "y@h.org", 0.1 + 0.2, T0 - DAY)
    st = A.set_ceiling(st, p, "y@h.org", 9, T0 - DAY)
    st = A.set_floor(st, p, "x@h.org", 2, T0 - DAY)
    with store.transaction() as tx:
        tx.save_accountant(st)
    args = ("userprio", "--long", "--allusers", "--now", str(T0))
    code, exported = invoke(tmp_path / "a", *args)
    assert code == 0
    (tmp_path / "out.txt").write_text(exported)
    assert invoke(tmp_path / "b", "import", str(tmp_path / "out.txt"), "--now", str(T0))[0] == 0
    assert invoke(tmp_path / "b", *args)[1] == exported
    assert records(tmp_path / "b")["y@h.org"].priority_factor == 3.5


def test_a_group_record_keeps_its_subtree_usage(tmp_path):
    """A group record's HierWeightedResourcesUsed (what its subtree holds) survives the
    round trip through ``userprio --long``, and the imported group decays towards it
    as the exporting state's does."""
    config = 'UID_DOMAIN = "x"\nGROUP_NAMES = ["physics", "physics.hep"]\n'
    for where in ("a", "b"):
        (tmp_path / where).mkdir()
        (tmp_path / where / "condorlite.toml").write_text(config)
    store = open_state(tmp_path / "a")
    p = store.policy
    st = A.update_priorities(AccountantState(None), p, T0 - DAY)
    st = A.add_match(st, p, "physics.alice@x", 6.0, T0 - DAY)
    st = A.add_match(st, p, "physics.hep.dan@x", 3.0, T0 - DAY)
    with store.transaction() as tx:
        tx.save_accountant(st)
    args = ("userprio", "--long", "--allusers", "--now", str(T0))
    exported = invoke(tmp_path / "a", *args)[1]
    assert "HierWeightedResourcesUsed = 9.0" in exported
    (tmp_path / "out.txt").write_text(exported)
    assert invoke(tmp_path / "b", "import", str(tmp_path / "out.txt"), "--now", str(T0))[0] == 0
    assert records(tmp_path / "b")["physics"].hier_weighted_resources_used == 9.0
    assert invoke(tmp_path / "b", *args)[1] == exported
    later = ("userprio", "--allusers", "--json", "--now", str(T0 + DAY))

    def priorities(where):
        rows = json.loads(invoke(tmp_path / where, *later)[1])["data"]["records"]
        return {r["name"]: r["real_priority"] for r in rows}

    # (0.5 decayed one half-life towards the 9 slots the subtree holds, not the 6 of
    # the group's own submitters, then once more)
    assert priorities("b") == priorities("a")
    assert priorities("b")["physics"] == pytest.approx((0.5 / 2 + 9 / 2) / 2 + 9 / 2)


@pytest.mark.parametrize(
    ("text", "code", "fragment"),
    [
        ("Name = \n", 65, "not readable as ClassAds"),
        ('Name = "two words@x"\nPriority = 1.0\n', 65, "submitter name"),
        ('Name = "a@x"\nPriority = "high"\n', 65, "Priority must be a number"),
        ('Name = "<none>"\nPriority = 1.0\n', 65, "no accountant records"),
    ],
)
def test_bad_input(tmp_path, text, code, fragment):
    src = tmp_path / "bad.txt"
    src.write_text(text)
    got, out = invoke(tmp_path / "s", "import", str(src), "--json")
    assert got == code and fragment in json.loads(out)["errors"][0]["message"]


def test_missing_file_is_66(tmp_path):
    assert invoke(tmp_path, "import", str(tmp_path / "nope.txt"))[0] == 66


@pytest.mark.parametrize(
    ("attribute", "value"),
    [
        ("Priority", 'real("nan")'),
        ("PriorityFactor", 'real("inf")'),
        ("WeightedResourcesUsed", "-3.0"),
        ("AccumulatedUsage", "2e300"),
        ("LastUsageTime", "1e17"),
        ("Ceiling", "-7"),
    ],
)
def test_a_bad_figure_refuses_the_whole_import(tmp_path, attribute, value):
    """A NaN, an infinity, a negative or absurd figure is refused (65) naming the record
    and the attribute; nothing is written (issue 17, item 3)."""
    ads = tmp_path / "prio.ads"
    ads.write_text(
        'Name = "good@x.org"\nPriority = 500.0\nPriorityFactor = 1000.0\n\n'
        f'Name = "bad@x.org"\nPriority = 500.0\nPriorityFactor = 1000.0\n{attribute} = {value}\n'
    )
    state = tmp_path / "state"
    result = CliRunner().invoke(app, ["import", str(ads), "--state-dir", str(state),
                                      "--now", "1760000000"])
    assert result.exit_code == 65, result.output
    assert "bad@x.org" in result.output and attribute in result.output
    listed = CliRunner().invoke(app, ["userprio", "--allusers", "--state-dir", str(state),
                                      "--now", "1760000000", "--json"])
    assert listed.exit_code == 0
    assert '"good@x.org"' not in listed.output  # the good record was not written either


def test_imported_in_use_ends_at_the_next_cycle(tmp_path):
    """An import brings "in use" without the claims behind it; the next negotiate ends
    it at its time, charged up to then, and lists it as released, so it stops accruing
    (issue 17, item 3; before, it accrued for ever and nothing could end it)."""
    from pathlib import Path

    config = str(Path(__file__).resolve().parents[2] / "examples" / "condorlite.toml")
    up = tmp_path / "up.txt"
    up.write_text('Name = "zed@example.org"\nPriority = 50.0\nResourcesUsed = 3\n'
                  "WeightedResourcesUsed = 6.0\nAccumulatedUsage = 100.0\n"
                  "WeightedAccumulatedUsage = 200.0\nPriorityFactor = 1000.0\n"
                  "LastUpdate = 1760000000\n")
    state = str(tmp_path / "s")
    common = ["--config", config, "--state-dir", state, "--json"]
    assert CliRunner().invoke(app, ["import", str(up), *common, "--now", "1760000000"]
                              ).exit_code == 0
    first = CliRunner().invoke(app, ["negotiate", *common, "--now", "1760003600"])
    assert first.exit_code == 0, first.output
    released = [r for r in json.loads(first.stdout)["data"]["released"] if r["slot"] == "-"]
    assert released == [{"slot": "-", "job": None, "submitter": "zed@example.org",
                         "reason": "in use without a claim: 3 slots, weight 6 (imported)"}]
    second = CliRunner().invoke(app, ["negotiate", *common, "--now", "1760007200"])
    assert json.loads(second.stdout)["data"]["released"] == []
    with open_state(state, create=False).transaction(write=False) as tx:
        zed = tx.load_accountant().records["zed@example.org"]
    assert (zed.resources_used, zed.weighted_resources_used) == (0, 0.0)
    assert zed.accumulated_usage == 100.0 + 3 * 3600
    assert zed.weighted_accumulated_usage == 200.0 + 6 * 3600
