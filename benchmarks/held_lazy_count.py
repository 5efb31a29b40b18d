#!/usr/bin/env python3
"""Count what a held list made as far as its scans read would leave undone.

A measurement, not a benchmark of time: it runs one cycle (as ``cycle_cpu.py``) with
``HeldLists.add``, ``HeldWalks._pairs_of``, ``ListWalk.pick`` and
``ListWalk._rest_refused`` wrapped. A held list (``held_lists.HeldList``, one per
list key) is handed to one or more lists; its entries and its walk's groups tried by
their pair are split: listed by rank (made at once, so ``has_rank`` stays exact), a
first sort key (``-pre``: the pre-job rank) that reads the job (a desktop's ``Rank =
TARGET.Owner == ...``: walked and made at once, as now), or a key known without the
job (``PRE`` among the offer's independent ranks: a constant slot Rank). A
constant-key one is *reached* when a list reads that far:

* a list whose jobs all matched reads a prefix: up to its last merged entry read
  (``Candidates.entries[position - 1]``);
* a list cut by the limit (``_rest_refused`` True) up to the entry at the cut; at
  its rejection a lazy walk would go on, making no entries, as far as the first
  group the policy refuses (counted apart: the least key of the offers its held
  list refused when made, or its end when none);
* a list rejected without a cut is read to its end: it needs every entry and tried
  group with an offer still available and not its submitter's own at its rejection
  (an emptied group costs the walk nothing: ``group.total`` 0 is passed over); a
  rank-only list reads the entries by rank alone.

The desktops' groups are counted apart by their exact key (their pair result's, so
only those that matched): what a key known per class would leave undone.

Run::

    cd /tmp && PYTHONPATH=/tmp/tree:/tmp/tree/benchmarks python \\
        /tmp/tree/benchmarks/held_lazy_count.py /tmp/real/static-mix-s10000-j100000-a300-seed0
"""

from __future__ import annotations

import argparse
import collections
import functools
import math
from pathlib import Path

from cycle_cpu import run_cycle
from wrap_args import Named

from condorlite.core.matching import held_lists, held_walks, list_scan
from condorlite.core.matching.candidates import ENTRY_IDX, ENTRY_REASON, PRE
from condorlite.core.model import RANK_PREEMPTION


class Record:
    """What the wrapped calls saw."""

    def __init__(self) -> None:
        #: id(HeldList) -> [it, its walk, the entries it made, its lists]
        self.made: dict[int, list] = {}
        #: id(candidates) -> id(HeldList)
        self.list_of: dict[int, int] = {}
        #: id(walk) -> (first offer, group) of each group it tried by its pair
        self.tried: dict[int, list] = collections.defaultdict(list)
        #: id(candidates) -> first key of the last merged entry read at the limit's cut
        self.cut_at: dict[int, float] = {}
        #: id(HeldList) -> the least first key of the offers it refused by the policy
        #: when made (how far a cut list's lazy walk goes on for ``rej_policy > 0``)
        self.first_refusal: dict[int, float] = {}
        #: id(candidates) of the lists a pick found nothing in (not cut)
        self.read_out: set[int] = set()
        #: id(HeldList) -> seqs of its entries available at a read-out list's rejection
        self.live_entries: dict[int, set[int]] = collections.defaultdict(set)
        #: (id(walk), id(group)) of the tried groups that matched with a shape listed
        #: by rank (the slot Rank beats its ``CurrentRank``: walked at once)
        self.rank_groups: set[tuple[int, int]] = set()
        #: id(walk) -> id(group) of its tried groups with offers at such a rejection
        self.live_groups: dict[int, set[int]] = collections.defaultdict(set)


def install(record: Record) -> None:
    """Wrap the four calls to fill ``record``."""
    add, pairs_of = held_lists.HeldLists.add, held_walks.HeldWalks._pairs_of
    pick, rest_refused = list_scan.ListWalk.pick, list_scan.ListWalk._rest_refused
    add_args, pairs_args, rest_args = Named(add), Named(pairs_of), Named(rest_refused)

    @functools.wraps(add)  # (a wrapper over this one binds its signature)
    def counted_add(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        named = add_args(self, *args, **kwargs)
        out, klass, submitter = named["out"], named["klass"], named["submitter"]
        signature, only_rank, walk = named["signature"], named["only_rank"], named["walk"]
        add(self, *args, **kwargs)
        found = self._lists[self._key(klass, submitter, signature)]
        known = record.made.get(id(found))
        if known is None or known[0] is not found:
            known = record.made[id(found)] = [found, walk, list(found.by_rank), []]
            if not only_rank:
                known[2].extend(found.by_prio)
        elif not only_rank and len(known[2]) == len(found.by_rank):
            known[2].extend(found.by_prio)  # (settled by this list)
        known[3].append(out)
        registry = self._registry
        keys = [-registry[k].independent[PRE] if PRE in registry[k].independent
                else -math.inf for k in found.refused_policy]
        if keys:
            record.first_refusal[id(found)] = min(keys)
        record.list_of[id(out)] = id(found)

    @functools.wraps(pairs_of)  # (a wrapper over this one binds its signature)
    def counted_pairs_of(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        named = pairs_args(self, *args, **kwargs)
        out = named["out"]
        record.tried[id(out)].extend((slot.first, slot.group) for slot, _ in named["unknown"])
        before = len(out.matched)
        pairs_of(self, *args, **kwargs)
        registry = self._verdicts._registry
        for group, pe, *_ in out.matched[before:]:
            if any(pe.slot_rank > registry[next(iter(members))].current_rank
                   for members in group.shapes.values()):
                record.rank_groups.add((id(out), id(group)))

    @functools.wraps(pick)  # (a wrapper over this one binds its signature)
    def counted_pick(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        picked = pick(self, *args, **kwargs)
        key = id(self.cands)
        if picked is None and key not in record.cut_at and key not in record.read_out:
            record.read_out.add(key)
            held = record.list_of.get(key)
            # (a rank-only list reads the entries by rank alone: walked at once)
            if held is not None and not self.only_rank:
                _, walk, entries, _ = record.made[held]
                offers = self.scan.offers
                record.live_entries[held].update(
                    e[ENTRY_IDX] for e in entries if offers[e[ENTRY_IDX]].available)
                # (the submitter's own offers are never listed nor counted)
                name = self.name
                record.live_groups[id(walk)].update(
                    id(group) for _, group in record.tried[id(walk)]
                    if group.total - group.by_holder.get(name, 0))
        return picked

    @functools.wraps(rest_refused)  # (a wrapper over this one binds its signature)
    def counted_rest(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        pos = rest_args(self, *args, **kwargs)["pos"]
        cut = rest_refused(self, *args, **kwargs)
        if cut and id(self.cands) not in record.cut_at:
            record.cut_at[id(self.cands)] = (self.cands.entries[pos - 1][0] if pos
                                             else -math.inf)
        return cut

    held_lists.HeldLists.add = counted_add  # type: ignore[method-assign]
    held_walks.HeldWalks._pairs_of = counted_pairs_of  # type: ignore[method-assign]
    list_scan.ListWalk.pick = counted_pick  # type: ignore[method-assign]
    list_scan.ListWalk._rest_refused = counted_rest  # type: ignore[method-assign]


def tally(record: Record, registry: list) -> collections.Counter:
    """The counts (module doc)."""
    counts: collections.Counter = collections.Counter()
    for name in ("held lists (keys)", "lists whose jobs all matched",
                 "lists cut by the limit", "lists read to their end (rejected, not cut)",
                 "  of those, any refused by the limit", "entries made",
                 "  listed by rank (made at once)",
                 "  first key reads the job (made at once)", "  constant key, reached",
                 "  constant key, never reached", "groups tried by their pair",
                 "  tried, listed by rank (at once)",
                 "  tried, first key reads the job (at once)",
                 "  tried, constant key, reached", "  tried, constant key, never reached",
                 "    nor by a cut list's walk on to its first refusal",
                 "matched groups tried whose key reads the job",
                 "  of those, exact key reached", "  of those, exact key never reached"):
        counts[name] = 0
    #: id(walk) -> the largest first key a matched or cut list of it read (the
    #: groups a read-out list needs: ``live_groups``)
    walk_reach: dict[int, float] = collections.defaultdict(lambda: -math.inf)
    #: the same with each cut list walked on for its first refusal
    walk_on: dict[int, float] = collections.defaultdict(lambda: -math.inf)
    walks: dict[int, object] = {}
    for key, (_, walk, entries, outs) in record.made.items():
        counts["held lists (keys)"] += 1
        reach = walked = -math.inf
        for out in outs:
            if id(out) in record.cut_at:
                counts["lists cut by the limit"] += 1
                reach = max(reach, record.cut_at[id(out)])
                # (at its rejection, walked on as far as its first refusal by
                # the policy, or to its end when it refused none, making no
                # entries: so whatever the rest of the list counted)
                walked = max(walked, record.first_refusal.get(key, math.inf))
            elif id(out) in record.read_out:
                counts["lists read to their end (rejected, not cut)"] += 1
                counts["  of those, any refused by the limit"] += bool(out.rej_limit)
            else:
                counts["lists whose jobs all matched"] += 1
                if out.position:
                    reach = max(reach, out.entries[out.position - 1][0])
        walk_reach[id(walk)] = max(walk_reach[id(walk)], reach)
        walk_on[id(walk)] = max(walk_on[id(walk)], reach, walked)
        walks[id(walk)] = walk
        live = record.live_entries[key]
        counts["entries made"] += len(entries)
        for e in entries:
            if e[ENTRY_REASON] == RANK_PREEMPTION:
                counts["  listed by rank (made at once)"] += 1
            elif PRE not in registry[e[ENTRY_IDX]].independent:
                counts["  first key reads the job (made at once)"] += 1
            elif e[0] <= reach or e[ENTRY_IDX] in live:
                counts["  constant key, reached"] += 1
            else:
                counts["  constant key, never reached"] += 1
    for key, tried in record.tried.items():
        reach, live = walk_reach[key], record.live_groups[key]
        counts["groups tried by their pair"] += len(tried)
        for first, group in tried:
            if (key, id(group)) in record.rank_groups:
                counts["  tried, listed by rank (at once)"] += 1
            elif PRE not in first.independent:
                counts["  tried, first key reads the job (at once)"] += 1
            elif -first.independent[PRE] <= reach or id(group) in live:
                counts["  tried, constant key, reached"] += 1
            else:
                counts["  tried, constant key, never reached"] += 1
                if -first.independent[PRE] > walk_on[key]:
                    counts["    nor by a cut list's walk on to its first refusal"] += 1
    # The groups whose key reads the job: were their exact key known per class (a
    # desktop's Rank is the class's Owner against a literal), how far the lists read
    # them. Known here only for those that matched (their pair result's key).
    for key, walk in walks.items():
        reach = walk_reach[key]
        tried_firsts = {id(group): first for first, group in record.tried[key]}
        live = record.live_groups[key]
        for group, pe, *_ in [*walk.matched, *walk.allowed]:
            first = tried_firsts.get(id(group))
            if (first is None or PRE in first.independent
                    or (key, id(group)) in record.rank_groups):
                continue
            counts["matched groups tried whose key reads the job"] += 1
            if -pe.dependent[PRE] <= reach or id(group) in live:
                counts["  of those, exact key reached"] += 1
            else:
                counts["  of those, exact key never reached"] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pool", type=Path)
    pool = parser.parse_args(argv).pool
    record = Record()
    install(record)
    cycle = run_cycle(pool)
    print(f"matches {len(cycle.result().matches)}")
    counts = tally(record, cycle.offers)
    for name in counts:  # (in the order counted: each split after its total)
        print(f"{name:50s} {counts[name]:>10,}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
