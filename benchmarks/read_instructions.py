#!/usr/bin/env python3
"""Count the instructions of reading and decoding a pool under callgrind, for A/B
comparisons of ``negotiate``'s step 1 (``cli/negotiate_inputs``: ``read_ads`` then
``decode``).

``instructions.py`` counts the cycle alone; this counts what comes before it, as the
command does it: ``read_ads`` of ``slots.ads`` and of ``jobs.ads`` (the compiled
scanner when the tree has it built, ``CONDORLITE_PURE_PYTHON`` as set in the
environment), then ``decode`` under the pool's ``pool.toml`` policy when it has one,
with the cyclic collector off as the command has it. Imports happen with
instrumentation off. Two figures per tree: the instructions of
reading (both files) and of decoding (slots and jobs), separated by a callgrind dump
between them (``callgrind_control --dump``). Callgrind's counts are the same for the
same code and inputs up to about 1 %, where timings on this machine move by 2x; as in
``instructions.py``, compare trees at paths of equal length (``/tmp/base21`` and
``/tmp/read21``): addresses move with the path's length, and dicts keyed by ``id()``
with them.

Prints a Markdown table (tree, commit, reading, decoding, total, ratio of the total to
the first tree's, slots and jobs decoded) or JSON with ``--json``. Usage::

    python benchmarks/read_instructions.py --pool /tmp/real/baseline-s1000-j10000-a300-seed0 \\
        /tmp/base21 /tmp/read21
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from instructions import commit_of, ready  # a sibling script, not an installed package

HERE = Path(__file__).resolve().parent

_CHILD = """\
import gc, os, subprocess, sys
from pathlib import Path
from condorlite.cli.negotiate_inputs import decode
from condorlite.core.policy import Policy
from condorlite.store.adfiles import read_ads
from condorlite.store.config import load_policy
pool = Path(sys.argv[1])
policy = load_policy(pool / "pool.toml") if (pool / "pool.toml").exists() else Policy()
pid = str(os.getpid())
gc.disable()  # as ``negotiate`` does for the whole command
def control(*args):
    subprocess.run(["callgrind_control", *args, pid], check=True, capture_output=True)
control("--instr=on")
slots, jobs = read_ads([pool / "slots.ads"]), read_ads([pool / "jobs.ads"])
control("--dump=reading")
inputs = decode(slots, jobs, policy)
control("--dump=decoding")
control("--instr=off")
print("decoded", len(inputs.slots), len(inputs.jobs))
"""

_TOTALS = re.compile(r"^(?:summary|totals):\s*(\d+)", re.MULTILINE)
_DECODED = re.compile(r"^decoded (\d+) (\d+)$", re.MULTILINE)


@dataclass
class Count:
    tree: str
    commit: str
    reading: int
    decoding: int
    slots: int
    jobs: int

    @property
    def total(self) -> int:
        return self.reading + self.decoding


def dump_total(path: Path) -> int:
    """The instructions of one callgrind dump file (its ``summary:`` line)."""
    found = _TOTALS.search(path.read_text(errors="replace"))
    if found is None:
        raise ValueError(f"{path}: no summary line")
    return int(found.group(1))


def count(tree: Path, pool: Path) -> Count:
    """Run one child under callgrind (see the module doc)."""
    with tempfile.TemporaryDirectory() as work:
        log = Path(work) / "valgrind.log"
        out = Path(work) / "callgrind.out"
        env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0")
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--log-file={log}",
             f"--callgrind-out-file={out}", sys.executable, "-c", _CHILD, str(pool)],
            cwd=work, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            text = log.read_text() if log.exists() else ""
            raise RuntimeError(f"{tree}: the child failed ({done.returncode}):\n"
                               f"{done.stderr[-2000:]}{text[-2000:]}")
        # the dumps are out.1 (reading) and out.2 (decoding), in order
        dumps = sorted(Path(work).glob("callgrind.out.*"),
                       key=lambda p: int(p.name.rsplit(".", 1)[1]))
        if len(dumps) < 2:
            raise ValueError(f"{tree}: expected two dumps, found {len(dumps)}")
        found = _DECODED.search(done.stdout)
        if found is None:
            raise ValueError(f"{tree}: no decoded line in the child's output")
        return Count(str(tree), commit_of(tree), dump_total(dumps[0]), dump_total(dumps[1]),
                     int(found.group(1)), int(found.group(2)))


def table(counts: list[Count]) -> str:
    lines = ["| tree | commit | reading | decoding | total | ratio | slots | jobs |",
             "|---|---|---|---|---|---|---|---|"]
    first = counts[0].total if counts else 0
    for c in counts:
        lines.append(f"| {c.tree} | {c.commit} | {c.reading:,} | {c.decoding:,} | "
                     f"{c.total:,} | {c.total / first:.3f} | {c.slots} | {c.jobs} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="*", type=Path, default=[HERE.parent],
                        help="condorlite checkouts to measure (default: this one)")
    parser.add_argument("--pool", type=Path, required=True,
                        help="a directory holding slots.ads and jobs.ads")
    parser.add_argument("--json", action="store_true", help="print JSON instead")
    args = parser.parse_args(argv)
    if not ready("read_instructions.py", args.pool):
        return 2
    try:
        counts = [count(tree.resolve(), args.pool.resolve()) for tree in args.trees]
    except (RuntimeError, ValueError) as exc:
        print(f"read_instructions.py: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps([{**asdict(c), "total": c.total} for c in counts]))
    else:
        print(table(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
