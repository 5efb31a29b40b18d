"""``offer_pool.build_offers``: a holder's ``Remote*`` attributes as shared entries."""

from __future__ import annotations

from condorlite.core import adeval
from condorlite.core.classad import parse_ads
from condorlite.core.classad.ast import Literal
from condorlite.core.model import slot_from_ad
from condorlite.core.negotiation.offer_pool import build_offers
from condorlite.core.policy import Policy

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
