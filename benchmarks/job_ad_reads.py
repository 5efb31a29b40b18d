#!/usr/bin/env python3
"""Count which job ads, and which of their names, the cycle reads after decoding.

A measurement, not a benchmark of time: it reads and decodes the pool as
``cycle_cpu.py`` does, then swaps each job ad's table (``ClassAd._attrs``) for a
counting copy (a ``dict`` subclass: ``get``, ``[]``, ``in``, iteration, ``keys``,
``items`` and ``values`` are counted, and ``entry_key`` calls are wrapped in the
modules that import it) and runs one cycle. It prints:

* the reader runs (``ClassAd.layout``: a run starts where an ad's mark is not the ad
  before's) and their marks' sizes and names: a run's ads after its first bind every
  name outside the mark to the first ad's very entries;
* the cycle's significant names that are in some mark (the compiled column passes,
  ``oldscan.changes``, read every row of a run for those; for the other names only a
  run's first row);
* the job ads whose tables the cycle read in Python or by ``entry_key``, how many of
  them start a run, and the names read in the others.

C reads of a table (``oldscan.gather``, ``oldscan.changes``) are not counted: they are
what the marks above say. Reading and decoding are not counted (the decoding's run
pass reads each job's ProcId). What a per-run storage of job ads (one table per run
and each ad's own entries) would have to make whole for the cycle is what is read::

    cd /tmp && PYTHONPATH=/tmp/tree python /tmp/tree/benchmarks/job_ad_reads.py \\
        /tmp/real/partitionable-mix-s10000-j100000-a300-seed0
"""

from __future__ import annotations

import argparse
import collections
import gc
from collections.abc import Callable
from pathlib import Path

from cycle_cpu import NOW, load_pool, submitters

from condorlite.cli import ad_convert, negotiate_inputs, run_pass
from condorlite.core import ad_decoder, ad_screen, entry_keys, known_slots
from condorlite.core.matching import expr_numbers, pieces
from condorlite.core.negotiation import negotiator


class Reads:
    """The counted reads: per job (its place in the decoded list) and per name read
    in a job ad that does not start a reader run; only while ``on``."""

    def __init__(self, firsts: set[int]) -> None:
        self.on = False
        self.firsts = firsts
        self.per_job: collections.Counter[int] = collections.Counter()
        self.names: collections.Counter[str] = collections.Counter()

    def record(self, place: int, name: str) -> None:
        if self.on:
            self.per_job[place] += 1
            if place not in self.firsts:
                self.names[name] += 1


class CountingTable(dict):
    """A job ad's table that tells ``reads`` what is read of it."""

    __slots__ = ("place", "reads")

    def get(self, key, default=None):
        self.reads.record(self.place, key)
        return dict.get(self, key, default)

    def __getitem__(self, key):
        self.reads.record(self.place, key)
        return dict.__getitem__(self, key)

    def __contains__(self, key):
        self.reads.record(self.place, key)
        return dict.__contains__(self, key)

    def __iter__(self):
        self.reads.record(self.place, "<iter>")
        return dict.__iter__(self)

    def keys(self):
        self.reads.record(self.place, "<keys>")
        return dict.keys(self)

    def items(self):
        self.reads.record(self.place, "<items>")
        return dict.items(self)

    def values(self):
        self.reads.record(self.place, "<values>")
        return dict.values(self)


def counted_entry_key(compiled: Callable) -> Callable:
    """``entry_key`` that records each name it reads of a counting table."""
    def key(table, names, *rest):
        if isinstance(table, CountingTable):
            for name in names:
                table.reads.record(table.place, name)
        return compiled(table, names, *rest)
    return key


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pool", type=Path)
    args = parser.parse_args(argv)
    policy, inputs = load_pool(args.pool)
    jobs = inputs.jobs
    firsts: set[int] = set()
    sizes: collections.Counter[int] = collections.Counter()
    mark_names: collections.Counter[str] = collections.Counter()
    marked: set[str] = set()
    reads = Reads(firsts)
    before: object = object()
    for place, job in enumerate(jobs):
        mark = job.ad.layout
        if mark is None or mark is not before:
            firsts.add(place)
            if isinstance(mark, set):
                sizes[len(mark)] += 1
                mark_names.update(mark)
                marked |= mark
        before = mark
        table = CountingTable(job.ad._attrs)
        table.place, table.reads = place, reads
        job.ad._attrs = table
    modules = (expr_numbers, pieces, ad_decoder, ad_screen, known_slots, negotiate_inputs,
               ad_convert, run_pass)
    wrapped = counted_entry_key(entry_keys.entry_key)
    for module in modules:
        module.entry_key = wrapped
    subs = submitters(args.pool, inputs.slots, jobs)
    gc.disable()
    reads.on = True
    try:
        cycle = negotiator.Cycle(inputs.slots, jobs, subs, [], policy, NOW)
        cycle.run()
        result = cycle.result()
    finally:
        reads.on = False
        gc.enable()
        for module in modules:
            module.entry_key = entry_keys.entry_key
    read = set(reads.per_job)
    print(f"jobs {len(jobs)} reader runs {len(firsts)} matches {len(result.matches)} "
          f"evaluations {cycle.mm.evaluations}")
    print(f"mark sizes (size: runs) {dict(sorted(sizes.items()))}")
    print(f"mark names (name: runs) {dict(mark_names.most_common(12))}")
    print(f"significant names in some mark {sorted(cycle.ac.significant & marked)}")
    print(f"job ads read {len(read)}: {len(read & firsts)} start a run, "
          f"{len(read - firsts)} do not; reads {sum(reads.per_job.values())}, "
          f"{sum(reads.names.values())} of them in ads that do not start a run")
    print(f"names read in ads that do not start a run {dict(reads.names.most_common(12))}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
