#!/usr/bin/env python3
"""Count the instructions of writing ``negotiate --dry-run``'s output, for A/B comparisons.

``instructions.py`` counts the cycle alone; this counts what comes after it: the
``--json`` document (``render.print_json``) or, with ``--text``, the human form
(``negotiate_view.draw``). For each TREE the whole command runs once under
``valgrind --tool=callgrind --instr-atstart=no`` on a fresh state (the pool's
``pool.toml`` and ``userprio.ads`` imported first, as ``negotiate_real.py`` does),
with instrumentation switched on (``callgrind_control --instr=on``) for the writing
alone. A long match list is written in two halves at once, the second by a forked
child (``jsontext.Rows``), which callgrind follows with its own count: the figure is
the sum over every process's count (the ``totals`` of its ``callgrind.<pid>.out``), the work
done whichever core did it.

Each tree's stdout is kept; the table says whether it is byte for byte the first
tree's (the output must not change) once the figures that are times of this run
(``duration``, ``matchmaking_duration``: ``_TIMES``) are masked. Compare trees at
paths of equal length (``instructions.py``'s module doc). Usage::

    python benchmarks/render_instructions.py \\
        --pool /tmp/real/partitionable-mix-s10000-j100000-a300-seed0 /tmp/base30 /tmp/outp30
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

from instructions import NOW, commit_of  # a sibling script, not an installed package

from condorlite.store.db import open_state

#: runs the console script with the writing wrapped in instrumentation on/off
_CHILD = """\
import os, subprocess, sys
from condorlite import cli
from condorlite.cli import negotiate_view, render

def counted(write):
    def wrapped(*args, **kwargs):
        control = ["callgrind_control", "--instr=on", str(os.getpid())]
        subprocess.run(control, check=True, capture_output=True)
        try:
            return write(*args, **kwargs)
        finally:
            control[1] = "--instr=off"
            subprocess.run(control, check=True, capture_output=True)
    return wrapped

render.print_json = counted(render.print_json)
negotiate_view.draw = counted(negotiate_view.draw)
sys.argv = ["condorlite", *sys.argv[1:]]
cli.main()
"""

#: the JSON fields whose values are times of the run, masked before the comparison
_TIMES = re.compile(rb'("(?:matchmaking_)?duration":)[-+.0-9e]+')

#: a process's count in its callgrind output (a forked child's log may lack its summary)
_TOTALS = re.compile(r"^totals:\s*(\d+)", re.MULTILINE)


@dataclass
class Count:
    tree: str
    commit: str
    instructions: int
    processes: int
    stdout_sha256: str
    stdout_bytes: int


def _state(tree: Path, pool: Path, work: Path) -> list[str]:
    """The negotiate options on a fresh state for ``pool`` (its priorities imported)."""
    state = work / "state"
    env = dict(os.environ, PYTHONPATH=str(tree))
    config = ["--config", str(pool / "pool.toml")] if (pool / "pool.toml").exists() else []
    command = [sys.executable, "-m", "condorlite"]
    open_state(state, config_path=Path(config[1]) if config else None)
    if (pool / "userprio.ads").exists():
        subprocess.run([*command, "import", str(pool / "userprio.ads"), "--state-dir",
                        str(state), "--now", str(NOW), "--json", *config],
                       check=True, capture_output=True, env=env, cwd=work)
    return ["--slots", str(pool / "slots.ads"), "--jobs", str(pool / "jobs.ads"),
                   "--state-dir", str(state), "--now", str(NOW), *config]


def count(tree: Path, pool: Path, text: bool, keep: Path) -> Count:
    """One run of the command under callgrind (module doc); its stdout goes to ``keep``."""
    with tempfile.TemporaryDirectory() as name:
        work = Path(name)
        options = _state(tree, pool, work)
        env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0")
        argv = ["negotiate", "--dry-run", *([] if text else ["--json"]), *options]
        with keep.open("wb") as out:
            done = subprocess.run(
                ["valgrind", "--tool=callgrind", "--instr-atstart=no",
                 f"--log-file={work / 'valgrind.%p.log'}",
                 f"--callgrind-out-file={work / 'callgrind.%p.out'}",
                 sys.executable, "-c", _CHILD, *argv],
                cwd=work, env=env, stdout=out, stderr=subprocess.PIPE, text=True)
        totals = [_TOTALS.findall(p.read_text()) for p in work.glob("callgrind.*.out")]
        if done.returncode != 0:
            raise RuntimeError(f"{tree}: the command failed ({done.returncode}):\n"
                               f"{done.stderr[-2000:]}")
        counts = [int(found[-1]) for found in totals if found and int(found[-1])]
    data = _TIMES.sub(rb"\1TIME", keep.read_bytes())
    return Count(str(tree), commit_of(tree), sum(counts), len(counts),
                 hashlib.sha256(data).hexdigest(), len(data))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--pool", type=Path, required=True)
    parser.add_argument("--text", action="store_true", help="the human form, not --json")
    parser.add_argument("--out-dir", type=Path, default=Path(tempfile.gettempdir()),
                        help="where each tree's stdout is kept (render-<n>.out)")
    parser.add_argument("--json", action="store_true", help="print JSON, not Markdown")
    args = parser.parse_args()
    counts = [count(tree.resolve(), args.pool, args.text, args.out_dir / f"render-{i}.out")
              for i, tree in enumerate(args.trees)]
    first = counts[0]
    if args.json:
        print(json.dumps([asdict(c) for c in counts], indent=1))
        return 0
    print("| tree | commit | instructions | ratio | processes | stdout same |")
    print("| --- | --- | ---: | ---: | ---: | --- |")
    for c in counts:
        same = "yes" if (c.stdout_sha256, c.stdout_bytes) == (first.stdout_sha256,
                                                                 first.stdout_bytes) else "NO"
        print(f"| {c.tree} | {c.commit} | {c.instructions:,} | "
              f"{c.instructions / first.instructions:.3f} | {c.processes} | {same} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
