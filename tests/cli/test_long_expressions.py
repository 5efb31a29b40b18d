"""Long expressions (issue 17 item 1, issue 19): a 3,000-term sum and a 700-clause host
list evaluate; a job whose Requirements is such a host list is matched as any other;
past about 20,000 levels the command fails cleanly (65), never with an internal error."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from condorlite.store.db import open_state

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "NO_COLOR": "1"}


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "condorlite", *args], capture_output=True,
                          text=True, env=ENV, timeout=300)


def test_long_chains_evaluate_and_a_huge_one_fails_cleanly(tmp_path: Path) -> None:
    three = tmp_path / "three.txt"
    three.write_text(" + ".join(["1"] * 3000) + "\n")
    hosts = " || ".join(f'Machine == "m{i}"' for i in range(700))
    done = _run("eval", "--file", str(three), hosts)
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.split()) == ["3000", "undefined"]
    huge = tmp_path / "huge.txt"
    huge.write_text(" + ".join(["1"] * 60000) + "\n")
    failed = _run("eval", "--file", str(huge), "--json")
    assert failed.returncode == 65
    assert json.loads(failed.stdout)["errors"][0]["kind"] == "data"


def test_a_job_with_a_700_clause_host_list_is_matched(tmp_path: Path) -> None:
    jobs = tmp_path / "jobs"
    shutil.copytree(ROOT / "examples" / "jobs", jobs)
    path = sorted(p for p in jobs.iterdir() if p.suffix == ".ads")[0]
    ads = path.read_text().split("\n\n")
    index = next(i for i, ad in enumerate(ads) if "JobStatus = 1" in ad)
    machines = sorted({line.split('"')[1] for f in (ROOT / "examples" / "slots").glob("*.ads")
                       for line in f.read_text().splitlines()
                       if line.startswith("Machine = ")})
    clauses = [f'TARGET.Machine == "other{i}.example.org"' for i in range(700)]
    clauses += [f'TARGET.Machine == "{m}"' for m in machines]
    lines = [ln for ln in ads[index].splitlines() if not ln.startswith("Requirements")]
    ads[index] = "\n".join([*lines, "Requirements = " + " || ".join(clauses)])
    path.write_text("\n\n".join(ads))
    open_state(tmp_path / "s", config_path=ROOT / "examples" / "condorlite.toml")
    done = _run("negotiate", "--config", str(ROOT / "examples" / "condorlite.toml"),
                "--jobs", str(jobs), "--state-dir", str(tmp_path / "s"),
                "--now", "1760000000", "--json", "--dry-run")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)["data"]
    assert data["problems"] == [] and len(data["matches"]) == 48


def test_deeply_nested_json_fails_cleanly_and_moderate_nesting_reads(tmp_path: Path) -> None:
    """JSON's decoder recurses on the C stack along nested arrays and objects, which
    the commands' deep recursion limit does not size: 30,000 nested ``[`` (and
    ``{"a":``) are "JSON nested too deeply" (65), never a crash, with the compiled
    reader and without it; 1,500 levels read."""
    for depth, code in ((30_000, 65), (1_500, 0)):
        path = tmp_path / f"deep{depth}.json"
        path.write_text('[\n{\n  "Name": "s1",\n  "A": ' + "[" * depth + "]" * depth
                        + ',\n  "R": ' + '{"a": ' * depth + "1" + "}" * depth + "\n}\n]\n")
        for pure in ("", "1"):
            state = tmp_path / f"s{depth}{pure}"
            open_state(state)
            done = subprocess.run(
                [sys.executable, "-m", "condorlite", "negotiate", "--json", "--dry-run",
                 "--slots", str(path), "--jobs", str(ROOT / "examples" / "jobs"),
                 "--state-dir", str(state), "--now", "1760000000"],
                capture_output=True, text=True,
                env={**ENV, "CONDORLITE_PURE_PYTHON": pure}, timeout=300)
            assert done.returncode == code, (depth, pure, done.stdout[:300], done.stderr[:300])
            if code:
                assert "nested too deeply" in json.loads(done.stdout)["errors"][0]["message"]
