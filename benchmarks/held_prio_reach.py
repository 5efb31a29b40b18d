#!/usr/bin/env python3
"""Count how much of the held lists' runs by priority the lists' scans reach.

A measurement, not a benchmark of time: one cycle (as ``cycle_cpu.py`` runs it) with
``HeldLists.add``, ``ListWalk.pick`` and ``ListWalk._rest_floors`` wrapped. For each
held list (a list key's ``HeldList``, not rank-only) it finds whether any list handed
its run by priority ever reached the run's first entry: a pick that read an entry
sorting at or past it ("pick"), a pick that found nothing, the list read to its end
("out"), or the limit's floors, which read every run pending ("floors"); and how many
of the run's offers were still available when it was first reached (what a run made
then would hold). On an engine whose runs are made as reached (``held_prio``) it
prints, instead of the reach, the runs made and the entries they hold::

    cd /tmp && PYTHONPATH=/tmp/tree python /tmp/tree/benchmarks/held_prio_reach.py \\
        /tmp/real/static-mix-s10000-j100000-a300-seed0
"""

from __future__ import annotations

import argparse
import collections
from pathlib import Path

from cycle_cpu import run_cycle

from condorlite.core.matching import held_lists, list_scan
from condorlite.core.matching.candidates import ENTRY_IDX

try:
    from condorlite.core.matching.held_prio import PrioRuns
except ImportError:  # (an engine that makes them at once)
    PrioRuns = None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pool", type=Path)
    pool = parser.parse_args().pool
    records: dict[int, dict] = {}
    by_cands: dict[int, list] = collections.defaultdict(list)
    registry: list = []
    add, pick = held_lists.HeldLists.add, list_scan.ListWalk.pick
    floors = list_scan.ListWalk._rest_floors

    def reach(record: dict, run: list, why: str) -> None:
        if record["reached"] is None:
            record["reached"] = (why, sum(1 for e in run if registry[e[ENTRY_IDX]].available))

    def counted_add(self, out, kept_runs, klass, job_ad, submitter, signature,  # type: ignore[no-untyped-def]
                    only_rank, walk, column):
        registry[:] = self._registry
        add(self, out, kept_runs, klass, job_ad, submitter, signature, only_rank, walk,
            column)
        if only_rank:
            return
        found = self._lists[self._key(klass, submitter, signature)]
        record = records.setdefault(id(found), {"found": found, "reached": None,
                                                "made": len(found.by_prio)})
        if found.by_prio:
            by_cands[id(out)].append((record, found.by_prio))

    def counted_pick(self, job, free_used, prio_used):  # type: ignore[no-untyped-def]
        picked = pick(self, job, free_used, prio_used)
        cands = self.cands
        for record, run in by_cands.get(id(cands), ()):
            if picked is None:
                reach(record, run, "out")
                continue
            read = [cands.entries[cands.position - 1]] if cands.position else []
            if cands.spos:
                read.append(cands.static[cands.spos - 1])
            if run and read and run[0] <= max(read):
                reach(record, run, "pick")
        return picked

    def counted_floors(self, pos, spos):  # type: ignore[no-untyped-def]
        for record, run in by_cands.get(id(self.cands), ()):
            reach(record, run, "floors")
        return floors(self, pos, spos)

    lazy: list = []
    if PrioRuns is not None:
        made_run = PrioRuns.run

        def counted_run(self, groups, column, later=None):  # type: ignore[no-untyped-def]
            run = made_run(self, groups, column, later)
            lazy.append(run)
            return run

        PrioRuns.run = counted_run  # type: ignore[method-assign]
    else:
        # (reading a run made as reached would make it: the reach is counted on an
        # engine that makes them at once)
        held_lists.HeldLists.add = counted_add  # type: ignore[method-assign]
        list_scan.ListWalk.pick = counted_pick  # type: ignore[method-assign]
        list_scan.ListWalk._rest_floors = counted_floors  # type: ignore[method-assign]
    cycle = run_cycle(pool)
    print(f"matches {len(cycle.result().matches)}")
    rows = list(records.values())
    if PrioRuns is not None:
        made = [run for run in lazy if run.made]
        print(f"runs by priority {len(lazy)}, made {len(made)}, "
              f"entries made {sum(map(len, made)):,}")
        return 0
    print(f"held lists {len(rows)}, entries by priority made {sum(r['made'] for r in rows):,}")
    for why in ("pick", "out", "floors", None):
        chosen = [r for r in rows if (r["reached"] or (None,))[0] == why]
        available = sum(r["reached"][1] for r in chosen if r["reached"])
        print(f"reached by {why}: lists {len(chosen)}, non-empty "
              f"{sum(1 for r in chosen if r['made'])}, entries {sum(r['made'] for r in chosen):,}, "
              f"offers available at the first reach {available:,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
