#!/usr/bin/env python3
"""How much of the carved lists' state walk could be kept between list builds.

Runs one cycle as ``cycle_cpu.py`` does, with ``CarvedLists.add`` and
``CarvedLists._fitting_candidates`` wrapped to count: the list builds per class
(class, Submitter* part), the carved states (shapes) each walk visits, and, when the
same class builds again (a later spin), how many of the states it walks are the same
shape with the same offers as at its previous build (the most a per-class kept walk
could skip). ``shared`` counts the same across classes: a walk of a free boxed static
keyed by (static, fixed requests, the box's job rank or rank column, dependent
ranks), the key the walk's entries depend on, against the previous walk of that key
by any class. Prints the counts as ``name value`` lines::

    cd /tmp && PYTHONPATH=/tmp/tree python /tmp/tree/benchmarks/carved_walk_counts.py \
        /tmp/real/partitionable-s1000-j10000-a300-seed0
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

import cycle_cpu  # a sibling script, not an installed package

from condorlite.core.matching.carved_lists import CarvedLists

#: the counts, by name
COUNTS: Counter = Counter()
#: (class, part) -> builds
BUILDS: Counter = Counter()
#: (class, part) -> static -> shape -> its offers, at the class's last build
LAST: dict[tuple, dict] = {}
#: (static, asked, rank, dependent) -> shape -> its offers, at the key's last walk
SHARED: dict[tuple, dict] = {}
#: the build under way: its statics by id of their shapes table, and its walks
CURRENT: dict[str, dict] = {}

_add, _fitting = CarvedLists.add, CarvedLists._fitting_candidates


def add(self, build):
    """``CarvedLists.add``, counted per class (module doc)."""
    key = (build.class_id, build.part)
    BUILDS[key] += 1
    CURRENT["ids"] = {id(shapes): static for static, shapes in self._groups.items()}
    CURRENT["walks"] = walks = {}
    sources = _add(self, build)
    COUNTS["builds"] += 1
    last = LAST.get(key)
    if last is not None:
        COUNTS["rebuilds"] += 1
        for static, states in walks.items():
            before = last.get(static, {})
            COUNTS["rebuild_states"] += len(states)
            COUNTS["rebuild_unchanged"] += sum(
                1 for shape, offers in states.items() if before.get(shape) == offers)
    LAST[key] = walks
    return sources


def fitting(self, build, shapes, first, fixed, asked, boxed, program):
    """``CarvedLists._fitting_candidates``, its states counted (module doc)."""
    states = {shape: frozenset(offers) for shape, offers in shapes.items()}
    static = CURRENT["ids"].get(id(shapes), ("live", first.name))
    CURRENT["walks"][static] = states
    COUNTS["walks"] += 1
    COUNTS["states"] += len(states)
    COUNTS["single_states"] += sum(1 for offers in states.values() if len(offers) == 1)
    COUNTS["offers"] += sum(len(offers) for offers in states.values())
    if boxed is not None and first.holder is None and not build.only_rank:
        rank = boxed.job_rank if build.column is None else build.column
        key = (static, asked, rank, tuple(boxed.dependent.items()))
        before = SHARED.get(key)
        if before is not None:
            COUNTS["shared_rewalks"] += 1
            COUNTS["shared_unchanged"] += sum(
                1 for shape, offers in states.items() if before.get(shape) == offers)
        SHARED[key] = states
    return _fitting(self, build, shapes, first, fixed, asked, boxed, program)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pool", type=Path)
    args = parser.parse_args(argv)
    CarvedLists.add = add
    CarvedLists._fitting_candidates = fitting
    cycle_cpu.main([str(args.pool)])
    COUNTS["classes"] = len(BUILDS)
    COUNTS["classes_built_once"] = sum(1 for n in BUILDS.values() if n == 1)
    for name, value in COUNTS.items():
        print(name, value)
    return 0


if __name__ == "__main__":
    sys.exit(main())
