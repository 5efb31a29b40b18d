"""``held_orders``: a list's entries by priority, taken from its job rank source's
sorted pool, equal the entries made afresh and sorted, whatever offers leave, whose
versions move, and which subsets the lists before asked; and a pool that kept an
entry of an older version would answer otherwise."""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from condorlite.core.matching import held_orders
from condorlite.core.matching.candidates import (
    POST,
    PRANK,
    PRE,
    PairEval,
    SharedEntries,
    make_entries,
)
from condorlite.core.matching.held_orders import HeldOrders
from condorlite.core.model import PRIO_PREEMPTION


def _registry(n: int, rng: random.Random) -> list[SimpleNamespace]:
    # (a few independent ranks shared between offers, as held static slots of one
    # machine type share them: equal prefixes, told apart by name and seq)
    ranks = [{PRE: float(rng.randrange(3)), POST: 0.0, PRANK: 0.0} for _ in range(4)]
    return [SimpleNamespace(name=f"slot{n - k}@m", version=1, available=True,
                            independent=rng.choice(ranks)) for k in range(n)]


def _run(rng: random.Random, steps: int, leave: float = 0.15) -> HeldOrders:
    registry = _registry(40, rng)
    held = SimpleNamespace(epoch=0)
    orders = HeldOrders(held, registry, SharedEntries(registry))  # type: ignore[arg-type]
    pes = [PairEval(True, job_rank=1.0), PairEval(True, job_rank=2.0)]
    for _ in range(steps):
        roll = rng.random()
        alive = [k for k, offer in enumerate(registry) if offer.available]
        if roll < leave and alive:
            registry[rng.choice(alive)].available = False  # (an offer leaves)
            held.epoch += 1
        elif roll < leave + 0.1 and alive:
            registry[rng.choice(alive)].version += 1  # (its state moved)
        pe = rng.choice(pes)
        # (a list asks for available offers only)
        alive = [k for k, offer in enumerate(registry) if offer.available]
        seqs = rng.sample(alive, rng.randrange(len(alive) + 1))
        out = orders.entries(seqs, pe, None)
        assert out == sorted(make_entries(registry, seqs, pe, PRIO_PREEMPTION))  # type: ignore[arg-type]
    return orders


@pytest.mark.parametrize("seed", range(20))
def test_pool_entries_equal_made_ones_sorted(seed: int) -> None:
    _run(random.Random(seed), 60)


def test_entries_of_offers_that_left_dropped() -> None:
    # Most offers leave: the pools drop their entries (as many left as they hold).
    orders = _run(random.Random(7), 80, leave=0.5)
    assert any(order.epoch for order in orders._orders.values())
    assert all(len(order.entries) == len(order.made) for order in orders._orders.values())


def test_pool_keeping_old_versions_answers_otherwise(monkeypatch) -> None:
    # An entry made again for a new version added to the pool without the old one
    # dropped: a list of that offer takes both.
    def keep_old(self, order, fresh, pe, column):  # type: ignore[no-untyped-def]
        new = self._shared.entries(fresh, pe, PRIO_PREEMPTION, column)
        order.made.update((entry[held_orders.ENTRY_IDX], entry) for entry in new)
        order.entries = sorted([*order.entries, *new])

    monkeypatch.setattr(HeldOrders, "_add", keep_old)
    with pytest.raises(AssertionError):
        for seed in range(20):
            _run(random.Random(seed), 60)
