"""``sync_moves``: the C step of ``StaticOrders.sync`` (``sync.c``) leaves every order,
item and pending move as the Python step (``StaticOrders._move``) does, over whole
partitionable cycles (split statics, shared states, held and retired offers)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from condorlite.core.classad import oldscan
from condorlite.core.matching import static_orders, sync_moves
from condorlite.core.negotiation import negotiator
from tests.core.matching.test_ordered_make import ordered_pslot_pool
from tests.core.negotiation.test_equivalence import _fingerprint

NOW = 1_700_000_000


def test_pure_python_is_chosen_at_import() -> None:
    code = ("from condorlite.core.matching import sync_moves as s; "
            "print(s.sync_moves is s.python_sync_moves)")
    env = {**os.environ, "CONDORLITE_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "True"


def test_python_sync_moves_takes_no_offer() -> None:
    assert sync_moves.python_sync_moves([object(), object()], 1, ()) == 1


@pytest.mark.skipif(not oldscan.AVAILABLE, reason="the compiled module was not built")
@pytest.mark.parametrize(("disk_share", "shared"), [(True, True), (False, True),
                                                    (False, False)])
def test_the_c_step_keeps_the_orders_as_the_python_step(monkeypatch, tmp_path, disk_share,
                                                        shared) -> None:
    """Each sync of a whole cycle (owner literals split the statics, ranks read the
    resources; every static ordered; states shared or not) leaves the same orders,
    items, walked and shared statics with the C step as with the Python one alone, and
    the cycle decides the same; the C step takes most offers."""
    policy, slots, jobs = ordered_pslot_pool(tmp_path, monkeypatch, 7, disk_share)
    monkeypatch.setattr(static_orders, "SHARED", shared)
    plain_sync = static_orders.StaticOrders.sync
    taken = {"C": 0, "Python": 0}

    def run() -> tuple:
        states: list = []

        def sync(self) -> None:  # type: ignore[no-untyped-def]
            plain_sync(self)
            states.append(({static: {tier: list(order) for tier, order in tiers.items()}
                            for static, tiers in self._orders.items()},
                           dict(self._items), set(self.walked), set(self.shared_states),
                           {static: {group: list(seqs) for group, seqs in groups.items()}
                            for static, groups in self._by_group.items()}))

        monkeypatch.setattr(static_orders.StaticOrders, "sync", sync)
        cycle = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
        cycle.run()
        return _fingerprint(cycle.result()), cycle.mm.counts.evaluations, states

    def counted(offers, at, context):  # type: ignore[no-untyped-def]
        end = sync_moves.sync_moves(offers, at, context)
        taken["C"] += end - at
        taken["Python"] += end < len(offers)
        return end

    monkeypatch.setattr(static_orders, "sync_moves", counted)
    compiled = run()
    monkeypatch.setattr(static_orders, "sync_moves", sync_moves.python_sync_moves)
    assert run() == compiled
    assert compiled[2] and taken["C"] > taken["Python"]
