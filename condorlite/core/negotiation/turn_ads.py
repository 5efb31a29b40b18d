"""A class's job ad in a submitter's turn, with its ``Submitter*`` signature.

A submitter's turn asks for a class's candidate list with the class's job ad: the
class's first job's ad with the submitter's attributes bound as literals
(``submitter_attrs``), made once per class and turn
(``submitter_turn.TurnNegotiator._start_walk``). The list keys its pair results, its
refusals and its held lists on the ad's ``Submitter*``/``Submittor*`` bindings in name
order (``request_lists.submitter_signature``), which reads every name of the ad: about
85 on a realistic job, some 1,300 opcodes per list (10k partitionable mix: 0.55 % of
the cycle's opcodes, 744 lists; every list pays it, the 300 that match nothing too).

Those bindings are of two kinds, and their names are known before the ad is made:

* the class's own: the names of those prefixes its representative's ad binds itself
  (the same in every list of the class), found once per class with the same rule
  (``submitter_signature`` of the representative's ad);
* the inserted ones: the names ``submitter_attrs`` binds, which are the same for every
  submitter of a cycle (they depend only on whether the cycle has accounting groups,
  fixed with the cycle's ``GroupFacts``).

So the names in order are found once per class (``TurnAds._names``) and each list
reads only their entries in the new ad: equal to ``submitter_signature`` of the ad,
entry for entry (the inserted names' ``Literal`` entries as ``with_attrs`` made them,
the class's others as its ad binds them; tested). An ad that is not ClassAd-lite has no
table to read from: it is scanned as before.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.matching.autocluster import Autoclusters
from condorlite.core.matching.offers import SUBMITTER_PREFIXES, with_attrs
from condorlite.core.matching.request_lists import submitter_signature
from condorlite.core.negotiation.submitter_attrs import GroupFacts, GroupTurn, submitter_attrs


class TurnAd(NamedTuple):
    """A class's job ad in one submitter's turn, and its ``Submitter*`` signature
    (``request_lists.submitter_signature`` of ``ad``)."""

    ad: ClassAd
    signature: tuple


class TurnAds:
    """The job ads of a cycle's turns (module doc): one ``make`` per class and turn;
    the signature's names kept per class for the cycle."""

    __slots__ = ("_ac", "_eup", "_groups", "_names", "_usage")

    def __init__(self, ac: Autoclusters, eup: Mapping[str, float],
                 usage: Mapping[str, float], groups: GroupFacts | None) -> None:
        self._ac = ac
        #: the cycle's EUP and usage per submitter, read when an ad is made (the usage
        #: is the submitter's at that time: ``submitter_attrs``)
        self._eup, self._usage, self._groups = eup, usage, groups
        #: class -> the lower-cased names of its ads' signature, in order
        self._names: dict[int, list[str]] = {}

    def make(self, klass: int, name: str, group_turn: GroupTurn | None) -> TurnAd:
        """The job ad of class ``klass`` in submitter ``name``'s turn (``group_turn``:
        the group turn under way), and its signature (module doc)."""
        own_ad = self._ac.representative[klass].ad
        attrs = submitter_attrs(name, self._eup, self._usage, self._groups, group_turn)
        ad = with_attrs(own_ad, attrs)
        table = adeval.table(ad)
        if table is None:
            return TurnAd(ad, submitter_signature(ad))
        names = self._names.get(klass)
        if names is None:
            own = {n for n, _ in submitter_signature(own_ad)}
            inserted = {n.lower() for n in attrs}
            names = self._names[klass] = sorted(
                own | {n for n in inserted if n.startswith(SUBMITTER_PREFIXES)})
        return TurnAd(ad, tuple([(n, table[n][1]) for n in names]))
