#!/usr/bin/env python3
"""Byte identity of ``condorlite sge qstat`` (and ``sge schedule``) between two builds,
on every cell.

Speed work on the Grid Engine path must not move one byte of what a command prints.
This runs the same commands with a reference build and a candidate build and compares
stdout, stderr and the exit code:

* every recorded cell under ``tests/data/sge`` (each directory holding a ``jobs.xml``):
  ``sge qstat --json`` and ``sge qstat --ext --urg --pri`` (the widest text layout);
* each ``--cell`` given (the generated 10k/100k cells of ``gensge.py``): ``--json``,
  and the text layout when ``--text`` is given (it is slow on 100,000 jobs);
* with ``--schedule``, ``sge schedule --dry-run --json`` (jobs started, reservations,
  waiting reasons, the schedule file's lines) and its text on every recorded cell that
  has a ``queues`` file, and ``sge schedule --dry-run --json`` on each ``--cell`` (the
  generated dispatch cells of ``gensge_dispatch.py``); ``--schedule-only`` leaves the
  qstat commands out.

A build is a Python interpreter whose ``import condorlite`` finds that build, named
``PYTHON[:PYTHONPATH]`` (``/tmp/venv/bin/python:/tmp/export-main``: a ``git archive``
export of the reference commit first on the path). Children run from a neutral
directory so that neither picks up a checkout's ``condorlite/`` by accident.

Usage::

    git archive 8d3baa4 | tar -x -C /tmp/ref
    python benchmarks/sge_identity.py --reference /tmp/venv/bin/python:/tmp/ref \\
        --candidate /tmp/venv/bin/python --cell /tmp/sgebench/j100000-u1000-p50-s1-mf200

Exit 0 when every output is identical, 1 otherwise (each difference is named).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
RECORDED = HERE.parent / "tests" / "data" / "sge"
NEUTRAL = tempfile.gettempdir()
TEXT = ["--ext", "--urg", "--pri"]


def _build(spec: str) -> tuple[str, dict[str, str]]:
    python, _, path = spec.partition(":")
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    if path:
        env["PYTHONPATH"] = path
    env["TZ"] = env.get("TZ", "UTC")  # the text layout prints local times
    return python, env


def _run(spec: str, args: list[str]) -> tuple[int, str, str]:
    """Exit code and digests of stdout and stderr (100 MB documents stay out of
    memory twice)."""
    python, env = _build(spec)
    out = subprocess.run([python, "-m", "condorlite", *args], capture_output=True,
                         env=env, cwd=NEUTRAL, check=False)
    return (out.returncode, hashlib.sha256(out.stdout).hexdigest(),
            hashlib.sha256(out.stderr).hexdigest())


def cases(cells: list[Path], text_for_given: bool, schedule: bool = False,
          qstat: bool = True) -> list[list[str]]:
    out = []
    dry = ["sge", "schedule", "--dry-run", "--cell"]
    for jobs in sorted(RECORDED.rglob("jobs.xml")):
        cell = str(jobs.parent)
        if qstat:
            out.append(["sge", "qstat", "--cell", cell, "--json"])
            out.append(["sge", "qstat", "--cell", cell, *TEXT])
        if schedule and (jobs.parent / "queues").exists():
            out.append([*dry, cell, "--json"])
            out.append([*dry, cell])
    for cell in cells:
        if qstat:
            out.append(["sge", "qstat", "--cell", str(cell), "--json"])
            if text_for_given:
                out.append(["sge", "qstat", "--cell", str(cell), *TEXT])
        if schedule:
            out.append([*dry, str(cell), "--json"])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reference", required=True, help="PYTHON[:PYTHONPATH] of the reference")
    ap.add_argument("--candidate", required=True, help="PYTHON[:PYTHONPATH] of the candidate")
    ap.add_argument("--cell", type=Path, action="append", default=[],
                    help="a further cell (repeatable), e.g. a generated one")
    ap.add_argument("--text", action="store_true", help="the text layout on --cell cells too")
    ap.add_argument("--schedule", action="store_true",
                    help="sge schedule --dry-run on recorded dispatch cells and --cell cells")
    ap.add_argument("--schedule-only", action="store_true",
                    help="as --schedule, without the qstat commands")
    a = ap.parse_args(argv)
    differ = 0
    todo = cases(a.cell, a.text, a.schedule or a.schedule_only, not a.schedule_only)
    for args in todo:
        ref, new = _run(a.reference, args), _run(a.candidate, args)
        if ref != new:
            differ += 1
            what = [name for name, x, y in zip(("exit", "stdout", "stderr"), ref, new,
                                               strict=True) if x != y]
            print(f"DIFFERS ({', '.join(what)}): condorlite {' '.join(args)}", flush=True)
    on_given = sum(1 for c in todo if str(c[c.index("--cell") + 1]) in map(str, a.cell))
    print(f"{len(todo) - differ} identical, {differ} differ "
          f"({len(todo)} commands: {len(todo) - on_given} on recorded cells)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
