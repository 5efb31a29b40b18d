#!/usr/bin/env python3
"""Count what ``HeldWalks._pairs_of`` runs per held pair, and how much of it repeats.

Runs ``cycle_cpu.py`` on a pool with ``PairProgram.run`` wrapped while
``HeldWalks._pairs_of`` is on the stack: the programs run (never, box, full), those
that match, and for each rank a matching run evaluates (the job's ``Rank``, the
slot's ``Rank``, the dependent policy ranks) the evaluations, the distinct
(residual, values at the vector positions it read) keys, the distinct (residual,
whole vector) keys, and the sets of positions each residual read. A counting tool
only (it slows the cycle several times)::

    cd /tmp && env PYTHONPATH=/tmp/<tree> python /tmp/<tree>/benchmarks/held_pair_runs.py \\
        /tmp/real/static-mix-s10000-j100000-a300-seed0
"""

from __future__ import annotations

import collections
import contextlib
import runpy
import sys
import time
from pathlib import Path

from condorlite.core.matching import carving, held_walks
from condorlite.core.matching.pair_programs import ReadPositions

#: whether ``_pairs_of`` is on the stack
_ACTIVE = [False]
COUNTS: collections.Counter = collections.Counter()
#: rank kind -> (residual id, ((position, value) read...)) / (residual id, vector)
KEYS: dict[str, set] = collections.defaultdict(set)
WHOLE: dict[str, set] = collections.defaultdict(set)
#: rank kind -> residual id -> the sets of positions it read
READ_SETS: dict[str, dict[int, set]] = collections.defaultdict(dict)
PROGRAM_VALS: set = set()
#: rank kind -> (residual, vector, positions read) of every evaluation
SAMPLES: dict[str, list] = collections.defaultdict(list)

_run = carving.PairProgram.run
_pairs_of = held_walks.HeldWalks._pairs_of


def _record(kind: str, fn: object, full: tuple) -> None:
    COUNTS[kind] += 1
    reads = ReadPositions(full)
    fn(reads)  # type: ignore[operator]
    seen = tuple(sorted(reads.seen))
    KEYS[kind].add((id(fn), tuple((i, full[i]) for i in seen)))
    WHOLE[kind].add((id(fn), full))
    READ_SETS[kind].setdefault(id(fn), set()).add(seen)
    SAMPLES[kind].append((fn, full, seen))


def run(self: carving.PairProgram, vals: tuple, as_rank: object) -> tuple:
    out = _run(self, vals, as_rank)  # type: ignore[arg-type]
    if not _ACTIVE[0]:
        return out
    COUNTS["runs"] += 1
    COUNTS["never" if self.never else "box" if self.box else "full"] += 1
    PROGRAM_VALS.add((id(self), tuple(vals)))
    if not out[0]:
        return out
    COUNTS["match"] += 1
    full = (*vals, *self.params) if self.params else tuple(vals)
    if type(self.job_rank) is not float:
        _record("job rank", self.job_rank, full)
    if type(self.slot_rank) is not float:
        _record("slot rank", self.slot_rank, full)
    for _, fn in self.dependent:
        if type(fn) is not float:
            _record("dependent", fn, full)
    return out


def pairs_of(self: held_walks.HeldWalks, *args: object) -> None:
    _ACTIVE[0] = True
    try:
        _pairs_of(self, *args)  # type: ignore[arg-type]
    finally:
        _ACTIVE[0] = False


def timed(kind: str, samples: list) -> None:
    """Time the evaluations again, plain and through a memo by (residual, values and
    types at the positions read): its best case, a miss evaluated plainly (an exact
    memo would track the reads of a miss too)."""
    start = time.perf_counter()
    for fn, full, _ in samples:
        fn(full)
    plain = time.perf_counter() - start
    memo: dict = {}
    hits = 0
    start = time.perf_counter()
    for fn, full, seen in samples:
        values = tuple([full[i] for i in seen])
        key = (id(fn), values, tuple(map(type, values)))
        if key in memo:
            hits += 1
        else:
            memo[key] = fn(full)
    kept = time.perf_counter() - start
    print(f"  {kind}: {len(samples)} evaluations {plain * 1e3:.1f} ms "
          f"({plain / max(len(samples), 1) * 1e6:.2f} us each); memo {kept * 1e3:.1f} ms, "
          f"{hits} hits")


def main() -> int:
    carving.PairProgram.run = run  # type: ignore[method-assign]
    held_walks.HeldWalks._pairs_of = pairs_of  # type: ignore[method-assign]
    sys.argv = ["cycle_cpu.py", sys.argv[1]]
    with contextlib.suppress(SystemExit):  # (``cycle_cpu``'s own exit: the counts follow)
        runpy.run_path(str(Path(__file__).with_name("cycle_cpu.py")), run_name="__main__")
    print(dict(COUNTS))
    print("distinct (program, vector)", len(PROGRAM_VALS))
    for kind in KEYS:
        print(f"{kind}: distinct by positions read {len(KEYS[kind])}, by whole vector "
              f"{len(WHOLE[kind])}, residuals {len(READ_SETS[kind])}, position sets "
              f"{sorted({s for sets in READ_SETS[kind].values() for s in sets})}")
        timed(kind, SAMPLES[kind])
    return 0


if __name__ == "__main__":
    sys.exit(main())
