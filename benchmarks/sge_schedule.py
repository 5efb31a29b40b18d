#!/usr/bin/env python3
"""``condorlite sge schedule --dry-run --json`` on a large generated cell (issue 16).

The cell is ``gensge_dispatch.py``'s (``--hosts`` hosts with three cluster queues,
global and host consumables, ``--jobs`` jobs of which 5 % ask ``-R y``,
``max_reservation 50``), generated once into ``--work-dir`` (a ``.done`` marker).
The whole command runs ``--repeat`` times as a child process (``condorlite`` beside
this Python, or ``--command``): best wall time, the CPU time (user + system) of that
run, the largest peak RSS (``ru_maxrss`` from ``os.wait4``). Then a fresh child does the
same work in-process with the garbage collector paused, as the command pauses it, and
times it part by part: ``read_cell``, ``prioritise``, ``schedule``, render (the JSON
document, written to /dev/null). CPU seconds (``time.process_time``) are given beside
wall seconds: the machine is shared, and CPU time moves less with the other load.

Usage::

    python benchmarks/sge_schedule.py --hosts 1000 --jobs 100000 --work-dir /tmp/sgebench
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gensge  # noqa: E402
import gensge_dispatch  # noqa: E402

_SCRIPT = Path(sys.executable).parent / "condorlite"
CONDORLITE = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "condorlite"]
NEUTRAL = tempfile.gettempdir()

SPLIT = """
import json, os, sys, time
from pathlib import Path
from condorlite.cli.render import envelope, _dumps
from condorlite.cli.sge._cell import collector_paused
from condorlite.cli.sge.schedule import run_data
from condorlite.core.sge.dispatch import schedule
from condorlite.core.sge.priority import prioritise
from condorlite.store.sge_cell import read_cell
out = {}
def part(name, work):
    wall, cpu = time.perf_counter(), time.process_time()
    value = work()
    out[name] = [time.perf_counter() - wall, time.process_time() - cpu]
    return value
with collector_paused():
    cell = part("read_cell", lambda: read_cell(Path(sys.argv[1])))
    prio = part("prioritise", lambda: prioritise(cell, cell.now))
    run = part("schedule", lambda: schedule(cell, prio, cell.now))
    def render():
        with open(os.devnull, "w") as sink:
            sink.write(_dumps(envelope("sge schedule", run_data(run, cell.warnings), [],
                                       safe=False)) + "\\n")
    part("render", render)
out["counts"] = [len(run.started), len(run.reservations), len(run.waiting)]
print(json.dumps(out))
"""


def generated(work: Path, hosts: int, jobs: int, seed: int) -> Path:
    d = work / f"dispatch-h{hosts}-j{jobs}"
    if not (d / ".done").exists():
        cell = gensge.CellSpec(jobs=jobs, users=1000, projects=50, seed=seed, reserve=0.05)
        gensge_dispatch.write_dispatch_cell(cell, gensge_dispatch.DispatchSpec(hosts=hosts), d,
                                            sys.stderr)
        (d / ".done").write_text("")
    return d


def whole(cell: Path, repeat: int, command: list[str]) -> dict:
    argv = [*command, "sge", "schedule", "--dry-run", "--cell", str(cell), "--json"]
    best: dict | None = None
    rss = 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        with open(os.devnull, "wb") as sink:
            proc = subprocess.Popen(argv, stdout=sink, stderr=subprocess.DEVNULL, cwd=NEUTRAL)
            _, status, usage = os.wait4(proc.pid, 0)
        run = {"wall": time.perf_counter() - start, "cpu": usage.ru_utime + usage.ru_stime,
               "exit": os.waitstatus_to_exitcode(status)}
        rss = max(rss, usage.ru_maxrss / 1024)
        if best is None or (run["exit"] != 0, run["wall"]) < (best["exit"] != 0, best["wall"]):
            best = run
    assert best is not None
    return {**best, "rss_mib": rss}


def split(cell: Path) -> dict:
    out = subprocess.run([sys.executable, "-c", SPLIT, str(cell)], capture_output=True,
                         text=True, check=False, cwd=NEUTRAL)
    if out.returncode:
        return {"error": out.stderr.strip().splitlines()[-1:]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hosts", type=int, default=1000)
    ap.add_argument("--jobs", type=int, default=100_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--work-dir", type=Path, default=Path("/tmp/sgebench"))
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--no-split", action="store_true", help="the whole command only")
    ap.add_argument("--command", help="run this instead of the condorlite beside this Python")
    a = ap.parse_args(argv)
    command = a.command.split() if a.command else CONDORLITE
    cell = generated(a.work_dir, a.hosts, a.jobs, a.seed)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; {cell}")
    w = whole(cell, a.repeat, command)
    print(f"whole command: wall {w['wall']:.2f} s, CPU {w['cpu']:.2f} s, peak RSS "
          f"{w['rss_mib']:.0f} MiB, exit {w['exit']}")
    if not a.no_split:
        s = split(cell)
        if "error" in s:
            print(f"split failed: {s['error']}")
            return 1
        parts = ", ".join(f"{k} {v[0]:.2f} s wall / {v[1]:.2f} s CPU" for k, v in s.items()
                          if k != "counts")
        started, reserved, waiting = s["counts"]
        print(f"in-process: {parts}; {started} started, {reserved} reservations, "
              f"{waiting} waiting")
    return 1 if w["exit"] else 0


if __name__ == "__main__":
    sys.exit(main())
