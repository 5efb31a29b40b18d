#!/usr/bin/env python3
"""Count how much of the held lists' work a scan ever reads.

A measurement, not a benchmark of time: it runs one cycle (as ``cycle_cpu.py``) with
``HeldLists.add`` and ``ListWalk.pick`` wrapped, and prints, for the lists made with
priority preemption on (``request_lists._held_candidates``):

* the lists, those that ended in a rejection (a ``pick`` that found nothing: such a
  list is read to its end, or cut by the limit's floor) and the rest (every job of
  the class matched: the scan read only a prefix);
* the held entries handed to each kind of list (the runs ``HeldLists.add`` appends)
  and how many of them the scans read (``Candidates.entries[:position]``);
* of the matched groups of the walks (``HeldWalk.matched`` and ``allowed``: a pair
  worked out, its entries made by ``HeldLists``), how many had any offer's entry read
  by a list of that walk.

What a lazier held list could leave undone is what is never read::

    cd /tmp && PYTHONPATH=/tmp/tree python /tmp/tree/benchmarks/held_entry_reads.py \\
        /tmp/real/static-mix-s10000-j100000-a300-seed0
"""

from __future__ import annotations

import argparse
import collections
from pathlib import Path

from cycle_cpu import run_cycle
from wrap_args import Named

from condorlite.core.matching import held_lists, list_scan
from condorlite.core.matching.candidates import ENTRY_IDX, ENTRY_REASON
from condorlite.core.model import NO_PREEMPTION


class Record:
    """What the wrapped calls saw: each held list made (its candidates, the walk, the
    entries handed), each walk's matched groups' offers as walked, and the lists
    whose ``pick`` found nothing."""

    def __init__(self) -> None:
        #: (candidates, walk, entries handed) per ``HeldLists.add``
        self.lists: list[tuple] = []
        #: id(walk) -> the offer seqs of each matched group when first handed
        self.groups: dict[int, list[set[int]]] = {}
        self.walks: dict[int, object] = {}
        #: id(candidates) of the lists a pick found nothing in
        self.rejected: set[int] = set()


def install(record: Record) -> None:
    """Wrap ``HeldLists.add`` and ``ListWalk.pick`` to fill ``record``."""
    add, pick = held_lists.HeldLists.add, list_scan.ListWalk.pick
    add_args = Named(add)

    def counted_add(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        named = add_args(self, *args, **kwargs)
        out, kept_runs, walk = named["out"], named["kept_runs"], named["walk"]
        before = len(kept_runs)
        add(self, *args, **kwargs)
        handed = sum(len(run) for run in kept_runs[before:])
        record.lists.append((out, walk, handed))
        if id(walk) not in record.groups:
            record.walks[id(walk)] = walk
            record.groups[id(walk)] = [
                set().union(*[set(m) for m in group.shapes.values()])
                for group, *_ in [*walk.matched, *walk.allowed]]

    def counted_pick(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        picked = pick(self, *args, **kwargs)
        if picked is None:
            record.rejected.add(id(self.cands))
        return picked

    held_lists.HeldLists.add = counted_add  # type: ignore[method-assign]
    list_scan.ListWalk.pick = counted_pick  # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pool", type=Path)
    pool = parser.parse_args(argv).pool
    record = Record()
    install(record)
    cycle = run_cycle(pool)
    print(f"matches {len(cycle.result().matches)}")
    counts: collections.Counter = collections.Counter()
    read_by_walk: dict[int, set[int]] = collections.defaultdict(set)
    for out, walk, handed in record.lists:
        kind = "rejected" if id(out) in record.rejected else "matched"
        held = [e for e in out.entries[:out.position] if e[ENTRY_REASON] != NO_PREEMPTION]
        read_by_walk[id(walk)].update(e[ENTRY_IDX] for e in held)
        counts[f"lists {kind}"] += 1
        counts[f"held entries handed, lists {kind}"] += handed
        counts[f"held entries read, lists {kind}"] += len(held)
    for key, groups in record.groups.items():
        read = read_by_walk[key]
        counts["walks"] += 1
        counts["walks' matched groups"] += len(groups)
        counts["walks' matched groups with an entry read"] += sum(
            1 for seqs in groups if seqs & read)
    for name in sorted(counts):
        print(f"{name:50s} {counts[name]:>10,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
