#!/usr/bin/env python3
"""Count what decides the hooks of a held list made as far as its scans read.

A measurement, not a benchmark of time: it runs one cycle (as ``cycle_cpu.py``) with
``held_lazy_count``'s wrappers and two more (``HeldLists.add`` again, ``ListWalk.pick``
again), and counts:

* **counts as of the list's making.** A held list's refusal counts (``rej_policy``)
  are those of its offers refused by ``PREEMPTION_REQUIREMENTS`` that are available
  when the list is made, and a rejection reads ``rej_policy > 0``. A lazy walk that
  works them out at the rejection sees the offers available then: a list whose
  refused offers were all available at its making and have all left by its rejection
  would be rejected for another reason. Counted: the rejected lists (not rank-only)
  whose held list refused an offer at their making, and of those, the lists none of
  whose refused offers is still available at the rejection; and the same for the
  deferred groups (``Candidates.deferred``: those with offers at the making, and none
  left at the rejection).
* **a lazy run with no cut.** ``ListWalk._rest_floors`` takes a pending run of
  length 3 as one of entries by no preemption: the smallest hook makes a lazy held
  run end no walk early (taken as holding an entry by rank while unfinished), so a
  list the limit would cut is read to its end. Counted: the constant-key groups
  tried by their pair and the entries never reached when every cut list is read out
  (needs every group and entry still available at its rejection).
* **how finely the first key orders them.** A walk made lazy by the first sort key
  alone walks a whole tier of equal ``-pre`` at once. Counted over the distinct groups
  tried by their pair with a constant key: how many distinct first keys, the share of
  the largest tier, and how many distinct (pre, post, prank): the entry's sort key
  but for the job rank.

Run::

    cd /tmp && PYTHONPATH=/tmp/tree:/tmp/tree/benchmarks python \\
        /tmp/tree/benchmarks/held_lazy_hooks.py /tmp/real/static-mix-s10000-j100000-a300-seed0
"""

from __future__ import annotations

import argparse
import collections
import math
from pathlib import Path

from cycle_cpu import run_cycle
from held_lazy_count import Record, install
from wrap_args import Named

from condorlite.core.matching import held_lists, list_scan
from condorlite.core.matching.candidates import ENTRY_IDX, ENTRY_REASON, POST, PRANK, PRE
from condorlite.core.model import RANK_PREEMPTION


class Seen:
    """What the two extra wrappers saw."""

    def __init__(self) -> None:
        #: id(candidates) -> (seqs its held list refused at its making, the deferred
        #: (first offer, count) pairs it was handed)
        self.at_making: dict[int, tuple[list[int], list]] = {}
        #: per rejected list: (any refused at making, any still available, any
        #: deferred group with offers at making, any with offers at rejection)
        self.rejected: list[tuple[bool, bool, bool, bool]] = []
        #: id(HeldList) -> seqs of entries available at a cut list's rejection
        self.cut_entries: dict[int, set[int]] = collections.defaultdict(set)
        #: id(walk) -> id(group) of its tried groups with offers at a cut rejection
        self.cut_groups: dict[int, set[int]] = collections.defaultdict(set)


def install_more(record: Record, seen: Seen) -> None:
    """Wrap ``HeldLists.add`` and ``ListWalk.pick`` once more (over ``install``'s)."""
    add, pick = held_lists.HeldLists.add, list_scan.ListWalk.pick
    add_args = Named(add)

    def seen_add(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        named = add_args(self, *args, **kwargs)
        out, klass, submitter = named["out"], named["klass"], named["submitter"]
        signature, only_rank = named["signature"], named["only_rank"]
        add(self, *args, **kwargs)
        if not only_rank:
            found = self._lists[self._key(klass, submitter, signature)]
            seen.at_making[id(out)] = (list(found.refused_policy), list(out.deferred))

    def seen_pick(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        key = id(self.cands)
        first = key not in record.cut_at and key not in record.read_out
        picked = pick(self, *args, **kwargs)
        if picked is None and first and key in seen.at_making:
            refused, deferred = seen.at_making[key]
            offers = self.scan.offers
            seen.rejected.append((
                bool(refused), any(offers[k].available for k in refused),
                any(count for _, count in deferred),
                any(first_offer.available for first_offer, _ in deferred)))
            if key in record.cut_at:
                held = record.list_of.get(key)
                if held is not None:
                    _, walk, entries, _ = record.made[held]
                    seen.cut_entries[held].update(
                        e[ENTRY_IDX] for e in entries if offers[e[ENTRY_IDX]].available)
                    name = self.name
                    seen.cut_groups[id(walk)].update(
                        id(group) for _, group in record.tried[id(walk)]
                        if group.total - group.by_holder.get(name, 0))
        return picked

    held_lists.HeldLists.add = seen_add  # type: ignore[method-assign]
    list_scan.ListWalk.pick = seen_pick  # type: ignore[method-assign]


def tally(record: Record, seen: Seen, registry: list) -> collections.Counter:
    """The counts (module doc)."""
    counts: collections.Counter = collections.Counter()
    for name in ("rejected lists (not rank-only)", "  refused an offer at their making",
                 "    none still available at the rejection",
                 "  deferred groups with offers at their making",
                 "    no deferred group's first offer available at the rejection",
                 "entries, constant key, never reached (no cut)",
                 "groups tried, constant key, never reached (no cut)",
                 "distinct groups tried with a constant key", "  distinct first keys",
                 "  in the largest tier", "  distinct (pre, post, prank)"):
        counts[name] = 0
    for refused, live, deferred, deferred_live in seen.rejected:
        counts["rejected lists (not rank-only)"] += 1
        counts["  refused an offer at their making"] += refused
        counts["    none still available at the rejection"] += refused and not live
        counts["  deferred groups with offers at their making"] += deferred
        counts["    no deferred group's first offer available at the rejection"] += (
            deferred and not deferred_live)
    walk_reach: dict[int, float] = collections.defaultdict(lambda: -math.inf)
    for key, (_, walk, entries, outs) in record.made.items():
        reach = -math.inf
        for out in outs:
            if (id(out) not in record.cut_at and id(out) not in record.read_out
                    and out.position):
                reach = max(reach, out.entries[out.position - 1][0])
        walk_reach[id(walk)] = max(walk_reach[id(walk)], reach)
        live = record.live_entries[key] | seen.cut_entries[key]
        for e in entries:
            if (e[ENTRY_REASON] != RANK_PREEMPTION
                    and PRE in registry[e[ENTRY_IDX]].independent
                    and e[0] > reach and e[ENTRY_IDX] not in live):
                counts["entries, constant key, never reached (no cut)"] += 1
    for key, tried in record.tried.items():
        reach = walk_reach[key]
        live = record.live_groups[key] | seen.cut_groups[key]
        for first, group in tried:
            if ((key, id(group)) not in record.rank_groups and PRE in first.independent
                    and -first.independent[PRE] > reach and id(group) not in live):
                counts["groups tried, constant key, never reached (no cut)"] += 1
    firsts = {id(group): first for tried in record.tried.values() for first, group in tried
              if PRE in first.independent}
    tiers = collections.Counter(first.independent[PRE] for first in firsts.values())
    counts["distinct groups tried with a constant key"] = len(firsts)
    counts["  distinct first keys"] = len(tiers)
    counts["  in the largest tier"] = max(tiers.values(), default=0)
    counts["  distinct (pre, post, prank)"] = len({
        (first.independent[PRE], first.independent.get(POST), first.independent.get(PRANK))
        for first in firsts.values()})
    fine_counts(record, seen, registry, counts)
    return counts


def fine_counts(record: Record, seen: Seen, registry: list,
                counts: collections.Counter) -> None:
    """The constant-key groups tried and never reached with no cut, by the entry's
    whole sort key (``(-pre, -job rank, -post, order, -prank)``) rather than its first
    key: a matched list reached a group when the least key of the group's entries is
    at most the key of the last entry it read (a group without entries, its pair not
    matching, by its first key, as a lazy walk would have to try it to know)."""
    for name in ("groups tried, constant key, never reached by the whole key (no cut)",
                 "  of those, matched (entries made)",
                 "groups tried, constant key, in the reach's first-key tier"):
        counts[name] = 0
    reach_full: dict[int, tuple] = {}
    reach_first: dict[int, float] = collections.defaultdict(lambda: -math.inf)
    least: dict[int, dict[int, tuple]] = collections.defaultdict(dict)
    for _, walk, entries, outs in record.made.values():
        for out in outs:
            if (id(out) not in record.cut_at and id(out) not in record.read_out
                    and out.position):
                key = tuple(out.entries[out.position - 1][:5])
                if id(walk) not in reach_full or key > reach_full[id(walk)]:
                    reach_full[id(walk)] = key
                reach_first[id(walk)] = max(reach_first[id(walk)], key[0])
        # (by the entry's offer's pair shape: a group's members leave it as they go)
        group_of = {first.pair_shape: id(group) for first, group in record.tried[id(walk)]}
        by_group = least[id(walk)]
        for e in entries:
            group = group_of.get(registry[e[ENTRY_IDX]].pair_shape)
            if group is not None:
                key = tuple(e[:5])
                if group not in by_group or key < by_group[group]:
                    by_group[group] = key
    for key, tried in record.tried.items():
        reach = reach_full.get(key)
        live = record.live_groups[key] | seen.cut_groups[key]
        by_group = least[key]
        for first, group in tried:
            if (key, id(group)) in record.rank_groups or PRE not in first.independent:
                continue
            if id(group) in live:
                continue
            pre = -first.independent[PRE]
            if pre == reach_first[key]:
                counts["groups tried, constant key, in the reach's first-key tier"] += 1
            made = by_group.get(id(group))
            if reach is None:
                hit = False
            elif made is None:
                hit = pre <= reach[0]
            else:
                hit = made <= reach
            if not hit:
                counts["groups tried, constant key, never reached by the whole key (no cut)"] += 1
                counts["  of those, matched (entries made)"] += made is not None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pool", type=Path)
    pool = parser.parse_args(argv).pool
    record, seen = Record(), Seen()
    install(record)
    install_more(record, seen)
    cycle = run_cycle(pool)
    print(f"matches {len(cycle.result().matches)}")
    counts = tally(record, seen, cycle.offers)
    for name in counts:
        print(f"{name:66s} {counts[name]:>10,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
