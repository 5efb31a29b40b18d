"""A differential campaign: condorlite's ClassAd engine against HTCondor's classad2.

Generates ``--cases`` cases (``tests/classad/fuzz_cases.py``: per-scenario random MY
and TARGET ads; unparenthesised expressions over every built-in with right and wrong
arguments, bytes that are not UTF-8, huge literals, long chains; symmetric matches;
the old, new and JSON writers and readers), runs them across ``--workers`` processes
(each with its own classad2 child, restarted when classad2 crashes), groups the
disagreements into classes by the construct they come from, and prints, per class,
the count and the smallest case, then the totals and the rate (cases per second of
wall-clock time).

    python benchmarks/classad_campaign.py --cases 200000 --workers 2 [--seed 0]

The scenario seeds are ``seed, seed + 1, ...``; the same arguments always generate the
same cases. Exit status 1 when a class other than the deliberate ones
is found.
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.setrecursionlimit(20000)

from tests.classad.fuzz_cases import EXPRS_PER_SCENARIO, scenario  # noqa: E402
from tests.classad.fuzz_classify import classify  # noqa: E402
from tests.classad.fuzz_compare import run_cases  # noqa: E402

CASES_PER_SCENARIO = EXPRS_PER_SCENARIO + 3
SCENARIOS_PER_BATCH = 40
TOLERATED = ("deliberate",)


def run_batch(first_seed: int) -> tuple[dict[str, int], list[tuple[str, dict, object, object]]]:
    """The counters and the classified findings of one batch of scenarios."""
    cases = [c for s in range(first_seed, first_seed + SCENARIOS_PER_BATCH) for c in scenario(s)]
    findings, counts = run_cases(cases)
    classified = []
    for finding in findings:
        name, small = classify(finding)
        classified.append((name, small.case, small.theirs, small.ours))
    return counts, classified


def report(classes: dict[str, list], totals: collections.Counter, seconds: float) -> None:
    for name, found in sorted(classes.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        case, theirs, ours = found[0]
        shown = case.get("text") or case.get("my")
        print(f"\n== {name}: {len(found)} finding(s)")
        print(f"   case:       {shown[:400]}")
        print(f"   classad2:   {str(theirs)[:400]}")
        print(f"   condorlite: {str(ours)[:400]}")
    print(
        f"\n{totals['cases']:,} cases ({totals['scenarios']:,} scenarios) in {seconds:,.0f} s: "
        f"{totals['cases'] / seconds:,.0f} cases/s; {sum(len(v) for v in classes.values())} "
        f"findings in {len(classes)} classes; classad2 crashed {totals['oracle_crash']} times; "
        f"{totals['binding']} answers classad2's binding could not decode; "
        f"{totals['both_refused']} texts both refused"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    scenarios = -(-args.cases // CASES_PER_SCENARIO)
    seeds = range(args.seed, args.seed + scenarios, SCENARIOS_PER_BATCH)
    classes: dict[str, list] = collections.defaultdict(list)
    totals: collections.Counter = collections.Counter(scenarios=len(seeds) * SCENARIOS_PER_BATCH)
    start = time.monotonic()
    with multiprocessing.Pool(args.workers) as pool:
        for done, (counts, found) in enumerate(pool.imap_unordered(run_batch, seeds), 1):
            totals.update(counts)
            for name, case, theirs, ours in found:
                classes[name].append((case, theirs, ours))
            if done % 25 == 0:
                counts = ", ".join(f"{k}: {len(v)}" for k, v in sorted(classes.items()))
                print(f"... {totals['cases']:,} cases; {counts}", file=sys.stderr, flush=True)
    report(classes, totals, time.monotonic() - start)
    return int(any(not name.startswith(TOLERATED) for name in classes))


if __name__ == "__main__":
    sys.exit(main())
