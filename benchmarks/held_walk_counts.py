#!/usr/bin/env python3
"""Count the held walks' work per stage: what is walked, what is tried, what is new.

A measurement, not a benchmark of time: it runs one cycle (as ``cycle_cpu.py``) with
the held path's calls wrapped, and counts

* ``HeldWalks.matching`` calls, the kept walks they find (same class key and
  refusals, no group added), and the walks made; the distinct class keys among the
  walks made (a class key walked for several refusals walks its slots again, its
  known pairs read from the match table);
* per walk made, the slots its types hand to ``_walk`` (a type a verdict rules out
  passed over whole), those passed over by a refused policy key, those whose pair
  was known, those tried (``_pairs_of``) and those matched (``matched`` and
  ``allowed``);
* the verdicts' types made (``_made``) and split (``_split``), and the programs of a
  class key and static part the walks made (``MatchTable.static_program``);
* the held lists made (``_make``) and settled (``_settle``).

Run::

    cd /tmp && PYTHONPATH=/tmp/tree:/tmp/tree/benchmarks python \\
        /tmp/tree/benchmarks/held_walk_counts.py \\
        /tmp/real/partitionable-mix-s10000-j100000-a300-seed0
"""

from __future__ import annotations

import argparse
import collections
from pathlib import Path

from cycle_cpu import run_cycle
from wrap_args import Named

from condorlite.core.matching import held_lists, held_verdicts, held_walks, match_table


def install(counts: collections.Counter, keys: collections.Counter) -> None:
    """Wrap the held path's calls to add to ``counts`` (and the walks per class key
    to ``keys``)."""
    matching, walk, pairs_of = (held_walks.HeldWalks.matching, held_walks.HeldWalks._walk,
                                held_walks.HeldWalks._pairs_of)
    made, split = held_verdicts.HeldVerdicts._made, held_verdicts.HeldVerdicts._split
    make, settle = held_lists.HeldLists._make, held_lists.HeldLists._settle
    static_program = match_table.MatchTable.static_program
    matching_args, walk_args, pairs_args = Named(matching), Named(walk), Named(pairs_of)
    settle_args = Named(settle)

    def counted_matching(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        named = matching_args(self, *args, **kwargs)
        klass = named["klass"]
        counts["matching calls"] += 1
        found = self._kept.get((klass, named["refusals"]))
        if found is not None and found[0] == self._held.added:
            counts["  kept walk found"] += 1
        else:
            counts["  walks made"] += 1
            keys[klass] += 1
        return matching(self, *args, **kwargs)

    def counted_walk(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        named = walk_args(self, *args, **kwargs)
        slots, out = named["slots"], named["out"]
        counts["    slots handed to _walk"] += len(slots)
        counts["    slots with offers"] += sum(1 for slot in slots if slot.group.total)
        passed = len(out.passed)
        walk(self, *args, **kwargs)
        counts["      passed over (refused key)"] += len(out.passed) - passed

    def counted_pairs_of(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        named = pairs_args(self, *args, **kwargs)
        out = named["out"]
        counts["      pairs tried (_pairs_of)"] += len(named["unknown"])
        before = len(out.matched) + len(out.allowed)
        pairs_of(self, *args, **kwargs)
        counts["        of those matched"] += len(out.matched) + len(out.allowed) - before

    def counted_made(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        counts["types made (_made)"] += 1
        return made(self, *args, **kwargs)

    def counted_split(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        counts["types split (_split)"] += 1
        return split(self, *args, **kwargs)

    def counted_static_program(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        before = len(self._static_programs)
        program = static_program(self, *args, **kwargs)
        counts["static programs asked by walks"] += 1
        counts["  made"] += len(self._static_programs) - before
        return program

    def counted_make(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        counts["held lists made"] += 1
        return make(self, *args, **kwargs)

    def counted_settle(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        found = settle_args(self, *args, **kwargs)["found"]
        counts["held lists settled"] += 1
        counts["  shapes settled"] += len(found.others) + len(found.walk.allowed)
        return settle(self, *args, **kwargs)

    held_walks.HeldWalks.matching = counted_matching  # type: ignore[method-assign]
    held_walks.HeldWalks._walk = counted_walk  # type: ignore[method-assign]
    held_walks.HeldWalks._pairs_of = counted_pairs_of  # type: ignore[method-assign]
    held_verdicts.HeldVerdicts._made = counted_made  # type: ignore[method-assign]
    held_verdicts.HeldVerdicts._split = counted_split  # type: ignore[method-assign]
    held_lists.HeldLists._make = counted_make  # type: ignore[method-assign]
    held_lists.HeldLists._settle = counted_settle  # type: ignore[method-assign]
    match_table.MatchTable.static_program = counted_static_program  # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pool", type=Path)
    pool = parser.parse_args(argv).pool
    counts: collections.Counter = collections.Counter()
    keys: collections.Counter = collections.Counter()
    install(counts, keys)
    cycle = run_cycle(pool)
    print(f"matches {len(cycle.result().matches)}")
    for name in counts:
        print(f"{name:50s} {counts[name]:>10,}")
    print(f"{'distinct class keys walked':50s} {len(keys):>10,}")
    print(f"{'  walked more than once':50s} {sum(1 for n in keys.values() if n > 1):>10,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
