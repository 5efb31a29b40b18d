"""What a held walk (``held_walks``, its verdicts ``held_verdicts``) keeps of the
held groups and of a verdict: each group as a walk reads it (``HeldSlot``), the groups
of one *type* (``HeldType``), a verdict's residual run as a one-test program while it
pays (``ResidualTest``), a type's sure box (``SureBox``) and one walk's pair results by
shared static part (``PartPairs``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

from condorlite.core.classad.partial import Constant
from condorlite.core.classad.residuals import Residual
from condorlite.core.matching.box_passes import box_key, implied_by
from condorlite.core.matching.box_ranges import Column, Split
from condorlite.core.matching.candidates import PRE, HeldGroup, PairEval, as_rank
from condorlite.core.matching.carving import PairProgram
from condorlite.core.matching.held_refusals import Refusals
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.reasons import WalkRanks
from condorlite.core.matching.slot_vectors import SlotVector, holds

#: "not in the table" (a table whose values may be None)
MISSING = object()

#: a residual test is run on this many groups before it may be left out, and kept
#: while at least one run in this many rules a group out (``ResidualTest``)
TRIAL = 64
WORTH = 8


class HeldSlot:
    """One held group as a walk reads it, worked out when the types are made
    (``HeldVerdicts._typed``): its pair shape, its first offer (any offer of the group
    stands for it: all bind alike what a pair reads, and a held static offer's ad is
    never replaced), that offer's resources as numbers (``vals``: its vector's, None
    without one), its policy key and preq key (``held_refusals.GroupKeys``, each
    or None)
    and, once a pair is asked, its shared static part (``part``:
    ``MatchTable.static_vector``, None when its pairs are evaluated otherwise) and
    the number of that part's values (``numbers``: ``box_passes.BoxPasses.numbers``)."""

    __slots__ = ("first", "group", "kind", "numbers", "one", "pair_shape", "part", "policy",
                 "pre", "preq", "rank_key", "vals")

    def __init__(self, pair_shape: int, group: HeldGroup, first: Offer,
                 vals: tuple | None, policy: int | None, preq: int | None) -> None:
        self.pair_shape, self.group, self.first = pair_shape, group, first
        #: the seq of its one offer when it held one (``first``), else None: a held
        #: group only loses offers once the types are made, and a held static offer
        #: leaves its group exactly when it becomes unavailable (``retire``), so
        #: while that offer is available the group is that offer alone
        self.one = first.seq if group.total == 1 else None
        #: with ``one``, that offer's own first entry key (``-PRE_JOB_RANK``, as
        #: ``held_prio.NegPre`` gives it) when its pre-job rank does not read the
        #: job, else None: a walk may leave its pair for later (``LaterPairs``)
        pre = first.independent.get(PRE) if self.one is not None else None
        self.pre = None if pre is None or first.partitionable else -pre
        self.vals = vals
        self.policy = policy
        self.preq = preq
        #: MISSING until the group's first pair is asked (``HeldWalks._pairs_of``)
        self.part: SlotVector | object | None = MISSING
        #: the part's numbers, set with ``part`` when it is a vector
        self.numbers = -1
        #: the position of its type in the types last made (``HeldVerdicts._typed``)
        self.kind = 0
        #: ``Reasons.rank_key`` of its offers (one per pair shape), worked out when a
        #: walk first needs its slot Rank (``HeldWalks._walk``), else None
        self.rank_key: int | None = None


#: what a walk knows of ``PREEMPTION_REQUIREMENTS`` for a matched group's offers
#: (``HeldWalks._walk``), besides None (nothing: asked per shape) and a preq key
#: (``held_refusals.GroupKeys.preq``: its list's verdict of the key stands for the
#: offers not listed by rank): allowed, and none of them listed by rank nor the
#: submitter's own (a policy key its list does not refuse: ``HeldWalk.allowed``)
PREQ_ONLY = -1


class HeldWalk:
    """A class key's walk of the held groups for one set of refused policy keys
    (``HeldWalks.matching``): kept, and compared by identity (``held_lists``)."""

    __slots__ = ("allowed", "later", "matched", "passed", "refusals")

    def __init__(self, refusals: Refusals | None) -> None:
        #: (group, its pair result, what is known of the policy for its offers: None
        #: or a preq key, ``HeldSlot.one``) of the groups whose pair matches, but
        #: those of ``allowed``
        self.matched: list[tuple[HeldGroup, PairEval, int | None, int | None]] = []
        #: (group, its pair result, ``HeldSlot.one``) of the groups whose pair
        #: matches and whose policy key the list does not refuse (``PREQ_ONLY``):
        #: each offer allowed by the policy, none listed by rank nor the submitter's
        #: own, so its list settles them straight from here (``HeldLists._settle``),
        #: no shape of them kept apart; a group of one offer by that offer alone
        self.allowed: list[tuple[HeldGroup, PairEval, int | None]] = []
        #: the groups of policy keys the policy refuses, passed over, their pairs not
        #: asked: any may match (``held_refusals``; neither the groups a verdict rules
        #: out nor those of the submitter's own keys, which never count, are here);
        #: and the groups of one offer of a preq key it refuses whose slot Rank does
        #: not beat its ``CurrentRank`` (``held_walks`` module doc, 8). All the
        #: offers of such a group have one holder, not the submitter
        self.passed: list[HeldSlot] = []
        #: the list's refusals the walk was made for (``held_refusals.Refusals``),
        #: whose verdicts of the preq keys in ``matched`` its lists ask, or None
        self.refusals = refusals
        #: the groups that would be in ``allowed`` but whose pairs are left to the
        #: first run by priority made of them (``LaterPairs``), or None: no such group
        self.later: LaterPairs | None = None


#: a batch of a walk's groups left for later: (the groups, the verdict of their type
#: as the walk had it, the sure box they were walked with or None), for
#: ``HeldWalks._pairs_of``
LaterBatch = tuple[list[HeldSlot], object, object]


class LaterPairs:
    """The groups of one walk whose pairs are worked out only when a held list's run
    by priority is made (``held_walks`` module doc, 7): groups of one offer whose
    policy key the list does not refuse (``PREQ_ONLY``: never listed by rank, never
    counted, so read by that run alone) and whose first entry key is the offer's
    own (``HeldSlot.pre``), so the run's head is known without the pair. ``work``
    works a walk's batches out (``HeldWalks._resolve``): (group, pair result, seq)
    of those whose pair matches, once, at the first ``pairs``."""

    __slots__ = ("_head", "_work", "batches", "found")

    def __init__(self, work: Callable[[list[LaterBatch]],
                                      list[tuple[HeldGroup, PairEval, int]]]) -> None:
        self._work = work
        #: the walk's batches, in the order it met them
        self.batches: list[LaterBatch] = []
        #: the least ``HeldSlot.pre`` of the batches' groups, and a seq of theirs
        self._head = (math.inf, -1)
        #: once worked out (``pairs``), the batches' matching groups, else None
        self.found: list[tuple[HeldGroup, PairEval, int]] | None = None

    def add(self, slots: list[HeldSlot], verdict: object, sure: object) -> None:
        """Leave ``slots`` (each with a ``pre``) for later, with their type's verdict
        and sure box as the walk had them."""
        self.batches.append((slots, verdict, sure))
        least = min([slot.pre for slot in slots])  # (a comprehension reads slots fastest)
        if least < self._head[0]:
            self._head = (least, slots[0].one)  # type: ignore[assignment]

    def pairs(self) -> list[tuple[HeldGroup, PairEval, int]]:
        """(group, its pair result, its offer's seq) of the batches' groups whose pair
        matches, of those with an offer when first asked (an offer never comes back)."""
        found = self.found
        if found is None:
            found = self.found = self._work(self.batches)
        return found

    def head(self) -> tuple[float, int] | None:
        """A key no later than the first key of any batch's offer (the least of them
        all, whether or not still available) and a seq of the batches'; None when no
        offer of theirs is available now (their groups all empty)."""
        for slots, _, _ in self.batches:
            for slot in slots:
                if slot.group.total:
                    return self._head
        return None


class SureBox(NamedTuple):
    """A held type's verdict, a box every bound of which surely holds on the groups
    walked (``HeldVerdicts.halves``), and the names of its vector's positions."""

    verdict: PairProgram
    names: tuple[str, ...]


class PartPairs:
    """One walk's pair results by shared static part (``held_walks`` module doc, 4):
    the class key's program of each part (``program_of``: ``MatchTable.static_program``
    of the class key, by an offer of the part), the one pair result of each box of
    constant ranks (``pair_of``: ``MatchTable.part_pair``), its table of passes
    (``box_passes``), the programs run (counted once per walk, as
    ``MatchTable.run_part`` counts each), and the class key's slot Rank per rank key."""

    __slots__ = ("_pair_of", "_program_of", "boxed", "boxes", "implied", "programs", "ranks",
                 "runs", "tables")

    def __init__(self, program_of: Callable[[Offer], PairProgram | None],
                 pair_of: Callable[[PairProgram, tuple], PairEval]) -> None:
        self._program_of, self._pair_of = program_of, pair_of
        #: the class key's slot Ranks by rank key (``reasons.WalkRanks``), made at the
        #: walk's first group that needs one (``HeldWalks._walk``), else None
        self.ranks: WalkRanks | None = None
        #: static part -> (its program, that box's table of passes, its one pair
        #: result or None when its ranks read the slot) once known, for a part whose
        #: program is a box with a table: each later group of the part takes them in
        #: one look-up (``HeldWalks._pairs_of``)
        self.boxes: dict[int, tuple[PairProgram, dict[int, bool], PairEval | None]] = {}
        #: static part -> the class key's program of it, or None
        self.programs: dict[int, PairProgram | None] = {}
        #: id(a program of ``programs``, which holds it) -> its one pair result, and
        #: its box's table of passes or None
        self.boxed: dict[int, PairEval] = {}
        self.tables: dict[int, dict[int, bool] | None] = {}
        #: id(a sure box) -> (it, ``HeldWalks._pairs_of``'s parts it implies), kept
        #: while the walk's groups left for later may be asked with it (which holds
        #: the box)
        self.implied: dict[int, tuple[SureBox, dict]] = {}
        self.runs = 0

    def sure_pair(self, first: Offer, part: SlotVector, sure: SureBox
                  ) -> tuple[PairProgram, PairEval | None] | None:
        """The class key's program of the part of a group (``first``: its first offer)
        and the box's one result (None: ranks that read the slot) when the verdict's
        box ``sure`` implies the program's box (``box_passes.implied_by``), else None."""
        programs = self.programs
        program = programs.get(part.static, MISSING)
        if program is MISSING:
            program = programs[part.static] = self._program_of(first)
        if program is None or not implied_by(program, part.names, sure.verdict,  # type: ignore[arg-type]
                                             sure.names):
            return None
        if program.result is None:  # type: ignore[union-attr]
            return program, None  # type: ignore[return-value]
        known = self.boxed.get(id(program))
        if known is None:
            known = self.boxed[id(program)] = self._pair_of(
                program, program.result)  # type: ignore[arg-type, union-attr]
        return program, known  # type: ignore[return-value]


class HeldType(NamedTuple):
    """Held groups whose first offers leave the same names free and bind alike every
    name a recorded verdict read (``HeldVerdicts._typed``)."""

    #: the first offer of the first group (any offer of the type stands for it)
    first: Offer
    #: the type's groups
    slots: list[HeldSlot]
    #: position in the vector -> the groups by their value there, or None when some
    #: value has no order (``HeldVerdicts._column``)
    columns: dict[int, Column | None]
    #: a verdict's box key (``ResidualTest.key``) -> the groups within its bounds,
    #: split by whether each bound surely holds on them (``HeldVerdicts.halves``):
    #: what the columns give for those bounds, kept with the columns
    halves: dict[tuple, Split]


class ResidualTest:
    """A verdict's residual as a one-test program (module doc, 2), with how often it
    ruled a group out: run before the pair only while that pays (``useful``: during
    the first ``TRIAL`` runs, and then while at least one run in ``WORTH`` fails);
    where the job's Requirements hold on nearly every slot (claimed static slots of
    full machines) the pair alone decides. Either way the pair decides what passes."""

    __slots__ = ("fails", "key", "program", "runs")

    def __init__(self, program: PairProgram) -> None:
        self.program = program
        self.runs = 0
        self.fails = 0
        #: what its box tests (``box_passes.box_key``: its bounds, in their order),
        #: or None: verdicts of equal keys leave the same groups of a type
        self.key = box_key(program)

    def useful(self) -> bool:
        return self.runs < TRIAL or self.fails * WORTH >= self.runs

    def passes(self, vals: tuple) -> bool:
        """Whether the job's Requirements hold at ``vals`` (counted)."""
        self.runs += 1
        if self.program.run(vals, as_rank)[0]:
            return True
        self.fails += 1
        return False


def never_holds(residual: Residual | None) -> bool:
    """Whether a ``Requirements`` residual holds for no values of the names left
    free: a constant that does not hold, or one ``partial`` marked never true (None:
    it could not be made, so nothing is known). ``never_matches`` reads its residuals
    by the same rule."""
    if residual is None:
        return False
    if type(residual) is Constant:
        return not holds(residual.value)
    return bool(getattr(residual, "never_true", False))
