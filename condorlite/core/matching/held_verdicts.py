"""A class's ``Requirements`` against the held groups, decided a *type* of slots at a
time (``held_walks`` walks what is left).

**A verdict per class and type.** Before a group's pair is evaluated (in full for a
desktop whose static part is its own, else by its part's program), the class's
``Requirements`` is specialised against a slot with the slot's resources (its names
bound to number literals: ``slot_vectors.vector_of``) left free
(``classad.partial``, as ``never_matches`` does for partitionable statics). The
residual equals the full evaluation at every value of those names, so: one that
holds for none (``NEVER``) rules the slot out whatever its numbers; one that reads
them is kept as a one-test program (a box of bounds, ``carving.PairProgram``) and run
at the slot's own numbers, ruling out those where it fails (while it rules out
enough to pay, ``held_types.ResidualTest``); otherwise the pair decides. The job's
literal requests of those resources are left free too, as parameters
(``pair_programs.job_params``): each class runs the residual with its own amounts
(``_test_of``: the one-test program made once per residual and amounts). The verdict
depends only on the names left free and on both ads' bindings of the names the
specialisation read (``partial``'s ``reads``): it is kept under (names left free,
requests left free) -> (names read of the job, of the slot) -> their numbers
(``expr_numbers``), so classes and slots that bind them alike share it (one
specialisation per class's Requirements and machine type, whatever its literal
requests: on the 10k static mix, 24 specialisations for 9,923 verdicts asked, 627
with the requests bound).

**Types.** The held groups are split into *types* (``_typed``): the same names left
free and the same numbers of every slot name some kept verdict read (a few names:
``Arch``, ``OpSys``, ``HasFileTransfer`` ...), remade when that union grows or a
group gains an offer. When only the union grew, the types are the old ones split by
the numbers of the names it gained (``_split``): the same types in the same order,
each group's slot kept, without reading again what the old names and the groups'
keys already gave. A class asks one verdict per type (``asked``); when it read
only names of the union it stands for every group of the type, so a type it rules
out is passed over whole (else each group asks its own). A class asks the verdicts
of every type before it walks, and when one read names outside the union (the first
class of new ``Requirements``), the types are made again first (at most ``RETYPES``
times), rather than a verdict per group. Each group's first offer, its numbers and
its policy key are worked out once per types made (``held_types.HeldSlot``). A held
offer's vector is worked out once per cycle: that of an offer of a shared static part
is its part's (``static_programs.StaticNumbers``, which works out every static offer's
once) less its own literals, the rest from its ad (``_vector``).

**The groups within a bound.** In a type whose verdict is a box, only the groups
within the bound the fewest of them pass are tried (``halves``; ``box_ranges``: the
type's groups sorted once by the bound's resource, bisected), each still by the
residual and the pair; a group outside a bound of the box fails it. Where every
bound can be told so (``box_ranges.split``), the groups on which every bound surely
holds are handed apart from the rest (``held_walks``: a part's box the verdict
implies passes there untested). Both are kept per type and the verdict's bounds
(``ResidualTest.key``): the classes of equal requests ask them once (on the 1k
partitionable mix, 778 of 1,355 asks).

**Emptied groups left out.** Once offers have left as many times as half the groups
the types hold, the emptied groups (most held groups empty as their offers are
preempted, and never gain one again) are left out of the types (``_compact``), and
out of each column made, filtered in its order (the column made afresh of the groups
left: ties keep the groups' order), not made again.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import compress

from condorlite.core.adeval import ClassAd
from condorlite.core.classad.partial import Constant, specialize_attribute
from condorlite.core.matching.box_ranges import Column, Split, column, narrowest, split
from condorlite.core.matching.candidates import HeldGroup, as_rank
from condorlite.core.matching.evaluation_count import EvaluationCount
from condorlite.core.matching.held_groups import HeldGroups
from condorlite.core.matching.held_refusals import GroupKeys
from condorlite.core.matching.held_types import (
    MISSING,
    HeldSlot,
    HeldType,
    ResidualTest,
    never_holds,
)
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.pair_programs import ResidualPrograms, job_params
from condorlite.core.matching.slot_vectors import StaticVector, VectorNumbers, int_now

#: the verdict "the job's Requirements hold for no values of the free names"
NEVER = object()

#: the ranks of a verdict's program (it answers the match by Requirements alone)
_ZERO = Constant(0.0)

#: ``asked`` makes the types again at most this many times when its verdicts read
#: names they do not split by (each time the union grows)
RETYPES = 3

#: at most this many sets of read names per class key (a lookup tries each; a class's
#: verdicts read a few: where its Requirements stop), as ``never_matches`` keeps
MAX_NAME_SETS = 32


class HeldVerdicts:
    """The cycle's types of held groups and kept verdicts (module doc). ``held``: the
    held groups (read only); ``number(ad, names)``: the numbers of the ad's bindings
    of ``names`` (``expr_numbers.Canon.key``); ``resource_names``: the names a slot's
    vector holds (left free); ``policy_key``: a group's keys
    (``held_refusals.GroupKeys``)."""

    def __init__(self, held: HeldGroups, registry: list[Offer],
                 number: Callable[[ClassAd, tuple[str, ...]], tuple],
                 resource_names: frozenset[str], now: float | None,
                 counts: EvaluationCount,
                 policy_key: Callable[[int, HeldGroup, Offer], GroupKeys],
                 statics: Callable[[], dict[int, StaticVector]] = dict) -> None:
        self._held = held
        self._statics = statics
        self._registry = registry
        self._policy_key = policy_key
        self._number = number
        self._resource_names = resource_names
        self._now = int_now(now)
        self._counts = counts
        #: (names left free, the job's requests left free) -> (names read in the job
        #: ad, names read in the slot) -> (the job's numbers of the first, the slot's
        #: of the second) -> verdict (``NEVER``, a residual of the free names, or
        #: None: ask the pair)
        self._verdicts: dict[tuple, dict[tuple, dict[tuple, object]]] = {}
        #: (id(a verdict's residual, which ``_verdicts`` holds), the params' values
        #: and their types) -> its one-test program for classes of those values
        self._tests: dict[tuple, ResidualTest] = {}
        #: their programs, a shape per residual (``pair_programs.ResidualPrograms``)
        self._programs = ResidualPrograms(_ZERO, as_rank)
        #: (class key, a vector's names) -> the class's job ad's literal requests of
        #: them (``pair_programs.job_params``)
        self._params: dict[tuple, tuple[tuple[str, ...], tuple]] = {}
        #: (class key, names) -> the class's job ad's numbers of them
        self._jobs: dict[tuple, tuple] = {}
        #: names read -> offer seq -> the offer's numbers of them
        self._numbers: dict[tuple[str, ...], dict[int, tuple]] = {}
        #: each held offer's numbers (``_vector``) not found in ``statics``
        self._vector_numbers = VectorNumbers(resource_names, StaticVector)
        #: offer seq -> its vector (resources bound to number literals) or None
        self._vectors: dict[int, StaticVector | None] = {}
        #: a static vector's names -> (those of its resources, their index): the
        #: resources' part of the vectors ``statics`` gives (``_vector``)
        self._resources: dict[tuple[str, ...], tuple[tuple[str, ...], dict[str, int]]] = {}
        #: every name of a slot some recorded verdict read (``_typed``)
        self._union: set[str] = set()
        #: offers removed from held groups when the types were last made or left
        #: without their emptied groups (``_compact``), and how many groups they held
        self._removed = 0
        self._slots = 0
        #: (``added``, the union's names when made, the same as a set, the types)
        self._types: tuple[int, tuple[str, ...], frozenset[str], list[HeldType]] | None = None
        #: every group's slot when the types were last made in full, in the held
        #: groups' order (``_split``)
        self._all: list[HeldSlot] = []

    def asked(self, klass: tuple, job_ad: ClassAd
              ) -> tuple[frozenset[str], list[HeldType], list[tuple[object, tuple[str, ...]]]]:
        """The types (``_typed``: with the union of names they split by) and the class
        key's verdict of each (``verdict``), the types made again first while a
        verdict read names they do not split by (module doc); emptied groups left out
        of them when that pays (``_compact``)."""
        verdict_of = self.verdict
        union, types = self._typed()
        asked = [verdict_of(klass, job_ad, held_type.first) for held_type in types]
        for _ in range(RETYPES):
            # (a verdict read names the types do not split by, and recorded them:
            # the types made again now, rather than a verdict asked per group)
            if len(self._union) == len(union) or all(
                    union.issuperset(names) for _, names in asked):
                break
            union, types = self._typed()
            asked = [verdict_of(klass, job_ad, held_type.first) for held_type in types]
        self._compact(types)
        return union, types, asked

    def verdict(self, klass: tuple, job_ad: ClassAd, offer: Offer
                ) -> tuple[object, tuple[str, ...]]:
        """The class key's job ``job_ad``'s ``Requirements`` against the held static
        offer, its resources left free (module doc): ``NEVER`` (it holds for no
        values of them), a one-test program of its residual (run at the offer's
        vector values), or None (nothing known: ask the pair); with the names of
        the slot it read (its verdict stands for any slot binding them alike)."""
        slot_ad = offer.ad
        vector = self._vector(offer)
        free = () if vector is None else vector.names
        # (the job's literal requests of the vector's resources left free too, as
        # ``pair_programs`` leaves them: classes that differ only in those numbers
        # share the verdict, each running its residual with its own values)
        # (one class key asks every type of the same names: worked out once per both)
        if vector is None:
            params, values = (), ()
        else:
            found_params = self._params.get((klass, free))
            if found_params is None:
                found_params = self._params[(klass, free)] = job_params(
                    job_ad, vector)  # type: ignore[arg-type]
            params, values = found_params
        # (a verdict holds for any values of the names left free: kept apart per set)
        by_names = self._verdicts.get((free, params))
        if by_names is None:
            by_names = self._verdicts[(free, params)] = {}
        for names, verdicts in by_names.items():
            job_names, slot_names = names
            found = verdicts.get((self._job_numbers(klass, job_ad, job_names),
                                  self._numbers_of(slot_names, offer)), MISSING)
            if found is not MISSING:
                return self._test_of(found, vector, values), slot_names
        reads: set[tuple[int, str]] = set()
        self._counts.evaluations += 1
        residual = specialize_attribute(
            job_ad, "Requirements", slot_ad,
            [*((slot_ad, name) for name in free), *((job_ad, name) for name in params)],
            self._now, reads)
        if never_holds(residual):
            found = NEVER  # (for any values of the params too)
        elif residual is None or type(residual) is Constant or vector is None:
            found = None  # (holds whatever the numbers; or nothing known)
        else:
            found = residual
        # (the free resources and params are not read as values, whatever they are;
        # any other ad's names, a record's, are keyed on both ads' bindings, which
        # keys more than needed, never less)
        mine, slot = id(job_ad), id(slot_ad)
        job_names = tuple(sorted({name for ad, name in reads
                                  if ad != slot and (ad != mine or name not in params)}))
        slot_names = tuple(sorted({name for ad, name in reads
                                   if ad != mine and (ad != slot or name not in free)}))
        names = (job_names, slot_names)
        if names in by_names or len(by_names) < MAX_NAME_SETS:
            by_names.setdefault(names, {})[(self._job_numbers(klass, job_ad, job_names),
                                            self._numbers_of(slot_names, offer))] = found
            self._union.update(slot_names)
        return self._test_of(found, vector, values), slot_names

    def _test_of(self, found: object, vector: StaticVector | None, values: tuple) -> object:
        """The verdict ``found`` as a class of the params' ``values`` runs it: a
        residual becomes a one-test program with those values (a box of bounds when
        it is a conjunction of them, run as a pair program's box is), made once per
        (residual, values); ``NEVER`` and None stand as they are."""
        if found is NEVER or found is None:
            return found
        key = (id(found), values, tuple(map(type, values)))
        test = self._tests.get(key)
        if test is None:
            test = self._tests[key] = ResidualTest(self._programs.program(
                found, len(vector.vals), vector.literals, values))  # type: ignore[arg-type, union-attr]
        return test

    def _typed(self) -> tuple[frozenset[str], list[HeldType]]:
        """The held groups with offers, split into *types*: the same names left free
        and the same numbers of every name a recorded verdict read of a slot
        (``_union``), so that a verdict reading only such names stands for every
        group of a type. Made again when a group gains an offer or the union grows
        (it grows a few times a cycle: the names classes' Requirements read). All
        offers of a pair shape bind alike what a pair reads: the first stands for
        the group."""
        added, names = self._held.added, tuple(sorted(self._union))
        found = self._types
        if found is not None and found[0] == added:
            if found[1] == names:
                return found[2], found[3]
            # (the union only grows: the old types split by the names it gained)
            types = self._split(tuple(sorted(self._union.difference(found[2]))))
        else:
            types = self._made(names)
        for kind, held_type in enumerate(types):
            for slot in held_type.slots:
                slot.kind = kind
        self._removed = self._held.epoch - self._held.added
        self._slots = sum(len(held_type.slots) for held_type in types)
        self._types = (added, names, frozenset(names), types)
        return self._types[2], types

    def _made(self, names: tuple[str, ...]) -> list[HeldType]:
        """The types of the held groups with offers by ``names`` (``_typed``), each
        group's slot worked out anew (kept in ``_all``)."""
        registry = self._registry
        # (the static offers' vectors, worked out once per cycle: those of the held
        # offers of shared parts are their resources' and own literals', ``_vector``)
        statics = self._statics()
        by_key: dict[tuple, HeldType] = {}
        every = self._all = []
        for pair_shape, group in self._held.groups.items():
            if not group.total:
                continue
            first = registry[next(iter(next(iter(group.shapes.values()))))]
            vector = self._vector(first, statics)
            key = (() if vector is None else vector.names, self._numbers_of(names, first))
            held_type = by_key.get(key)
            if held_type is None:
                held_type = by_key[key] = HeldType(first, [], {}, {})
            keys = self._policy_key(pair_shape, group, first)
            slot = HeldSlot(pair_shape, group, first, None if vector is None else vector.vals,
                            keys.policy, keys.preq)
            held_type.slots.append(slot)
            every.append(slot)
        return list(by_key.values())

    def _split(self, gained: tuple[str, ...]) -> list[HeldType]:
        """The types ``_made`` would give with the names ``gained`` added to the
        union, no group having gained an offer since the types were made: the old
        type of each group with offers (``HeldSlot.kind``) and its numbers of
        ``gained`` split alike, and the same walk over the groups (``_all``, their
        order when made) gives the same order of types and of their groups."""
        number = self._number
        by_key: dict[tuple, HeldType] = {}
        for slot in self._all:
            if not slot.group.total:
                continue
            # (a held group's offers have no resource vector: ``state_ad`` is their
            # ad, as ``Offer.ad`` gives it)
            key = (slot.kind, number(slot.first.state_ad, gained))
            held_type = by_key.get(key)
            if held_type is None:
                held_type = by_key[key] = HeldType(slot.first, [], {}, {})
            held_type.slots.append(slot)
        return list(by_key.values())

    def _compact(self, types: list[HeldType]) -> None:
        """Leave the groups that have emptied out of the types (and out of their
        columns, each filtered in its order; their halves made again when asked)
        once offers have left as many times as half the groups the types hold: an
        emptied group never gains an offer again, and most held groups empty as
        their offers are preempted (every offer's leaving counts once:
        ``HeldGroups.epoch`` moves at each add and each removal)."""
        held = self._held
        removed = held.epoch - held.added
        if 2 * (removed - self._removed) <= self._slots:
            return
        count = 0
        for held_type in types:
            slots = held_type.slots
            slots[:] = [slot for slot in slots if slot.group.total]
            columns = held_type.columns
            for index, found in list(columns.items()):
                if found is None:
                    del columns[index]  # (made again when asked: the rest may have an order)
                else:
                    # (filtered in its order: ties keep the groups' order, which the
                    # groups left keep, so it is the column made afresh of them)
                    there = [slot.group.total for slot in found.items]
                    columns[index] = Column(list(compress(found.keys, there)),
                                            list(compress(found.items, there)))
            held_type.halves.clear()
            count += len(slots)
        self._removed, self._slots = removed, count

    def halves(self, held_type: HeldType, test: ResidualTest, sure: bool) -> Split:
        """The groups of ``held_type`` within the one bound of the verdict ``test`` (a
        box) that the fewest of them pass (``box_ranges.narrowest``: a superset of
        those whose vector passes the box, each still tried in full), split by
        whether every bound of it surely holds on them (``box_ranges.split``; with
        ``sure`` only): where that cannot be told, none is sure and the rest are the
        narrowest range's, in its order. Kept per type and the verdict's box key
        (``ResidualTest.key``): both depend only on the columns and the bounds, in
        their order."""
        key = test.key
        if key is not None:
            found = held_type.halves.get(key)
            if found is not None:
                return found
        program = test.program

        def column_at(index: int) -> Column | None:
            return self._column(held_type, index)

        found = split(program, column_at) if sure else None
        if found is None:
            items = narrowest(program, column_at)
            found = Split([], held_type.slots if items is None else items)
        if key is not None:
            held_type.halves[key] = found
        return found

    def free_names(self, held_type: HeldType) -> tuple[str, ...]:
        """The names of the positions of the type's vectors (every group of a type
        leaves the same names free): what its verdicts' bounds read."""
        vector = self._vector(held_type.first)
        return () if vector is None else vector.names

    def _column(self, held_type: HeldType, index: int) -> Column | None:
        """The type's groups with offers sorted by their vectors' value at ``index``
        (all offers of a pair shape bind alike what a job's Requirements read);
        None when some value has no order (``box_ranges.column``)."""
        columns = held_type.columns
        if index not in columns:
            # (an emptied group is never listed again; a type's groups all have
            # vectors of the same names)
            items = [slot for slot in held_type.slots if slot.group.total]
            columns[index] = column(items, [slot.vals[index] for slot in items])  # type: ignore[index]
        return columns[index]

    def _job_numbers(self, klass: tuple, job_ad: ClassAd, names: tuple[str, ...]) -> tuple:
        """The class key's job ad's numbers of ``names``, worked out once per both."""
        key = (klass, names)
        found = self._jobs.get(key)
        if found is None:
            found = self._jobs[key] = self._number(job_ad, names)
        return found

    def _vector(self, offer: Offer, statics: dict[int, StaticVector] | None = None
                ) -> StaticVector | None:
        """The offer's resources bound to number literals (``slot_vectors.vector_of``),
        worked out once per offer (a held static offer's ad is never replaced). An
        offer of a shared static part has one in ``statics`` (``StaticNumbers``,
        ``MatchTable.static_vectors``) whose first names are exactly these, in
        the same order, followed by its ``literals`` own literals (and holder):
        that vector less the literals (the vector itself when it has none), not
        worked out again from the ad."""
        vectors = self._vectors
        seq = offer.seq
        if seq in vectors:
            return vectors[seq]
        static = None if statics is None else statics.get(seq)
        if static is None:
            vector = self._vector_numbers.of(offer.ad)
        elif not static.literals:
            vector = static
        else:
            found = self._resources.get(static.names)
            if found is None:
                names = static.names[:len(static.names) - static.literals]
                found = self._resources[static.names] = (
                    names, {name: i for i, name in enumerate(names)})
            vector = StaticVector(found[0], static.vals[:len(found[0])], found[1])
        vectors[seq] = vector  # type: ignore[assignment]
        return vector  # type: ignore[return-value]

    def _numbers_of(self, names: tuple[str, ...], offer: Offer) -> tuple:
        """The offer's numbers of ``names``, worked out once per offer (a held static
        offer's ad is never replaced)."""
        by_seq = self._numbers.get(names)
        if by_seq is None:
            by_seq = self._numbers[names] = {}
        found = by_seq.get(offer.seq)
        if found is None:
            found = by_seq[offer.seq] = self._number(offer.ad, names)
        return found
