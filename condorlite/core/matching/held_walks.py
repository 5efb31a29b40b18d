"""A class's matching held groups with priority preemption on, found once, a type of
slots at a time.

With preemption by priority on (``PREEMPTION_REQUIREMENTS`` set), every held group
(``held_groups``: the held offers of one pair shape) may be a candidate, so a class's
list walked them all (``RequestLists._held_candidates``). Held dynamic slots are one
pair shape each (each binds its own ``Disk``, which jobs read by a bound), so a pool
of a few thousand claimed dynamic slots is a few thousand groups per list, of which a
class matches a few per cent. Three things make that walk cheaper, each exact:

1. **A class's matching groups, kept.** A class key (class, Submitter* bindings when
   read) has one pair result per group, so the groups that match it are the same in
   every list of it: kept with their pair results after the first walk, a later list
   walks them alone. Held groups gain offers only while the cycle's offers are
   prepared (``HeldGroups.added`` counts it: a kept walk is redone when it moved);
   afterwards they only lose offers, and a group left empty is passed over.

2. **A verdict per class and type.** Before a group's pair is evaluated (in full for
   a desktop whose static part is its own, else by its part's program), the class's
   ``Requirements`` is specialised against a slot with the slot's resources (its
   names bound to number literals: ``slot_vectors.vector_of``) left free
   (``classad.partial``, as ``never_matches`` does for partitionable statics). The
   residual equals the full evaluation at every value of those names, so: one that
   holds for none (``NEVER``) rules the slot out whatever its numbers; one that reads
   them is kept as a one-test program (a box of bounds, ``carving.PairProgram``) and
   run at the slot's own numbers, ruling out those where it fails (while it rules
   out enough to pay, ``held_types.ResidualTest``); otherwise the pair decides. The
   job's literal requests of those resources are left free too, as parameters
   (``pair_programs.job_params``): each class runs the residual with its own amounts
   (``_test_of``: the one-test program made once per residual and amounts). The
   verdict depends only on the names left free and on both ads'
   bindings of the names the specialisation read (``partial``'s ``reads``): it is
   kept under (names left free, requests left free) -> (names read of the job, of
   the slot) -> their numbers (``expr_numbers``), so classes and slots that bind
   them alike share it (one specialisation per class's Requirements and machine
   type, whatever its literal requests: on the 10k static mix, 24 specialisations
   for 9,923 verdicts asked, 627 with the requests bound).
   The held groups are split into *types* (``_typed``): the same names left free and
   the same numbers of every slot name some kept verdict read (a few names: ``Arch``,
   ``OpSys``, ``HasFileTransfer`` ...), remade when that union grows. A class asks one
   verdict per type; when it read only names of the union it stands for every group
   of the type, so a type it rules out is passed over whole (else each group asks its
   own). A class asks the verdicts of every type before it walks, and when one read
   names outside the union (the first class of new ``Requirements``), the types are
   made again first (at most ``RETYPES`` times), rather than a verdict per group.

3. **The groups within a bound.** In a type whose verdict is a box, only the groups
   within the bound the fewest of them pass are tried (``box_ranges``: the type's
   groups sorted once by the bound's resource, bisected), each still by the residual
   and the pair; a group outside a bound of the box fails it.

4. **Less per group.** Each group's first offer, its numbers and (at its first pair)
   its shared static part are worked out once per types made (``HeldSlot``); a group
   of a shared part runs the class key's program of the part at its numbers
   (``MatchTable.run_part``, the result ``MatchTable.pair`` gives, kept in the same
   table) without the table's look-ups per group; where that program is a box with
   constant ranks, whether the group passes it is kept per (part, box) and shared by
   the classes of equal requests (``box_passes``). Once offers have left as many
   times as half the groups the types hold, the emptied groups (most held groups
   empty as their offers are preempted, and never gain one again) are left out of
   the types (``_compact``).

5. **Groups the list can never list, passed over.** A group whose policy key the
   list's submitter and job refuse (``held_refusals``: its own, or refused by
   ``PREEMPTION_REQUIREMENTS``, and a literal slot Rank that prefers no job) gives no
   entry whether its pair matches or not: the walk passes over it without the pair
   (``HeldWalk.passed``; it counts for a rejection through ``settle_deferred``, but
   for the submitter's own, which never count: left out of it). The
   walks are kept per class key and refusals.

Equal allocations follow: a group is listed exactly when its pair matches, as before;
a group passed over has a pair that does not match (its pair result is not recorded:
nothing reads a pair result of a group without entries). Only the evaluations change
(a specialisation counts as one).
"""

from __future__ import annotations

from collections.abc import Callable

from condorlite.core.adeval import ClassAd
from condorlite.core.classad.partial import Constant, specialize_attribute
from condorlite.core.matching.box_passes import BoxPasses
from condorlite.core.matching.box_ranges import Column, column, narrowest
from condorlite.core.matching.candidates import NO_MATCH, HeldGroup, PairEval, as_rank
from condorlite.core.matching.carving import PairProgram
from condorlite.core.matching.held_groups import HeldGroups
from condorlite.core.matching.held_refusals import REFUSED, Refusals
from condorlite.core.matching.held_types import (
    MISSING,
    HeldSlot,
    HeldType,
    HeldWalk,
    ResidualTest,
    never_holds,
)
from condorlite.core.matching.match_table import MatchTable
from condorlite.core.matching.offer_shapes import EvaluationCount
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.pair_programs import job_params
from condorlite.core.matching.slot_vectors import SlotVector, int_now, vector_of

#: the verdict "the job's Requirements hold for no values of the free names"
NEVER = object()

#: the ranks of a verdict's program (it answers the match by Requirements alone)
_ZERO = Constant(0.0)

#: a walk makes the types again at most this many times when its verdicts read names
#: they do not split by (``HeldWalks.matching``; each time the union grows)
RETYPES = 3

#: at most this many sets of read names per class key (a lookup tries each; a class's
#: verdicts read a few: where its Requirements stop), as ``never_matches`` keeps
MAX_NAME_SETS = 32


class HeldWalks:
    """The cycle's kept walks and verdicts (module doc). ``held``: the held groups
    (read only); ``pair``: ``MatchTable.pair``; ``number(ad, names)``: the numbers of
    the ad's bindings of ``names`` (``expr_numbers.Canon.key``); ``resource_names``:
    the names a slot's vector holds (left free)."""

    def __init__(self, held: HeldGroups, registry: list[Offer], table: MatchTable,
                 number: Callable[[ClassAd, tuple[str, ...]], tuple],
                 resource_names: frozenset[str], now: float | None,
                 counts: EvaluationCount,
                 policy_key: Callable[[int, HeldGroup, Offer], int | None]) -> None:
        self._held = held
        self._policy_key = policy_key
        self._registry = registry
        self._pair = table.pair
        self._part_of = table.static_vector
        self._part_program = table.static_program
        self._part_pair = table.part_pair
        self._number = number
        self._resource_names = resource_names
        self._now = int_now(now)
        self._counts = counts
        #: whether a slot passes a box, per box (``box_passes``)
        self._boxes = BoxPasses()
        #: (class key, its list's refusals or None) -> (``HeldGroups.added`` when
        #: walked, the walk)
        self._kept: dict[tuple, tuple[int, HeldWalk]] = {}
        #: (names left free, the job's requests left free) -> (names read in the job
        #: ad, names read in the slot) -> (the job's numbers of the first, the slot's
        #: of the second) -> verdict (``NEVER``, a residual of the free names, or
        #: None: ask the pair)
        self._verdicts: dict[tuple, dict[tuple, dict[tuple, object]]] = {}
        #: (id(a verdict's residual, which ``_verdicts`` holds), the params' values
        #: and their types) -> its one-test program for classes of those values
        self._tests: dict[tuple, ResidualTest] = {}
        #: (class key, names) -> the class's job ad's numbers of them
        self._jobs: dict[tuple, tuple] = {}
        #: names read -> offer seq -> the offer's numbers of them
        self._numbers: dict[tuple[str, ...], dict[int, tuple]] = {}
        #: offer seq -> its vector (resources bound to number literals) or None
        self._vectors: dict[int, SlotVector | None] = {}
        #: every name of a slot some recorded verdict read (``_typed``)
        self._union: set[str] = set()
        #: offers removed from held groups when the types were last made or left
        #: without their emptied groups (``_compact``), and how many groups they held
        self._removed = 0
        self._slots = 0
        #: (``added``, the union's names when made, the same as a set, the types)
        self._types: tuple[int, tuple[str, ...], frozenset[str], list[HeldType]] | None = None

    def matching(self, klass: tuple, job_ad: ClassAd, signature: tuple,
                 known_pairs: dict[int, PairEval],
                 refusals: Refusals | None = None) -> HeldWalk:
        """(group, pair result) of every held group whose pair with the class key
        ``klass`` (whose job ad is ``job_ad``, Submitter* bindings ``signature``,
        known pair results ``known_pairs``: the match table's of the class key)
        matches, but for the groups of the policy keys ``refusals`` refuses
        (``held_refusals``: the list can never list them), passed over without
        their pair; groups may since have emptied. Found a type at a time
        (``_typed``): a type whose verdict read only names its groups bind alike is
        decided at once; the order of the groups found does not matter (a list sorts
        its entries)."""
        added = self._held.added
        kept_key = (klass, refusals)
        found = self._kept.get(kept_key)
        if found is not None and found[0] == added:
            return found[1]
        verdict_of = self._verdict
        union, types = self._typed()
        asked = [verdict_of(klass, job_ad, held_type.first) for held_type in types]
        for _ in range(RETYPES):
            # (a verdict read names the types do not split by, and recorded them:
            # the types made again now, rather than a verdict asked per group below)
            if len(self._union) == len(union) or all(
                    union.issuperset(names) for _, names in asked):
                break
            union, types = self._typed()
            asked = [verdict_of(klass, job_ad, held_type.first) for held_type in types]
        self._compact(types)
        out = HeldWalk([], [])
        #: static part -> the class key's program of it (``MatchTable.static_program``)
        programs: dict[int, PairProgram | None] = {}
        for held_type, (verdict, names) in zip(types, asked, strict=True):
            shared = union.issuperset(names)
            if verdict is NEVER and shared:
                continue  # (no group of the type can match)
            slots = held_type.slots
            if shared and type(verdict) is ResidualTest and verdict.program.box:
                slots = self._within(held_type, verdict.program)
            self._walk(klass, job_ad, signature, known_pairs, slots,
                       verdict if shared else MISSING, programs, refusals, out)
        self._kept[kept_key] = (added, out)
        return out

    def _walk(self, klass: tuple, job_ad: ClassAd, signature: tuple,
              known_pairs: dict[int, PairEval], slots: list[HeldSlot], verdict: object,
              programs: dict[int, PairProgram | None], refusals: Refusals | None,
              out: HeldWalk) -> None:
        """Add to ``out`` the groups of ``slots`` whose pair with the class key
        matches: each by its known pair result, else unless its verdict (the type's
        ``verdict``; MISSING: each group's own) rules it out, by its pair; those of
        a policy key ``refusals`` refuses to ``out.passed``, without their pair
        (with a key it does not refuse, the group's offers are allowed by the
        policy: marked so in ``out.matched``). A group of
        a shared static part runs the class key's program of the part at its
        numbers, as ``MatchTable.pair`` would (the same result, kept in the same
        table: ``known_pairs``), without the table's look-ups per group."""
        verdict_of = self._verdict
        part_pair = self._part_pair
        matched, passed = out
        runs = 0
        #: id(a program of ``programs``, which holds it) -> its one pair result, and
        #: its box's table of passes (``box_passes``) or None
        boxed: dict[int, PairEval] = {}
        tables: dict[int, dict[int, bool] | None] = {}
        verdicts, refuses = ({}, None) if refusals is None else (refusals.verdicts,
                                                                 refusals.refuses)
        for slot in slots:
            group = slot.group
            if not group.total:
                continue  # (no offer to list: and it never gains one again)
            policy = slot.policy
            if policy is not None and refuses is not None:
                refused = verdicts.get(policy)
                if refused is None:
                    refused = refuses(policy)
                if refused:
                    if refused == REFUSED:
                        # (the submitter's own are no refusal: never counted)
                        passed.append(slot)
                    continue
                allowed = True
            else:
                allowed = False
            known = known_pairs.get(slot.pair_shape)
            if known is None:
                mine = verdict if verdict is not MISSING else verdict_of(
                    klass, job_ad, slot.first)[0]
                if mine is NEVER:
                    continue
                part = slot.part
                if part is MISSING:
                    # (worked out at the first pair asked, as ``MatchTable.pair`` did:
                    # the first call works out every static offer's part)
                    part = slot.part = self._part_of(slot.first)
                program = None if part is None else programs.get(
                    part.static, MISSING)  # type: ignore[union-attr]
                if ((program is None or program is MISSING
                     or not program.box)  # type: ignore[union-attr]
                        and mine is not None and slot.vals is not None
                        and mine.useful()  # type: ignore[attr-defined]
                        and not mine.passes(slot.vals)):  # type: ignore[attr-defined]
                    # (the job's Requirements fail at its numbers; a box program
                    # made already tests the same bounds at no greater cost)
                    continue
                if program is MISSING:
                    program = programs[part.static] = self._part_program(  # type: ignore[union-attr]
                        klass, job_ad, slot.first)
                if program is not None:
                    table = tables.get(id(program), MISSING)
                    if table is MISSING:
                        table = tables[id(program)] = self._boxes.table(
                            part.static, program)  # type: ignore[union-attr]
                    if table is not None:
                        # (a box of constant ranks: whether the slot passes it is
                        # kept per box, ``box_passes``, whatever the class)
                        passes = table.get(slot.pair_shape)  # type: ignore[union-attr]
                        if passes is None:
                            runs += 1
                            passes = table[slot.pair_shape] = program.run(  # type: ignore[index]
                                part.vals, as_rank) is program.result  # type: ignore[union-attr]
                        if passes:
                            known = boxed.get(id(program))
                            if known is None:
                                known = boxed[id(program)] = part_pair(program,
                                                                       program.result)
                        else:
                            known = NO_MATCH
                        known_pairs[slot.pair_shape] = known
                        if known.match:
                            matched.append((group, known, allowed))
                        continue
                    # (``MatchTable.run_part``, its runs counted once per walk)
                    runs += 1
                    ran = program.run(part.vals, as_rank)  # type: ignore[union-attr]
                    if not ran[0]:
                        known = NO_MATCH
                    elif ran is program.result:  # type: ignore[union-attr]
                        # (a box of constant ranks: its one pair result, looked up
                        # once per walk)
                        known = boxed.get(id(program))
                        if known is None:
                            known = boxed[id(program)] = part_pair(program, ran)
                    else:
                        known = part_pair(program, ran)
                    known_pairs[slot.pair_shape] = known
                else:
                    known = self._pair(klass[0], job_ad, slot.first, signature)
            if known.match:
                matched.append((group, known, allowed))
        self._counts.evaluations += runs

    def _verdict(self, klass: tuple, job_ad: ClassAd, offer: Offer
                 ) -> tuple[object, tuple[str, ...]]:
        """The class key's job ``job_ad``'s ``Requirements`` against the held static
        offer, its resources left free (module doc, 2): ``NEVER`` (it holds for no
        values of them), a one-test program of its residual (run at the offer's
        vector values), or None (nothing known: ask the pair); with the names of
        the slot it read (its verdict stands for any slot binding them alike)."""
        slot_ad = offer.ad
        vector = self._vector(offer)
        free = () if vector is None else vector.names
        # (the job's literal requests of the vector's resources left free too, as
        # ``pair_programs`` leaves them: classes that differ only in those numbers
        # share the verdict, each running its residual with its own values)
        params, values = ((), ()) if vector is None else job_params(job_ad, vector)
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

    def _test_of(self, found: object, vector: SlotVector | None, values: tuple) -> object:
        """The verdict ``found`` as a class of the params' ``values`` runs it: a
        residual becomes a one-test program with those values (a box of bounds when
        it is a conjunction of them, run as a pair program's box is), made once per
        (residual, values); ``NEVER`` and None stand as they are."""
        if found is NEVER or found is None:
            return found
        key = (id(found), values, tuple(map(type, values)))
        test = self._tests.get(key)
        if test is None:
            test = self._tests[key] = ResidualTest(PairProgram(
                [], [found], _ZERO, _ZERO, [], as_rank,  # type: ignore[list-item]
                width=len(vector.vals), params=values,  # type: ignore[union-attr]
                literals=vector.literals))  # type: ignore[union-attr]
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
        if found is not None and found[0] == added and found[1] == names:
            return found[2], found[3]
        registry = self._registry
        by_key: dict[tuple, HeldType] = {}
        for pair_shape, group in self._held.groups.items():
            if not group.total:
                continue
            first = registry[next(iter(next(iter(group.shapes.values()))))]
            vector = self._vector(first)
            key = (() if vector is None else vector.names, self._numbers_of(names, first))
            held_type = by_key.get(key)
            if held_type is None:
                held_type = by_key[key] = HeldType(first, [], {})
            held_type.slots.append(HeldSlot(pair_shape, group, first,
                                            None if vector is None else vector.vals,
                                            self._policy_key(pair_shape, group, first)))
        types = list(by_key.values())
        self._removed = self._held.epoch - self._held.added
        self._slots = sum(len(held_type.slots) for held_type in types)
        self._types = (added, names, frozenset(names), types)
        return self._types[2], types

    def _compact(self, types: list[HeldType]) -> None:
        """Leave the groups that have emptied out of the types (and their columns,
        made again when asked) once offers have left as many times as half the
        groups the types hold: an emptied group never gains an offer again, and
        most held groups empty as their offers are preempted (every offer's leaving
        counts once: ``HeldGroups.epoch`` moves at each add and each removal)."""
        held = self._held
        removed = held.epoch - held.added
        if 2 * (removed - self._removed) <= self._slots:
            return
        count = 0
        for held_type in types:
            slots = held_type.slots
            slots[:] = [slot for slot in slots if slot.group.total]
            held_type.columns.clear()
            count += len(slots)
        self._removed, self._slots = removed, count

    def _within(self, held_type: HeldType, program: PairProgram) -> list[HeldSlot]:
        """The groups of ``held_type`` within the one bound of the box ``program``
        that the fewest of them pass (``box_ranges.narrowest``): a superset of those
        whose vector passes the box, each still run in full."""
        found = narrowest(program, lambda index: self._column(held_type, index))
        return held_type.slots if found is None else found

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

    def _vector(self, offer: Offer) -> SlotVector | None:
        """The offer's resources bound to number literals (``slot_vectors.vector_of``),
        worked out once per offer (a held static offer's ad is never replaced)."""
        vectors = self._vectors
        if offer.seq not in vectors:
            vectors[offer.seq] = vector_of(offer.ad, self._resource_names)
        return vectors[offer.seq]

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
