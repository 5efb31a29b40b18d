"""``condorlite history`` and ``userprio --recover`` on the bundled example pool."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from condorlite.cli import app
from condorlite.cli.charts import Series, plot_figure, terminal_chart
from condorlite.core.accounting.recovery import rup_after

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
T0 = 1_760_000_000
HOUR = 3600


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def run_json(*args: str) -> dict:
    code, out = run(*args, "--json")
    assert code == 0, out
    return json.loads(out)["data"]


@pytest.fixture(scope="module")
def state(tmp_path_factory) -> Path:
    """Six hourly cycles of the example pool, with a factor edit after the third."""
    work = tmp_path_factory.mktemp("hist")
    shutil.copytree(EXAMPLES, work / "ex")
    sd = work / "state"
    for i in range(6):
        if i == 3:
            code, out = run("setfactor", "bob@example.org", "2000", "--state-dir", str(sd),
                            "--now", str(T0 + i * HOUR - 60))
            assert code == 0, out
        code, out = run("negotiate", "--config", str(work / "ex" / "condorlite.toml"),
                        "--state-dir", str(sd), "--now", str(T0 + i * HOUR))
        assert code == 0, out
    return sd


def test_every_point_is_what_userprio_showed_after_that_cycle(state, tmp_path):
    data = run_json("history", "--state-dir", str(state))
    assert [c["time"] for c in data["cycles"]] == [T0 + i * HOUR for i in range(6)]
    assert data["cycles_without_accounts"] == 0
    bob = next(a for a in data["accounts"] if a["name"] == "bob@example.org")
    assert len(bob["points"]) == 6
    last = bob["points"][-1]
    # userprio at the last cycle's time (nothing changed since) shows the same figures
    up = run_json("userprio", "bob@example.org", "--state-dir", str(state),
                  "--now", str(T0 + 5 * HOUR))
    rec = up["records"][0]
    assert last["eup"] == rec["effective_priority"]
    assert last["rup"] == rec["real_priority"]
    assert last["in_use"] == rec["weighted_resources_used"]
    assert last["usage"] == rec["weighted_accumulated_usage"]
    assert last["factor"] == 2000
    assert bob["points"][2]["factor"] == 1000  # before the edit
    # the cycle's own figures: bob's first cycle matched 48 and had a rejection
    assert bob["points"][0]["matched"] == 48 and bob["points"][0]["rejected_jobs"] == 1
    assert [e["kind"] for e in data["events"]] == ["edit"]


def test_filters_and_period(state):
    data = run_json("history", "--state-dir", str(state), "--submitter", "carol",
                    "--since", str(T0 + HOUR), "--until", str(T0 + 3 * HOUR))
    assert [a["name"] for a in data["accounts"]] == ["group_physics.carol@example.org"]
    assert [p["time"] for p in data["accounts"][0]["points"]] == [T0 + HOUR, T0 + 2 * HOUR,
                                                                   T0 + 3 * HOUR]
    assert data["events"] == []  # the edit in the period is bob's
    bob = run_json("history", "--state-dir", str(state), "--submitter", "bob")
    assert [e["kind"] for e in bob["events"]] == ["edit"]
    grp = run_json("history", "--state-dir", str(state), "--group", "group_physics")
    assert [a["name"] for a in grp["accounts"]] == [
        "group_physics", "group_physics.carol@example.org"]
    iso = run_json("history", "--state-dir", str(state), "--since", "2025-10-09T10:00:00Z")
    assert iso["cycles"][0]["time"] == T0 + 2 * HOUR


def test_human_output_and_chart(state):
    code, out = run("history", "--state-dir", str(state), "--chart", "--cycles")
    assert code == 0, out
    assert "6 cycles from 2025-10-09 08:53:20 UTC to 2025-10-09 13:53:20 UTC" in out
    assert "effective priority over time (UTC, log scale)" in out  # nice-user's 1e10 factor
    assert "bob@example.org" in out and "(group)" in out
    assert "The priority factor of bob@example.org was set to 2000" in out
    assert "\x1b" not in out  # not a terminal: plain characters only
    code, plain = run("history", "--state-dir", str(state))
    assert "log scale" not in plain  # no chart unless stdout is a terminal or --chart


def test_plot_file_holds_the_history_data(state, tmp_path):
    pytest.importorskip("matplotlib")
    data = run_json("history", "--state-dir", str(state), "--metric", "in-use",
                    "--plot", str(tmp_path / "a.svg"))
    first = (tmp_path / "a.svg").read_bytes()
    run_json("history", "--state-dir", str(state), "--metric", "in-use",
             "--plot", str(tmp_path / "b.svg"))
    assert first == (tmp_path / "b.svg").read_bytes()  # deterministic
    # the plotted data (not pixels): the same series the JSON holds, users only
    series = [Series(a["name"], [p["time"] for p in a["points"]],
                     [p["in_use"] for p in a["points"]])
              for a in data["accounts"] if not a["is_group"]]
    fig = plot_figure(series, "t", "y")
    lines = fig.axes[0].get_lines()
    assert [ln.get_label() for ln in lines] == [s.label for s in series]
    for ln, s in zip(lines, series, strict=True):
        assert list(ln.get_ydata()) == s.ys


def test_bad_plot_name_writes_nothing(state, tmp_path):
    code, out = run("history", "--state-dir", str(state), "--plot", str(tmp_path / "a.txt"))
    assert code == 2 and "must end in" in out
    assert list(tmp_path.iterdir()) == []


def test_missing_state_is_66_and_creates_nothing(tmp_path):
    code, _ = run("history", "--state-dir", str(tmp_path / "nope"))
    assert code == 66 and not (tmp_path / "nope").exists()


def test_chart_labels_are_made_visible():
    evil = Series("evil\x1b[2J\x1b]0;owned\x07@x", [0.0, 1.0], [1.0, 2.0])
    for color in (False, True):
        text = terminal_chart([evil], "t\x1b[2J", 60, 12, color, epochs=False)
        assert "\x1b[2J" not in text and "\x1b]0;" not in text and "\x07" not in text
        assert "\\x1b" in text


def test_recover_matches_the_curve_and_the_accountant(state):
    at = T0 + 6 * HOUR
    rec = run_json("userprio", "--state-dir", str(state), "--now", str(at),
                   "--recover", "bob", "--to", "5")["recover"]
    assert rec["name"] == "bob@example.org" and rec["weighted_in_use"] == 51
    assert rec["keeps_usage"]["seconds"] is None  # 51 slots keep it above 5
    secs = rec["usage_ends"]["seconds"]
    assert rup_after(rec["real_priority"], 0, rec["halflife"], secs) == pytest.approx(5)
    assert rec["usage_ends"]["at"] == pytest.approx(at + secs)
    assert rec["target_effective"] == 5 * 2000
    code, out = run("userprio", "--state-dir", str(state), "--now", str(at),
                    "--recover", "bob", "--to", "5")
    assert code == 0 and "if they are all released now: in " in out


@pytest.mark.parametrize(("args", "code"), [
    (("--to", "5"), 2), (("--recover", "bob"), 2), (("--recover", "zed", "--to", "5"), 1),
    (("--recover", "bob", "--to", "0.2"), 2), (("--recover", "bob", "--to", "5", "--long"), 2),
])
def test_recover_usage_errors(state, args, code):
    assert run("userprio", "--state-dir", str(state), *args)[0] == code


def test_times_are_local_and_labelled(state, monkeypatch):
    import time

    monkeypatch.setenv("TZ", "America/New_York")
    time.tzset()
    try:
        code, out = run("history", "--state-dir", str(state), "--chart")
        assert code == 0
        assert "6 cycles from 2025-10-09 04:53:20 EDT to 2025-10-09 09:53:20 EDT" in out
        assert "over time (EDT, log scale)" in out
        code, out = run("userprio", "--state-dir", str(state), "--now", str(T0 + 6 * HOUR))
        assert code == 0
        assert out.startswith("Last Priority Update: 10/9  10:53 EDT")  # at T0 + 6 h
    finally:
        monkeypatch.undo()
        time.tzset()
