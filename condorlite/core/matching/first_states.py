"""What ``Matchmaker.prepare`` worked out for a slot's first state, shared by identity.

The readers share one (spelling, expression) entry object between every ad holding
the same line, so the slots of one machine type mostly hold the very same entries.
Everything the first ``prepare`` of a slot works out is a function of its kind, of
whether it is held, and of its bindings of the names its walk visited (``N``: the
walked names and every name a job-independent policy rank reaches):

* the walk (``slot_walks``) follows only those bindings;
* the job-independent policy ranks read only the names they reach, all in ``N``;
* the pair shape key and the resource vector read the walked names (the resource
  names are among them: the walk starts from them).

So a slot whose table holds, for every name of some remembered ``N``, the same entry
objects as an earlier slot of the same kind and busy flag whose walk visited exactly
``N`` gets that slot's record: the walk from the same bindings visits ``N`` again,
and every value is the same. The test is one C-level pass of lookups per ``N`` (a few
per cycle). The entries are held with the record, so their ids stay theirs while the
record lives.

Who holds a slot and its CurrentRank are not in the record: the shape is made from
them per offer (``Matchmaker._reshape``).

*Loose records* (``find_loose``): a held slot binds names only its job-independent
ranks read (``TotalJobRunTime``, ``RemoteUserPrio``) to literals of its own, and
every slot binds ``KFlops`` and ``SlotID`` (read by the default post-job rank) to
its own numbers, so no other slot holds its entries. The walk reads, of each
visited name, only whether it is bound and the references of its binding, and a
literal refers to nothing; so a slot that holds the same entries for the walked
names ``W`` and, for each other visited name ``R``, is alike absent, a literal (any
value) or the same entry, walks as the recorded slot, and its pair shape key and
resource vector (made of ``W``'s bindings: the resources and hidden literals are
walked names) are the same. Its job-independent ranks and, with a vector, their
program keys (``rank_keys``, ``rank_sig``), which read ``R``, are worked out again
for the slot itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Literal
from condorlite.core.matching.slot_vectors import SlotVector

#: at most this many records are kept in a cycle: slots with entries of their own
#: (a held slot's RemoteUserPrio, TotalJobRunTime) never share theirs, so the memo
#: is bounded rather than grown by every such slot of a large pool
LIMIT = 1 << 15
#: at most this many visited-name sets per busy flag (a few in practice)
SETS = 8
#: lookups in a row without a hit after which ``find`` stops looking for a flag
#: (misses by slots of a new kind not counted: ``new_kind``). A miss costs about
#: what the longer way costs the slot (the lookups, then keeping its record: 1k
#: partitionable mix, session 30), so a flag whose slots of seen kinds keep missing
#: (each holds numbers of its own: KFlops, a free Disk share) is given up soon.
TRIES = 32
#: ``find_loose`` stops for a busy flag once it has missed ``TRIES`` times and hit
#: fewer than one lookup in ``LOOSE_SHARE`` (slots whose walked names hold numbers of
#: their own, a free ``Disk`` share: each would keep a record no later slot matches)
LOOSE_SHARE = 8


class VectorParts(NamedTuple):
    """A first state's resource vector as ``prepare`` left it: what a later slot's
    fresh ``SlotVector`` copies (``FirstState.new_vector``)."""

    names: tuple[str, ...]
    vals: tuple
    index: dict[str, int]
    static: int
    rank_keys: dict[str, tuple]
    rank_sig: int
    constants: dict[str, float]
    literals: int


@dataclass(frozen=True, slots=True)
class FirstState:
    """What the first ``prepare`` of a slot gave: ``walk`` is (flags, walked names,
    reaches); ``independent`` the job-independent policy ranks (read-only: copied
    into each offer); ``pair_key`` the pair shape key, numbered ``pair_shape``;
    ``vector`` the resource vector's parts or None."""

    entries: tuple
    walk: tuple
    independent: dict
    pair_key: tuple
    #: the matchmaker's number of ``pair_key``
    pair_shape: int
    vector: VectorParts | None

    def new_vector(self) -> SlotVector | None:
        """A fresh ``SlotVector`` equal to the first slot's as ``prepare`` left it
        (each offer carves its own)."""
        if self.vector is None:
            return None
        parts = self.vector
        return SlotVector(parts.names, parts.vals, parts.index, static=parts.static,
                          rank_keys=dict(parts.rank_keys), rank_sig=parts.rank_sig,
                          constants=dict(parts.constants), literals=parts.literals)


class FirstStates:
    """The records of one cycle (see the module doc)."""

    def __init__(self) -> None:
        #: busy -> [(visited names N, {(kind, entry ids of N) -> FirstState})]
        self._sets: dict[bool, list[tuple[tuple[str, ...], dict[tuple, FirstState]]]] = {
            False: [], True: []}
        self._count = 0
        #: busy -> lookups since the last hit (``find``), or -1 once given up (read
        #: by ``OfferPrep.prepare``, which then asks ``find`` no more)
        self.tries: dict[bool, int] = {False: 0, True: 0}
        #: busy -> [loose hits, loose misses], or None once ``find_loose`` has given up
        #: (read by ``OfferPrep.prepare``, which then asks it no more)
        self.loose_counts: dict[bool, list[int] | None] = {False: [0, 0], True: [0, 0]}
        #: busy -> whether either lookup still reads records (false once both have
        #: given up: ``keep`` would store nothing, so ``OfferShapes`` asks it no more)
        self.keeping: dict[bool, bool] = {False: True, True: True}
        #: id(a walk's reaches) -> (the reaches, the walked names, (visited names,
        #: their records) or None, (W, R, their loose records) or None), for ``keep``
        self._visited: dict[int, tuple] = {}
        #: busy -> [(walked names W, other visited names R, {(kind, entry ids of W,
        #: ``_kind`` of R's entries) -> FirstState})]
        self._loose: dict[bool, list[tuple[tuple, tuple, dict[tuple, FirstState]]]] = {
            False: [], True: []}

    def find(self, ad: ClassAd, busy: bool, kind: str) -> FirstState | None:
        """The record of an earlier slot this one shares its entries with, or None.

        After ``TRIES`` lookups for one busy flag without a hit (held slots with
        literals of their own; a slot of a new kind's miss taken back: ``new_kind``),
        that flag's lookups stop: a miss only sends the slot down a longer way to
        the same outcome."""
        table = adeval.table(ad)
        tries = self.tries
        if table is None or tries[busy] < 0:
            return None
        get = table.get
        for names, records in self._sets[busy]:
            found = records.get((kind, tuple(map(id, map(get, names)))))
            if found is not None:
                tries[busy] = 0
                return found
        tries[busy] = -1 if tries[busy] + 1 >= TRIES else tries[busy] + 1
        if tries[busy] < 0:
            self._given_up(busy)
        return None

    def find_loose(self, ad: ClassAd, busy: bool, kind: str) -> FirstState | None:
        """A loose record (module doc) this slot matches, or None. Its
        ``independent`` is empty and its vector's rank keys are the recorded slot's:
        the caller works the ranks and their keys out. Gives up for good for a busy
        flag after ``TRIES`` misses (as ``find`` counts them) when fewer than one
        lookup in ``LOOSE_SHARE`` hit (then ``keep`` keeps no loose record for it
        either): a miss only sends the slot down a longer way to the same outcome."""
        table = adeval.table(ad)
        counts = self.loose_counts[busy]
        if table is None or counts is None:
            return None
        get = table.get
        for walked, others, records in self._loose[busy]:
            # (``_kinds`` inline: no call for every slot)
            found = records.get((kind, tuple(map(id, map(get, walked))), tuple([
                0 if entry is None else 1 if type(entry[1]) is Literal else id(entry)
                for entry in map(get, others)])))
            if found is not None:
                counts[0] += 1
                return found
        counts[1] += 1
        if counts[1] >= TRIES and counts[0] * LOOSE_SHARE < counts[1]:
            self.loose_counts[busy] = None
            self._given_up(busy)
        return None

    def _given_up(self, busy: bool) -> None:
        """Note that a lookup gave up for the busy flag: ``keeping`` turns false once
        both have."""
        self.keeping[busy] = self.tries[busy] >= 0 or self.loose_counts[busy] is not None

    def new_kind(self, ad: ClassAd, busy: bool) -> None:
        """Take back the misses of a slot (``ad``) that no record of any kind
        served, not even a ``kind_records`` one (its walk is worked out in full:
        ``OfferPrep.prepare``). The first slot of a machine type misses whatever
        is kept; only misses by slots of kinds seen before say that later slots
        will miss too, so only those count towards ``TRIES`` (slots of many types
        interleaved are not given up on). A lookup that has given up counts
        nothing, and neither does one for an ad that is not ClassAd-lite."""
        if adeval.table(ad) is None:
            return
        if self.tries[busy] > 0:
            self.tries[busy] -= 1
        counts = self.loose_counts[busy]
        if counts is not None and counts[1] > 0:
            counts[1] -= 1

    def keep(self, ad: ClassAd, busy: bool, kind: str, walk: tuple, independent: dict,
             pair_key: tuple, pair_shape: int, vector: SlotVector | None) -> None:
        """Remember what ``prepare`` gave for a slot's first state (``walk`` as
        ``SlotWalks.walk`` returned it; ``vector`` as ``prepare`` left it)."""
        table = adeval.table(ad)
        if table is None or self._count >= LIMIT or (
                self.tries[busy] < 0 and self.loose_counts[busy] is None):
            return  # (nothing kept would be read: both lookups have given up)
        # (walks are shared between slots: their visited names are found once each)
        _, walked, reaches = walk
        known = self._visited.get(id(reaches))
        if known is None or known[0] is not reaches or known[1] is not walked:
            known = self._visited[id(reaches)] = (
                reaches, walked, *self._records(busy, walked, reaches))
        parts = None if vector is None else VectorParts(
            vector.names, vector.vals, vector.index, vector.static,
            dict(vector.rank_keys), vector.rank_sig, dict(vector.constants),
            vector.literals)
        if known[2] is not None and self.tries[busy] >= 0:
            # (once ``find`` has given up for this busy flag it reads no record: a
            # record kept after that would only cost its making)
            names, records = known[2]
            entries = tuple(map(table.get, names))
            records[(kind, tuple(map(id, entries)))] = FirstState(
                entries, walk, dict(independent), pair_key, pair_shape, parts)
            self._count += 1
        if known[3] is not None and self.loose_counts[busy] is not None:
            names, others, records = known[3]
            entries = tuple(map(table.get, names)) + tuple(map(table.get, others))
            key = (kind, tuple(map(id, entries[:len(names)])), _kinds(table.get, others))
            if key not in records:
                records[key] = FirstState(entries, walk, {}, pair_key, pair_shape, parts)
                self._count += 1

    def _records(self, busy: bool, walked: tuple[str, ...], reaches: dict) -> tuple:
        """The visited names of a walk and the records kept under them, and the
        walked names, the other visited names and the loose records kept under
        them (each None when the busy flag has as many name sets as it may keep)."""
        visited = set(walked)
        for reach in reaches.values():
            visited |= reach
        names = tuple(sorted(visited))
        others = tuple(sorted(visited - set(walked)))
        sets = self._sets[busy]
        records = next((r for n, r in sets if n == names), None)
        if records is None and len(sets) < SETS:
            records = {}
            sets.append((names, records))
        loose_sets = self._loose[busy]
        loose = next((r for w, o, r in loose_sets if w == walked and o == others), None)
        if loose is None and len(loose_sets) < SETS:
            loose = {}
            loose_sets.append((walked, others, loose))
        return (None if records is None else (names, records),
                None if loose is None else (walked, others, loose))


def _kinds(get: Callable[[str], tuple | None], names: tuple[str, ...]) -> tuple:
    """``_kind`` of the ad's entries for ``names`` (``get``: its table's ``get``), in
    one comprehension (no call per name: this runs for every slot)."""
    return tuple([0 if entry is None else 1 if type(entry[1]) is Literal else id(entry)
                  for entry in map(get, names)])


def _kind(entry: tuple | None) -> int:
    """How a loose record keys a binding only job-independent ranks read: absent
    (0), a literal (1, whatever its value), else the entry's identity."""
    if entry is None:
        return 0
    return 1 if type(entry[1]) is Literal else id(entry)
