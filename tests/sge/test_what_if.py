"""``sge qstat --what-if`` against the real scheduler: a recorded run B that differs from
the run before it, A, only in sched_conf or an object's keys is what A becomes with
those keys changed. So A's dump changed by ``--what-if`` (``changed_dump``), read at B's
time, must agree with what the real qstat printed for B, field by field and in order
(``recorded.compare``)."""

from __future__ import annotations

import json
import shutil
from itertools import pairwise
from pathlib import Path

import pytest
from typer.testing import CliRunner

from condorlite.cli import app
from condorlite.store.sge_cell import changed_dump, parse_change
from condorlite.store.sge_cell._lines import key_lines, split_objects
from tests.sge.recorded import compare, snapshots

#: The policy inputs of a dump: a pair of runs differing elsewhere is not a what-if.
INPUTS = ("sched_conf", "users", "projects", "usersets", "share_tree", "share_mon",
          "complexes", "pes")
OBJECTS = {"users": "user", "projects": "project", "usersets": "userset"}


def _keys(path: Path) -> dict[str, str]:
    return {line.key: line.value for line in key_lines(path.read_text(), str(path))}


def _objects(path: Path) -> dict[str, dict[str, str]]:
    if not path.exists():
        return {}
    blocks = split_objects(key_lines(path.read_text(), str(path)), "name")
    return {b[0].value: {line.key: line.value for line in b} for b in blocks}


def _changes(a: Path, b: Path) -> list[str] | None:
    """The --what-if changes that turn A's inputs into B's; None when something other
    than sched_conf keys and object keys differs."""
    for name in INPUTS:
        if name in ("sched_conf", *OBJECTS):
            continue
        if (a / name).exists() != (b / name).exists() or (
                (a / name).exists() and (a / name).read_bytes() != (b / name).read_bytes()):
            return None
    before, after = _keys(a / "sched_conf"), _keys(b / "sched_conf")
    if before.keys() != after.keys():
        return None
    out = [f"{k}={after[k]}" for k in sorted(after) if before[k] != after[k]]
    for file, word in OBJECTS.items():
        old, new = _objects(a / file), _objects(b / file)
        if old.keys() != new.keys():
            return None
        for name in sorted(new):
            if old[name].keys() != new[name].keys():
                return None
            out += [f"{word} {name} {k}={new[name][k]}" for k in sorted(new[name])
                    if old[name][k] != new[name][k]]
    return out or None


def _dispatched(snapshot: Path) -> bool:
    started = snapshot / "expected" / "started.txt"
    return started.exists() and started.read_text().strip() != ""


def _pairs() -> list[tuple[Path, Path, list[str]]]:
    by_scenario: dict[Path, list[Path]] = {}
    for snap in snapshots():
        by_scenario.setdefault(snap.parent, []).append(snap)
    out = []
    for snaps in by_scenario.values():
        for a, b in pairwise(snaps):
            changes = _changes(a, b)
            if changes and not _dispatched(a) and not _dispatched(b):
                out.append((a, b, changes))
    return out


PAIRS = _pairs()


def test_there_are_pairs_to_replay():
    assert len(PAIRS) >= 15
    assert any(c.startswith("userset ") for _, _, cs in PAIRS for c in cs)


@pytest.mark.parametrize(("a", "b", "changes"), PAIRS,
                         ids=[f"{a.parent.name}/{a.name}->{b.name}" for a, b, _ in PAIRS])
def test_a_what_if_is_the_next_real_run(tmp_path: Path, a: Path, b: Path, changes):
    dump = tmp_path / "dump"
    dump.mkdir()
    changed_dump(a, [parse_change(c) for c in changes], dump)
    for name in ("now", "expected"):  # B's time and B's real qstat
        (dump / name).unlink()
        (dump / name).symlink_to((b / name).resolve())
    assert compare(dump) == []


def test_the_command_reports_the_moves(tmp_path: Path):
    a, _b, changes = next(p for p in PAIRS if p[0].parent.name == "f5_all")
    args = ["sge", "qstat", "--cell", str(a)]
    for change in changes:
        args += ["--what-if", change]
    done = CliRunner().invoke(app, [*args, "--json"])
    assert done.exit_code == 0, done.output

    data = json.loads(done.output)["data"]
    assert data["moved"] and all(m["before"] != m["after"] for m in data["moved"])
    bad = CliRunner().invoke(app, ["sge", "qstat", "--cell", str(a), "--what-if",
                                   "user nobody fshare=5"])
    assert bad.exit_code == 2 and "no 'nobody'" in bad.output
    worse = CliRunner().invoke(app, ["sge", "qstat", "--cell", str(a), "--what-if",
                                     "weight_user=lots"])
    assert worse.exit_code == 65 and "weight_user" in worse.output
    shutil.rmtree(tmp_path, ignore_errors=True)
