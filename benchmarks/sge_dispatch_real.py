#!/usr/bin/env python3
"""The real scheduler's dispatch run on the largest queue the real cell takes (issue 16).

``sge_qstat.py --real-run`` builds a large pending queue in the real SoGE cell and times
one profiled scheduler run with the queue disabled (tickets and priorities only). This
script runs the same recording with what a dispatch run needs on top: resource
reservation (``max_reservation 50``, ``default_duration 1:0:0``), every 20th job
submitted with ``-R y -l h_rt=...``, and ``all.q`` enabled for the forced run, so the
scheduler places jobs, makes reservations and writes the schedule file. Besides
``sge_qstat.py``'s files, ``expected/schedule`` holds the run's schedule-file section.

Then, on the dump, ``condorlite sge schedule --dry-run --json`` is timed (best of
``--repeat``, CPU and wall) and its started jobs compared with the real run's. ``all.q``
has no load threshold for the run (the submission loops load the cores past the default
``np_load_avg=1.75``, which puts it in alarm). As root,
with the cell started (``tools/sge/setup.sh``)::

    python benchmarks/sge_dispatch_real.py --record 600 --out /tmp/sgedisp
    python benchmarks/sge_dispatch_real.py --dump /tmp/sgedisp/sgebench/t0
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import sge_qstat  # noqa: E402

#: (text of sge_qstat.REAL_SCRIPT, what replaces it) for the dispatch recording
CHANGES = (
    ("params MONITOR=1,PROFILE=1\"",
     "max_reservation 50 default_duration 1:0:0 params MONITOR=1,PROFILE=1\""),
    ("  [ $((i % 211)) = 0 ] && a=\"$a -dl $dl\"\n",
     "  [ $((i % 211)) = 0 ] && a=\"$a -dl $dl\"\n"
     "  [ $((i % 20)) = 0 ] && a=\"$a -R y -l h_rt=$(( i % 50 * 60 + 60 ))\"\n"),
    # (enabled before the dump, so the dump shows the queue the run sees; no load
    # threshold: the submission loops and the burner load the 2 cores past the default
    # np_load_avg=1.75, and a queue in alarm dispatches nothing)
    ("d=$SCN/t0; mkdir -p $d/expected\n",
     "mgr qconf -rattr queue load_thresholds NONE all.q\nmgr qmod -e all.q\n"
     "d=$SCN/t0; mkdir -p $d/expected\n"),
    ("msz=$(stat -c %s $MSG)\n",
     "msz=$(stat -c %s $MSG)\nssz=$(stat -c %s $COMMON/schedule 2>/dev/null || echo 0)\n"),
    ("cp $COMMON/schedd_runlog $d/expected/schedd_runlog\n",
     "cp $COMMON/schedd_runlog $d/expected/schedd_runlog\n"
     "tail -c +$((ssz + 1)) $COMMON/schedule > $d/expected/schedule\n"
     "qstat -s r -u '*' > $d/expected/running.txt\n"),
)


def script() -> str:
    text = sge_qstat.REAL_SCRIPT
    for old, new in CHANGES:
        if old not in text:
            raise SystemExit(f"sge_qstat.REAL_SCRIPT changed: {old!r} not found")
        text = text.replace(old, new)
    return text


def record(seconds: int, out: Path, parallel: int) -> int:
    out.mkdir(parents=True, exist_ok=True)
    path = out / "real_dispatch.sh"
    path.write_text(script())
    return subprocess.run(["flock", sge_qstat.LOCK, "bash", str(path), str(out), str(seconds),
                           str(parallel)], check=False).returncode


def measure(dump: Path, repeat: int) -> dict:
    """condorlite's whole ``sge schedule --dry-run --json`` on the dump: best wall and CPU
    of ``repeat`` runs, peak RSS, and the started jobs against the real run's."""
    now = (dump / "now").read_text().strip()
    best: dict = {}
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        proc = subprocess.run([sys.executable, "-m", "condorlite", "sge", "schedule", "--cell",
                               str(dump), "--now", now, "--dry-run", "--json"],
                              capture_output=True, text=True, check=False)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if not best or wall < best["wall_s"]:
            best = {"wall_s": round(wall, 2), "cpu_s": round(cpu, 2), "exit": proc.returncode,
                    "peak_rss_mib": round(after.ru_maxrss / 1024, 1), "doc": proc.stdout}
    doc = json.loads(best.pop("doc") or "{}")
    data = doc.get("data", {})
    ours = sorted({s["job"] for s in data.get("started", [])})
    real_started = dump / "expected" / "running.txt"
    real = sorted({int(line.split()[0]) for line in real_started.read_text().splitlines()[2:]
                   if line.split() and line.split()[0].isdigit()}) if real_started.exists() else []
    best.update(jobs=len(data.get("waiting", [])) + len(ours), started=ours,
                reservations=len(data.get("reservations", [])), real_running=real)
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--record", type=int, metavar="SECONDS", help="submit for SECONDS, record")
    ap.add_argument("--out", type=Path, default=Path("/tmp/sgedisp"))
    ap.add_argument("--parallel", type=int, default=5)
    ap.add_argument("--dump", type=Path, help="a recorded dump (OUT/sgebench/t0) to time")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args(argv)
    if a.record is not None:
        return record(a.record, a.out, a.parallel)
    if a.dump is None:
        ap.error("give --record or --dump")
    print(json.dumps(measure(a.dump, a.repeat), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
