"""``condorlite export htcondor``: what it writes reads back to the same state and policy."""

from __future__ import annotations

import dataclasses
import json
import shlex
import shutil
from pathlib import Path

from typer.testing import CliRunner

from condorlite.cli import app
from condorlite.store.config import GROUP_KNOBS, KNOBS, load_policy, policy_from_mapping

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
T0 = 1_760_000_000
FIELDS = ("priority", "priority_factor", "weighted_accumulated_usage", "begin_usage_time",
          "last_usage_time", "ceiling", "floor")


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def _records(sd: Path, cfg: Path, at: int) -> dict[str, dict]:
    code, out = run("userprio", "--allusers", "--state-dir", str(sd), "--config", str(cfg),
                    "--now", str(at), "--json")
    assert code == 0, out
    return {r["name"]: r for r in json.loads(out)["data"]["records"]}


def _read_config(text: str) -> dict:
    """condor_config lines back to condorlite.toml values, by each knob's kind."""
    kinds = {k.name: k.kind for k in KNOBS}
    out: dict = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name, _, value = (part.strip() for part in line.partition("="))
        kind = kinds.get(name) or next(k for p, _f, k, _m, _h in GROUP_KNOBS
                                       if name.startswith(p))
        out[name] = (value == "true" if kind == "bool"
                     else [v.strip() for v in value.split(",")] if kind == "list"
                     else float(value) if kind == "number"
                     else int(value) if kind == "int" else value)
    return out


def test_round_trip(tmp_path):
    shutil.copytree(EXAMPLES, tmp_path / "ex")
    cfg, sd = tmp_path / "ex" / "condorlite.toml", tmp_path / "state"
    for i in range(3):
        assert run("negotiate", "--config", str(cfg), "--state-dir", str(sd),
                   "--now", str(T0 + i * 3600))[0] == 0
    assert run("setceiling", "bob@example.org", "40", "--state-dir", str(sd), "--config",
               str(cfg), "--now", str(T0 + 7300))[0] == 0
    assert run("setfloor", "dave@example.org", "2", "--state-dir", str(sd), "--config",
               str(cfg), "--now", str(T0 + 7300))[0] == 0
    at = T0 + 9000
    out_dir = tmp_path / "out"
    code, out = run("export", "htcondor", str(out_dir), "--state-dir", str(sd), "--config",
                    str(cfg), "--now", str(at))
    assert code == 0, out
    # the script, run as condorlite's edits of the same names on an empty state
    fresh = tmp_path / "fresh"
    commands = [shlex.split(line) for line in
                (out_dir / "condor_userprio.sh").read_text().splitlines()
                if line.startswith("condor_userprio ")]
    assert len(commands) >= 5 * 6
    for _, flag, name, value in commands:
        code, msg = run(flag[1:], name, value, "--state-dir", str(fresh), "--config",
                        str(cfg), "--now", str(at))
        assert code == 0, msg
    original, rebuilt = _records(sd, cfg, at), _records(fresh, cfg, at)
    assert original.keys() == rebuilt.keys()
    for name, rec in original.items():
        for field in ("effective_priority", "real_priority", "priority_factor",
                      "weighted_accumulated_usage", "begin_usage_time", "last_usage_time",
                      "ceiling", "floor"):
            assert rebuilt[name][field] == rec[field], (name, field)
    # the config, read back
    parsed = policy_from_mapping(_read_config(
        (out_dir / "condor_config.condorlite").read_text()), cfg)
    policy = load_policy(cfg)
    mine = {"slots", "jobs", "history_retention", "sge_cell_dump", "uid_domain",
            "accountant_local_domain"}
    assert dataclasses.replace(parsed, **{f: getattr(policy, f) for f in mine}) == policy


def test_names_are_quoted_and_writing_is_all_or_nothing(tmp_path):
    sd = tmp_path / "state"
    assert run("setfactor", "o'brien@example.org", "3", "--state-dir", str(sd),
               "--now", str(T0))[0] == 0
    code, _ = run("export", "htcondor", str(tmp_path / "o"), "--state-dir", str(sd),
                  "--now", str(T0))
    assert code == 0
    script = (tmp_path / "o" / "condor_userprio.sh").read_text()
    assert "condor_userprio -setfactor 'o'\"'\"'brien@example.org' 3.0" in script
    blocker = tmp_path / "file"
    blocker.write_text("x")
    code, _ = run("export", "htcondor", str(blocker / "sub"), "--state-dir", str(sd),
                  "--now", str(T0))
    assert code == 74
    assert run("export", "htcondor", str(tmp_path / "x"), "--state-dir",
               str(tmp_path / "none"))[0] == 66


def test_sge_export_reads_back_to_the_changed_cell(tmp_path):
    from condorlite.store.sge_cell import changed_dump, parse_change, read_cell

    cell = EXAMPLES / "sge-cell"
    changes = ["weight_tickets_share=5000", "user alice fshare=500",
               "sharetree /alice shares=7"]
    out = tmp_path / "out"
    args = ["export", "sge", str(out), "--cell", str(cell)]
    for change in changes:
        args += ["--what-if", change]
    code, msg = run(*args)
    assert code == 0, msg
    script = (out / "apply.sh").read_text()
    assert "qconf -Msconf sched_conf" in script and "qconf -Mstree share_tree" in script
    assert "qconf -Muser users/alice" in script
    # the files put back together into a dump read as the changed cell
    want_dir = tmp_path / "want"
    want_dir.mkdir()
    changed_dump(cell, [parse_change(c) for c in changes], want_dir)
    back = tmp_path / "back"
    shutil.copytree(cell, back)
    (back / "sched_conf").write_text((out / "sched_conf").read_text())
    (back / "share_tree").write_text((out / "share_tree").read_text())
    for folder in ("users", "projects", "usersets"):
        parts = sorted((out / folder).iterdir()) if (out / folder).exists() else []
        if parts:
            (back / folder).write_text("".join(p.read_text() for p in parts))
    got, want = read_cell(back), read_cell(want_dir)
    for field in ("sched_conf", "users", "projects", "usersets", "share_tree"):
        assert getattr(got, field) == getattr(want, field), field
    assert got.users["alice"].fshare == 500 and got.sched_conf.weight_tickets_share == 5000


def test_sge_export_was_loaded_by_the_real_qconf():
    """tools/sge/export_roundtrip.sh: a real cell dumped, exported with changes, loaded
    with the exported apply.sh (qconf -M...), dumped again: the second dump holds the
    changed objects, as condorlite's what-if makes them."""
    import tempfile

    from condorlite.store.sge_cell import changed_dump, parse_change, read_cell

    data = Path(__file__).resolve().parents[1] / "data" / "sge_export"
    tools = Path(__file__).resolve().parents[2] / "tools" / "sge"
    changes = (tools / "export_changes.txt").read_text().splitlines()
    with tempfile.TemporaryDirectory() as tmp:
        changed_dump(data / "before", [parse_change(c) for c in changes], Path(tmp))
        want = read_cell(Path(tmp))
    got = read_cell(data / "after")
    assert got.sched_conf.raw == want.sched_conf.raw
    for field in ("users", "projects", "usersets", "share_tree"):
        assert getattr(got, field) == getattr(want, field), field
    assert got.users["alice"].fshare == 500 and got.projects["p1"].oticket == 7
