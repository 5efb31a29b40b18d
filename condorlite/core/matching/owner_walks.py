"""The static shapes a class asks one by one, less the desktops its owner is ruled out of.

``static_lists`` asks ``MatchTable.pair`` for each shape of no sorted static part
(``StaticParts.groups``' walked shapes). For a desktop evaluated in full (own literals,
no shared part: ``MatchTable.static_vector`` is None) that ends in the owner gate
(``owner_gates.OwnerGates``), whose verdict depends on the job's ``Owner`` string and
the pair shape alone. So the walked shapes are split once per (grouping, owner)
(``OwnerWalk``): the desktops whose gate rules the owner out get ``NO_MATCH`` in the
class's pair table and one evaluation each, as ``MatchTable.pair`` would record and
count them, without being asked; the rest are asked as before. Every class of one
owner shares the split (at 1,000 x 10,000 static mix the split cuts the cycle's
instructions by 4.8 %, RESULTS "skip32").

Invariants: a split is made from the grouping's walked list object (a new grouping is a
new list: the splits are made again); a shape that leaves after a split is passed over
where the lists are read (none comes back), a desktop that had left when the split was
made is in neither part; a class whose job has no string ``Owner`` asks every shape.
"""

from __future__ import annotations

from typing import NamedTuple

from condorlite.core.adeval import ClassAd
from condorlite.core.matching.candidates import NO_MATCH, PairEval
from condorlite.core.matching.match_table import MatchTable
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.owner_gates import owner_of

#: whether the walked shapes are split per class owner (the tests switch it)
BY_OWNER = True


class OwnerWalk(NamedTuple):
    """The walked shapes split for one owner (``OwnerWalks._by_owner``)."""

    #: those to ask (``MatchTable.pair``), in the walked order
    asked: list[int]
    #: desktops evaluated in full whose pair shape's owner gate rules the owner out:
    #: their pair is ``NO_MATCH`` without asking
    ruled: list[int]


class OwnerWalks:
    """A cycle's splits of the walked static shapes by owner (module doc)."""

    def __init__(self, registry: list[Offer], members: dict[int, dict[int, None]],
                 pair_of: dict[int, int], table: MatchTable) -> None:
        #: the offers by ``seq``, the static shapes' available members and each shape's
        #: pair shape (read, never changed here)
        self.registry, self.members, self.pair_of = registry, members, pair_of
        self._vector = table.static_vector
        self._gates = table.gates
        self._counts = table.counts
        #: the walked shapes ``_owner_walks`` was split from, and the split per owner
        self._owner_walked: list[int] | None = None
        self._owner_walks: dict[str, OwnerWalk] = {}
        #: those of the walked shapes a gate may rule out (``_desktops_of``)
        self._desktops: list[int] = []

    def asked(self, job_ad: ClassAd, walked: list[int],
              known_pairs: dict[int, PairEval]) -> list[int]:
        """The shapes of ``walked`` a class asks one by one: all of them, but the
        desktops its owner is ruled out of, recorded ``NO_MATCH`` in ``known_pairs``
        (the class's pair table) and counted as one evaluation each when not known
        yet, as ``MatchTable.pair`` would."""
        # (no desktop evaluated in full, as on a pool without desktops: nothing to split)
        if not (BY_OWNER and self._desktops_of(walked)):
            return walked
        owner = owner_of(job_ad)
        if owner is None:
            return walked
        split = self._by_owner(owner, job_ad, walked)
        members, pair_of = self.members, self.pair_of
        ruled_out = 0
        for shape in split.ruled:
            if shape in members:
                pair_shape = pair_of[shape]
                if pair_shape not in known_pairs:
                    known_pairs[pair_shape] = NO_MATCH
                    ruled_out += 1
        self._counts.evaluations += ruled_out
        return split.asked

    def _desktops_of(self, walked: list[int]) -> list[int]:
        """Those of ``walked`` a gate may rule out: desktops (own literals) evaluated
        in full, found once per grouping; the splits of the grouping before are
        dropped."""
        if self._owner_walked is not walked:
            registry, members, vector_of = self.registry, self.members, self._vector
            self._owner_walked, self._owner_walks = walked, {}
            self._desktops = [
                shape for shape in walked if shape in members
                and (offer := registry[next(iter(members[shape]))]).literals
                and vector_of(offer) is None]
        return self._desktops

    def _by_owner(self, owner: str, job_ad: ClassAd, walked: list[int]) -> OwnerWalk:
        """``walked`` split for a class whose job's ``Owner`` is ``owner``, once per
        owner and grouping (``_desktops_of`` asked first): ``OwnerGates.rules_out``
        per desktop still available (``job_ad`` makes a gate not made yet)."""
        found = self._owner_walks.get(owner)
        if found is None:
            registry, members = self.registry, self.members
            rules_out = self._gates.rules_out
            ruled = [shape for shape in self._desktops if shape in members
                     and rules_out(owner, job_ad, registry[next(iter(members[shape]))])]
            if ruled:
                out = set(ruled)
                found = OwnerWalk([shape for shape in walked if shape not in out], ruled)
            else:
                found = OwnerWalk(walked, ruled)
            self._owner_walks[owner] = found
        return found
