#!/usr/bin/env python3
"""What the per-match path does besides taking the first entry: one cycle run as
``cycle_cpu.py`` does, with the list walk's steps wrapped to count.

Counts (``name value`` lines): ``picks`` (``ListWalk.pick`` calls) and those that
found nothing; ``merges`` (``Candidates.merge_more`` calls) and the entries they
merged; ``take_backs`` (``ListWalk._take_back_carved``), the slots they took back,
the pair results they asked and the evaluations those made, the entries they
appended and how many of those the walk read (its place moved past them);
``asks`` (``ListWalk._rest_refused`` calls) and ``cuts`` (those that cut the walk);
``floors`` (``PieceCosts._piece_floor`` calls) and ``floor_programs`` (pair programs
made while one ran: ``MatchTable._new_program`` calls), against ``programs`` (every
one made); per list at the end of the cycle: ``lists``, ``entries_read`` (the lists'
places), ``merged_unread`` (entries merged or appended past the place). Works on any
tree whose ``list_scan`` and ``piece_costs`` have these names::

    cd /tmp && PYTHONPATH=/tmp/tree python /tmp/tree/benchmarks/pick_counts.py \\
        /tmp/real/partitionable-mix-s10000-j100000-a300-seed0
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import cycle_cpu  # a sibling script, not an installed package

from condorlite.core.matching.candidates import Candidates
from condorlite.core.matching.list_scan import ListWalk
from condorlite.core.matching.match_table import MatchTable
from condorlite.core.matching.matchmaker import Matchmaker
from condorlite.core.matching.piece_costs import PieceCosts

#: the counts, by name
COUNTS: Counter = Counter()
#: every list made, and (list, entries before, after) of each take-back
LISTS: list[Candidates] = []
TAKEN_BACK: list[tuple[Candidates, int, int]] = []
#: which step is under way ("take_back", "floor" or None)
STEP: list[str | None] = [None]


def wrap(owner: type, name: str, counted) -> None:
    """Put ``counted(original, *args)`` in place of ``owner.name``."""
    original = getattr(owner, name)
    setattr(owner, name, lambda *args, **kwargs: counted(original, *args, **kwargs))


def pick(original, walk, *args):
    COUNTS["picks"] += 1
    found = original(walk, *args)
    COUNTS["picks_none"] += found is None
    return found


def take_back(original, walk):
    cands = walk.cands
    COUNTS["take_backs"] += 1
    COUNTS["take_back_slots"] += len(set(cands.carved))
    before, evaluations = len(cands.entries), walk.scan.mm.counts.evaluations
    STEP[0] = "take_back"
    try:
        original(walk)
    finally:
        STEP[0] = None
    COUNTS["take_back_evaluations"] += walk.scan.mm.counts.evaluations - evaluations
    COUNTS["take_back_entries"] += len(cands.entries) - before
    TAKEN_BACK.append((cands, before, len(cands.entries)))


def merge(original, cands):
    COUNTS["merges"] += 1
    before = len(cands.entries)
    original(cands)
    COUNTS["merged"] += len(cands.entries) - before


def rest_refused(original, walk, *args):
    COUNTS["asks"] += 1
    cut = original(walk, *args)
    COUNTS["cuts"] += cut
    return cut


def piece_floor(original, costs, *args):
    COUNTS["floors"] += 1
    STEP[0] = "floor"
    try:
        return original(costs, *args)
    finally:
        STEP[0] = None


def new_program(original, table, *args, **kwargs):
    COUNTS["programs"] += 1
    COUNTS["floor_programs"] += STEP[0] == "floor"
    return original(table, *args, **kwargs)


def pair(original, mm, *args, **kwargs):
    COUNTS["take_back_pairs"] += STEP[0] == "take_back"
    return original(mm, *args, **kwargs)


def made(original, cands, *args, **kwargs):
    original(cands, *args, **kwargs)
    LISTS.append(cands)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pool", type=Path)
    args = parser.parse_args(argv)
    wrap(ListWalk, "pick", pick)
    wrap(ListWalk, "_take_back_carved", take_back)
    wrap(ListWalk, "_rest_refused", rest_refused)
    wrap(Candidates, "merge_more", merge)
    wrap(Candidates, "__init__", made)
    wrap(PieceCosts, "_piece_floor", piece_floor)
    wrap(MatchTable, "_new_program", new_program)
    wrap(Matchmaker, "pair", pair)
    cycle_cpu.main([str(args.pool)])
    for cands, before, after in TAKEN_BACK:
        COUNTS["take_back_read"] += max(0, min(cands.position, after) - before)
    COUNTS["lists"] = len(LISTS)
    COUNTS["entries_read"] = sum(c.position for c in LISTS)
    COUNTS["merged_unread"] = sum(len(c.entries) - c.position for c in LISTS)
    for name, value in COUNTS.items():
        print(name, value)
    return 0


if __name__ == "__main__":
    sys.exit(main())
