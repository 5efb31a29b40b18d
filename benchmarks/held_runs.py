#!/usr/bin/env python3
"""Count the held walks' part-program runs of one cycle and how many are alike.

A measurement, not a benchmark of time: it runs one cycle (as ``cycle_cpu.py``)
with ``PairProgram.run`` wrapped while ``HeldWalks._pairs_of`` runs, and prints the
runs, the programs run, and the distinct (program, numbers) pairs, a program keyed
by what decides its runs (its residuals by identity: shared between classes by
``pair_programs``' caches; its params; its settled ranks and fixed requests), with
and without the job's Rank. Runs of a box of constant ranks (shared already,
``box_passes``) are counted apart. Whether sharing a run's result between class
keys of equal programs could pay is the ratio of runs to distinct pairs::

    cd /tmp && PYTHONPATH=/tmp/tree python /tmp/tree/benchmarks/held_runs.py \
        /tmp/real/static-mix-s10000-j100000-a300-seed0
"""

from __future__ import annotations

import argparse
import gc
from collections.abc import Sequence
from pathlib import Path

from cycle_cpu import NOW, load_pool, submitters

from condorlite.core.matching import held_walks
from condorlite.core.matching.carving import PairProgram
from condorlite.core.negotiation import negotiator


def _ident(value: object) -> object:
    """A settled rank as itself, a residual by identity."""
    return value if type(value) is float else id(value)


def program_key(program: PairProgram, ranks: bool) -> tuple:
    """What decides ``program``'s runs (module doc); ``ranks``: with the job's Rank."""
    key = (program.never, program.box, program.width, program.literals, program.params,
           tuple((amount, pos) for _, amount, pos in program.fixed),
           tuple((id(fn), pos, default) for _, fn, pos, default in program.requests),
           tuple(id(test) for test in program.tests), _ident(program.slot_rank),
           tuple((name, _ident(fn)) for name, fn in program.dependent))
    return (*key, _ident(program.job_rank)) if ranks else key


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pool", type=Path)
    args = parser.parse_args(argv)
    runs: list[tuple[PairProgram, tuple]] = []
    inside = [False]
    plain_run, plain_pairs = PairProgram.run, held_walks.HeldWalks._pairs_of

    def run(self: PairProgram, vals: Sequence[object], as_rank: object) -> tuple:
        if inside[0]:
            runs.append((self, tuple(vals)))
        return plain_run(self, vals, as_rank)  # type: ignore[arg-type]

    def pairs_of(self: held_walks.HeldWalks, *given: object) -> None:
        inside[0] = True
        try:
            plain_pairs(self, *given)  # type: ignore[arg-type]
        finally:
            inside[0] = False

    PairProgram.run = run  # type: ignore[method-assign]
    held_walks.HeldWalks._pairs_of = pairs_of  # type: ignore[method-assign]
    policy, inputs = load_pool(args.pool)
    subs = submitters(args.pool, inputs.slots, inputs.jobs)
    gc.disable()
    cycle = negotiator.Cycle(inputs.slots, inputs.jobs, subs, [], policy, NOW)
    cycle.run()
    cycle.result()
    programs = {id(program): program for program, _ in runs}
    boxed = [(p, v) for p, v in runs if p.box and p.result is not None]
    others = [(p, v) for p, v in runs if not (p.box and p.result is not None)]
    print(f"runs {len(runs)} programs {len(programs)} of boxes of constant ranks "
          f"{len(boxed)} others {len(others)}")
    for ranks in (True, False):
        keys = {at: program_key(p, ranks) for at, p in programs.items()}
        print(f"{'with' if ranks else 'without'} the job's Rank: program keys "
              f"{len(set(keys.values()))} distinct (key, numbers) "
              f"{len({(keys[id(p)], v) for p, v in runs})}; of the others: programs "
              f"{len({keys[id(p)] for p, _ in others})} distinct (key, numbers) "
              f"{len({(keys[id(p)], v) for p, v in others})}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
