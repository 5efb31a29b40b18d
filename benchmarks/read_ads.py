#!/usr/bin/env python3
"""Time and memory of reading generated pools: condorlite against ``classad2.parseAds``.

For each pool format (old and JSON, from ``genpool``; kept in ``--work-dir`` and reused
when the spec is unchanged) and each file (slots, jobs), every library reads the whole
file into a list of ads in a fresh child process, which reports:

* ``seconds``: wall time of the read loop (opening the file to the last ad), best of
  ``--repeat`` children;
* ``kept B/ad``: resident memory after the read minus before it (the ads held, plus
  whatever the allocator kept), divided by the number of ads;
* ``peak B/ad``: the peak resident memory during the read (``VmHWM``) minus the
  resident memory before it, per ad: what reading costs on top of what it keeps.

Both figures come from ``/proc/self/status`` in the child, after its imports, so the
interpreter and the libraries themselves are not counted. condorlite reads with
``parse_ads(open(path), "auto")`` (a file object) with the cyclic garbage collector
paused, as ``store/adfiles.read_ads`` does.
classad2 (after ``import htcondor2``, for daemon semantics) reads the old form with
``parseAds(open(path), ParserType.Old)``; its Python wrapper joins the whole file into
one string and hands the rest of it to C++ for every ad, so its time grows with the
square of the file size. classad2's JSON parser refuses the ``condor_status -json``
array, so the JSON file is read whole, split into its objects at the ``\\n,\\n``
separators, and each object parsed with ``parseOne(chunk, ParserType.JSON)``.
The ratio column is classad2's time over condorlite's (above 1: condorlite is faster).

Usage::

    python benchmarks/read_ads.py --slots 10000 --jobs 100000 --work-dir /tmp/bench

Prints a Markdown table. Exit status 1 when a child fails.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import genpool  # a sibling script, not an installed package
from negotiate import ensure_pool

LIBRARIES = ("condorlite", "classad2")


def _status_kib(field: str) -> int:
    """A ``/proc/self/status`` memory field (``VmRSS``, ``VmHWM``) in KiB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def child(library: str, fmt: str, path: str) -> dict[str, float]:
    """Read ``path`` whole with ``library``; the figures described in the docstring."""
    if library == "condorlite":
        from condorlite.core.classad import parse_ads
        from condorlite.store.adfiles import collector_paused

        def read(handle):
            with collector_paused():  # as store/adfiles.read_ads reads
                return list(parse_ads(handle, "auto", filename=path))
    else:
        import importlib

        import htcondor2  # noqa: F401  (first, for daemon semantics)

        classad2 = importlib.import_module("classad2")

        if fmt == "old":
            def read(handle):
                return list(classad2.parseAds(handle, classad2.ParserType.Old))
        else:
            def read(handle):
                # parseAds(JSON) refuses the condor_status -json array: split it into
                # its objects (as tests/classad/conftest.py does) and parse each.
                body = handle.read().strip()[1:-1]
                return [classad2.parseOne(chunk, classad2.ParserType.JSON)
                        for chunk in body.split("\n,\n") if chunk.strip()]
    before = _status_kib("VmRSS")
    start = time.perf_counter()
    with open(path, encoding="utf-8", newline="") as handle:
        ads = read(handle)
    seconds = time.perf_counter() - start
    after, peak = _status_kib("VmRSS"), _status_kib("VmHWM")
    count = len(ads)
    return {
        "ads": count,
        "seconds": seconds,
        "kept_b_per_ad": (after - before) * 1024 / max(count, 1),
        "peak_b_per_ad": (peak - before) * 1024 / max(count, 1),
    }


def run_child(library: str, fmt: str, path: Path) -> dict[str, float]:
    proc = subprocess.run(
        [sys.executable, __file__, "--child", library, fmt, str(path)],
        capture_output=True, text=True, check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{library} on {path} failed:\n{proc.stderr}")
    return json.loads(proc.stdout)


def measure(library: str, fmt: str, path: Path, repeat: int) -> dict[str, float]:
    """Best time of ``repeat`` children; memory figures from the fastest child (they
    hardly vary)."""
    runs = [run_child(library, fmt, path) for _ in range(repeat)]
    return min(runs, key=lambda r: r["seconds"])


def row(fmt: str, label: str, ours: dict | None, theirs: dict | None) -> str:
    """One Markdown table row; a library not measured shows ``-``."""
    def cell(fig: dict | None, key: str, spec: str) -> str:
        return "-" if fig is None else format(fig[key], spec)

    ratio = "-" if ours is None or theirs is None else (
        f"{theirs['seconds'] / ours['seconds']:.2f}x")
    count = (ours or theirs or {}).get("ads", "-")
    return (f"| {fmt} | {label} | {count} | {cell(ours, 'seconds', '.2f')} "
            f"| {cell(theirs, 'seconds', '.2f')} | {ratio} "
            f"| {cell(ours, 'kept_b_per_ad', ',.0f')} | {cell(theirs, 'kept_b_per_ad', ',.0f')} "
            f"| {cell(ours, 'peak_b_per_ad', ',.0f')} | {cell(theirs, 'peak_b_per_ad', ',.0f')} |")


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["--child"]:
        print(json.dumps(child(*args[1:4])))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--slots", type=int, default=10_000)
    parser.add_argument("--jobs", type=int, default=100_000)
    parser.add_argument("--submitters", type=int, default=100)
    parser.add_argument("--autoclusters", type=int, default=500)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--format", choices=("old", "json"), action="append",
                        help="pool format (repeatable; default both)")
    parser.add_argument("--library", choices=LIBRARIES, action="append",
                        help="measure only this library (repeatable; default both)")
    parser.add_argument("--repeat", type=int, default=1, help="children per figure (best time)")
    parser.add_argument("--work-dir", type=Path, required=True,
                        help="keep generated pools here (reused when the spec is unchanged)")
    opts = parser.parse_args(args)
    spec = genpool.PoolSpec(slots=opts.slots, jobs=opts.jobs, submitters=opts.submitters,
                            autoclusters=opts.autoclusters, seed=opts.seed)
    print("| format | file | ads | condorlite s | classad2 s | classad2 / condorlite "
          "| condorlite kept B/ad | classad2 kept B/ad | condorlite peak B/ad "
          "| classad2 peak B/ad |")
    print("|" + "---|" * 10)
    failed = False
    for fmt in opts.format or ["old", "json"]:
        files, _ = ensure_pool(spec, fmt, opts.work_dir)
        for label, path in (("slots", files.slots_path), ("jobs", files.jobs_path)):
            figures: dict[str, dict[str, float] | None] = {}
            for lib in LIBRARIES:
                figures[lib] = None
                if opts.library and lib not in opts.library:
                    continue
                try:
                    figures[lib] = measure(lib, fmt, path, opts.repeat)
                except RuntimeError as exc:
                    print(exc, file=sys.stderr)
                    failed = True
            print(row(fmt, label, figures["condorlite"], figures["classad2"]), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
