"""The counting scripts under benchmarks/ run on a tiny pool of their row and count
something: each wraps private engine methods (``benchmarks/wrap_args.py``), so an
engine change that renames or re-parameters one shows here, not in the next session
that needs the counts. Each runs in its own interpreter (the wrappers patch the
engine's classes for the process)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.benchmarks._load import BENCHMARKS, load

real = load("negotiate_real")

#: script -> (the row of its pool, a line of its output whose number must be > 0:
#: the wrapped path ran)
TOOLS = {
    "carved_walk_counts": ("partitionable-mix", r"^walks (\d+)$"),
    "pick_counts": ("partitionable-mix", r"^picks (\d+)$"),
    "full_pair_counts": ("static-mix", r"^ *(\d+)  \S"),
    "held_entry_reads": ("static-mix", r"^walks +(\d+)$"),
    "held_lazy_count": ("static-mix", r"^groups tried by their pair +(\d+)$"),
    "held_lazy_hooks": ("static-mix", r"^distinct groups tried with a constant key +(\d+)$"),
    "held_prio_reach": ("static-mix", r"^runs by priority (\d+) made"),
    "held_walk_counts": ("static-mix", r"pairs tried \(_pairs_of\) +(\d+)$"),
}


@pytest.fixture(scope="module")
def pools(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    work = tmp_path_factory.mktemp("pools")
    made = {}
    for row in {row for row, _ in TOOLS.values()}:
        files, _ = real.ensure_pool(row, real.row_spec(row, 60, 600, 6, 20, 0), work)
        made[row] = files.slots_path.parent
    return made


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_counting_script_runs_and_counts(tool: str, pools: dict[str, Path],
                                         tmp_path: Path) -> None:
    row, pattern = TOOLS[tool]
    repo = BENCHMARKS.parent
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(repo), str(BENCHMARKS)])}
    done = subprocess.run([sys.executable, str(BENCHMARKS / f"{tool}.py"), str(pools[row])],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    found = re.search(pattern, done.stdout.replace(",", ""), re.MULTILINE)
    assert found is not None, done.stdout[-2000:]
    assert int(found.group(1)) > 0, found.group(0)
