#!/usr/bin/env python3
"""CPU of ``schedule()`` alone (the Grid Engine run) for A/B comparisons of trees.

For each TREE a child ``python`` (``PYTHONPATH=TREE``, run from ``/tmp`` so that no
checkout's ``condorlite/`` is picked up by accident) reads the cell, prioritises it
and times ``schedule(cell, prioritisation, now)`` with ``time.process_time``, the
garbage collector off as the command has it; the trees take turns, ``--rounds``
times. With ``--callgrind`` each child runs once under ``valgrind --tool=callgrind
--instr-atstart=no`` with instrumentation on for ``schedule()`` alone and the count
of instructions is printed instead: the same for the same code and input whatever
else the shared machine is doing (``instructions.py`` does this for the negotiator).

Usage::

    python benchmarks/sge_schedule_cpu.py --cell /tmp/sgebench/dispatch-h1000-j100000 \\
        --rounds 3 /tmp/base-checkout .
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

_CHILD = """
import gc, os, subprocess, sys, time
from pathlib import Path
from condorlite.store.sge_cell import read_cell
from condorlite.core.sge.priority import prioritise
from condorlite.core.sge.dispatch import schedule
gc.disable()
cell = read_cell(Path(sys.argv[1])); now = cell.now
rows = prioritise(cell, now)
grind = sys.argv[2] == "callgrind"
if grind:
    subprocess.run(["callgrind_control", "--instr=on", str(os.getpid())], check=True,
                   capture_output=True)
t = time.process_time()
run = schedule(cell, rows, now)
spent = time.process_time() - t
if grind:
    subprocess.run(["callgrind_control", "--instr=off", str(os.getpid())], check=True,
                   capture_output=True)
print(f"{spent:.3f} {len(run.started)} {len(run.reservations)}")
"""

_REFS = re.compile(r"Collected\s*:\s*([0-9,]+)")


def _child(tree: Path, cell: Path, callgrind: bool) -> str:
    env = dict(os.environ, PYTHONPATH=str(tree.resolve()), PYTHONHASHSEED="0")
    with tempfile.TemporaryDirectory() as work:
        log = Path(work) / "valgrind.log"
        prefix = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--log-file={log}",
                  f"--callgrind-out-file={Path(work) / 'callgrind.out'}"] if callgrind else []
        done = subprocess.run([*prefix, sys.executable, "-c", _CHILD, str(cell),
                               "callgrind" if callgrind else "time"],
                              cwd="/tmp", env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{tree}: the child failed:\n{done.stderr[-2000:]}")
        out = done.stdout.split()
        if callgrind:
            refs = _REFS.findall(log.read_text())
            return f"{int(refs[-1].replace(',', '')):,} instructions ({out[1]} started)"
        return f"{out[0]} s CPU ({out[1]} started, {out[2]} reserved)"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trees", nargs="+", type=Path)
    ap.add_argument("--cell", type=Path, required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--callgrind", action="store_true")
    args = ap.parse_args(argv)
    for k in range(1 if args.callgrind else args.rounds):
        for tree in args.trees if k % 2 == 0 else args.trees[::-1]:
            print(f"{tree}: {_child(tree, args.cell, args.callgrind)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
