#!/usr/bin/env python3
"""``condorlite sge qstat --json`` on large Grid Engine cells, and against the real scheduler.

Generated cells (``gensge.py``, kept in ``--work-dir`` and reused when present): for each
``--jobs`` size, the whole command ``condorlite sge qstat --cell DIR --json > /dev/null``
runs ``--repeat`` (3) times as a child process; the table gives the best wall time, the
CPU time (user + system) of that run and the largest peak RSS (``ru_maxrss`` of the
child from ``os.wait4``, the figure ``getrusage(RUSAGE_CHILDREN)`` reports for it). Then,
in a fresh child per size, the same work in-process (with the garbage collector paused,
as the command pauses it), timed part by part: ``read_cell``,
``prioritise``, render (the JSON rows, the envelope and ``json.dumps``, written to
/dev/null); the rest of the command's wall time is start-up (interpreter, imports,
Typer). ``--profile`` adds a cProfile of the in-process run of the largest size (top
functions by cumulative and by own time, on stderr).

Against the real scheduler (SoGE 8.1.9 on this machine, ``tools/sge``):

``--real-run SECONDS --real-out DIR``
    Under ``flock /tmp/sge-cell.lock``, as root: resets the cell, sets up projects,
    users, departments and a 3-level share tree like the generator's (smaller: the cell
    has five unix users), burns CPU as two users for share-tree usage, submits plain
    jobs from five parallel loops for SECONDS (``qsub`` with ``-P``, ``-p``, ``-l``
    consumables, ``-pe`` ranges, ``-js``, ``-dl``; ``qalter -ot`` on a few), dumps the
    cell (``dump_cell``), forces one scheduler run with ``params MONITOR=1,PROFILE=1``
    and keeps its run log, the ``PROF:`` lines of the qmaster messages file and
    ``qstat -xml -ext -urg -pri`` under ``DIR/sgebench/t0/expected``; then deletes
    every job and resets the cell. The script is ``REAL_SCRIPT`` below.
``--real-dump DIR``
    Reads the real run's figures from ``DIR/expected`` (``sgebench/t0`` of the above)
    and times condorlite on the very same dump: the whole command and its split, the
    ratio of condorlite's time to the scheduler's, and how many jobs' ``prio`` agree
    with the real qstat's to its 5 printed decimals.

Usage::

    python benchmarks/sge_qstat.py --jobs 10000 --jobs 100000 --work-dir /tmp/sgebench
    python benchmarks/sge_qstat.py --real-run 600 --real-out /tmp/sgebench/real
    python benchmarks/sge_qstat.py --real-dump /tmp/sgebench/real/sgebench/t0 --no-generated
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import gensge  # noqa: E402

_SCRIPT = Path(sys.executable).parent / "condorlite"
#: The command under test: the installed console script beside this Python, else -m.
CONDORLITE = [str(_SCRIPT)] if _SCRIPT.exists() else [sys.executable, "-m", "condorlite"]
LOCK = "/tmp/sge-cell.lock"
#: Children run here: ``python -m``/``-c`` put the working directory first on sys.path,
#: so run from a checkout they would import its condorlite/ whatever the interpreter's.
NEUTRAL = tempfile.gettempdir()


@dataclass
class Whole:
    wall: float
    cpu: float
    rss_mib: float
    rows: int
    exit: int


def run_whole(cell: Path, now: int | None, repeat: int, command: list[str]) -> Whole:
    """The whole command ``repeat`` times: best wall (with that run's CPU), largest RSS."""
    argv = [*command, "sge", "qstat", "--cell", str(cell), "--json"]
    if now is not None:
        argv += ["--now", str(now)]
    best: Whole | None = None
    rss = 0.0
    rows = -1
    failed = 0
    for i in range(repeat):
        with tempfile.TemporaryFile() if i == 0 else open(os.devnull, "wb") as out:
            start = time.perf_counter()
            with tempfile.TemporaryFile() as err:
                proc = subprocess.Popen(argv, stdout=out, stderr=err, cwd=NEUTRAL)
                _, status, usage = os.wait4(proc.pid, 0)
                if status:
                    err.seek(0)
                    tail = err.read().decode(errors="replace").strip().splitlines()[-1:]
                    print(f"{cell}: exit {os.waitstatus_to_exitcode(status)}: {tail}",
                          file=sys.stderr)
            wall = time.perf_counter() - start
            proc.returncode = os.waitstatus_to_exitcode(status)
            if i == 0:
                out.seek(0)
                try:
                    rows = len(json.loads(out.read())["data"]["jobs"])
                except (ValueError, KeyError, TypeError):
                    rows = -1
        rss = max(rss, usage.ru_maxrss / 1024)
        run = Whole(wall, usage.ru_utime + usage.ru_stime, rss, rows, proc.returncode)
        failed = failed or proc.returncode
        # the best successful run (a failure is reported, never taken as the best time)
        if best is None or (run.exit != 0, wall) < (best.exit != 0, best.wall):
            best = run
    assert best is not None
    best.rss_mib = rss
    best.exit = failed
    return best


# The in-process split, run in a fresh child: python sge_qstat.py --split DIR [NOW]
SPLIT = """
import io, json, os, sys, time
from pathlib import Path
t0 = time.perf_counter()
from condorlite.cli.render import envelope, _dumps
from condorlite.cli.sge.qstat import job_data
from condorlite.core.sge.priority import prioritise
from condorlite.store.sge_cell import read_cell
from condorlite.cli.sge._cell import collector_paused
t1 = time.perf_counter()
def work(path, now):
    with collector_paused():  # as the sge commands run (cli/sge/_cell.py)
        a = time.perf_counter()
        cell = read_cell(Path(path))
        b = time.perf_counter()
        result = prioritise(cell, now if now is not None else cell.now)
        c = time.perf_counter()
        data = {"now": result.now, "max_tickets": result.max_tickets,
                "jobs": [job_data(r) for r in result.jobs], "warnings": list(cell.warnings)}
        with open(os.devnull, "w") as out:
            out.write(_dumps(envelope("sge qstat", data, [], safe=False)) + "\\n")
        d = time.perf_counter()
    return {"read": b - a, "prioritise": c - b, "render": d - c, "jobs": len(cell.jobs),
            "rows": len(result.jobs)}
path, now, prof = sys.argv[1], (int(sys.argv[2]) if sys.argv[2] != "-" else None), sys.argv[3]
if prof != "-":
    import cProfile, pstats
    p = cProfile.Profile()
    p.enable()
    r = work(path, now)
    p.disable()
    s = io.StringIO()
    st = pstats.Stats(p, stream=s)
    st.sort_stats("cumulative").print_stats(35)
    st.sort_stats("tottime").print_stats(25)
    open(prof, "w").write(s.getvalue())
else:
    r = work(path, now)
r["imports"] = t1 - t0
print(json.dumps(r))
"""


def run_split(cell: Path, now: int | None, profile: Path | None = None) -> dict:
    argv = [sys.executable, "-c", SPLIT, str(cell), str(now) if now is not None else "-",
            str(profile) if profile else "-"]
    out = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=NEUTRAL)
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1:] or ["failed"]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def generated(work: Path, spec: gensge.CellSpec) -> Path:
    """The cell of ``spec`` under ``work``, generated once (a ``.done`` marker)."""
    d = work / (f"j{spec.jobs}-u{spec.users}-p{spec.projects}-s{spec.seed}"
                f"-mf{spec.max_functional}")
    if not (d / ".done").exists():
        start = time.perf_counter()
        counts = gensge.write_cell(spec, d)
        (d / ".done").write_text(json.dumps({"tasks": counts.tasks,
                                             "running": counts.running_tasks}))
        print(f"generated {d} in {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return d


def fmt_row(label: str, jobs: int, w: Whole, s: dict, extra: str = "") -> str:
    if "error" in s:
        split = f"split failed: {s['error']}"
        return (f"| {label} | {jobs} | {w.rows} | {w.wall:.2f} | {w.cpu:.2f} | "
                f"{w.rss_mib:.0f} | {split} | | | | {w.exit} |{extra}")
    startup = w.wall - s["read"] - s["prioritise"] - s["render"]
    return (f"| {label} | {jobs} | {w.rows} | {w.wall:.2f} | {w.cpu:.2f} | {w.rss_mib:.0f} | "
            f"{s['read']:.2f} | {s['prioritise']:.2f} | {s['render']:.2f} | {startup:.2f} | "
            f"{w.exit} |{extra}")


HEADER = ("| cell | jobs | rows | wall s | CPU s | peak RSS MiB | read_cell s | prioritise s "
          "| render s | start-up s | exit |")
RULE = "|---|---|---|---|---|---|---|---|---|---|---|"


# ----------------------------------------------------------------- the real scheduler

def real_figures(expected: Path) -> dict:
    """The real scheduler run's figures: its run log's START/STOP (1 s resolution) and the
    ``PROF:`` lines of the qmaster messages file."""
    out: dict = {}
    runlog = (expected / "schedd_runlog").read_text(errors="replace") \
        if (expected / "schedd_runlog").exists() else ""
    stamps = [line.split("|", 1)[0] for line in runlog.splitlines()
              if "SCHEDULER-RUN" in line]
    if len(stamps) >= 2:
        fmt = "%a %b %d %H:%M:%S %Y"
        a, b = (time.mktime(time.strptime(x.strip(), fmt)) for x in (stamps[0], stamps[-1]))
        out["runlog_s"] = b - a
    msgs = (expected / "messages").read_text(errors="replace") \
        if (expected / "messages").exists() else ""
    prof = [ln.split("|")[-1] for ln in msgs.splitlines() if "PROF" in ln]
    out["prof_lines"] = prof
    # init, pass 0, pass 1, pass 2 and calc are consecutive segments of one call
    calc = [sum(float(x) for x in re.findall(r"([0-9]+\.[0-9]+)", ln.split(":", 2)[2]))
            for ln in prof if "job ticket calculation:" in ln]
    urg = [float(m.group(1)) for ln in prof
           for m in [re.search(r"static urgency took ([0-9.]+) s", ln)] if m]
    norm = [float(m.group(1)) for ln in prof
            for m in [re.search(r"normalizing job tickets took ([0-9.]+) s", ln)] if m]
    total = [float(m.group(1)) for ln in prof
             for m in [re.search(r"schedd run took: ([0-9.]+) s", ln)] if m]
    out["ticket_calc_s"] = calc
    out["urgency_s"] = urg
    out["normalize_s"] = norm
    out["schedd_run_s"] = total
    # tickets and urgency of the first scheduler pass: first ticket calc (pending jobs),
    # the running-jobs pass, the static urgency and the normalisation
    out["policy_s"] = sum(calc[:2]) + sum(urg[:1]) + sum(norm[:1]) if calc else None
    return out


def agreement(expected: Path, cell: Path, now: int | None) -> str:
    """How many pending jobs' prio condorlite gives as the real qstat -xml printed it."""
    qx = expected / "qstat.xml"
    if not qx.exists():
        return "no qstat.xml"
    import xml.etree.ElementTree as ET

    real: dict[int, str] = {}
    for jl in ET.parse(qx).getroot().iter("job_list"):
        n, p = jl.findtext("JB_job_number"), jl.findtext("JAT_prio")
        if n and p:
            real.setdefault(int(n), p)
    argv = [*CONDORLITE, "sge", "qstat", "--cell", str(cell), "--json"]
    if now is not None:
        argv += ["--now", str(now)]
    out = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=NEUTRAL)
    try:
        rows = json.loads(out.stdout)["data"]["jobs"]
    except (ValueError, KeyError):
        return "condorlite failed"
    ours: dict[int, float] = {}
    for r in rows:
        ours.setdefault(r["job"], r["prio"])
    both = [n for n in real if n in ours]
    same = sum(1 for n in both if f"{ours[n]:.5f}" == f"{float(real[n]):.5f}")
    return f"{same}/{len(both)} jobs' prio equal to 5 decimals"


REAL_SCRIPT = r"""#!/bin/bash
# A large pending queue in the real SoGE cell, one profiled scheduler run, and a dump of the
# cell as the run saw it. Run as root under the cell lock:
#   flock /tmp/sge-cell.lock bash real.sh OUTDIR SUBMIT_SECONDS [PARALLEL]
set -u
OUT=$1; SECS=$2; PAR=${3:-5}
LIB=${SGE_LIB:-/work/main/tools/sge/lib.sh}
. "$LIB"
MSG=/var/spool/gridengine/qmaster/messages
begin sgebench
P="weight_tickets_functional 500000 weight_tickets_share 1000000 share_override_tickets TRUE
   policy_hierarchy OFS max_functional_jobs_to_schedule 200 weight_ticket 0.01
   weight_waiting_time 0.000278 weight_urgency 0.1 weight_priority 1.0 params MONITOR=1,PROFILE=1"
sconf $P
cp $HERE_SGE/default_complexes.txt $TMPD/cplx
sed -i '/^# >#</d' $TMPD/cplx
cat >> $TMPD/cplx <<'EOC'
lic                 lic        INT       <=    YES         YES        0        200
gpu                 gpu        INT       <=    YES         YES        0        5000
scratch             scr        MEMORY    <=    YES         YES        0        0.000000001
EOC
qconf -Mc $TMPD/cplx >/dev/null
mgr qconf -rattr exechost complex_values lic=20,gpu=4,scratch=2T $(hostname)
mkprj P1 50 10000; mkprj P2 30 0; mkprj P3 20 2000
mkuser alice 100 0; mkuser bob 50 20000; mkuser carol 0 0; mkuser dave 25 0; mkuser erin 10 5000
mkdept dept_a 30 0 alice,bob
mkdept dept_b 10 8000 carol,dave
# Root -> P1 [alice 40, bob 20, default 10], P2 [carol 30, dave 10], P3 [erin 10, default 5],
# default 5 (depth first, as qconf -Astree wants)
printf '%s\n' id=0 name=Root type=0 shares=1 childnodes=1,5,8,11 \
  id=1 name=P1 type=1 shares=50 childnodes=2,3,4 \
  id=2 name=alice type=0 shares=40 childnodes=NONE \
  id=3 name=bob type=0 shares=20 childnodes=NONE \
  id=4 name=default type=0 shares=10 childnodes=NONE \
  id=5 name=P2 type=1 shares=30 childnodes=6,7 \
  id=6 name=carol type=0 shares=30 childnodes=NONE \
  id=7 name=dave type=0 shares=10 childnodes=NONE \
  id=8 name=P3 type=1 shares=15 childnodes=9,10 \
  id=9 name=erin type=0 shares=10 childnodes=NONE \
  id=10 name=default type=0 shares=5 childnodes=NONE \
  id=11 name=default type=0 shares=5 childnodes=NONE > $TMPD/tree
stree $TMPD/tree
# share-tree usage, skewed: alice burns a slot for the whole run, carol for 200 s
mgr qmod -e all.q
burn alice $((SECS + 900)) -P P1 >/dev/null
burn carol 200 -P P2 >/dev/null
tsm
mgr qmod -d all.q
DL=$(date -d '+2 days' +%Y%m%d%H%M)
# PAR submitters at once, each a loop of plain qsubs until SECS have passed
cat > $TMPD/subloop.sh <<'EOL'
u=$1; secs=$2; dl=$3; k=$4
cd /tmp; . /var/lib/gridengine/default/common/settings.sh
case $u in alice) projs="P1 P1 P1 P3 -";; bob) projs="P1 P1 -";; carol) projs="P2 P2 -";;
  dave) projs="P2 -";; *) projs="P3 P3 -";; esac
set -- $projs; np=$#
end=$((SECONDS + secs)); i=$k
while [ $SECONDS -lt $end ]; do
  i=$((i + 1)); a=""
  eval p=\${$(( i % np + 1 ))}
  [ "$p" != - ] && a="$a -P $p"
  [ $((i % 7)) = 0 ] && a="$a -p -$(( (i * 37) % 1000 ))"
  [ $((i % 11)) = 0 ] && a="$a -l lic=$(( i % 3 + 1 ))"
  [ $((i % 29)) = 0 ] && a="$a -l gpu=1"
  [ $((i % 19)) = 0 ] && a="$a -l scratch=$(( i % 50 + 1 ))G"
  [ $((i % 13)) = 0 ] && a="$a -pe smp $(( i % 4 + 1 ))-$(( i % 4 + 4 ))"
  [ $((i % 17)) = 0 ] && a="$a -js $(( i % 5 * 10 + 10 ))"
  [ $((i % 211)) = 0 ] && a="$a -dl $dl"
  qsub -terse -b y -o /dev/null -j y -N j_$u $a sleep 3600 || echo "qsub failed: $a" >&2
done
EOL
chmod 755 $TMPD/subloop.sh
note "# submission: $PAR loops of plain qsubs for $SECS s, $TMPD/subloop.sh"
T0=$(date +%s)
users=(alice bob carol dave erin)
for n in $(seq 0 $((PAR - 1))); do
  u=${users[$((n % 5))]}
  su $u -c "bash $TMPD/subloop.sh $u $SECS $DL $((n * 1000003))" > $TMPD/ids_$n 2>$TMPD/err_$n &
done
wait
T1=$(date +%s)
N=$(cat $TMPD/ids_* | wc -l)
note "# submitted $N jobs in $((T1 - T0)) s; qsub errors: $(cat $TMPD/err_* | wc -l)"
# override tickets on a few jobs (manager only)
for id in $(cat $TMPD/ids_* | awk 'NR % 997 == 0'); do
  qalter -ot $(( (id % 5 + 1) * 1000 )) $id >/dev/null
done
note "# qalter -ot on $(cat $TMPD/ids_* | awk 'NR % 997 == 0' | wc -l) jobs"
d=$SCN/t0; mkdir -p $d/expected
T2=$(date +%s); dump_cell $d; T3=$(date +%s)
# qalter moved those jobs to the end of the scheduler's list, in this order (lib.sh, mgr)
cat $TMPD/ids_* | awk 'NR % 997 == 0' > $d/modified_jobs
note "# dump_cell took $((T3 - T2)) s"
msz=$(stat -c %s $MSG)
rm -f $COMMON/schedd_runlog
T4=$(date +%s.%N)
qconf -tsm >/dev/null 2>&1
for i in $(seq 1 3600); do
  grep -q STOP-SCHEDULER-RUN $COMMON/schedd_runlog 2>/dev/null && break; sleep 0.5
done
T5=$(date +%s.%N)
note "# qconf -tsm until STOP-SCHEDULER-RUN in the run log: $(echo "$T5 - $T4" | bc) s"
sleep 5
ts=$(grep -m1 START-SCHEDULER-RUN $COMMON/schedd_runlog | cut -d'|' -f1)
date -u -d "$ts" +%s > $d/now
cp $COMMON/schedd_runlog $d/expected/schedd_runlog
tail -c +$((msz + 1)) $MSG > $d/expected/messages
qstat -xml -ext -urg -pri -u '*' > $d/expected/qstat.xml
note "snap t0 # now=$(cat $d/now), $N jobs"
# leave the cell as begin leaves it
begin sgebench_cleanup
for i in $(seq 1 120); do
  [ -z "$(qstat -u '*' 2>/dev/null | head -3)" ] && break
  qdel -f -u '*' '*' >/dev/null 2>&1; sleep 5
done
left=$([ -z "$(qstat -u '*' 2>/dev/null)" ] && echo yes || echo NO)
echo "# cleanup: qstat -u '*' empty: $left" >> $OUT/sgebench/commands.txt
begin sgebench_cleanup
rm -rf $OUT/sgebench_cleanup
"""


def real_run(seconds: int, out: Path, parallel: int) -> int:
    out.mkdir(parents=True, exist_ok=True)
    script = out / "real.sh"
    script.write_text(REAL_SCRIPT)
    return subprocess.run(["flock", LOCK, "bash", str(script), str(out), str(seconds),
                           str(parallel)], check=False).returncode


def _commit() -> str:
    """The checkout's commit, with "+" when condorlite/ has uncommitted changes."""
    def git(*args: str) -> str:
        return subprocess.run(["git", "-C", str(HERE.parent), *args], capture_output=True,
                              text=True, check=False).stdout.strip()
    where = subprocess.run([sys.executable, "-c", "import condorlite; print(condorlite.__file__)"],
                           capture_output=True, text=True, check=False, cwd=NEUTRAL).stdout
    if not where.startswith(str(HERE.parent)):
        return f"from {Path(where.strip()).parent.parent}"
    dirty = git("status", "--porcelain", "--", "condorlite")
    return (git("rev-parse", "--short", "HEAD") or "?") + ("+" if dirty else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--jobs", type=int, action="append",
                    help="generated cell sizes (repeatable; default 10000 and 100000)")
    ap.add_argument("--users", type=int, default=1000)
    ap.add_argument("--projects", type=int, default=50)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-functional", type=int, action="append",
                    help="max_functional_jobs_to_schedule variants (repeatable; default 200)")
    ap.add_argument("--work-dir", type=Path, default=Path("/tmp/sgebench"))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--profile", type=Path, help="write a cProfile of the largest size here")
    ap.add_argument("--no-generated", action="store_true", help="skip the generated cells")
    ap.add_argument("--real-run", type=int, metavar="SECONDS",
                    help="drive the real cell (as root, under the cell lock), then exit")
    ap.add_argument("--real-out", type=Path, default=Path("/tmp/sgebench/real"))
    ap.add_argument("--parallel", type=int, default=5, help="submission loops (--real-run)")
    ap.add_argument("--real-dump", type=Path, help="a dump made by --real-run (sgebench/t0)")
    ap.add_argument("--command", help="run this instead of 'python -m condorlite'")
    a = ap.parse_args(argv)
    global CONDORLITE
    if a.command:
        CONDORLITE = a.command.split()
    if a.real_run is not None:
        return real_run(a.real_run, a.real_out, a.parallel)
    failed = False
    print(f"machine: {os.cpu_count()} cores, Python {sys.version.split()[0]}, "
          f"load average {os.getloadavg()[0]:.2f}; condorlite {_commit()}")
    print(HEADER)
    print(RULE)
    if not a.no_generated:
        sizes = a.jobs or [10_000, 100_000]
        for mf in a.max_functional or [200]:
            for n in sizes:
                spec = gensge.CellSpec(jobs=n, users=a.users, projects=a.projects,
                                       seed=a.seed, max_functional=mf)
                cell = generated(a.work_dir, spec)
                w = run_whole(cell, None, a.repeat, CONDORLITE)
                s = run_split(cell, None)
                if a.profile and n == max(sizes):  # a separate run: cProfile slows it
                    run_split(cell, None, a.profile)
                label = f"generated, max_functional {mf}"
                print(fmt_row(label, n, w, s), flush=True)
                failed |= w.exit != 0 or "error" in s
    if a.real_dump:
        d = a.real_dump
        now = int((d / "now").read_text()) if (d / "now").exists() else None
        njobs = (d / "jobs.xml").read_text(errors="replace").count("<JB_job_number>")
        w = run_whole(d, now, a.repeat, CONDORLITE)
        s = run_split(d, now)
        print(fmt_row("real cell dump", njobs, w, s), flush=True)
        failed |= w.exit != 0 or "error" in s
        real = real_figures(d / "expected")
        print()
        print(f"real scheduler ({njobs} jobs): " + json.dumps(
            {k: v for k, v in real.items() if k != "prof_lines"}))
        for line in real["prof_lines"]:
            print(f"  {line}")
        if real.get("policy_s") and "error" not in s:
            ours = s["prioritise"]
            print(f"condorlite prioritise {ours:.3f} s vs real tickets+urgency+normalise "
                  f"{real['policy_s']:.3f} s: ratio {ours / real['policy_s']:.2f} "
                  f"(whole command {w.wall:.2f} s: {w.wall / real['policy_s']:.2f})")
        print(f"agreement: {agreement(d / 'expected', d, now)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
