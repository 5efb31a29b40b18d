"""A class's matching held groups with priority preemption on, found once, a type of
slots at a time.

With preemption by priority on (``PREEMPTION_REQUIREMENTS`` set), every held group
(``held_groups``: the held offers of one pair shape) may be a candidate, so a class's
list walked them all (``RequestLists._held_candidates``). Held dynamic slots are one
pair shape each (each binds its own ``Disk``, which jobs read by a bound), so a pool
of a few thousand claimed dynamic slots is a few thousand groups per list, of which a
class matches a few per cent. These make that walk cheaper, each exact:

1. **A class's matching groups, kept.** A class key (class, Submitter* bindings when
   read) has one pair result per group, so the groups that match it are the same in
   every list of it: kept with their pair results after the first walk, a later list
   walks them alone. Held groups gain offers only while the cycle's offers are
   prepared (``HeldGroups.added`` counts it: a kept walk is redone when it moved);
   afterwards they only lose offers, and a group left empty is passed over.

2. **A verdict per class and type** (``held_verdicts``): the class's
   ``Requirements`` specialised against a slot with its resources left free, kept
   per what it read and shared by the classes and slots that bind that alike; the
   held groups split into *types* that bind alike what the verdicts read, so that a
   type a verdict rules out is passed over whole.

3. **The groups within a bound.** In a type whose verdict is a box, only the groups
   within the bound the fewest of them pass are tried (``HeldVerdicts.halves``),
   each still by the residual and the pair.

4. **Less per group.** Each group's first offer, its numbers and (at its first pair)
   its shared static part are worked out once per types made (``HeldSlot``); a group
   of a shared part runs the class key's program of the part at its numbers
   (``MatchTable.run_part``, the result ``MatchTable.pair`` gives, kept in the same
   table) without the table's look-ups per group (``PartPairs``, ``_pairs_of``);
   where that program is a box, whether the group passes it is kept per box and the
   group's numbers and shared by the classes of equal requests, whatever their ranks
   (``box_passes``: a group that passes runs only its ranks, ``PairProgram.passed``);
   once a part's box, its table and (constant ranks) its one pair result are known,
   each later group of the part takes them in one look-up (``PartPairs.boxes``).
   The groups of a type at which every bound of its verdict's box surely holds
   (``HeldVerdicts.halves``) are walked apart: there a part's box whose every bound
   is one of the verdict's (``box_passes.implied_by``) passes untested, no table
   asked, so the group takes the box's one result or runs its ranks alone (on the
   10k static mix every box a walk ran passed: 50,617 runs of confirmation).
   A group of a part too small for programs (``static_programs``) whose verdict
   passed at its numbers, or surely holds there, is evaluated in full on the slot's
   side and the ranks alone (``MatchTable.pair``'s ``job_holds``: the job's
   ``Requirements`` are known to hold; 2,833 such pairs on the 1k static mix, every one in the sure
   walk).

5. **Groups the list can never list, passed over.** A group whose policy key the
   list's submitter and job refuse (``held_refusals``: its own, or refused by
   ``PREEMPTION_REQUIREMENTS``, and a literal slot Rank that prefers no job) gives no
   entry whether its pair matches or not: the walk passes over it without the pair
   (``HeldWalk.passed``; it counts for a rejection through ``settle_deferred``, but
   for the submitter's own, which never count: left out of it). The
   walks are kept per class key and refusals.

6. **Dependent ranks when read.** A program run at a group's numbers (not a box's
   one result) gives its dependent ranks (the pre-job rank's arithmetic and the
   slot's Rank again: the largest cost of a held pair) as a ``deferred_ranks.DeferredRanks``,
   worked out at their first read: a list reads them only for the entries it makes
   (the slot Rank beats the ``CurrentRank``, or the policy allows), and about half
   are never read (10k static mix: 15,924 of 31,326). Exact: the same program at the
   same vector gives the same dict (``DEFER_RANKS`` off: worked out at once).

7. **Allowed pairs when a run reads them.** A group of one offer whose policy key
   the list does not refuse (``PREQ_ONLY``) is never listed by rank, never counted
   and never the submitter's own: its entry, if any, is in its list's run by
   priority alone (``held_lists``). Where that offer's pre-job rank does not read
   the job (``HeldSlot.pre``: the offer's own first entry key), the run's head is
   known without the pair, so the walk leaves the pair for later
   (``held_types.LaterPairs``: in batches, each with its type's verdict and sure
   box) and works the batches out (``_resolve``, once per walk, of the groups with
   an offer then) when a list's merge first makes a run holding them
   (``held_prio.LaterRun``). On the 10k static mix a third of these groups (23,411 of
   70,767) belong to walks none of whose runs is ever made, and those whose offer
   leaves before the run is made are passed over; where nearly every run is made
   (claimed-preemption), the same pairs are worked out later, at a small cost.

8. **Groups of a preq key whose Rank does not beat, decided without the pair.** A
   group of one offer with a preq key alone (its slot Rank reads the job: the
   desktops whose Rank reads ``TARGET.Owner``) is listed by rank only where the
   slot's Rank of the class beats its ``CurrentRank``; else its list's verdict of
   the key alone decides it (``held_lists``), as for a policy key. That Rank is
   known without the pair (``Reasons.slot_rank``: the value the pair gives, kept
   per rank key; a walk asks each rank key once, through ``reasons.WalkRanks``,
   which takes a Rank testing a job's name against a string from the shared values
   by the comparison's answer), so where it does not beat, the walk passes over
   the group when the list refuses the key (``HeldWalk.passed``: it counts at a
   rejection alone, if its pair matches, where its list counted it as refused; a
   rejection reads ``rej_policy`` only for its truth), leaves it out when it is the
   submitter's own (never listed, never counted), and, allowed, leaves it for later
   as in 7 when ``HeldSlot.pre`` is set. (The default pre-job rank reads ``My.Rank``, so the
   pre-job rank of a slot whose Rank reads the job reads the job too: ``pre`` is
   None and the allowed ones are still paired.) On the 10k static mix the walks'
   tries of groups not allowed by a policy key fall from 43,721 to 25,724.

Equal allocations follow: a group is listed exactly when its pair matches, as before;
a group passed over has a pair that does not match (its pair result is not recorded:
nothing reads a pair result of a group without entries). Only the evaluations change
(a specialisation counts as one).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial

from condorlite.core.adeval import ClassAd
from condorlite.core.matching.box_passes import BoxPasses
from condorlite.core.matching.candidates import NO_MATCH, HeldGroup, PairEval, as_rank
from condorlite.core.matching.carving import PairProgram
from condorlite.core.matching.evaluation_count import EvaluationCount
from condorlite.core.matching.held_groups import HeldGroups
from condorlite.core.matching.held_refusals import ALLOWED, REFUSED, Refusals
from condorlite.core.matching.held_types import (
    MISSING,
    PREQ_ONLY,
    HeldSlot,
    HeldWalk,
    LaterBatch,
    LaterPairs,
    PartPairs,
    ResidualTest,
    SureBox,
)
from condorlite.core.matching.held_verdicts import NEVER, HeldVerdicts
from condorlite.core.matching.match_table import MatchTable
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.reasons import WalkRanks
from condorlite.core.matching.slot_vectors import SlotVector

#: whether a held pair's dependent ranks are worked out at their first read (module
#: doc, 6); off: at the run, as every other caller of ``PairProgram.run``
DEFER_RANKS = True

#: whether a walk tries a type's groups on which every bound of its verdict's box
#: surely holds apart, a part's box the verdict implies passing there untested
#: (module doc, 4); off: each group by the box's table or its run
SURE_BOXES = True


class HeldWalks:
    """The cycle's kept walks (module doc). ``held``: the held groups (read only);
    ``pair``: ``MatchTable.pair``; ``ranks_of``: ``Reasons.walk_ranks`` (a class
    key's slot Ranks of its job, whether or not the pair matches: module doc, 8),
    equal for the offers of one ``rank_key`` (``Reasons.rank_key``); the rest as
    ``HeldVerdicts`` takes them."""

    def __init__(self, held: HeldGroups, registry: list[Offer], table: MatchTable,
                 number: Callable[[ClassAd, tuple[str, ...]], tuple],
                 resource_names: frozenset[str], now: float | None,
                 counts: EvaluationCount,
                 policy_key: Callable[[int, HeldGroup, Offer], int | None],
                 ranks_of: Callable[[int, tuple, ClassAd], WalkRanks],
                 rank_key: Callable[[Offer], int]) -> None:
        self._held = held
        self._ranks_of = ranks_of
        self._rank_key = rank_key
        self._pair = table.pair
        self._part_of = table.static_vector
        self._part_program = table.static_program
        self._part_pair = table.part_pair
        self._counts = counts
        #: the verdicts per class and type of held groups (``held_verdicts``)
        self._verdicts = HeldVerdicts(held, registry, number, resource_names, now, counts,
                                      policy_key, table.static_vectors)
        #: whether a slot passes a box, per box (``box_passes``)
        self._boxes = BoxPasses()
        #: (class key, its list's refusals or None) -> (``HeldGroups.added`` when
        #: walked, the walk)
        self._kept: dict[tuple, tuple[int, HeldWalk]] = {}

    def matching(self, klass: tuple, job_ad: ClassAd, signature: tuple,
                 known_pairs: dict[int, PairEval],
                 refusals: Refusals | None = None) -> HeldWalk:
        """(group, pair result) of every held group whose pair with the class key
        ``klass`` (whose job ad is ``job_ad``, Submitter* bindings ``signature``,
        known pair results ``known_pairs``: the match table's of the class key)
        matches, but for the groups of the policy keys ``refusals`` refuses
        (``held_refusals``: the list can never list them), passed over without
        their pair; groups may since have emptied. Found a type at a time
        (``held_verdicts``): a type whose verdict read only names its groups bind
        alike is decided at once; the order of the groups found does not matter (a
        list sorts its entries)."""
        added = self._held.added
        kept_key = (klass, refusals)
        found = self._kept.get(kept_key)
        if found is not None and found[0] == added:
            return found[1]
        verdicts = self._verdicts
        union, types, asked = verdicts.asked(klass, job_ad)
        parts = PartPairs(partial(self._part_program, klass, job_ad), self._part_pair)
        out = HeldWalk(refusals)
        for held_type, (verdict, names) in zip(types, asked, strict=True):
            shared = union.issuperset(names)
            if verdict is NEVER and shared:
                continue  # (no group of the type can match)
            slots = held_type.slots
            if shared and type(verdict) is ResidualTest and verdict.program.box:
                halves = verdicts.halves(held_type, verdict,
                                         SURE_BOXES and not verdict.program.never)
                if halves.sure:
                    # (the groups at which every bound of the verdict surely holds
                    # walked apart: a part's box it implies passes there untested)
                    self._walk(klass, job_ad, signature, known_pairs, halves.sure,
                               verdict, parts, refusals, out,
                               SureBox(verdict.program, verdicts.free_names(held_type)))
                slots = halves.tried
            self._walk(klass, job_ad, signature, known_pairs, slots,
                       verdict if shared else MISSING, parts, refusals, out, None)
        self._counts.evaluations += parts.runs
        parts.runs = 0  # (``_resolve`` counts its own)
        self._kept[kept_key] = (added, out)
        return out

    def _resolve(self, klass: tuple, job_ad: ClassAd, signature: tuple,
                 known_pairs: dict[int, PairEval], parts: PartPairs,
                 batches: list[LaterBatch]) -> list[tuple[HeldGroup, PairEval, int]]:
        """(group, pair result, seq) of the groups of a walk's ``batches``
        (``LaterPairs``) whose pair with the class key matches, of those with an
        offer now: each by its known pair result, else by ``_pairs_of`` with its
        batch's verdict and sure box, as ``_walk`` would have asked it."""
        out = HeldWalk(None)
        for slots, verdict, sure in batches:
            # (a group whose offer has left is passed over: it never comes back; a
            # pair known since is worked out again, to the same result)
            unknown = [(slot, PREQ_ONLY) for slot in slots if slot.group.total]
            if unknown:
                self._pairs_of(klass, job_ad, signature, known_pairs, unknown, verdict,
                               parts, out, sure)  # type: ignore[arg-type]
        self._counts.evaluations += parts.runs
        parts.runs = 0
        return out.allowed  # type: ignore[return-value]

    def _walk(self, klass: tuple, job_ad: ClassAd, signature: tuple,
              known_pairs: dict[int, PairEval], slots: list[HeldSlot], verdict: object,
              parts: PartPairs, refusals: Refusals | None, out: HeldWalk,
              sure: SureBox | None) -> None:
        """Add to ``out`` the groups of ``slots`` whose pair with the class key
        matches: each by its known pair result, else by ``_pairs_of``; those of a
        policy key ``refusals`` refuses to ``out.passed``, without their pair (with
        a key it does not refuse, the group's offers are allowed by the policy, and
        with a preq key, the key's verdict stands for its offers not listed by
        rank: marked so in ``out.matched``; with a key it does not refuse, in
        ``out.allowed``, or, its pair not known and its ``HeldSlot.pre`` set, left to
        ``out.later`` unasked: module doc, 7); a group of one offer with a preq key
        whose slot Rank does not beat its ``CurrentRank``, by the list's verdict of
        the key without its pair: to ``out.passed`` (refused), left out (the
        submitter's own) or as a policy key's (allowed: module doc, 8). ``sure``: the
        verdict's box when every bound of it holds on ``slots`` (``_pairs_of``), else
        None."""
        matched, allowed, passed = out.matched, out.allowed, out.passed
        rank_key, ranks = self._rank_key, parts.ranks
        #: (group, what is known of the policy) of the groups whose pair is not known
        unknown: list[tuple[HeldSlot, int | None]] = []
        #: the groups whose pairs are left to the runs by priority (module doc, 7)
        later: list[HeldSlot] = []
        verdicts, refuses = ({}, None) if refusals is None else (refusals.verdicts,
                                                                 refusals.refuses)
        for slot in slots:
            group = slot.group
            if not group.total:
                continue  # (no offer to list: and it never gains one again)
            if refuses is None:
                known_preq = None
            elif (policy := slot.policy) is not None:
                refused = verdicts.get(policy)
                if refused is None:
                    refused = refuses(policy)
                if refused:
                    if refused == REFUSED:
                        # (the submitter's own are no refusal: never counted)
                        passed.append(slot)
                    continue
                known = known_pairs.get(slot.pair_shape)
                if known is None:
                    if slot.pre is not None:
                        later.append(slot)  # (read by a run by priority alone)
                    else:
                        unknown.append((slot, PREQ_ONLY))
                elif known.match:
                    allowed.append((group, known, slot.one))
                continue
            else:
                # (its offers may be listed by rank: the walk cannot pass over it,
                # but its list's verdict of the key, asked when needed, stands for
                # those that are not)
                known_preq = slot.preq
            known = known_pairs.get(slot.pair_shape)
            if known is None:
                if known_preq is not None and slot.one is not None:
                    # (a group of one offer whose slot Rank does not beat its
                    # CurrentRank is not listed by rank: its list's verdict of the
                    # key alone decides it, module doc 8)
                    refused = verdicts.get(known_preq)
                    if refused is None:
                        refused = refuses(known_preq)  # type: ignore[misc]
                    if refused != ALLOWED or slot.pre is not None:
                        first = slot.first
                        # (the class's slot Rank, one per rank key: kept for the walk
                        # by the group's key, worked out at its first group)
                        key = slot.rank_key
                        if key is None:
                            key = slot.rank_key = rank_key(first)
                        if ranks is None:
                            ranks = parts.ranks = self._ranks_of(klass[0], klass[1], job_ad)
                        rank = ranks.ranks.get(key)
                        if rank is None:
                            rank = ranks.of(key, first)
                        if not rank > first.current_rank:
                            if refused == REFUSED:
                                passed.append(slot)  # (it counts for a rejection alone)
                            elif refused == ALLOWED:
                                later.append(slot)  # (read by a run by priority alone)
                            continue  # (the submitter's own: no entry, no count)
                unknown.append((slot, known_preq))
            elif known.match:
                matched.append((group, known, known_preq, slot.one))
        if later:
            left = out.later
            if left is None:
                left = out.later = LaterPairs(partial(
                    self._resolve, klass, job_ad, signature, known_pairs, parts))
            left.add(later, verdict, sure)
        if unknown:
            self._pairs_of(klass, job_ad, signature, known_pairs, unknown, verdict, parts,
                           out, sure)

    def _pairs_of(self, klass: tuple, job_ad: ClassAd, signature: tuple,
                  known_pairs: dict[int, PairEval], unknown: list[tuple[HeldSlot, int | None]],
                  verdict: object, parts: PartPairs, out: HeldWalk,
                  sure: SureBox | None) -> None:
        """Add to ``out`` (``_walk``) the groups of ``unknown`` (with what is known of the
        policy for each) whose pair with the class key, not known yet, matches: none
        that its verdict (the type's ``verdict``; MISSING: the group's own) rules out
        (its pair result not recorded: nothing reads the pair result of a group
        without entries). A group of a shared static part runs the class key's
        program of the part at its numbers, as ``MatchTable.run_part`` gives it (kept
        in ``known_pairs``); whether a slot passes a box is kept per box and numbers
        whatever the class (``box_passes``), and a box of constant ranks has one pair
        result, looked up once per walk. Else the pair is asked. (One call per walk of a
        type, not per group.) With ``sure`` (every bound of the verdict's box holds on
        these groups), a group of a part whose box the verdict implies
        (``box_passes.implied_by``) passes it untested: its box's one result, or its
        ranks alone (``PairProgram.passed``)."""
        programs, tables, boxed, boxes = parts.programs, parts.tables, parts.boxed, parts.boxes
        matched, allowed = out.matched, out.allowed
        #: static part -> (its program, the box's one result or None: ranks that read
        #: the slot) when the verdict implies its box, else None
        #: (``PartPairs.sure_pair``), per
        #: sure box for the walk (its groups left for later are asked with it again)
        implied: dict[int, tuple[PairProgram, PairEval | None] | None] = {}
        if sure is not None:
            kept = parts.implied.get(id(sure))
            if kept is None or kept[0] is not sure:
                parts.implied[id(sure)] = (sure, implied)
            else:
                implied = kept[1]
        for slot, known_preq in unknown:
            part = slot.part
            if sure is not None and part is MISSING:
                part = self._part(slot)
            if sure is not None and part is not None:
                found = implied.get(part.static, MISSING)  # type: ignore[union-attr]
                if found is MISSING:
                    found = implied[part.static] = parts.sure_pair(  # type: ignore[union-attr]
                        slot.first, part, sure)  # type: ignore[arg-type]
                if found is not None:
                    program, known = found  # type: ignore[misc]
                    if known is None:
                        parts.runs += 1  # (counted as the run it stands for)
                        known = self._part_pair(program, program.passed(
                            part.vals, as_rank, DEFER_RANKS))  # type: ignore[union-attr]
                    known_pairs[slot.pair_shape] = known
                    if known_preq == PREQ_ONLY:
                        allowed.append((slot.group, known, slot.one))
                    else:
                        matched.append((slot.group, known, known_preq, slot.one))
                    continue
            mine = verdict if verdict is not MISSING else self._verdicts.verdict(
                klass, job_ad, slot.first)[0]
            if mine is NEVER:
                continue
            if part is MISSING:
                part = self._part(slot)
            box = None if part is None else boxes.get(part.static)  # type: ignore[union-attr]
            if box is not None:
                # (the part's box, met before: no residual test before a box, its
                # table and its one result (None: ranks that read the slot), in one
                # look-up)
                program, table, known = box
                pair_shape = slot.pair_shape
            else:
                program = None if part is None else programs.get(
                    part.static, MISSING)  # type: ignore[union-attr]
                holds = sure is not None
                if ((program is None or program is MISSING
                     or not program.box)  # type: ignore[union-attr]
                        and not holds and mine is not None and slot.vals is not None
                        and mine.useful()):  # type: ignore[attr-defined]
                    # (the job's Requirements fail at its numbers; a box program made
                    # already tests the same bounds at no greater cost; with ``sure``
                    # they hold)
                    if not mine.passes(slot.vals):  # type: ignore[attr-defined]
                        continue
                    holds = True
                if program is MISSING:
                    program = programs[part.static] = self._part_program(  # type: ignore[union-attr]
                        klass, job_ad, slot.first)
                if program is None:
                    # (where the job's Requirements hold, only the slot's side and
                    # the ranks are evaluated)
                    known = self._pair(klass[0], job_ad, slot.first, signature,
                                       job_holds=holds)
                    if known.match:
                        if known_preq == PREQ_ONLY:
                            allowed.append((slot.group, known, slot.one))
                        else:
                            matched.append((slot.group, known, known_preq, slot.one))
                    continue
                key, pair_shape = id(program), slot.pair_shape
                table = tables.get(key, MISSING)
                if table is MISSING:
                    table = tables[key] = self._boxes.table(program)
            if table is not None:
                passes = table.get(slot.numbers)  # type: ignore[union-attr]
                if passes is None:
                    parts.runs += 1
                    ran = program.run(part.vals, as_rank, DEFER_RANKS)  # type: ignore[union-attr]
                    passes = table[slot.numbers] = ran[0]  # type: ignore[index]
                    if not passes:
                        ran = None
                elif not passes:
                    ran = None
                elif program.result is not None:
                    ran = program.result
                else:
                    # (ranks that read the slot: worked out at its numbers, without
                    # the box's tests, counted as the run they stand for)
                    parts.runs += 1
                    ran = program.passed(part.vals, as_rank, DEFER_RANKS)  # type: ignore[union-attr]
            else:
                parts.runs += 1
                # (its dependent ranks worked out when a list reads them: about half
                # are never read, module doc 6)
                ran = program.run(part.vals, as_rank, DEFER_RANKS)  # type: ignore[union-attr]
                if not ran[0]:
                    ran = None
            if ran is None:
                known_pairs[pair_shape] = NO_MATCH
                continue
            if box is None:
                if ran is program.result:
                    known = boxed.get(key)
                    if known is None:
                        known = boxed[key] = self._part_pair(program, ran)
                    if table is not None:
                        boxes[part.static] = (program, table, known)  # type: ignore[union-attr]
                else:
                    known = self._part_pair(program, ran)
                    if table is not None:  # (a box whose ranks read the slot)
                        boxes[part.static] = (program, table, None)  # type: ignore[union-attr]
            elif known is None:  # (else ``known`` is the box's one result)
                known = self._part_pair(program, ran)
            known_pairs[pair_shape] = known
            if known.match:
                if known_preq == PREQ_ONLY:
                    allowed.append((slot.group, known, slot.one))
                else:
                    matched.append((slot.group, known, known_preq, slot.one))

    def _part(self, slot: HeldSlot) -> SlotVector | None:
        """The group's shared static part (``MatchTable.static_vector``) and its numbers
        (``box_passes``), worked out at its first pair asked, as ``MatchTable.pair``
        did (the first call works out every static offer's part)."""
        part = slot.part = self._part_of(slot.first)
        if part is not None:
            slot.numbers = self._boxes.numbers(part.vals)
        return part
