#!/usr/bin/env python3
"""Time ``condorlite negotiate --dry-run --json`` on generated pools of given sizes.

For each ``--size SLOTSxJOBS`` the harness generates a pool with ``genpool`` (or reuses
one already in ``--work-dir`` made from the same spec), runs the whole command in a
child process with a fresh state directory, and reports:

* ``wall_s``: the child's wall-clock time, reading the ads included (best of
  ``--repeat`` runs);
* ``match_s``: the matchmaking time the cycle itself reports (the first numeric
  statistic whose name mentions "match" and a duration, see ``matchmaking_seconds``),
  best of the ``--repeat`` runs as the wall time is (the two may come from different
  runs: this machine's speed changes between them);
* ``rss_mib``: the child's peak resident set size (``ru_maxrss`` from ``os.wait4`` in
  a small launcher process, so only that child is counted), the largest over repeats;
* ``matches``: how many matches the cycle made (a sanity check that work was done);
* ``evaluations`` / ``naive``: the expression evaluations the cycle made and those a
  naive job x slot loop would have made (the cycle's ``evaluations`` and
  ``naive_evaluations`` statistics).

In the same run, for each size and format, ``pairs.py`` measures the symmetric-match
throughput of condorlite against HTCondor's ``classad2`` on a seeded sample of the
pool's own ads (``--sample-jobs`` jobs of distinct autoclusters x ``--sample-slots``
slots spread over machine types and slot kinds), both libraries timed in alternating
rounds of thread CPU time; every pair's answer must agree between the two libraries.

The pool spec (submitters, autoclusters, seed) is the same for every size, so rows
differ only in size and format (``--format`` is repeatable). Usage::

    python benchmarks/negotiate.py --size 1000x10000 --size 10000x100000 \\
        --submitters 100 --autoclusters 500 --format old --format json --work-dir /tmp/bench

``--group-tree 2,4,5`` runs a grouped pool instead: 50 accounting groups in a 3-level
tree (``genpool.group_tree``), submitter i in group i mod 50, dynamic quotas and
surplus on (``genpool.group_config``), given to the command with ``--config``.

Prints two Markdown tables (or JSON with ``--json``). Exit status 1 when a run fails or
the two libraries disagree on a pair.
"""

from __future__ import annotations

import argparse
import itertools
import json
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import genpool  # a sibling script, not an installed package
import pairs

from condorlite.store.db import open_state

#: The --now every run uses: the generator's fixed clock, so runs are comparable.
NOW = genpool.BASE_TIME


@dataclass
class Run:
    slots: int
    jobs: int
    submitters: int
    autoclusters: int
    format: str
    gen_s: float
    wall_s: float
    match_s: float | None
    rss_mib: float
    matches: int | None
    exit_code: int
    timings: dict[str, float]
    groups: int = 0
    evaluations: int | None = None  # the cycle's expression evaluations
    naive: int | None = None  # what a naive job x slot loop would have made
    pairs: pairs.PairRow | None = None  # the symmetric-match row of the same pool

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and (self.pairs is None or self.pairs.ok)


def parse_size(text: str) -> tuple[int, int]:
    """``"10000x100000"`` -> (10000, 100000); also accepts k/M suffixes (``10kx100k``)."""
    def number(part: str) -> int:
        part = part.strip().lower()
        scale = {"k": 1_000, "m": 1_000_000}.get(part[-1:], 1)
        digits = part[:-1] if scale != 1 else part
        if not digits.isdigit():
            raise argparse.ArgumentTypeError(f"bad size {text!r} (want SLOTSxJOBS)")
        return int(digits) * scale
    parts = text.lower().split("x")
    if len(parts) != 2:
        raise argparse.ArgumentTypeError(f"bad size {text!r} (want SLOTSxJOBS)")
    return number(parts[0]), number(parts[1])


def cycle_timings(cycle: dict[str, Any]) -> dict[str, float]:
    """The numeric duration statistics of a cycle (keys naming a duration or seconds)."""
    out: dict[str, float] = {}
    for key, value in cycle.items():
        if isinstance(value, bool) or not isinstance(value, int | float):
            continue
        low = key.lower()
        if "duration" in low or low.endswith(("_seconds", "_s", "_time_s")):
            out[key] = float(value)
    return out


def matchmaking_seconds(timings: dict[str, float]) -> float | None:
    """The matchmaking phase: a duration whose name mentions "match" (HTCondor calls it
    ``LastNegotiationCycleMatchmakingDuration``), else None."""
    for key in sorted(timings):
        if "match" in key.lower():
            return timings[key]
    return None


def ensure_pool(spec: genpool.PoolSpec, fmt: str, work_dir: Path) -> tuple[genpool.PoolFiles,
                                                                            float]:
    """Generate the pool into a directory named after the spec, unless it is there."""
    name = (f"s{spec.slots}-j{spec.jobs}-u{spec.submitters}-a{spec.autoclusters}"
            f"-seed{spec.seed}-{fmt}" + (f"-g{len(spec.groups)}" if spec.groups else ""))
    out = work_dir / name
    stamp = out / "spec.json"
    wanted = json.dumps({**asdict(spec), "format": fmt}, sort_keys=True)
    ext = "ads" if fmt == "old" else "json"
    if stamp.exists() and stamp.read_text() == wanted:
        config = out / "groups.toml" if spec.groups else None
        return genpool.PoolFiles(out / f"slots.{ext}", out / f"jobs.{ext}", spec.slots,
                                 spec.jobs, config), 0.0
    start = time.perf_counter()
    files = genpool.write_pool(spec, out, fmt)
    stamp.write_text(wanted)
    return files, time.perf_counter() - start


#: Runs the command as its own child and reports that child's wall time, CPU time (user
#: + system) and peak RSS (negotiate_real.py reads the CPU time too).
#: A process's ru_maxrss starts from the memory of the process it was forked from, so
#: forking condorlite from this (bigger) harness would inflate the figure; forking it
#: from a fresh, small interpreter keeps the inherited part to a few MiB.
LAUNCHER = """
import os, sys, time
report, argv = sys.argv[1], sys.argv[2:]
start = time.perf_counter()
pid = os.fork()
if pid == 0:
    try:
        os.execvp(argv[0], argv)
    finally:
        os._exit(127)
_pid, status, usage = os.wait4(pid, 0)
wall = time.perf_counter() - start
with open(report, "w") as out:
    out.write(f"{wall} {usage.ru_utime + usage.ru_stime} {usage.ru_maxrss}")
sys.exit(os.waitstatus_to_exitcode(status))
"""


def run_once(command: list[str], files: genpool.PoolFiles) -> tuple[float, float, int, dict]:
    """(wall seconds, peak RSS MiB, exit code, parsed JSON or {}) of one child run."""
    state = Path(tempfile.mkdtemp(prefix="condorlite-bench-"))
    # --dry-run reads a state and never makes one: make a fresh one, outside the timing
    open_state(state, config_path=files.config_path)
    try:
        report = state.parent / (state.name + ".usage")
        argv = [*command, "negotiate", "--dry-run", "--json", "--slots", str(files.slots_path),
                "--jobs", str(files.jobs_path), "--state-dir", str(state), "--now", str(NOW)]
        if files.config_path is not None:
            argv += ["--config", str(files.config_path)]
        with tempfile.TemporaryFile() as out:
            proc = subprocess.run([sys.executable, "-c", LAUNCHER, str(report), *argv],
                                  stdout=out, stderr=subprocess.DEVNULL, check=False)
            out.seek(0)
            try:
                doc = json.loads(out.read().decode("utf-8"))
            except (ValueError, UnicodeDecodeError):
                doc = {}
        wall, _cpu, maxrss_kib = (float(x) for x in report.read_text().split())
        report.unlink()
        return wall, maxrss_kib / 1024.0, proc.returncode, doc
    finally:
        shutil.rmtree(state, ignore_errors=True)


def cycle_count(cycle: dict[str, Any], key: str) -> int | None:
    """An integer statistic of the cycle, or None when it is missing or not an integer."""
    value = cycle.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def measure(spec: genpool.PoolSpec, fmt: str, work_dir: Path, command: list[str],
            repeat: int, sample: pairs.Sample | None = None) -> Run:
    """Run the command on the pool ``repeat`` times; then, unless ``sample`` is None,
    measure the symmetric-match throughput on the same pool's ads (``pairs.py``)."""
    files, gen_s = ensure_pool(spec, fmt, work_dir)
    best_wall, peak_rss, code, doc = float("inf"), 0.0, 0, {}
    best_match: float | None = None
    for _ in range(repeat):
        wall, rss, code, doc = run_once(command, files)
        best_wall, peak_rss = min(best_wall, wall), max(peak_rss, rss)
        if code != 0:
            break
        match = matchmaking_seconds(cycle_timings((doc.get("data") or {}).get("cycle") or {}))
        if match is not None and (best_match is None or match < best_match):
            best_match = match
    data = doc.get("data") or {}
    cycle = data.get("cycle") or {}
    timings = cycle_timings(cycle)
    matches = data.get("matches")
    row = None
    if sample is not None:
        row = pairs.pool_pairs(files.jobs_path, files.slots_path, fmt, sample, spec.seed)
    return Run(spec.slots, spec.jobs, spec.submitters, spec.autoclusters, fmt, round(gen_s, 2),
               round(best_wall, 3), best_match, round(peak_rss, 1),
               len(matches) if isinstance(matches, list) else None, code, timings,
               len(spec.groups), cycle_count(cycle, "evaluations"),
               cycle_count(cycle, "naive_evaluations"), row)


def _count(value: int | None) -> str:
    return "n/a" if value is None else f"{value:,}"


def markdown(runs: list[Run]) -> str:
    """The cycle table, then (when measured) the symmetric-match table."""
    grouped = any(r.groups for r in runs)
    head = ("| slots | jobs | submitters | autoclusters | format | wall s | matchmaking s "
            "| peak RSS MiB | matches | evaluations | naive | exit |"
            + (" groups |" if grouped else ""))
    lines = [head, "|" + "---|" * (13 if grouped else 12)]
    for r in runs:
        match = "n/a" if r.match_s is None else f"{r.match_s:.3f}"
        lines.append(f"| {r.slots} | {r.jobs} | {r.submitters} | {r.autoclusters} | {r.format} "
                     f"| {r.wall_s:.2f} | {match} | {r.rss_mib:.0f} | "
                     f"{'n/a' if r.matches is None else r.matches} | {_count(r.evaluations)} "
                     f"| {_count(r.naive)} | {r.exit_code} |"
                     + (f" {r.groups} |" if grouped else ""))
    measured = [r for r in runs if r.pairs is not None]
    if measured:
        lines += ["", pairs_markdown(measured)]
    return "\n".join(lines)


def pairs_markdown(runs: list[Run]) -> str:
    """Symmetric-match rows: pairs per second of thread CPU time, best round each."""
    lines = ["| slots | jobs | format | pairs (jobs x slots) | slot kinds | matching "
             "| condorlite pairs/s | classad2 pairs/s | ratio | agree |", "|" + "---|" * 10]
    for r in runs:
        p = r.pairs
        assert p is not None
        size = f"| {r.slots} | {r.jobs} | {r.format} | {p.pairs} ({p.jobs} x {p.slots}) "
        if p.ratio is None:
            lines.append(size + f"| {p.kinds} | n/a | n/a | n/a | n/a | {p.note} |")
            continue
        agree = "yes" if p.ok else f"NO: {p.disagreements} pairs differ"
        lines.append(size + f"| {p.kinds} | {p.matching} | {p.condorlite_per_s:,.0f} "
                     f"| {p.classad2_per_s:,.0f} | {p.ratio:.2f}x | {agree} |")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=parse_size, action="append", required=True,
                        help="SLOTSxJOBS, e.g. 10000x100000 or 10kx100k (repeatable)")
    parser.add_argument("--submitters", type=int, default=100)
    parser.add_argument("--autoclusters", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--format", choices=("old", "json"), action="append",
                        help="ad file layout (repeatable; default: old)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per size (best wall time)")
    parser.add_argument("--work-dir", type=Path, default=None,
                        help="keep generated pools here (default: a temporary directory)")
    parser.add_argument("--command", default=f"{sys.executable} -m condorlite",
                        help="how to run condorlite (default: this Python -m condorlite)")
    parser.add_argument("--group-tree", default="",
                        help="fan-out per level of a group tree, e.g. 2,4,5 (50 groups)")
    defaults = pairs.Sample()
    parser.add_argument("--sample-jobs", type=int, default=defaults.jobs,
                        help="symmetric match: jobs of distinct autoclusters to sample")
    parser.add_argument("--sample-slots", type=int, default=defaults.slots,
                        help="symmetric match: slots to sample, spread over slot kinds")
    parser.add_argument("--pair-repeat", type=int, default=defaults.repeat,
                        help="symmetric match: timed rounds per library (best kept)")
    parser.add_argument("--no-pairs", action="store_true",
                        help="skip the symmetric-match measurement")
    parser.add_argument("--json", action="store_true", help="print the runs as JSON")
    return parser


def run_json(run: Run) -> dict[str, Any]:
    doc = asdict(run)
    doc["ok"] = run.ok
    if run.pairs is not None:
        doc["pairs"].update(pairs=run.pairs.pairs, ok=run.pairs.ok)
    return doc


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if min(args.repeat, args.sample_jobs, args.sample_slots, args.pair_repeat) < 1:
        parser.error("--repeat, --sample-jobs, --sample-slots and --pair-repeat must be >= 1")
    try:
        groups = genpool.groups_from_args("", args.group_tree)
    except ValueError as exc:
        parser.error(str(exc))
    formats = list(dict.fromkeys(args.format or ["old"]))  # first-mention order, no repeats
    sample = None if args.no_pairs else pairs.Sample(args.sample_jobs, args.sample_slots,
                                                      args.pair_repeat)
    temp = None
    work_dir = args.work_dir
    if work_dir is None:
        temp = tempfile.TemporaryDirectory(prefix="condorlite-pools-")
        work_dir = Path(temp.name)
    try:
        runs = []
        for (slots, jobs), fmt in itertools.product(args.size, formats):
            spec = genpool.PoolSpec(slots=slots, jobs=jobs, submitters=args.submitters,
                                    autoclusters=args.autoclusters, seed=args.seed,
                                    groups=groups)
            run = measure(spec, fmt, work_dir, args.command.split(), args.repeat, sample)
            runs.append(run)
            if not args.json:
                print(f"done {slots}x{jobs} {fmt}: {run.wall_s:.2f} s", file=sys.stderr)
            for example in run.pairs.examples if run.pairs else ():
                print(f"disagreement ({slots}x{jobs} {fmt}): {example}", file=sys.stderr)
    finally:
        if temp is not None:
            temp.cleanup()
    if args.json:
        print(json.dumps([run_json(r) for r in runs], indent=2))
    else:
        print(markdown(runs))
    return 0 if all(r.ok for r in runs) else 1


if __name__ == "__main__":
    sys.exit(main())
