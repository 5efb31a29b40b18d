#!/usr/bin/env python3
"""Count the full pair evaluations of one cycle: by caller, slot kind and outcome.

A measurement, not a benchmark of time: it runs one cycle (as ``cycle_cpu.py``) with
``MatchTable._evaluate_pair`` wrapped, and tallies each call by

* its caller (the first frame outside ``match_table``: ``held_walks._pairs_of``, a
  static list's look-up, ``reasons``, ...);
* the slot's kind: a partitionable slot, a desktop (a static slot with its own
  literals, ``Offer.literals``: a folded ``START`` naming its owner) or a plain
  static slot;
* whether the job's ``Requirements`` were known to hold (``job_holds``);
* what decided it, asked again after the call (evaluations have no side effects):
  the owner gate (``owner_gates``), a resource limit (``resource_limits``), the
  slot's ``Requirements``, the job's, both, or a match; for a desktop whose own
  ``Requirements`` failed, whether its pair shape had a gate that did not rule the
  job's owner out (``undecided``) or none (``None``).

Run::

    cd /tmp && PYTHONPATH=/tmp/tree:/tmp/tree/benchmarks python \\
        /tmp/tree/benchmarks/full_pair_counts.py \\
        /tmp/real/static-mix-s1000-j10000-a300-seed0
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

from cycle_cpu import run_cycle
from wrap_args import Named

from condorlite.core import adeval
from condorlite.core.matching import match_table

#: "no gate made yet for this pair shape" in ``OwnerGates``' table
_ABSENT = object()


def _caller() -> str:
    """The first frame outside ``match_table`` above the wrapper: module.function."""
    frame = sys._getframe(2)
    while frame.f_code.co_filename.endswith("match_table.py"):
        frame = frame.f_back  # type: ignore[assignment]
    return f"{Path(frame.f_code.co_filename).stem}.{frame.f_code.co_name}"


def _outcome(table: match_table.MatchTable, job_ad, offer, out) -> str:  # type: ignore[no-untyped-def]
    """What decided the pair ``out`` (module doc), in ``_evaluate_pair``'s order."""
    if offer.partitionable:
        return "match" if out.match else "no match"
    if offer.literals and table.gates.fails(job_ad, offer):
        return "owner gate"
    if table._limits.fails(job_ad, offer):
        return "resource limit"
    if out.match:
        return "match"
    now = None if table.now is None else int(table.now)
    slot = adeval.requirements_hold(offer.ad, job_ad, now=now)
    job = adeval.requirements_hold(job_ad, offer.ad, now=now)
    found = {(False, True): "slot fails", (True, False): "job fails"}.get(
        (slot, job), "both fail")
    if offer.literals and not slot:
        gate = table.gates._gates.get(offer.pair_shape, _ABSENT)
        found += " (gate " + ("absent" if gate is _ABSENT else "None" if gate is None
                             else "undecided") + ")"
    return found


def install(counts: collections.Counter) -> None:
    """Wrap ``MatchTable._evaluate_pair`` to add each call to ``counts``."""
    evaluate = match_table.MatchTable._evaluate_pair
    evaluate_args = Named(evaluate)

    def counted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        named = evaluate_args(self, *args, **kwargs)
        job_ad, offer, job_holds = named["job_ad"], named["offer"], named["job_holds"]
        out = evaluate(self, *args, **kwargs)
        kind = ("partitionable" if offer.partitionable
                else "desktop" if offer.literals else "plain")
        counts[(_caller(), kind, "job holds" if job_holds else "-",
                _outcome(self, job_ad, offer, out))] += 1
        return out

    match_table.MatchTable._evaluate_pair = counted  # type: ignore[method-assign]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pool", type=Path)
    pool = parser.parse_args(argv).pool
    counts: collections.Counter = collections.Counter()
    install(counts)
    cycle = run_cycle(pool)
    print(f"matches {len(cycle.result().matches)}")
    for key, count in counts.most_common():
        print(f"{count:>8,}  {' | '.join(key)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
