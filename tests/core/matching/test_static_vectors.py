"""A static offer's vector and part, made as it is first placed (``static_vectors``),
are those the pass over every available static offer made when the first pair asked
(the pass ``static_programs.StaticNumbers`` ran before, written out plainly here):
the same vectors (names, typed values, index, own literals), the same parts numbered
in the same order, the same pair shapes per part and the same offers kept; also when
static offers have left before the first ask (``StaticVectors.recount``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from condorlite.core import adeval
from condorlite.core.classad.ast import Literal
from condorlite.core.matching import static_programs
from condorlite.core.matching.slot_vectors import typed, vector_of
from condorlite.core.matching.static_vectors import HOLDER
from condorlite.core.negotiation import negotiator
from tests.core.negotiation.test_equivalence_realistic import EVERYTHING, _pool

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import genpool  # a script directory, not a package

NOW = float(genpool.BASE_TIME)


def _old_pass(shapes) -> tuple[list[tuple], dict[int, set[int]]]:  # type: ignore[no-untyped-def]
    """The vectors and parts of the available static offers, as the pass over them
    made them: (seq, names, typed values, index, own literals, part) per offer with a
    vector, in registry order, and each part's pair shapes."""
    ids: dict[tuple, int] = {}
    by_pair: dict[tuple, object] = {}
    found: list[tuple] = []
    shapes_of: dict[int, set[int]] = {}
    for offer in shapes.registry:
        if offer.partitionable or offer.vector is not None or not offer.available:
            continue
        flags, walked, _ = shapes.walked[id(offer)][2]
        literals = offer.literals
        memo = (offer.pair_shape, id(walked), offer.holder, literals,
                typed([adeval.attr(offer.ad, name).value for name in literals]))
        if memo not in by_pair:
            names, free = walked, literals
            if offer.holder is not None:
                names = shapes.pair_names(offer.ad, True)
                expr = adeval.attr(offer.ad, HOLDER)
                if HOLDER in names and type(expr) is Literal and type(expr.value) is str:
                    free = (*free, HOLDER)
            vector = vector_of(offer.ad, shapes.resource_names, free)
            if vector is not None:
                static = tuple(n for n in names if n not in vector.index)
                key = shapes.shape_keys.key(offer.ad, static, (
                    "static", offer.holder is not None, flags, vector.names))
                vector.static = ids.setdefault(key, len(ids) + 1)
            by_pair[memo] = vector
        vector = by_pair[memo]
        if vector is None:
            continue
        shapes_of.setdefault(vector.static, set()).add(offer.pair_shape)
        found.append((offer.seq, vector.names, typed(vector.vals), vector.index,
                      vector.literals, vector.static))
    return found, shapes_of


def _noted(statics) -> list[tuple]:  # type: ignore[no-untyped-def]
    return [(offer.seq, v.names, typed(v.vals), v.index, v.literals, v.static)
            for offer, v in statics.found]


def _kept(found: list[tuple], shapes_of: dict[int, set[int]], offers) -> dict:  # type: ignore[no-untyped-def]
    """The offers whose part gets programs (seq -> part), as ``StaticNumbers`` keeps
    them (asked before it unhoists the desktops it does not keep)."""
    literals = {o.seq: o.literals for o in offers}
    return {seq: static for seq, _, _, _, _, static in found
            if len(shapes_of[static]) >= (static_programs.SHARED_LITERALS if literals[seq]
                                          else static_programs.SHARED)}


def _cycle(tmp_path: Path, unique: bool, seed: int) -> negotiator.Cycle:
    """A realistic pool, every property on; without ``unique`` (no slot's own numbers,
    no disk share) slots of one machine type share pair shapes."""
    spec = genpool.PoolSpec(slots=240, jobs=400, submitters=6, autoclusters=20, seed=seed,
                            partitionable_fraction=0.3,
                            **{**EVERYTHING, "unique": unique, "disk_share": unique})
    slots, jobs, subs, policy = _pool(tmp_path, spec)
    return negotiator.Cycle(slots, jobs, subs, [], policy, NOW)


@pytest.mark.parametrize(("unique", "seed"), [(True, 3), (False, 4)])
def test_noted_vectors_and_parts_are_the_old_passes(tmp_path: Path, unique: bool,
                                                      seed: int) -> None:
    cycle = _cycle(tmp_path, unique, seed)
    shapes = cycle.mm.shapes
    offers = cycle.offers
    # (every property on: partitionable, claimed, desktops whose START names the owner)
    assert any(o.partitionable for o in offers) and any(o.holder for o in offers)
    assert any(o.literals for o in offers)
    found, shapes_of = _old_pass(shapes)
    assert found and _noted(shapes.static_vectors) == found
    assert shapes.static_vectors.shapes_of == shapes_of
    if not unique:
        # (slots of one pair shape share one vector)
        assert len({id(v) for _, v in shapes.static_vectors.found}) < len(found)
    want = _kept(found, shapes_of, offers)
    numbers = cycle.mm.table._numbers
    numbers.of(offers[0])
    assert {seq: v.static for seq, v in numbers._vectors.items()} == want
    cycle.run()


def test_offers_gone_before_the_first_ask_are_counted_out(tmp_path: Path) -> None:
    cycle = _cycle(tmp_path, False, 5)
    shapes = cycle.mm.shapes
    statics = shapes.static_vectors
    # the first offer of each shared vector and every third other one leave
    firsts: set[int] = set()
    for offer, vector in statics.found:
        if id(vector) not in firsts:
            firsts.add(id(vector))
            offer.available = False
    for offer in statics.noted[::3]:
        offer.available = False
    assert not statics.all_available()
    found, shapes_of = _old_pass(shapes)
    want = _kept(found, shapes_of, cycle.offers)
    numbers = cycle.mm.table._numbers
    numbers.of(cycle.offers[0])
    assert _noted(statics) == found
    assert statics.shapes_of == shapes_of
    assert {seq: v.static for seq, v in numbers._vectors.items()} == want
