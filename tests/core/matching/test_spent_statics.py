"""A static's spent requests (``spent_statics.SpentStatics``): the answer of
``holds_none`` equals a scan of every state with members while carving only lowers the
states' amounts, with its answers shared between requests (a witness state, spent
amounts dominating larger requests), NaN amounts included."""

from __future__ import annotations

import itertools
import random

import pytest

from condorlite.core.matching.spent_statics import SpentStatics

_AMOUNTS = [0, 1, 2, 2.5, 4, 8, 16, 32, float("nan")]


class _Reads(dict):
    """The states' amounts, counting the reads (a scan reads each state it tests)."""

    reads = 0

    def __getitem__(self, key):
        self.reads += 1
        return super().__getitem__(key)


def _holds_none(states: dict[int, None], left: dict, asked: tuple) -> bool:
    """The definition: no state with members has at least each amount (``>``)."""
    return not any(all(not amount > left[state][pos] for pos, amount in asked)
                   for state in states)


@pytest.mark.parametrize("seed", range(30))
def test_holds_none_is_a_scan_of_the_states_while_carving_lowers_them(seed: int) -> None:
    rng = random.Random(seed)
    spent = SpentStatics()
    width = 3
    left = {state: tuple(rng.choice([2, 4, 8, 16]) for _ in range(width)) for state in range(3)}
    states = dict.fromkeys(left)  # the states with members, as ``OfferShapes.groups``
    for _ in range(200):
        if rng.random() < 0.3 and states:
            # a carve: a new state with no more of anything, its parent maybe emptied
            parent = rng.choice(list(states))
            child = len(left)
            left[child] = tuple(max(0, have - rng.choice([0, 1, 2, 4])) for have in left[parent])
            states[child] = None
            if rng.random() < 0.6:
                del states[parent]
            continue
        positions = sorted(rng.sample(range(width), rng.randint(1, width)))
        asked = tuple((pos, rng.choice(_AMOUNTS)) for pos in positions)
        assert spent.holds_none(0, asked, states, left) == _holds_none(states, left, asked), (
            seed, asked)


def test_a_spent_request_spends_larger_ones_at_the_same_positions_without_a_scan() -> None:
    spent = SpentStatics()
    left = _Reads({1: (4, 8), 2: (8, 4)})
    states = dict.fromkeys(left)
    assert spent.holds_none(0, ((0, 6), (1, 6)), states, left)
    scanned = left.reads
    assert spent.holds_none(0, ((0, 6), (1, 7)), states, left)
    assert left.reads == scanned  # dominated: no state read
    # not at least as much somewhere (or a NaN): a scan, and the answer of the scan
    for asked in [((0, 5), (1, 7)), ((0, float("nan")), (1, 6)), ((1, 9),)]:
        before = left.reads
        assert spent.holds_none(0, asked, states, left) == _holds_none(states, left, asked)
        assert left.reads > before, asked
    assert not spent.holds_none(1, ((0, 6), (1, 6)), {3: None}, {3: (8, 8)})  # per static


def test_a_state_found_for_some_requests_answers_smaller_ones_first() -> None:
    spent = SpentStatics()
    left = _Reads({state: (state, state) for state in range(10)})
    states = dict.fromkeys(left)
    assert not spent.holds_none(0, ((0, 9), (1, 9)), states, left)
    for need in itertools.chain(range(9), [float("nan")]):
        before = left.reads
        assert not spent.holds_none(0, ((0, need),), states, left)
        assert left.reads == before + 1, need  # the witness alone
    del states[9]  # emptied: scans again
    assert not spent.holds_none(0, ((1, 5),), states, left)
    assert spent.holds_none(0, ((0, 9), (1, 9)), states, left)
