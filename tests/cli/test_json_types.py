"""``--json``: a field has one type wherever and whatever its value (issue 20, item 5).

Every path in a document (keys joined, list positions dropped) must hold values of a
single JSON type across the whole document, null aside: a quantity that happens to be
whole is still a real (``8.0``), a count is an integer."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from condorlite.cli import app

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
T0 = 1_760_000_000


def run_json(*args: str) -> dict:
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def _types(value, path: str, seen: dict[str, set[str]]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            _types(item, f"{path}.{key}", seen)
    elif isinstance(value, list):
        for item in value:
            _types(item, f"{path}[]", seen)
    elif value is not None:
        kind = ("bool" if isinstance(value, bool) else "int" if isinstance(value, int)
                else "real" if isinstance(value, float) else type(value).__name__)
        seen.setdefault(path, set()).add(kind)


@pytest.fixture(scope="module")
def state(tmp_path_factory) -> tuple[Path, Path]:
    work = tmp_path_factory.mktemp("types")
    shutil.copytree(EXAMPLES, work / "ex")
    sd, cfg = work / "state", work / "ex" / "condorlite.toml"
    for i in range(3):
        run_json("negotiate", "--config", str(cfg), "--state-dir", str(sd),
                 "--now", str(T0 + i * 1800 + (i == 2) * 0.5))
    return sd, cfg


COMMANDS = [
    ("negotiate", "--dry-run", "--now", str(T0 + 7200)),
    ("negotiate", "--what-if", "setfactor bob@example.org 100", "--now", str(T0 + 7200)),
    ("userprio", "--allusers", "--now", str(T0 + 7200)),
    ("history",),
    ("metrics", "--allusers", "--now", str(T0 + 7200)),
    ("status", "--claims"),
    ("userprio", "--recover", "bob", "--to", "5", "--now", str(T0 + 7200)),
]


@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_every_field_has_one_type(state, args):
    sd, cfg = state
    doc = run_json(*args, "--state-dir", str(sd), "--config", str(cfg))
    seen: dict[str, set[str]] = {}
    _types(doc["data"], "data", seen)
    mixed = {p: k for p, k in seen.items() if len(k) > 1}
    assert not mixed
    assert seen  # the document held something


def test_quantities_are_reals_even_when_whole(state):
    sd, cfg = state
    data = run_json("negotiate", "--dry-run", "--now", str(T0 + 7200), "--state-dir",
                    str(sd), "--config", str(cfg))["data"]
    assert isinstance(data["cycle"]["time"], float)
    sub = data["submitters"][0]
    assert all(isinstance(sub[k], float) for k in ("usage", "matched", "limit", "share"))
    assert isinstance(sub["matched_jobs"], int)


def _error(*args: str) -> dict:
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code in (65, 78), result.output
    return json.loads(result.output)["errors"][0]


def test_error_locations_are_fields(tmp_path):
    bad = tmp_path / "bad.ad"
    bad.write_text("A = 1\nB = (2 +\n")
    entry = _error("status", "--slots", str(bad))
    assert (entry["file"], entry["line"], entry["column"]) == (str(bad), 2, 9)
    assert entry["message"].startswith(f"{bad}:2:9: ")
    cfg = tmp_path / "c.toml"
    cfg.write_text('UID_DOMAIN = "x"\nPRIORITY_HALFLIFE = -3\n')
    entry = _error("setfactor", "a@x", "5", "--config", str(cfg), "--state-dir",
                   str(tmp_path / "s"))
    assert (entry["file"], entry["line"]) == (str(cfg), 2) and "column" not in entry
    cell = tmp_path / "cell"
    shutil.copytree(EXAMPLES / "sge-cell", cell)
    sconf = cell / "sched_conf"
    lines = sconf.read_text().splitlines()
    lines[2] = "maxujobs notanumber"
    sconf.write_text("\n".join(lines) + "\n")
    entry = _error("sge", "qstat", "--cell", str(cell))
    assert entry["line"] == 3 and entry["file"].endswith("sched_conf"), entry
