#!/usr/bin/env python3
"""Time and memory of reading generated pools: condorlite against ``classad2.parseAds``.

For each pool format (old and JSON, from ``genpool``; kept in ``--work-dir`` and reused
when the spec is unchanged; or the two files of an existing pool directory, ``--pool``,
whose ``slots.json`` and ``jobs.json`` for ``--format json`` are written from its
``.ads`` files as ``condor_status -json`` prints them, once)
and each file (slots, jobs), every library reads the whole file into a list of ads in
a fresh child process, which reports:

* ``seconds``: wall time of the read loop (opening the file to the last ad), best of
  ``--repeat`` children;
* ``kept B/ad``: resident memory after the read minus before it (the ads held, plus
  whatever the allocator kept), divided by the number of ads;
* ``peak B/ad``: the peak resident memory during the read (``VmHWM``) minus the
  resident memory before it, per ad: what reading costs on top of what it keeps.

Both figures come from ``/proc/self/status`` in the child, after its imports, so the
interpreter and the libraries themselves are not counted. condorlite reads as its
commands do, with ``store/adfiles.read_ads([path])`` (the old form through the
compiled line scanner when it is built, ``classad/oldscan.py``, and JSON through its
JSON mode, ``classad/jsonscan.py``); ``condorlite-python``
is the same with ``CONDORLITE_PURE_PYTHON=1`` (the Python reader alone).
classad2 (after ``import htcondor2``, for daemon semantics) reads the old form with
``parseAds(open(path), ParserType.Old)``; its Python wrapper joins the whole file into
one string and hands the rest of it to C++ for every ad, so its time grows with the
square of the file size. classad2's JSON parser refuses the ``condor_status -json``
array, so the JSON file is read whole, split into its objects at the ``\\n,\\n``
separators, and each object parsed with ``parseOne(chunk, ParserType.JSON)``.
The ratio column is classad2's time over condorlite's (above 1: condorlite is faster).

Usage::

    python benchmarks/read_ads.py --slots 10000 --jobs 100000 --work-dir /tmp/bench
    python benchmarks/read_ads.py --pool /tmp/real/static-mix-s10000-j100000-a300-seed0 \
        --library condorlite --library condorlite-python --repeat 3 [--format json]

Prints a Markdown table. Exit status 1 when a child fails.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from condorlite.core.classad.jsonads import write_json_ads
from condorlite.store.adfiles import read_ads

sys.path.insert(0, str(Path(__file__).resolve().parent))
import genpool  # a sibling script, not an installed package
from negotiate import ensure_pool

LIBRARIES = ("condorlite", "condorlite-python", "classad2")


def _status_kib(field: str) -> int:
    """A ``/proc/self/status`` memory field (``VmRSS``, ``VmHWM``) in KiB."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def child(library: str, fmt: str, path: str) -> dict[str, float]:
    """Read ``path`` whole with ``library``; the figures described in the docstring."""
    if library.startswith("condorlite"):
        def read(handle):
            return read_ads([path])  # opens the file itself, as the commands do
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
    env = dict(os.environ)
    env.pop("CONDORLITE_PURE_PYTHON", None)
    if library == "condorlite-python":
        env["CONDORLITE_PURE_PYTHON"] = "1"
    proc = subprocess.run(
        [sys.executable, __file__, "--child", library, fmt, str(path)],
        capture_output=True, text=True, check=False, env=env,
    )
    if proc.returncode != 0:
        raise RuntimeError(f"{library} on {path} failed:\n{proc.stderr}")
    return json.loads(proc.stdout)


def measure(library: str, fmt: str, path: Path, repeat: int) -> dict[str, float]:
    """Best time of ``repeat`` children; memory figures from the fastest child (they
    hardly vary)."""
    runs = [run_child(library, fmt, path) for _ in range(repeat)]
    return min(runs, key=lambda r: r["seconds"])


HEADER = ("| format | file | ads | condorlite s | condorlite-python s | classad2 s "
          "| classad2 / condorlite | condorlite kept B/ad | condorlite-python kept B/ad "
          "| classad2 kept B/ad | condorlite peak B/ad | condorlite-python peak B/ad "
          "| classad2 peak B/ad |")


def row(fmt: str, label: str, figures: dict[str, dict | None]) -> str:
    """One Markdown table row (``HEADER``); a library not measured shows ``-``."""
    def cells(key: str, spec: str) -> list[str]:
        return ["-" if figures.get(lib) is None else format(figures[lib][key], spec)
                for lib in LIBRARIES]

    ours, theirs = figures.get("condorlite"), figures.get("classad2")
    ratio = "-" if ours is None or theirs is None else (
        f"{theirs['seconds'] / ours['seconds']:.2f}x")
    count = next((fig["ads"] for fig in figures.values() if fig is not None), "-")
    return " | ".join(["|", fmt, label, str(count), *cells("seconds", ".2f"), ratio,
                       *cells("kept_b_per_ad", ",.0f"), *cells("peak_b_per_ad", ",.0f")]
                      ).removeprefix("| ") + " |"


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
    parser.add_argument("--work-dir", type=Path,
                        help="keep generated pools here (reused when the spec is unchanged)")
    parser.add_argument("--pool", type=Path,
                        help="read this pool directory's slots.ads and jobs.ads instead")
    opts = parser.parse_args(args)
    if (opts.pool is None) == (opts.work_dir is None):
        parser.error("give --work-dir (a generated pool) or --pool (an existing one)")
    spec = genpool.PoolSpec(slots=opts.slots, jobs=opts.jobs, submitters=opts.submitters,
                            autoclusters=opts.autoclusters, seed=opts.seed)
    print(HEADER)
    print("|" + "---|" * HEADER.count(" | ") + "---|")
    failed = False
    for fmt in opts.format or (["old"] if opts.pool else ["old", "json"]):
        if opts.pool:
            paths = (opts.pool / "slots.ads", opts.pool / "jobs.ads")
            if fmt == "json":
                paths = tuple(json_twin(path) for path in paths)
        else:
            files, _ = ensure_pool(spec, fmt, opts.work_dir)
            paths = (files.slots_path, files.jobs_path)
        for label, path in zip(("slots", "jobs"), paths, strict=True):
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
            print(row(fmt, label, figures), flush=True)
    return 1 if failed else 0


def json_twin(path: Path) -> Path:
    """``path``'s ads as ``condor_status -json`` prints them, in the same directory
    (``slots.ads`` -> ``slots.json``), written once."""
    twin = path.with_suffix(".json")
    if not twin.exists():
        ads = [loaded.ad for loaded in read_ads([path])]
        twin.write_text(write_json_ads(ads), encoding="utf-8")
    return twin


if __name__ == "__main__":
    sys.exit(main())
