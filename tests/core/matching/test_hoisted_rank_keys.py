"""``Reasons.rank_key`` of a desktop whose own literals were hoisted (``own_literals``):
keyed as the same desktop left as it was, so held desktops of one owner share the
slot Rank of a class whether their ads kept the rewrite or not; desktops of other
owners, or of another Rank, keep keys of their own."""

from __future__ import annotations

from types import SimpleNamespace

from condorlite.core import adeval
from condorlite.core.ad_decoder import slot_from_ad
from condorlite.core.classad import parse_ads
from condorlite.core.matching.evaluation_count import EvaluationCount
from condorlite.core.matching.own_literals import OwnLiterals
from condorlite.core.matching.reasons import Reasons, unhoisted
from condorlite.core.matching.shape_keys import ShapeKeys
from condorlite.core.negotiation.offer_pool import build_offers
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import ad_text

POLICY = Policy(uid_domain="example.org")


def _offer(n: int, rank: str, owner: str = "alice"):  # type: ignore[no-untyped-def]
    text = ad_text(dict(
        Name=f'"slot1@desk{n}"', Machine=f'"desk{n}"', State='"Unclaimed"', Activity='"Idle"',
        Cpus=4, Memory=8192, Disk=1000 * n, Arch='"X86_64"', OpSys='"LINUX"', Bonus=2,
        Start=f'(TARGET.Owner == "{owner}") || (MY.Disk > 5)', Requirements="START",
        Rank=rank.format(owner=owner), CurrentRank="0.0", SlotWeight="Cpus"))
    ad = next(iter(parse_ads(text)))
    offer = build_offers([slot_from_ad(ad, POLICY, 0)], [], 0.0, lambda user: {})[0]
    offer.pair_shape = n  # (its own pair shape: each its own Disk)
    return offer


def _hoist(hoist: OwnLiterals, offer) -> tuple[str, ...]:  # type: ignore[no-untyped-def]
    offer.literals = hoist.hoist(offer)  # (as ``Matchmaker.prepare`` records them)
    return offer.literals


def _reasons() -> Reasons:
    table = SimpleNamespace(now=0, per_submitter=False, pair=None, preemption_allowed=None,
                            static_vector=None, static_program=None)
    return Reasons(table, EvaluationCount(), ShapeKeys())  # type: ignore[arg-type]


RANK = '(TARGET.Owner == "{owner}") * 10 + Bonus'


def test_a_hoisted_desktop_keys_its_rank_as_left_alone() -> None:
    reasons, hoist = _reasons(), OwnLiterals()
    plain = _offer(1, RANK)
    hoisted = _offer(2, RANK)
    assert _hoist(hoist, hoisted)  # (its Rank and Start rewritten)
    assert adeval.attr(hoisted.ad, "rank") != adeval.attr(plain.ad, "rank")
    assert reasons.rank_key(hoisted) == reasons.rank_key(plain)
    # the Rank put back is the original, its hidden names no longer reached
    back = unhoisted(hoisted.ad, ("bonus", "rank"))
    assert adeval.attr(back, "rank") == adeval.attr(plain.ad, "rank")
    # another owner, hoisted or not, and another Rank: keys of their own
    bob, bob_hoisted = _offer(3, RANK, "bob"), _offer(4, RANK, "bob")
    _hoist(hoist, bob_hoisted)
    assert reasons.rank_key(bob) == reasons.rank_key(bob_hoisted) != reasons.rank_key(plain)
    other = _offer(5, '(TARGET.Owner == "{owner}") * 20 + Bonus')
    _hoist(hoist, other)
    assert reasons.rank_key(other) not in (reasons.rank_key(plain), reasons.rank_key(bob))


def test_the_put_back_rank_evaluates_as_the_hoisted_one() -> None:
    hoisted = _offer(2, '(TARGET.Owner == "{owner}" && "x" != TARGET.Group) * 10 + Bonus')
    _hoist(OwnLiterals(), hoisted)
    back = unhoisted(hoisted.ad, ("bonus", "rank"))
    for owner, group in (("alice", "x"), ("alice", "y"), ("bob", "y")):
        job = next(iter(parse_ads(f'Owner = "{owner}"\nGroup = "{group}"\n')))
        assert (adeval.eval_attr(back, "rank", job, 0)
                == adeval.eval_attr(hoisted.ad, "rank", job, 0))
