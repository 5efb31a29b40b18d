"""``turn_ads.TurnAds``: a class's job ad in a submitter's turn and its signature, equal
to ``request_lists.submitter_signature`` of the ad whatever names the class's own ad
binds, with accounting groups and without, for every submitter of a cycle."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from condorlite.core.classad import ClassAd, parse_ads
from condorlite.core.matching.offers import with_attrs
from condorlite.core.matching.request_lists import submitter_signature
from condorlite.core.negotiation.submitter_attrs import (
    GroupFacts,
    GroupTurn,
    submitter_attrs,
)
from condorlite.core.negotiation.turn_ads import TurnAds

#: a job ad binding names of the inserted ones in other cases (replaced), names of
#: the prefixes the negotiator never inserts (kept), and names around the prefixes
_OWN = """\
Owner = "alice"
RequestCpus = 1
SUBMITTERUSERPRIO = 99
submittorprio = "mine"
SubmitterCustom = 7
Submittorz = TARGET.Cpus + 1
Submittes = 1
Submittp = 2
"""
_PLAIN = 'Owner = "bob"\nRequestMemory = 512\n'


class _Other(ClassAd):  # not ClassAd-lite: no table to read the entries from
    __slots__ = ()


#: the classes' own ads: with names of the prefixes, without, and not ClassAd-lite
_OWN_AD, _PLAIN_AD = parse_ads(_OWN + "\n" + _PLAIN)
_CLASS_ADS = {0: _OWN_AD, 1: _PLAIN_AD, 2: _Other(_OWN_AD)}


def _ads(groups: GroupFacts | None) -> tuple[TurnAds, dict, dict]:
    ac = SimpleNamespace(representative={klass: SimpleNamespace(ad=ad)
                                         for klass, ad in _CLASS_ADS.items()})
    eup = {"alice": 2.5, "bob": 0.5}
    usage = {"alice": 3.0, "bob": 0.0}
    return TurnAds(ac, eup, usage, groups), eup, usage  # type: ignore[arg-type]


_GROUPS = GroupFacts(group_of=lambda name: "group_a" if name == "alice" else "<none>",
                     quota={"group_a": 10.0, "<none>": 0.0},
                     usage={"group_a": 3.0, "<none>": 0.0})


@pytest.mark.parametrize("groups", [None, _GROUPS])
def test_the_signature_is_the_ads_as_submitter_signature_reads_it(groups) -> None:
    ads, eup, usage = _ads(groups)
    group_turn = None if groups is None else GroupTurn("group_a", False, 5.0)
    for klass in (0, 1, 2):
        for name in ("alice", "bob", "alice"):
            made = ads.make(klass, name, group_turn)
            assert made.signature == submitter_signature(made.ad)
            # the ad is the class's own with the submitter's attributes bound
            attrs = submitter_attrs(name, eup, usage, groups, group_turn)
            expected = with_attrs(_CLASS_ADS[klass], attrs)
            assert dict(made.ad.items()) == dict(expected.items())
            usage[name] += 1.0  # (the next ad of the submitter reads its usage then)
    names = [n for n, _ in ads.make(0, "alice", group_turn).signature]
    # the class's own names of the prefixes kept, the inserted ones replacing theirs
    assert "submittercustom" in names and "submittorz" in names
    assert "submittes" not in names and "submittp" not in names
    assert dict(ads.make(0, "alice", group_turn).signature)["submitteruserprio"].value == 2.5


def test_a_signature_moves_with_the_submitters_usage() -> None:
    ads, _, usage = _ads(None)
    first = ads.make(1, "alice", None).signature
    usage["alice"] = 8.0
    second = ads.make(1, "alice", None).signature
    assert first != second
    assert dict(second)["submitteruserresourcesinuse"].value == 8.0
