"""``make_entry`` (one offer, written out) agrees with ``make_entries`` of that offer."""

from __future__ import annotations

import itertools

import pytest

from condorlite.core.matching.candidates import (
    ENTRY_IDX,
    POST,
    PRANK,
    PRE,
    PairEval,
    make_entries,
    make_entry,
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
