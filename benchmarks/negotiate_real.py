#!/usr/bin/env python3
"""``condorlite negotiate --dry-run --json`` on pools that look like real ones (issue 18).

One row per pool property, each a ``genpool.PoolSpec`` (``ROWS``): every row has ads of
real size (``realistic``: ~160-attribute slots, ~85-attribute jobs) and per-slot unique
numbers (``unique``: KFlops, Mips, LoadAvg, KeyboardIdle, free disk, EnteredCurrentState
differ on nearly every slot), with no autocluster ranking on them unless the row says
so; the row adds its property on top:

=====================  ==================================================================
baseline               nothing else: shapes collapse (nothing reads the unique numbers)
rank-65                65% of autoclusters ``Rank`` on KFlops / Mips / -LoadAvg / Memory
rank-5                 5% of autoclusters rank on KFlops
partitionable          every machine partitionable (claimed dynamic slots carved out)
partitionable-rank     both of the above (rank-65 on a partitionable pool)
owner-start            30% of machines: ``START`` reads KeyboardIdle and TARGET.Owner
disk-share             each slot's Disk is its share of the machine's free disk
claimed-preemption     30% claimed, ``PREEMPTION_REQUIREMENTS = RemoteUserPrio >
                       SubmitterUserPrio * 1.2``, submitter priorities imported
static-mix             all of the above, every machine static
partitionable-mix      all of the above, every machine partitionable
=====================  ==================================================================

For each ``--size SLOTSxJOBS`` and row the pool is generated (kept in ``--work-dir`` under
the row's name and reused while its spec is unchanged), a fresh state directory is made
(with the pool's config; a pool with priorities gets them by ``condorlite import``,
untimed), and the whole command runs ``--repeat`` times in a child, killed after
``--timeout`` seconds. Before the first row the command negotiates the bundled example
once, untimed, with bytecode writing allowed (``warm_up``), so that the timed runs
start from compiled modules as an installed command does. Per row:

* matchmaking s: the cycle's ``matchmaking_duration`` (``negotiate.matchmaking_seconds``),
  best of the runs; wall s and CPU s (user + system of the child) of the fastest run;
  peak RSS (``ru_maxrss``), the largest; evaluations, slot shapes, autoclusters and
  matches from the cycle's statistics;
* the HTCondor-approach estimate, in the same run: classad2's CPU cost per symmetric
  match measured on a sample of the pool's own ads (``pairs.pool_pairs``: jobs of
  distinct autoclusters x slots of every kind, best of rounds), times autoclusters
  times slots: what a negotiator that tries every autocluster against every slot spends
  on matching alone; and the ratio matchmaking / estimate (issue 18's target: at most
  0.1). The pair measurement also checks that condorlite and classad2 agree on every
  sampled pair.

Usage::

    python benchmarks/negotiate_real.py --size 10000x100000 --work-dir /tmp/real \\
        [--row baseline --row rank-65 ...] [--repeat 1] [--timeout 300] [--json]

Markdown table (or ``--json``). Exit status 1 when a run fails (a timeout is reported,
not a failure) or the libraries disagree on a pair.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import genpool  # sibling scripts, not an installed package
import negotiate
import pairs

from condorlite.store.db import open_state

NOW = genpool.BASE_TIME
#: The PREEMPTION_REQUIREMENTS of the claimed rows: HTCondor's default shape.
PREEMPTION = "RemoteUserPrio > SubmitterUserPrio * 1.2"
#: What every row has (module doc).
BASE: dict[str, Any] = dict(realistic=True, unique=True, rank_fraction=0.0)
ALL: dict[str, Any] = dict(rank_fraction=0.65, owner_start_fraction=0.3, disk_share=True,
                           claimed_fraction=0.3, preemption_requirements=PREEMPTION)
#: row name -> (what the row shows, the PoolSpec fields it sets on top of BASE).
ROWS: dict[str, tuple[str, dict[str, Any]]] = {
    "baseline": ("none of the below (shapes collapse)", {}),
    "rank-65": ("65% of autoclusters Rank on KFlops / Mips / -LoadAvg / Memory",
                dict(rank_fraction=0.65)),
    "rank-5": ("5% of autoclusters Rank on KFlops",
               dict(rank_fraction=0.05, rank_on=("KFlops",))),
    "partitionable": ("partitionable slots (every machine)", dict(partitionable_fraction=1.0)),
    "partitionable-rank": ("partitionable slots + 65% unique ranks",
                           dict(partitionable_fraction=1.0, rank_fraction=0.65)),
    "owner-start": ("START reads KeyboardIdle and TARGET.Owner (30% of machines)",
                    dict(owner_start_fraction=0.3)),
    "disk-share": ("Disk per slot = its share of free disk", dict(disk_share=True)),
    "claimed-preemption": ("30% claimed, PREEMPTION_REQUIREMENTS reads SubmitterUserPrio",
                           dict(claimed_fraction=0.3, preemption_requirements=PREEMPTION)),
    "static-mix": ("all of the above, static slots", dict(ALL, partitionable_fraction=0.0)),
    "partitionable-mix": ("all of the above, partitionable slots",
                          dict(ALL, partitionable_fraction=1.0)),
}


def row_spec(row: str, slots: int, jobs: int, submitters: int, autoclusters: int,
             seed: int) -> genpool.PoolSpec:
    return genpool.PoolSpec(slots=slots, jobs=jobs, submitters=submitters,
                            autoclusters=autoclusters, seed=seed, **{**BASE, **ROWS[row][1]})


def ensure_pool(row: str, spec: genpool.PoolSpec, work_dir: Path) -> tuple[genpool.PoolFiles,
                                                                           float]:
    """The row's pool in ``work_dir``, generated unless the same spec made it."""
    out = work_dir / f"{row}-s{spec.slots}-j{spec.jobs}-a{spec.autoclusters}-seed{spec.seed}"
    stamp = out / "spec.json"
    wanted = json.dumps(asdict(spec), sort_keys=True)
    if stamp.exists() and stamp.read_text() == wanted:
        name = genpool.config_name(spec)
        return genpool.PoolFiles(
            out / "slots.ads", out / "jobs.ads", spec.slots, spec.jobs,
            out / name if name else None,
            out / "userprio.ads" if spec.preemption_requirements else None), 0.0
    if out.exists():
        shutil.rmtree(out)
    start = time.perf_counter()
    files = genpool.write_pool(spec, out, "old")
    stamp.write_text(wanted)
    return files, time.perf_counter() - start


@dataclass
class Once:
    """One child run: None figures when it timed out."""

    wall_s: float
    cpu_s: float | None = None
    rss_mib: float | None = None
    exit_code: int | None = None
    doc: dict[str, Any] = field(default_factory=dict)

    @property
    def timed_out(self) -> bool:
        return self.exit_code is None


def _prepare_state(command: list[str], files: genpool.PoolFiles) -> Path:
    state = Path(tempfile.mkdtemp(prefix="condorlite-real-"))
    open_state(state, config_path=files.config_path)
    if files.priorities_path is not None:
        argv = [*command, "import", str(files.priorities_path), "--state-dir", str(state),
                "--now", str(NOW), "--json"]
        if files.config_path is not None:
            argv += ["--config", str(files.config_path)]
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, cwd=state)
    return state


#: The bundled example, which ``warm_up`` negotiates once.
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def warm_up(command: list[str]) -> None:
    """Run the command once, untimed, on the bundled example, with the writing of
    bytecode allowed: ``pip install`` compiles every module, so an installed command
    starts from bytecode, while a checkout run with ``PYTHONDONTWRITEBYTECODE`` set
    would compile the modules it imports (about 0.2 s) on every timed run."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    with tempfile.TemporaryDirectory(prefix="condorlite-warm-") as state:
        open_state(Path(state), config_path=EXAMPLES / "condorlite.toml")
        subprocess.run([*command, "negotiate", "--dry-run", "--json", "--config",
                        str(EXAMPLES / "condorlite.toml"), "--state-dir", state,
                        "--now", str(NOW)], env=env, cwd=state, check=False,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def run_once(command: list[str], files: genpool.PoolFiles, timeout: float) -> Once:
    """The whole command once, in a fresh state (prepared outside the timing)."""
    state = _prepare_state(command, files)
    report = state.parent / (state.name + ".usage")
    argv = [*command, "negotiate", "--dry-run", "--json", "--slots", str(files.slots_path),
            "--jobs", str(files.jobs_path), "--state-dir", str(state), "--now", str(NOW)]
    if files.config_path is not None:
        argv += ["--config", str(files.config_path)]
    try:
        with tempfile.TemporaryFile() as out:
            start = time.perf_counter()
            # its own session, so that a timeout ends the launcher and its child together
            proc = subprocess.Popen([sys.executable, "-c", negotiate.LAUNCHER, str(report), *argv],
                                    stdout=out, stderr=subprocess.DEVNULL, cwd=state,
                                    start_new_session=True)
            try:
                code = proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                return Once(time.perf_counter() - start)
            out.seek(0)
            try:
                doc = json.loads(out.read().decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                doc = {}
        wall, cpu, maxrss_kib = (float(x) for x in report.read_text().split())
        return Once(wall, cpu, maxrss_kib / 1024.0, code, doc)
    finally:
        report.unlink(missing_ok=True)
        shutil.rmtree(state, ignore_errors=True)


@dataclass
class Row:
    row: str
    description: str
    slots: int
    jobs: int
    gen_s: float
    exit_code: int | None  # None: timed out
    wall_s: float | None = None
    cpu_s: float | None = None
    match_s: float | None = None
    rss_mib: float | None = None
    evaluations: int | None = None
    slot_shapes: int | None = None
    autoclusters: int | None = None
    matches: int | None = None
    preemptions: int | None = None
    timeout_s: float | None = None
    pairs: pairs.PairRow | None = None
    classad2_pair_us: float | None = None  # classad2 CPU microseconds per symmetric match
    estimate_s: float | None = None  # the HTCondor approach: per pair x autoclusters x slots

    @property
    def ratio(self) -> float | None:
        if self.match_s is None or not self.estimate_s:
            return None
        return self.match_s / self.estimate_s

    @property
    def ok(self) -> bool:
        return self.exit_code in (0, None) and (self.pairs is None or self.pairs.ok)


def measure(row: str, spec: genpool.PoolSpec, work_dir: Path, command: list[str],
            repeat: int, timeout: float, sample: pairs.Sample | None) -> Row:
    files, gen_s = ensure_pool(row, spec, work_dir)
    result = Row(row, ROWS[row][0], spec.slots, spec.jobs, round(gen_s, 2), 0)
    best: Once | None = None
    for _ in range(repeat):
        once = run_once(command, files, timeout)
        if once.timed_out:
            result.exit_code, result.timeout_s = None, round(once.wall_s, 1)
            break
        result.rss_mib = max(result.rss_mib or 0.0, round(once.rss_mib or 0.0, 1))
        if once.exit_code != 0:
            result.exit_code = once.exit_code
            break
        cycle = (once.doc.get("data") or {}).get("cycle") or {}
        match = negotiate.matchmaking_seconds(negotiate.cycle_timings(cycle))
        if match is not None and (result.match_s is None or match < result.match_s):
            result.match_s = match
        if best is None or once.wall_s < best.wall_s:
            best = once
    if best is not None:
        data = best.doc.get("data") or {}
        cycle = data.get("cycle") or {}
        result.wall_s, result.cpu_s = round(best.wall_s, 3), round(best.cpu_s or 0.0, 3)
        for name, key in (("evaluations", "evaluations"), ("slot_shapes", "slot_shapes"),
                          ("autoclusters", "autoclusters"), ("matches", "matches")):
            setattr(result, name, negotiate.cycle_count(cycle, key))
        result.preemptions = sum(1 for m in data.get("matches") or () if m.get("preempting"))
    if sample is not None:
        result.pairs = pairs.pool_pairs(files.jobs_path, files.slots_path, "old", sample,
                                        spec.seed)
        rate = result.pairs.classad2_per_s
        if rate:
            result.classad2_pair_us = 1e6 / rate
            classes = result.autoclusters or spec.autoclusters
            result.estimate_s = classes * spec.slots / rate
    return result


def _num(value: float | int | None, fmt: str) -> str:
    return "n/a" if value is None else format(value, fmt)


def markdown(rows: list[Row]) -> str:
    lines = ["| size | row | pool property | matchmaking s | wall s | CPU s | peak RSS MiB "
             "| evaluations | slot shapes | matches (preempting) | classad2 us/pair "
             "| HTCondor estimate s | matchmaking / estimate | agree |", "|" + "---|" * 14]
    for r in rows:
        size = f"{r.slots}x{r.jobs}"
        if r.exit_code is None:
            timing = f"timed out after {r.timeout_s:.0f} s | | | "
        elif r.exit_code != 0:
            timing = f"exit {r.exit_code} | | | "
        else:
            timing = (f"{_num(r.match_s, '.2f')} | {_num(r.wall_s, '.2f')} "
                      f"| {_num(r.cpu_s, '.2f')} | ")
        ratio = r.ratio
        verdict = "n/a" if ratio is None else f"{ratio:.3f}" + (" ✓" if ratio <= 0.1 else "")
        agree = ("n/a" if r.pairs is None or r.pairs.ratio is None
                 else "yes" if r.pairs.ok else f"NO ({r.pairs.disagreements})")
        matches = "n/a" if r.matches is None else f"{r.matches:,} ({r.preemptions:,})"
        lines.append(
            f"| {size} | {r.row} | {r.description} | {timing}{_num(r.rss_mib, '.0f')} "
            f"| {_num(r.evaluations, ',')} | {_num(r.slot_shapes, ',')} | {matches} "
            f"| {_num(r.classad2_pair_us, '.1f')} | {_num(r.estimate_s, '.1f')} "
            f"| {verdict} | {agree} |")
    return "\n".join(lines)


def row_json(r: Row) -> dict[str, Any]:
    doc = asdict(r)
    doc.update(ratio=r.ratio, ok=r.ok, timed_out=r.exit_code is None)
    if r.pairs is not None:
        doc["pairs"].update(pairs=r.pairs.pairs, ok=r.pairs.ok)
    return doc


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=negotiate.parse_size, action="append",
                        help="SLOTSxJOBS (repeatable; default 10000x100000)")
    parser.add_argument("--row", action="append", choices=list(ROWS),
                        help="rows to run (repeatable; default: every row, in table order)")
    parser.add_argument("--submitters", type=int, default=100)
    parser.add_argument("--autoclusters", type=int, default=300)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=1, help="runs per row (best kept)")
    parser.add_argument("--timeout", type=float, default=300.0,
                        help="seconds before a run is killed and reported as timed out")
    parser.add_argument("--work-dir", type=Path, default=None,
                        help="keep generated pools here (default: a temporary directory)")
    parser.add_argument("--command", default=f"{sys.executable} -m condorlite",
                        help="how to run condorlite (default: this Python -m condorlite)")
    defaults = pairs.Sample()
    parser.add_argument("--sample-jobs", type=int, default=defaults.jobs)
    parser.add_argument("--sample-slots", type=int, default=defaults.slots)
    parser.add_argument("--pair-repeat", type=int, default=defaults.repeat)
    parser.add_argument("--no-pairs", action="store_true",
                        help="skip the classad2 measurement (no estimate)")
    parser.add_argument("--json", action="store_true", help="print the rows as JSON")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if min(args.repeat, args.sample_jobs, args.sample_slots, args.pair_repeat) < 1:
        parser.error("--repeat, --sample-jobs, --sample-slots and --pair-repeat must be >= 1")
    sizes = args.size or [(10_000, 100_000)]
    names = list(dict.fromkeys(args.row or ROWS))
    sample = None if args.no_pairs else pairs.Sample(args.sample_jobs, args.sample_slots,
                                                      args.pair_repeat)
    temp = None
    work_dir = args.work_dir
    if work_dir is None:
        temp = tempfile.TemporaryDirectory(prefix="condorlite-real-pools-")
        work_dir = Path(temp.name)
    work_dir.mkdir(parents=True, exist_ok=True)
    rows: list[Row] = []
    warm_up(args.command.split())
    try:
        for slots, jobs in sizes:
            for name in names:
                spec = row_spec(name, slots, jobs, args.submitters, args.autoclusters,
                                args.seed)
                row = measure(name, spec, work_dir, args.command.split(), args.repeat,
                              args.timeout, sample)
                rows.append(row)
                print(f"done {slots}x{jobs} {name}: matchmaking "
                      f"{_num(row.match_s, '.2f')} s, wall {_num(row.wall_s, '.2f')} s"
                      + (f" (timed out after {row.timeout_s} s)"
                         if row.exit_code is None else ""), file=sys.stderr, flush=True)
                for example in row.pairs.examples if row.pairs else ():
                    print(f"disagreement ({name}): {example}", file=sys.stderr)
    finally:
        if temp is not None:
            temp.cleanup()
    if args.json:
        print(json.dumps([row_json(r) for r in rows], indent=2))
    else:
        print(markdown(rows))
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

