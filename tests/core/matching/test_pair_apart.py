"""Static slots told apart by one literal (``OfferShapes.apart``): their pair shapes
are numbered without their keys made, exactly as numbering each slot's key in turn
(``pair_number``) numbers them, whatever keys of the same head come before, between
or after; and on a pool where every static slot's ``Disk`` is its own, the cycle's
run slots are so numbered.

Unit: one head (kind, busy, flags; names; numbers) whose literal part is a slot's
``Disk`` and ``Memory``, slots told apart by ``Disk``, keys of the same head numbered
by ``pair_number`` in between, against a second ``OfferShapes`` numbering every key.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace

from condorlite.core.classad import parse_ad
from condorlite.core.matching import offer_shapes
from condorlite.core.matching.matchmaker import Matchmaker
from condorlite.core.matching.offer_shapes import OfferShapes
from condorlite.core.matching.shape_keys import literal_reprs
from condorlite.core.negotiation import negotiator
from condorlite.core.policy import Policy
from tests.core._pool import decoded_pool
from tests.core.matching.test_init_sharing import NOW

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import genpool  # a script directory, not a package

HEAD = (("static", False, ()), ("disk", "memory", "requirements"), (0, 0, 7))
LITERALS = ("disk", "memory")


def _shapes() -> OfferShapes:
    return Matchmaker(Policy(), NOW, frozenset(), frozenset()).shapes


def _ad(disk: int, memory: int = 4) -> object:
    return parse_ad(f"Disk = {disk}\nMemory = {memory}\nRequirements = Disk > 0")


def _offer() -> SimpleNamespace:
    return SimpleNamespace(holder=None, current_rank=0.0, vector=None, pair_shape=0)


def _key(ad: object) -> tuple:
    return (*HEAD, literal_reprs(ad, LITERALS))


def test_told_apart_numbers_as_every_key_in_turn():
    """Keys before, between and after the slots told apart, some equal to one of
    theirs (the same ``Disk`` and ``Memory``) and some meeting one of their ``Disk``
    values only: every slot gets the number that numbering each key in turn gives,
    and ``pair_keys`` holds every key numbered."""
    shapes, full = _shapes(), _shapes()
    steps: list[tuple[str, object]] = [("key", _ad(10)), ("key", _ad(11, 8))]
    group = [_ad(20), _ad(21), _ad(22), _ad(23), _ad(24)]
    steps.append(("apart", group))
    steps += [("slot", 0), ("key", _ad(21)),        # meets a slot not numbered: equal
              ("slot", 1), ("key", _ad(20, 16)),    # meets a numbered slot: not equal
              ("key", _ad(20)),                      # equal to a numbered slot
              ("slot", 2), ("key", _ad(23, 8)),    # meets a slot not numbered: not equal
              ("slot", 3), ("slot", 4), ("key", _ad(24)), ("key", _ad(30))]
    unkeyed = None
    got, want = [], []
    for step, what in steps:
        if step == "apart":
            unkeyed = shapes.apart(HEAD, LITERALS, what)  # type: ignore[arg-type]
            assert unkeyed is not None
            continue
        if step == "key":
            got.append(shapes.pair_number(_key(what)))
            want.append(full.pair_number(_key(what)))
            continue
        offer = _offer()
        shapes.shape_apart(offer, unkeyed[what])  # type: ignore[index]
        got.append(offer.pair_shape)
        want.append(full.pair_number(_key(group[what])))  # type: ignore[index]
    assert got == want
    assert shapes.pair_count == full.pair_count
    assert shapes.pair_keys() == full.pair_shapes


def test_slots_not_told_apart_by_the_literals_tried_get_keys():
    """Two slots with one ``Disk`` and one ``Memory``, or a ``Disk`` a key of the
    head already holds where the head tells apart by it: no slot told apart; a head
    none told apart at its first ask is not asked again."""
    shapes = _shapes()
    assert shapes.apart(HEAD, LITERALS, [_ad(5), _ad(5)]) is None
    assert shapes.apart(HEAD, LITERALS, [_ad(7), _ad(8)]) is None
    assert shapes.pair_number(_key(_ad(7))) == 1
    shapes = _shapes()
    shapes.pair_number(_key(_ad(6)))
    assert shapes.apart(HEAD, LITERALS, [_ad(7), _ad(8)]) is not None
    # (the head tells apart by Disk now: a Disk met before, or one repeated, is no
    # way apart, though Memory would be one)
    assert shapes.apart(HEAD, LITERALS, [_ad(6, 1), _ad(9, 2)]) is None
    assert shapes.apart(HEAD, LITERALS, [_ad(9, 1), _ad(9, 2)]) is None
    assert shapes.apart(HEAD, LITERALS, [_ad(9, 1), _ad(10, 2)]) is not None
    # (a Disk a key numbered before holds, no head told apart yet: Memory does it,
    # and the numbers are those of every key in turn)
    other, full = _shapes(), _shapes()
    assert other.pair_number(_key(_ad(6))) == full.pair_number(_key(_ad(6)))
    slots = [_ad(6, 1), _ad(7, 2)]
    unkeyed = other.apart(HEAD, LITERALS, slots)
    assert unkeyed is not None
    for ad, one in zip(slots, unkeyed, strict=True):
        offer = _offer()
        other.shape_apart(offer, one)  # type: ignore[arg-type]
        assert offer.pair_shape == full.pair_number(_key(ad))
    for ad in (_ad(6, 1), _ad(7, 4), _ad(7, 2)):
        assert other.pair_number(_key(ad)) == full.pair_number(_key(ad))
    assert other.pair_keys() == full.pair_shapes


def test_run_slots_of_a_disk_share_pool_are_told_apart(tmp_path, monkeypatch):
    """Every static slot's ``Disk`` its own (disk share): the run slots are told
    apart, no key made, and the pair shapes, shapes and the cycle's outcome are
    those of keys made for every slot (``apart`` never telling slots apart)."""
    policy = Policy(uid_domain="example.org")
    spec = genpool.PoolSpec(slots=160, jobs=500, submitters=5, autoclusters=14, seed=11,
                            realistic=True, unique=True, disk_share=True,
                            claimed_fraction=0.3, partitionable_fraction=0.3)
    slots, jobs = decoded_pool(genpool.write_pool(spec, tmp_path), policy, True)
    told: list[int] = []
    method = OfferShapes.apart

    def counting(self, head, literals, ads, read=None):
        found = method(self, head, literals, ads, read)
        told.append(0 if found is None else len(found))
        return found

    with monkeypatch.context() as patch:
        patch.setattr(OfferShapes, "apart", counting)
        apart = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
    with monkeypatch.context() as patch:
        patch.setattr(offer_shapes, "TRIES", 0)
        keyed = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
    assert sum(told) > len(slots) // 3, "most static slots should be told apart"
    assert len(apart.mm.shapes.pair_shapes) < len(keyed.mm.shapes.pair_shapes)
    assert apart.mm.shapes.pair_keys() == keyed.mm.shapes.pair_shapes
    assert [(o.pair_shape, o.shape) for o in apart.offers] == [
        (o.pair_shape, o.shape) for o in keyed.offers]
    assert apart.mm.evaluations == keyed.mm.evaluations
    apart.run()
    keyed.run()
    one, two = apart.result(), keyed.result()
    assert one.matches and one.matches == two.matches and one.rejections == two.rejections
