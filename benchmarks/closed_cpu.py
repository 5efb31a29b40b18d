#!/usr/bin/env python3
"""CPU of the cycle's grouping alone (``significant.build_closed``), on a pool read once.

Reads and decodes the pool as ``cycle_cpu.py`` does (its ``pool.toml`` when there is
one), takes the idle jobs as ``negotiator.Cycle`` does, then calls ``build_closed``
``--repeat`` times with the garbage collector off and prints the least and the median
CPU seconds of one call (``time.process_time``), and the grouping's size. The first
call of a process is the one the cycle pays (cold allocator): it is printed too.

``--parts`` times, as well, each pass the sweep makes over the jobs and the slots, on
their own (each over every chunk of ``significant.CHUNK`` rows): ``tables`` (the ads'
tables), ``union`` (each chunk's ``set().union(*tables)``, the names its rows bind),
``heads`` (``queue_blocks.chunk_heads``), ``ids``, ``cuts`` (``columns.cuts`` of
the significant names some job binds) and ``slots`` (``_Distinct.reached`` of the
whole significant set in one call). The parts overlap the sweep's own work, not sum to
it; they say where its time goes.

``--instr``: one call between ``callgrind_control --instr=on`` and ``--instr=off``, for
an instruction count of the grouping alone (run the script under
``valgrind --tool=callgrind --instr-atstart=no``; ``instructions.py`` does this for
the whole cycle)::

    PYTHONPATH=/tmp/base python benchmarks/closed_cpu.py --repeat 10 --parts POOL
    PYTHONPATH=/tmp/base PYTHONHASHSEED=0 valgrind --tool=callgrind --instr-atstart=no \\
        python benchmarks/closed_cpu.py --instr POOL
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from itertools import compress, repeat
from operator import eq
from pathlib import Path

from cycle_cpu import load_pool  # a sibling script, not an installed package

from condorlite.core.matching import columns, significant
from condorlite.core.matching.autocluster import _tables
from condorlite.core.matching.queue_blocks import chunk_heads
from condorlite.core.model import IDLE
from condorlite.core.negotiation.negotiator import PolicyExprs


def seconds(call: Callable[[], object], repeat_count: int) -> list[float]:
    """CPU seconds of each of ``repeat_count`` calls."""
    out = []
    for _ in range(repeat_count):
        start = time.process_time()
        call()
        out.append(time.process_time() - start)
    return out


def parts(slots: list, idle: list, policy_exprs: tuple, repeat_count: int) -> dict[str, float]:
    """The least CPU seconds of each pass of the module doc's ``--parts``."""
    size = significant.CHUNK
    chunks = [idle[first:first + size] for first in range(0, len(idle), size)]
    tables = [_tables([job.ad for job in chunk]) for chunk in chunks]
    slot_tables = _tables([slot.ad for slot in slots])
    sweep = significant._Sweep(idle, significant._Distinct(slot_tables),
                               significant._roots(policy_exprs))
    every = set(sweep.significant)
    passes: dict[str, Callable[[], object]] = {
        "tables": lambda: [_tables([job.ad for job in chunk]) for chunk in chunks],
        "union": lambda: [set().union(*part) for part in tables],
        "heads": lambda: [chunk_heads(chunk, 0) for chunk in chunks],
        "ids": lambda: [[job.id for job in chunk] for chunk in chunks],
        "cuts": lambda: [columns.cuts(part, sweep.names) for part in tables],
        "slots": lambda: significant._Distinct(slot_tables).reached(every),
    }
    return {name: min(seconds(call, repeat_count)) for name, call in passes.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pool", type=Path)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--parts", action="store_true")
    parser.add_argument("--instr", action="store_true")
    args = parser.parse_args(argv)
    policy, inputs = load_pool(args.pool)
    jobs = inputs.jobs
    idle = list(compress(jobs, map(eq, (job.status for job in jobs), repeat(IDLE))))
    policy_exprs = PolicyExprs.from_policy(policy).all()
    gc.disable()  # as the command does while it negotiates

    def call() -> significant.Autoclusters:
        return significant.build_closed(inputs.slots, idle, policy_exprs,
                                        policy.significant_attributes)

    if args.instr:
        control = ["callgrind_control", "--instr=on", str(os.getpid())]
        subprocess.run(control, check=True, capture_output=True)
        found = call()
        control[1] = "--instr=off"
        subprocess.run(control, check=True, capture_output=True)
        print(f"classes {len(found.representative)}")
        return 0
    start = time.process_time()
    found = call()
    first = time.process_time() - start
    times = seconds(call, args.repeat)
    print(f"idle {len(idle)} slots {len(inputs.slots)} classes {len(found.representative)} "
          f"autoclusters {found.count} significant {len(found.significant)}")
    print(f"build_closed cpu least {min(times):.4f} median {statistics.median(times):.4f} "
          f"(of {args.repeat}), first {first:.4f}")
    if args.parts:
        for name, least in parts(inputs.slots, idle, policy_exprs, args.repeat).items():
            print(f"  {name:7s} {least:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
