"""ClassAd-lite against HTCondor's own C++ library (classad2), in one run, same inputs.

Measures, for a real job ad (HTCondor's python-bindings test job) and a real slot ad (a
static slot from HTCondor's StatusAds test data):

1. evaluating the job's Requirements with MY = job, TARGET = slot;
2. a full symmetric match (both Requirements);
3. parsing the slot ad from its old-format text.

Each figure is a rate (operations per second) for condorlite and for classad2 called
from Python, and the ratio condorlite / classad2 (> 1: faster). The two are timed in
alternating rounds (``--repeat`` of each, ``--number`` calls a round) and each keeps its
best round, so that load from other processes, which comes and goes, hits both alike.
Times are the thread's CPU time (``--wall`` for wall-clock time). Only the ratios of one
run are comparable between machines.

Every operation is timed after a warm-up (``--warm`` calls), as in a negotiation cycle,
where each expression is evaluated against many ads: condorlite compiles a hot
expression into one generated function after 200 evaluations (``compiler.WARM_UP``).

    python benchmarks/classad_vs_oracle.py [--repeat 7] [--number 2000] [--warm 300]
"""

from __future__ import annotations

import argparse
import os
import platform
import time
import timeit
from pathlib import Path

import classad2
import htcondor2  # noqa: F401  (daemon semantics for classad2)

from condorlite.core.classad import parse_ads, symmetric_match
from condorlite.core.classad.evaluator import evaluate_attribute

DATA = Path(__file__).resolve().parent.parent / "tests" / "data" / "classad-ads"
JOB_FILE = DATA / "htc-pybind-test.old.ad"
SLOT_FILES = (DATA / "htc-statusads-small1slot.ads", DATA / "synthetic-modern-pslot-dslot-job.ads")


def best_rates(ours, ref, number: int, repeat: int, timer) -> tuple[float, float]:
    """Calls per second of the fastest of ``repeat`` rounds of ``number`` calls, for
    ``ours`` and ``ref`` timed in alternating rounds."""
    ours_timer = timeit.Timer(ours, timer=timer)
    ref_timer = timeit.Timer(ref, timer=timer)
    ours_best = ref_best = float("inf")
    for _ in range(repeat):
        ours_best = min(ours_best, ours_timer.timeit(number))
        ref_best = min(ref_best, ref_timer.timeit(number))
    return number / ours_best, number / ref_best


def cases(slot_file: Path):
    job_text = JOB_FILE.read_text()
    slot_text = slot_file.read_text().split("\n\n")[0] + "\n"
    ours_job = next(parse_ads(job_text, format="old"))
    ours_slot = next(parse_ads(slot_text, format="old"))
    ref_job = classad2.parseOne(job_text, classad2.ParserType.Old)
    ref_slot = classad2.parseOne(slot_text, classad2.ParserType.Old)
    ref_req = ref_job.lookup("Requirements")
    assert symmetric_match(ours_job, ours_slot) == ref_job.symmetricMatch(ref_slot)
    return [
        (
            "job Requirements vs slot",
            lambda: evaluate_attribute(ours_job, "Requirements", ours_slot),
            lambda: ref_req.eval(ref_job, ref_slot),
        ),
        (
            "symmetric match",
            lambda: symmetric_match(ours_job, ours_slot),
            lambda: ref_job.symmetricMatch(ref_slot),
        ),
        (
            "parse slot ad (old form)",
            lambda: next(parse_ads(slot_text, format="old")),
            lambda: classad2.parseOne(slot_text, classad2.ParserType.Old),
        ),
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--number", type=int, default=2000)
    parser.add_argument("--warm", type=int, default=300)
    parser.add_argument("--wall", action="store_true", help="time wall-clock, not CPU")
    args = parser.parse_args()
    timer = time.perf_counter if args.wall else time.thread_time
    print(
        f"python {platform.python_version()} on {platform.machine()} ({os.cpu_count()} cpus); "
        f"classad2 {classad2.version()}; best of {args.repeat} x {args.number} calls, "
        f"{'wall' if args.wall else 'CPU'} time"
    )
    print(f"{'slot':<38} {'operation':<26} {'condorlite/s':>13} {'classad2/s':>12} {'ratio':>7}")
    for slot_file in SLOT_FILES:
        for name, ours, ref in cases(slot_file):
            number = max(1, args.number // 10) if name.startswith("parse") else args.number
            for _ in range(args.warm):
                ours()
                ref()
            ours_rate, ref_rate = best_rates(ours, ref, number, args.repeat, timer)
            print(
                f"{slot_file.name:<38} {name:<26} {ours_rate:>13,.0f} {ref_rate:>12,.0f} "
                f"{ours_rate / ref_rate:>6.2f}x"
            )


if __name__ == "__main__":
    main()
