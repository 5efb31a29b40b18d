"""Slots that differ from an earlier slot only in the values of literals: its walk
and its ranks' plans, shared (one ``KindRecords`` per cycle, owned by
``offer_shapes.OfferShapes``).

``first_states`` shares a slot's first findings with a later slot that holds the
very same entries for the names the walk visited (a *record*), or the same entries
for the walked names and alike ones for the rest (a *loose record*). Where every
slot binds a walked name to a number of its own (a free ``Disk`` share as startds
report it, ``KeyboardIdle`` folded into a desktop's ``START``, a partitionable
slot's resources), neither ever matches, and each slot was worked out in full: its
walk, its job-independent ranks (a residual per layout, ``literal_ranks``), its
pair shape key.

The walk reads, of each visited name, only whether it is bound and the references
of its binding, and a literal refers to nothing (``slot_walks``); a job-independent
rank's plan (``first_ranks``) holds for every slot whose bindings of the names it
reaches have one layout (the same entry, or alike absent or a literal). So a slot
that holds, for each visited name of a record kept here, the same entry where the
recorded slot held an expression, and is alike absent or a literal (any value)
where the recorded slot was, walks as the recorded slot did and its ranks follow
the same plans. What reads the values, the pair shape key, the resource vector and
the ranks' values, is worked out for the slot itself (``OfferPrep._prepare_kinds``);
a static slot's pair shape key (``shape_keys.ShapeKeys.slot_key``: the numbers of
its walked bindings, absent names left out, 0 for a literal, then its literals'
values' ``repr``) from the record's *key plan*: the slots of a record bind each
walked name alike absent, to the same entry (the same number) or to a literal, so
only the literals are read (``pair_key``), where a key made anew would number every
walked binding and remember the slot's entries, which no other slot shares; and a
literal is read, not numbered (a ``Canon.number`` call a literal cost more: every
static slot of the 10k static mix has ~10, its ``Disk`` and ``KFlops`` its own).
The key is the one ``ShapeKeys.slot_key`` makes of the slot: equal keys, equal
bindings, whichever way a slot was prepared. ``pair_keys`` makes the keys of many
slots of one record at once, their literals read a column per name
(``OfferPrep.prepare_all``'s runs, where one literal does not tell the slots apart:
``OfferShapes.apart``; ``key_plan`` gives the plan for that).
The same holds for a key of any visited names (``names_key``:
a partitionable slot's pair-static key, its walked names less the vector's, and
its ranks' program keys, the names they reach less the vector's).

The test is a lookup by the addresses of the entries compared by identity and the
absent names' (0), then a pass over the literals, per kept name split (a few per
cycle, the last one found first): the entries compared by identity and the absent
names are keyed by their ``entry_keys.entry_key`` (an absent entry 0: a slot binding
a recorded absent name, or not binding a recorded expression's, has another key),
the literals tested (each bound, to a ``Literal``; a name absent or bound to another
expression: no record) and their values read in the same pass; the whole lookup over
the splits is one ``entry_keys.find_split`` call (one C call a slot). ``find_read``
gives the values with the record: what the slot's rank plans, its pair key and the
literal that tells static slots apart read are among them (``literal_columns``), so
a run of slots is read a column at a time from those rows, not from the slots'
tables again (``OfferPrep.prepare_all``).
The entries compared by identity are held with the record, so their addresses stay
theirs.
After ``TRIES`` misses with fewer than one lookup in ``SHARE`` hitting, a busy flag
is looked up no more (a miss only sends the slot the longer way to the same end).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import compress, repeat
from operator import itemgetter
from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Literal
from condorlite.core.entry_keys import entry_key, find_split
from condorlite.core.matching.first_states import FirstState
from condorlite.core.matching.shape_keys import literal_numbers, literal_reprs

#: at most this many name splits per busy flag (a few in practice)
SETS = 8
#: at most this many records in a cycle
LIMIT = 1 << 14
#: lookups before a busy flag may be given up, and the hit share it must keep
TRIES = 256
SHARE = 8


class KeyPlan(NamedTuple):
    """A record's pair shape keys (module doc): the walked names its slots bind, the
    numbers of their bindings (0 where a literal is), and the names bound to
    literals, in ``bound``'s order (their values' ``repr`` are the key's last part);
    ``positions``: those names' places among the record's ``literal`` names (where
    a slot's values ``find_read`` gave hold theirs)."""

    bound: tuple[str, ...]
    numbers: tuple[int, ...]
    literals: tuple[str, ...]
    positions: tuple[int, ...]


class KindRecord:
    """One record: ``state`` holds the walk (a ``first_states.FirstState``, which
    ``first_ranks`` keys its plans by), ``key_plan`` is made on the first hit;
    ``plans``, the key plans of other visited names (``names_key``), by names;
    ``literal``: the visited names its slots bind to literals (its split's), the
    order of the values ``find_read`` gives."""

    __slots__ = ("key_plan", "literal", "plans", "state")

    def __init__(self, state: FirstState, literal: tuple[str, ...]) -> None:
        self.state = state
        self.literal = literal
        self.key_plan: KeyPlan | None = None
        self.plans: dict[tuple[str, ...], KeyPlan] = {}


class _Split(NamedTuple):
    """A split of a record's visited names by the recorded slot's bindings: ``same``
    bound to expressions (compared by entry identity), ``literal`` bound to literals,
    ``absent`` not bound; the records kept under it, by kind of slot, then by
    ``entry_key`` of ``keyed`` (``same`` then ``absent``: each entry's address, an
    absent one 0). The first three fields are the split ``entry_keys.find_split``
    reads."""

    keyed: tuple[str, ...]
    literal: tuple[str, ...]
    records: dict[str, dict[object, KindRecord]]
    same: tuple[str, ...]
    absent: tuple[str, ...]


class KindRecords:
    """The cycle's records of walks by the kinds of their bindings (module doc).
    ``key`` is the shape keys' ``Canon.key`` (a key plan's numbers)."""

    def __init__(self, key: Callable[[ClassAd, tuple[str, ...]], tuple[int, ...]]) -> None:
        self._number_key = key
        #: busy -> its splits, the last one a slot was found under first (slots of
        #: one machine type come together)
        self._splits: dict[bool, list[_Split]] = {False: [], True: []}
        #: busy -> [hits, misses], or None once given up (read by
        #: ``OfferPrep.prepare``, which then asks ``find`` no more)
        self.counts: dict[bool, list[int] | None] = {False: [0, 0], True: [0, 0]}
        self._count = 0

    def find(self, ad: ClassAd, busy: bool, kind: str) -> KindRecord | None:
        """A record whose walk and rank plans hold for this slot (module doc), or
        None. Its state's ``walk`` is the slot's; its ``independent``, pair key
        and vector are empty: the caller works them out."""
        found = self.find_read(ad, busy, kind)
        return None if found is None else found[0]

    def find_read(self, ad: ClassAd, busy: bool, kind: str
                  ) -> tuple[KindRecord, tuple] | None:
        """``find``'s record, and the slot's values of the record's ``literal``
        names (in that order), as a pair; or None. The lookup over the splits is
        one ``find_split`` (module doc)."""
        table = adeval.table(ad)
        counts = self.counts[busy]
        if table is None or counts is None:
            return None
        splits = self._splits[busy]
        found = find_split(table, splits, kind, Literal, _VALUE)
        if found is None:
            counts[1] += 1
            if counts[1] >= TRIES and counts[0] * SHARE < counts[1]:
                self.counts[busy] = None
            return None
        at, record, values = found
        counts[0] += 1
        if at:
            splits.insert(0, splits.pop(at))
        return record, values

    def keep(self, ad: ClassAd, busy: bool, kind: str, walk: tuple) -> None:
        """Remember a slot's walk (as ``SlotWalks.walk`` returned it) under the
        kinds of its bindings of the names the walk visited."""
        table = adeval.table(ad)
        if table is None or self.counts[busy] is None or self._count >= LIMIT:
            return
        _, walked, reaches = walk
        visited = set(walked)
        for reach in reaches.values():
            visited |= reach
        names = sorted(visited)
        entries = list(map(table.get, names))
        same = tuple(n for n, e in zip(names, entries, strict=True)
                     if e is not None and type(e[1]) is not Literal)
        literal = tuple(n for n, e in zip(names, entries, strict=True)
                        if e is not None and type(e[1]) is Literal)
        absent = tuple(n for n, e in zip(names, entries, strict=True) if e is None)
        splits = self._splits[busy]
        split = next((s for s in splits if s.same == same and s.literal == literal
                      and s.absent == absent), None)
        if split is None:
            if len(splits) >= SETS:
                return
            split = _Split((*same, *absent), literal, {}, same, absent)
            splits.append(split)
        held = tuple(map(table.get, same))
        records = split.records.get(kind)
        if records is None:
            records = split.records[kind] = {}
        key = entry_key(table, split.keyed)
        if key not in records:
            records[key] = KindRecord(FirstState(held, walk, {}, (), 0, None), literal)
            self._count += 1

    def pair_key(self, record: KindRecord, ad: ClassAd, extra: tuple,
                 row: tuple | None = None) -> tuple:
        """The pair shape key of a slot that found ``record`` (module doc: the
        record's key plan, made from the first such slot, and the slot's literals;
        ``row``: as ``key``'s)."""
        return self.key(self.key_plan(record, ad), ad, extra, row)

    def key_plan(self, record: KindRecord, ad: ClassAd) -> KeyPlan:
        """The record's key plan, made from ``ad`` (a slot that found it) if not yet."""
        plan = record.key_plan
        if plan is None:
            plan = record.key_plan = self._plan(ad, record.state.walk[1], record.literal)
        return plan

    def pair_keys(self, record: KindRecord, ads: list[ClassAd], rows: list[tuple],
                  extra: tuple) -> list[tuple]:
        """``pair_key(record, ad, extra)`` of each of ``ads`` (slots that found
        ``record``, ClassAd-lite), in order, ``rows`` their values of
        ``record.literal`` (``find_read``): the key plan made from the first as
        ``pair_key`` makes it, each slot's literals taken from its row."""
        plan = self.key_plan(record, ads[0])
        head = (extra, plan.bound, plan.numbers)
        if not plan.literals:
            return [head] * len(ads)
        # (each slot's reprs as the tuple ``literal_reprs`` makes)
        return [(*head, tuple(map(repr, values)))
                for values in literal_columns(rows, record.literal, plan.literals)]

    def names_key(self, record: KindRecord, ad: ClassAd, names: tuple[str, ...],
                  extra: tuple, row: tuple | None = None) -> tuple:
        """The key of ``names`` (among the names the walk of a slot that found
        ``record`` visited) as ``pair_key`` makes it; the plan is kept per names.
        ``row``: as ``key``'s."""
        return self.key(self.names_plan(record, ad, names), ad, extra, row)

    def names_plan(self, record: KindRecord, ad: ClassAd, names: tuple[str, ...]) -> KeyPlan:
        """The key plan of ``names`` that ``names_key`` follows: kept per names, made
        from the first slot that asks (``ad``). ``key(plan, ad, extra)`` is then
        ``names_key(record, ad, names, extra)``, for a caller that keeps the plan."""
        plan = record.plans.get(names)
        if plan is None:
            plan = record.plans[names] = self._plan(ad, names, record.literal)
        return plan

    def _plan(self, ad: ClassAd, names: tuple[str, ...], literals: tuple[str, ...]
              ) -> KeyPlan:
        """The key plan of ``names`` made from the first slot's bindings
        (``literals``: the record's literal names)."""
        table = ad._attrs  # type: ignore[attr-defined]  # (found: ClassAd-lite)
        numbers = self._number_key(ad, names)
        bound = tuple(n for n, k in zip(names, numbers, strict=True) if k)
        literal = [type(table[name][1]) is Literal for name in bound]
        mine = tuple(compress(bound, literal))
        return KeyPlan(bound, literal_numbers(numbers, literal), mine,
                       tuple(map(literals.index, mine)))

    def key(self, plan: KeyPlan, ad: ClassAd, extra: tuple, row: tuple | None = None
            ) -> tuple:
        """``ShapeKeys.slot_key(ad, names, extra)`` of a slot of the plan: its
        literals read (from ``row``, the slot's values ``find_read`` gave, when
        given), nothing numbered."""
        if not plan.literals:
            return (extra, plan.bound, plan.numbers)
        if row is None:
            return (extra, plan.bound, plan.numbers, literal_reprs(ad, plan.literals))
        return (extra, plan.bound, plan.numbers,
                tuple(map(repr, map(row.__getitem__, plan.positions))))


def literal_columns(rows: list[tuple], literal: Sequence[str], names: Sequence[str]
                    ) -> Iterator[tuple]:
    """Per row of ``rows`` (each the values of ``literal``'s names, ``find_read``'s),
    the tuple of its values of ``names`` (some of ``literal``), in ``names``' order:
    one C-level pass over the rows (``itemgetter``), no slot's table read again."""
    if not names:
        return repeat((), len(rows))
    if len(names) == 1:
        return zip(map(itemgetter(literal.index(names[0])), rows))
    return map(itemgetter(*map(literal.index, names)), rows)


#: a ``Literal``'s value, as ``find_split`` reads it (the slot's member descriptor)
_VALUE = Literal.value  # type: ignore[attr-defined]
