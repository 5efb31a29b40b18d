"""``make_entry`` (one offer, written out) agrees with ``make_entries`` of that offer."""

from __future__ import annotations

import itertools

import pytest

from condorlite.core.matching.candidates import (
    ENTRY_IDX,
    NO_MATCH,
    POST,
    PRANK,
    PRE,
    PairEval,
    make_entries,
    make_entry,
    make_free_entries,
)
from condorlite.core.matching.offers import Offer
from condorlite.core.model import NO_PREEMPTION, PRIO_PREEMPTION, RANK_PREEMPTION
from tests.core._pool import slot

#: which policy ranks the offer knows without the job (the rest come from the pair)
_KNOWN = [(), (PRE,), (PRE, POST), (PRE, POST, PRANK), (POST, PRANK)]


@pytest.mark.parametrize(("known", "reason"), list(itertools.product(
    _KNOWN, [NO_PREEMPTION, RANK_PREEMPTION, PRIO_PREEMPTION])))
def test_one_entry_is_the_entries_of_one_offer(known, reason) -> None:
    base = slot("slot3@node7", user="u@example.org" if reason != NO_PREEMPTION else None)
    offer = Offer(base, base.ad, None, None, 0.0, base.weight)
    offer.version = 17
    ranks = {PRE: -5.5, POST: 12.0, PRANK: 3.25}
    offer.independent = {key: ranks[key] for key in known}
    dependent = {key: ranks[key] * 2 + 1 for key in (PRE, POST, PRANK) if key not in known}
    pe = PairEval(True, job_rank=7.0, slot_rank=1.0, dependent=dependent)
    one = make_entry(offer, 42, pe, reason)
    registry = [offer] * 43  # (the offer at position 42)
    assert one == make_entries(registry, (42,), pe, reason)[0]
    assert one[ENTRY_IDX] == 42 and one[-2:] == (17, reason)
    # a free offer's preemption rank is the lowest, whatever the ranks say
    assert (one[4] == 3.4028234663852886e38) == (reason == NO_PREEMPTION)


class _Column:
    """A rank column's ``value``: the job's Rank of each offer, here its version; its
    row of negated values (``RankColumn.negated``: values kept for every version)
    holds offer 3's alone, so the loop reads one value there and asks the others."""

    def value(self, offer: Offer) -> float:
        return float(offer.version) * 1.5

    def negated(self) -> dict[int, float]:
        return {3: -19.5}  # (offer 3: version 13)


@pytest.mark.parametrize("column", [None, _Column()])
def test_the_entries_of_a_shape_are_each_offers_entry(column) -> None:
    # (both loops of ``make_entries``: with and without a column; offers sharing one
    # dict of independent ranks and offers with their own)
    shared = {PRE: 2.0}
    offers = []
    for k in range(5):
        base = slot(f"slot{k}@node1")
        offer = Offer(base, base.ad, None, None, 0.0, base.weight)
        offer.version = 10 + k
        offer.independent = shared if k < 3 else {PRE: float(k), POST: 1.0}
        offers.append(offer)
    pe = PairEval(True, job_rank=7.0, slot_rank=1.0, dependent={POST: 4.0, PRANK: 0.5})
    members = (4, 0, 2, 3)
    for reason in (NO_PREEMPTION, RANK_PREEMPTION):
        assert make_entries(offers, members, pe, reason, column) == [
            make_entry(offers[k], k, pe, reason, column) for k in members]


@pytest.mark.parametrize("column", [None, _Column()])
def test_free_entries_are_each_offers_entry_by_its_pair_shapes_result(column) -> None:
    """``make_free_entries`` (the take-back's entries) gives each available offer's
    ``make_entry`` by no preemption with its pair shape's result, in order, leaving
    out offers that have left and pair results that do not match, and asks a pair
    shape's result once (offers sharing a shape and their ranks' dict, and offers
    with their own), not at all where the class's table knows it, keeping what it
    asks there."""
    shared = {PRE: 2.0}
    results = {1: PairEval(True, job_rank=7.0, slot_rank=1.0, dependent={PRE: 5.0, POST: 4.0}),
               2: PairEval(True, job_rank=-3.0, dependent={PRE: 9.0, POST: 0.5}),
               3: NO_MATCH}
    offers = []
    for k in range(8):
        base = slot(f"slot{k}@node1")
        offer = Offer(base, base.ad, None, None, 0.0, base.weight)
        offer.version = 10 + k
        offer.pair_shape = 1 if k < 4 else 2 if k < 6 else 3
        offer.independent = shared if k < 3 else {POST: float(k)} if k < 6 else {PRE: 1.0}
        offers.append(offer)
    offers[1].available = False
    asked: list[int] = []

    def pair_of(offer: Offer) -> PairEval:
        asked.append(offer.pair_shape)
        return results[offer.pair_shape]

    members = (5, 0, 1, 2, 6, 3, 4, 7)
    expected = [make_entry(offers[k], k, results[offers[k].pair_shape], NO_PREEMPTION,
                           column)
                for k in members if k != 1 and offers[k].pair_shape != 3]
    known = {1: results[1]}
    assert make_free_entries(offers, members, known, pair_of, column) == expected
    assert asked == [2, 3]
    assert known == results


@pytest.mark.parametrize("seed", range(8))
def test_the_pending_runs_merge_into_the_sorted_whole_a_part_at_a_time(seed) -> None:
    import random

    from condorlite.core.matching.candidates import Candidates

    rng = random.Random(seed)
    runs = [sorted((rng.randrange(50), f"slot{rng.randrange(10**6)}", k, n)
                   for n in range(rng.randrange(1, 300)))
            for k in range(rng.randrange(1, 40))]
    whole = sorted(entry for run in runs for entry in run)
    cands = Candidates([], pending=[[run, 0] for run in runs], chunk=rng.choice([1, 4, 64]))
    calls = 0
    while cands.pending:
        cands.merge_more()
        calls += 1
        # what is merged is the sorted prefix of the whole, and sorts before the rest
        assert cands.entries == whole[:len(cands.entries)]
        assert all(cands.entries[-1] < run[start] for run, start in cands.pending)
    assert cands.entries == whole
    # the chunk doubles: a list of n entries is merged in O(log n) calls
    assert calls <= len(whole).bit_length() + 1


@pytest.mark.parametrize("seed", range(16))
def test_lazy_runs_made_as_a_scan_reaches_them(seed) -> None:
    """Runs handed out unmade (``lazy_runs.LazyRun``, a head no later than their
    first entry) merge with the others as a scan reads them alongside a static list
    (``list_scan.ListWalk.pick``'s protocol: merge when the merged entries are used
    up, the smaller head first): the scan reads the sorted whole (the sentinels
    passed over), every merged entry sorts before an unmade run's entries, and a run
    is made only once a merged entry or its sentinel reached its head."""
    import random

    from condorlite.core.matching.candidates import Candidates
    from condorlite.core.matching.lazy_runs import LazyRun

    rng = random.Random(seed)

    def run_of(k: int) -> list:
        low = rng.randrange(60)
        return sorted((low + rng.randrange(20), f"slot{rng.randrange(10**6)}", k, n)
                      for n in range(rng.randrange(1, 120)))

    runs = [run_of(k) for k in range(rng.randrange(1, 8))]
    # (a run past everything else: made only when the scan reads on to it)
    runs.append([(100 + n, "last", len(runs), n) for n in range(5)])
    static = run_of(-1)
    whole = sorted([*static, *(e for run in runs for e in run)])
    stop = rng.choice([rng.randrange(1, len(whole) + 1), len(whole)])
    lazies: dict[int, LazyRun] = {}
    pending = []
    for k, run in enumerate(runs):
        if k == len(runs) - 1 or rng.random() < 0.6:
            head = (run[0][0] - rng.choice([0, 0, 1, 5]),)
            lazies[k] = LazyRun(lambda run=run: list(run), head, (head[0], "", None, None))
            pending.append([lazies[k], 0])
        else:
            pending.append([run, 0])
    cands = Candidates([], pending=pending, chunk=rng.choice([1, 4, 64]), lazy_held=True)
    cands.merge_more()
    entries, pos, spos, read = cands.entries, 0, 0, []
    while len(read) < stop:
        if pos >= len(entries) and cands.pending:
            cands.merge_more()
        if spos < len(static) and (pos >= len(entries) or static[spos] < entries[pos]):
            read.append(static[spos])
            spos += 1
        elif pos < len(entries):
            entry = entries[pos]
            pos += 1
            if entry[2] is not None:  # (a sentinel: passed over)
                read.append(entry)
        else:
            break
        merged = [e for e in entries if e[2] is not None]
        for k, lazy in lazies.items():
            if not lazy.made:
                assert not merged or merged[-1] < runs[k][0]
            else:
                assert (merged and lazy.head <= merged[-1]) or lazy.sentinel in entries[:pos]
    assert read == whole[:stop]
    last = lazies[len(runs) - 1]
    assert last.made == (stop > len(whole) - 5 or (bool(entries) and entries[-1][0] >= 100))
