"""``offer_pool.build_offers``: a holder's ``Remote*`` attributes as shared entries."""

from __future__ import annotations

from condorlite.core import adeval
from condorlite.core.ad_decoder import slot_from_ad
from condorlite.core.classad import parse_ads
from condorlite.core.classad.ast import Literal
from condorlite.core.matching.own_literals import OwnLiterals
from condorlite.core.matching.own_policy import OwnPolicy
from condorlite.core.matching.own_rewrites import OwnRewrites
from condorlite.core.negotiation.offer_pool import build_offers
from condorlite.core.policy import Policy
from tests.core._pool import decoded_texts

REMOTE = {"RemoteUserPrio": 12.5, "RemoteUserResourcesInUse": 3.0, "RemoteGroup": "<none>"}


def _slot(i: int, user: str, extra: str = ""):
    text = (f'Name = "slot{i}@m"\nMachine = "m"\nState = "Claimed"\nActivity = "Busy"\n'
            f'RemoteUser = "{user}"\nCpus = 1\nMemory = 1024\nStart = true\n{extra}')
    return slot_from_ad(next(iter(parse_ads(text))), Policy(), 0)


def test_the_ads_one_user_holds_share_its_remote_entries():
    asked: list[str] = []

    def remote_of(holder: str) -> dict[str, object]:
        asked.append(holder)
        return dict(REMOTE, RemoteUserPrio=12.5 if holder == "alice" else 0.5)

    slots = [_slot(1, "alice"), _slot(2, "alice"), _slot(3, "bob"),
             _slot(4, "alice", "remoteuserprio = 99\n")]
    offers = build_offers(slots, [], 0.0, remote_of)
    assert asked == ["alice", "bob"]  # once per holder
    tables = [adeval.table(o.ad) for o in offers]
    a1, a2, b, odd = tables  # (Name order: slot1..slot4)
    for name in ("remoteuserprio", "remoteuserresourcesinuse", "remotegroup"):
        assert a1[name] is a2[name]  # type: ignore[index]
    assert a1["remoteuserprio"] == ("RemoteUserPrio", Literal(12.5))  # type: ignore[index]
    assert b["remoteuserprio"][1] == Literal(0.5)  # type: ignore[index]
    # an ad that spells a name otherwise keeps its spelling, with the holder's value
    assert odd["remoteuserprio"] == ("remoteuserprio", Literal(12.5))  # type: ignore[index]
    # the entries follow the ad's own, and the slots' ads are untouched
    assert list(a1)[-3:] == ["remoteuserprio", "remoteuserresourcesinuse", "remotegroup"]
    assert all(adeval.attr(s.ad, "RemoteUserPrio") is None for s in slots[:3])


def test_a_held_offers_own_copy_is_rewritten_in_place_as_a_copy_would_be():
    """A held slot's ad is a copy ``build_offers`` made for the offer alone
    (``Offer.private``): the rewrite binds its entries in it, giving the table a
    fresh copy would hold, and leaves the slot's ad untouched; an idle slot's ad
    (the slot's own) is copied."""
    policy = Policy()
    common = 'Machine = "m"\nCpus = 1\nMemory = 1024\nRequirements = START\n' \
             'Start = Cpus > 0 && TARGET.Owner =!= "x"\n'
    texts = [f'Name = "slot{i}@m"\nState = "Claimed"\nActivity = "Busy"\n'
             f'RemoteUser = "alice"\n{common}' for i in range(1, 5)]
    texts.append(f'Name = "slot9@m"\nState = "Unclaimed"\nActivity = "Idle"\n{common}')
    slots, _ = decoded_texts(texts, [], policy, shared=True)
    fast = build_offers(slots, [], 0.0, lambda holder: dict(REMOTE))
    plain = build_offers(slots, [], 0.0, lambda holder: dict(REMOTE))
    assert [o.private for o in fast] == [True] * 4 + [False]
    ads = [o.state_ad for o in fast]
    own_policy, own_literals = OwnPolicy(frozenset({"cpus", "memory", "disk"})), OwnLiterals()
    rewrites = OwnRewrites(own_policy, own_literals)
    for a, b in zip(fast, plain, strict=True):
        rewrites.rewrite(a)
        # (the same two modules, so the rewritten entries are the same objects)
        b.literals = own_literals.hoist(b, own_policy.changes(b))
        assert not a.private
        ta, tb = adeval.table(a.state_ad), adeval.table(b.state_ad)
        # (each ``build_offers`` made its own Remote* entries: equal, not the same)
        assert list(ta) == list(tb)
        assert all(ta[n] is tb[n] or (n.startswith("remote") and ta[n] == tb[n]) for n in ta)
        assert ta["start"] is not adeval.table(a.slot.ad)["start"]  # (folded)
    assert sum(counts[0] for counts in rewrites._counts.values()) == 4  # (hits)
    # the later held offers' ads were filled in place; the slots' ads untouched
    assert [a.state_ad is ad for a, ad in zip(fast, ads, strict=True)] == [
        False, True, True, True, False]
    assert all(adeval.attr(s.ad, "RemoteUserPrio") is None for s in slots)
