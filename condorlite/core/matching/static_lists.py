"""The candidate entries of unheld static slots, made once per class and shared.

Static offers (not partitionable) never change state during a cycle and never join a
slot shape after they are first placed: they only leave, when matched
(``Matchmaker.retire``). Their entries in a class's list are therefore the same in
every list of the class, less those that have left. So the sorted list is made once,
shared by every class whose pairs rank each static shape alike (an entry is made of
the offer and the pair's job rank and dependent ranks, ``candidates.make_entries``),
and handed to the scan as a second sorted list (``Candidates.static``) with the
position of its first entry still available. A shape of several offers gives the list
a sorted run, made once per (shape, job rank, dependent ranks) and shared by every
list that holds it: classes whose ranks differ in one shape share the others' runs.
The offers of one-offer shapes (most shapes where every slot differs) get their
entries made together, per equal ranks (``_made``), and each entry once per (ranks'
number, offer) for every list (``_singles``): an unheld static offer is never stamped
(its ``version`` is fixed), so its entry is a function of the offer and the ranks
the number stands for, dependent ranks included. An entry of an
offer that has left stays (the scan passes over it) until half of the list has left; the list is
then made again of the rest, as a new object: a list handed out is never changed in
place.

Which static shapes a class matches is asked only where it can: the shapes of a
shared static part are kept sorted by each of the part's numbers (``static_parts``),
and the class's program of the part (``MatchTable.static_program``) is run here on
the shapes its bounds leave, none when it never matches; every other shape is asked
through ``MatchTable.pair``, but for the desktops among them (evaluated in full) whose
pair shape's owner gate rules the class's owner out: their pairs are recorded
``NO_MATCH`` and counted as the table would, unasked (``owner_walks``). A box's shapes
strictly inside all its bounds (``Part.split``) take its ranks alone
(``PairProgram.passed``), and nothing at all when the ranks are constants: the box's
one result; else once per values the ranks read (``box_reads``), the pair result
shared by the shapes of those values. A part whose shapes have all left
(``Part.gone``) is passed over: no program is made for it.

A box's sure shapes of its one result (``PairProgram.result``: constant ranks) are
put in the order of their entries and made by blocks as the list's merge reaches
each block's head (``static_blocks.StaticBlocks``, which the lists own; ``later``
hands a list's blocks out as pending runs): the shapes no walk reaches get no entry.
The rest of the list is made whole with it, as before.

Work, not outcome: lists are keyed by their shapes and the number of each one's
ranks (``_rank_numbers``); a group of one-offer shapes is put in the likely order of
its entries (``StaticBlocks.places``) before they are made, so the list's sort
merges runs (a list's order is the sort's, whatever the hint); a list keeps its
shapes' members dicts (``members``' own, emptied in place as offers leave), so its
alive offers are counted in C at every ask.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from itertools import chain
from operator import itemgetter

from condorlite.core.adeval import ClassAd
from condorlite.core.matching.box_reads import by_reads
from condorlite.core.matching.candidates import (
    ENTRY_IDX,
    PairEval,
    as_rank,
    make_entries,
    make_pair,
)
from condorlite.core.matching.carving import PairProgram
from condorlite.core.matching.literal_tests import LiteralSieve, fails_on_literals
from condorlite.core.matching.match_table import MatchTable
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.owner_walks import OwnerWalks
from condorlite.core.matching.rank_columns import RankColumn
from condorlite.core.matching.static_blocks import LEAST, StaticBlocks
from condorlite.core.matching.static_parts import Part, StaticParts
from condorlite.core.model import NO_PREEMPTION

#: a (shape, pair result)'s shape
_SHAPE = itemgetter(0)
#: the least offers of a group of one-offer shapes that are put in their likely
#: order before their entries are made (``StaticBlocks.places``)
ORDERED = 32
#: whether the shapes a box surely passes skip its bounds (``Part.split``; the tests
#: switch it)
SPLIT = True
#: whether a box's sure shapes of ranks that are no constants share their run per
#: values the ranks read (``box_reads``; the tests switch it)
BY_READS = True
#: whether a box's sure shapes of one result are made by blocks as a list's merge
#: reads them (``static_blocks``; the tests switch it)
LATER = True


class StaticLists:
    """The static lists of one cycle's matchmaker (see the module doc)."""

    def __init__(self, registry: list[Offer], members: dict[int, dict[int, None]],
                 pair_of: dict[int, int], table: MatchTable) -> None:
        #: the matchmaker's offers by ``seq``, its static shapes' available members,
        #: and each shape's pair shape (read, never changed here)
        self.registry, self.members, self.pair_of = registry, members, pair_of
        #: the pair results' table: a class's program for a shared static part
        self._program = table.static_program
        self._vector = table.static_vector
        self._counts = table.counts
        #: the shapes by shared static part, sorted by their numbers (``static_parts``)
        self._parts = StaticParts(registry, members, table.static_vectors)
        #: class key -> [entries, the available members of their shapes (``members``'
        #: own dicts, emptied in place as offers leave: ``entries`` counts them), first
        #: position of interest, the least weight of their offers (inf when there are
        #: none)]
        self._of_class: dict[tuple, list] = {}
        #: what a list is made of -> that list (the same object as in ``_of_class``)
        self._shared: dict[tuple, list] = {}
        #: (job rank or column, dependent ranks) -> its number, what lists are keyed
        #: by (``_holder``)
        self._rank_numbers: dict[tuple, int] = {}
        #: (shape, the number of its ranks) -> (its sorted entries, their least
        #: weight): the runs lists are made of (``_run``)
        self._runs: dict[tuple, tuple[list[tuple], float]] = {}
        #: each offer's weight by ``seq`` (``_weights``: a weight never changes)
        self._weight_of: list[float] = []
        #: the number of ranks (``_rank_numbers``) -> offer seq -> the entry of a
        #: one-offer shape's offer for those ranks, shared between lists (``_singles``)
        self._singles_made: dict[int, dict[int, tuple]] = {}
        #: the walked shapes split by the class's owner (``owner_walks``)
        self._owners = OwnerWalks(registry, members, pair_of, table)
        #: the desktop parts' groups dead for a class, passed over unprobed (``_sieved``)
        self._sieve = LiteralSieve(table.now)
        #: the blocks of the lists' sure shapes of one result (``static_blocks``)
        self._blocks = StaticBlocks(registry, members)

    def entries(self, key: tuple, job_ad: ClassAd, known_pairs: dict[int, PairEval],
                pair: Callable[[Offer], PairEval], column: RankColumn | None = None
                ) -> tuple[list[tuple], int, float]:
        """The sorted entries of the class ``key`` (class, Submitter* part or (), as
        ``MatchTable.pair`` keys it; ``job_ad`` its job), the position of the first
        still available and the least weight of any offer the entries were made of
        (a static offer costs its weight: no entry of the list costs less).
        ``known_pairs``: the class's pair results by pair shape; ``pair(offer)``:
        the pair of a shape not known yet; ``column``: the class's job ranks per
        offer (``rank_columns``), standing for its pairs' job rank."""
        holder = self._of_class.get(key)
        registry = self.registry
        if holder is None:
            holder = self._of_class[key] = self._holder(key, job_ad, known_pairs, pair,
                                                        column)
        entries, of_shapes, start, least, _ = holder
        # (a shape's members dict is emptied in place, never replaced: a static shape
        # gains no offer; a shape left out of ``members`` holds an empty one)
        alive = sum(map(len, of_shapes))
        if alive * 2 < len(entries) - start:
            # (none alive, most often when a list is compacted at all: nothing to look at)
            entries = holder[0] = [e for e in entries[start:]
                                   if registry[e[ENTRY_IDX]].available] if alive else []
            start = 0
        end = len(entries)
        while start < end and not registry[entries[start][ENTRY_IDX]].available:
            start += 1
        holder[2] = start
        return entries, start, least

    def later(self, key: tuple, runs: list) -> bool:
        """Add to ``runs`` the blocks of the class ``key``'s list (made by
        ``entries``) still to hand out (``StaticBlocks.handed``); whether one is not
        made yet."""
        holder = self._of_class[key]
        if not holder[4]:
            return False
        holder[4], unmade = self._blocks.handed(holder[4])
        runs.extend(holder[4])
        return unmade

    def _holder(self, key: tuple, job_ad: ClassAd, known_pairs: dict[int, PairEval],
                pair: Callable[[Offer], PairEval], column: RankColumn | None) -> list:
        """[entries, their shapes' members, 0, least weight, runs made later] for a
        class: the list of another class whose pairs rank every static shape alike,
        else a new one. The shapes asked are those of no sorted part and, of each
        sorted part, those the class's program of the part may match
        (``static_parts``): the others cannot match. A box's sure shapes of one
        result, ordered, are made later (``static_blocks``: ``later``)."""
        registry, pair_of, members = self.registry, self.pair_of, self.members
        walked, parts = self._parts.groups()
        asked = [self._owners.asked(job_ad, walked, known_pairs)]
        matched: list[tuple[int, PairEval]] = []
        #: (a box's sure shapes in the order of their entries, its one pair result)
        lazy: list[tuple[list[int], PairEval]] = []
        for part in parts:
            if part.gone(members):
                continue  # (every shape of it matched since it was grouped: no program)
            program = self._program(key, job_ad, part.offer)
            if program is None:
                asked.append(part.shapes)  # (no program: each shape evaluated in full)
            else:
                self._by_program(part, program, matched, job_ad, lazy, column)
        for shape in chain.from_iterable(asked):
            seqs = members.get(shape)
            if seqs is None:
                continue  # (every offer of it has left)
            pe = known_pairs.get(pair_of[shape])
            if pe is None:
                pe = pair(registry[next(iter(seqs))])
            if pe.match:
                matched.append((shape, pe))
        if parts:
            # (one order for one set, so that lists are shared; by the shape, a key
            # taken in C)
            matched.sort(key=_SHAPE)
        # What the list is made of, as a key: the shapes, and each one's ranks (the
        # job rank or the column, the dependent ranks) by their number
        # (``_rank_numbers``: a key of small numbers hashes and compares at once),
        # worked out once per pair result (a box of constant ranks gives one result
        # to all its shapes).
        numbers = self._rank_numbers
        #: (job rank, id(dependent ranks)) -> number: a program's shapes of equal
        #: ranks have results of their own (``_ran``: their slot ranks differ, which
        #: no static list reads) but share the dict of their dependent ranks
        number_of: dict[tuple, int] = {}

        def number_for(pe: PairEval) -> int:
            local = (pe.job_rank if column is None else 0.0, id(pe.dependent))
            number = number_of.get(local, -1)
            if number < 0:
                rank = (pe.job_rank if column is None else column,
                        tuple(pe.dependent.items()))
                number = numbers.get(rank, -1)
                if number < 0:
                    number = numbers[rank] = len(numbers)
                number_of[local] = number
            return number

        ranks = []
        last, number = None, -1  # (runs of one result: a box's shapes, mostly)
        for _, pe in matched:
            if pe is not last:
                last = pe
                number = number_for(pe)
            ranks.append(number)
        later = [(shapes, pe, number_for(pe)) for shapes, pe in lazy]
        same = (tuple([shape for shape, _ in matched]), tuple(ranks),
                tuple([(tuple(shapes), number) for shapes, _, number in later]))
        holder = self._shared.get(same)
        if holder is None:
            holder = self._shared[same] = self._made(matched, ranks, column)
            if later:
                # (every sure shape matches: the list's least weight is theirs too)
                holder[4], least = self._blocks.runs(later, self._weights(), column,
                                                     self._singles)
                holder[3] = min(holder[3], least)
        return holder

    def _made(self, matched: list[tuple[int, PairEval]], ranks: list[int],
              column: RankColumn | None) -> list:
        """A new holder of the entries of the ``matched`` shapes (``ranks``: the
        number of each one's ranks, as ``_holder`` keys them).
        A shape of several offers takes its run (``_run``, shared between lists);
        the entries of the shapes of one offer are made here, those of equal ranks
        in one ``make_entries`` call (a run of one entry would cost a call, a sort
        and a key of its own)."""
        members = self.members
        runs: list[list[tuple]] = []
        of_shapes = []
        least = math.inf
        #: ranks' number -> (a pair result of them, the offers of its one-offer shapes)
        singles: dict[int, tuple[PairEval, list[int]]] = {}
        for (shape, pe), rank in zip(matched, ranks, strict=True):
            seqs = members[shape]
            of_shapes.append(seqs)
            if len(seqs) == 1:
                group = singles.get(rank)
                if group is None:
                    group = singles[rank] = (pe, [])
                group[1].extend(seqs)
                continue
            run, run_least = self._run(shape, pe, (shape, rank), column)
            runs.append(run)
            least = min(least, run_least)
        for rank, (pe, seqs) in singles.items():
            if len(seqs) >= ORDERED:
                seqs.sort(key=self._blocks.places().__getitem__)
            runs.append(self._singles(rank, seqs, pe, column))
            least = min(least, min(map(self._weights().__getitem__, seqs)))
        # (one run is shared as it is, a list handed out never changing; else the
        # sorted runs and the groups, concatenated: the sort merges them, a group
        # put in the offers' likely order (``StaticBlocks.places``) being a run most
        # often)
        entries = (runs[0] if len(runs) == 1 and not singles
                   else sorted(chain.from_iterable(runs)))
        return [entries, of_shapes, 0, least, []]

    def _singles(self, rank: int, seqs: list[int], pe: PairEval,
                 column: RankColumn | None) -> list[tuple]:
        """``make_entries(registry, seqs, pe, NO_PREEMPTION, column=column)``, each
        entry made once per (``rank``, offer) and shared by every list: ``rank``
        numbers the job rank (or ``column``) and the dependent ranks of ``pe``
        (``_holder``), which with the offer's independent ranks, name and version
        are all an entry holds, and an unheld static offer's version never moves
        (only carving and claims stamp an offer)."""
        made = self._singles_made.get(rank)
        if made is None:
            made = self._singles_made[rank] = {}
        fresh = [k for k in seqs if k not in made]
        if fresh:
            made.update(zip(fresh, make_entries(self.registry, fresh, pe, NO_PREEMPTION,
                                                column=column), strict=True))
        return [made[k] for k in seqs]

    def _weights(self) -> list[float]:
        """Each offer's weight by ``seq``, the offers prepared since added (an
        offer's weight never changes): a group's least weight is then taken in C."""
        weights, registry = self._weight_of, self.registry
        if len(weights) != len(registry):
            weights.extend([offer.weight for offer in registry[len(weights):]])
        return weights

    def _by_program(self, part: Part, program: PairProgram,
                    matched: list[tuple[int, PairEval]], job_ad: ClassAd,
                    lazy: list[tuple[list[int], PairEval]], column: RankColumn | None
                    ) -> None:
        """Add to ``matched`` the shapes of ``part`` the class's ``program`` of it
        matches, with their pair results: of the shapes it may match
        (``Part.within``), those where it runs true, as ``MatchTable.pair`` runs it
        (one evaluation each; the results are not kept in the table, no other list
        reads them). A box of one outcome gives one result, shared; the shapes a box
        surely passes (``Part.split``) only take their ranks, and with one outcome
        most go to ``lazy`` instead, ordered (``StaticBlocks.group``)."""
        split = part.split(program) if program.box and SPLIT else None
        result = program.result
        shared = None if result is None else _pair_of(result)
        if split is None:
            shapes = part.within(program)
            if not shapes:
                return
            if not program.box and program.literals:
                groups = part.by_literals(program.width - program.literals, program.width)
                if groups is not None:
                    shapes = self._sieved(part, program, groups, job_ad)
            self._ran(part, program, shapes, False, shared, matched)
            return
        if shared is not None and LATER and len(split.sure) >= LEAST:
            # (those still available counted as one evaluation each, as ``_ran``
            # counts them; those ``StaticBlocks.group`` orders made by blocks)
            alive = [shape for shape in split.sure if shape in self.members]
            self._counts.evaluations += len(alive)
            ordered, alive = self._blocks.group(alive, column)
            if ordered is not None:
                lazy.append((ordered, shared))
            matched.extend([(shape, shared) for shape in alive])
        else:
            self._ran(part, program, split.sure, True, shared, matched)
        self._ran(part, program, split.tried, False, shared, matched)

    def _ran(self, part: Part, program: PairProgram, shapes: Sequence[int], sure: bool,
             shared: PairEval | None, matched: list[tuple[int, PairEval]]) -> None:
        """Add to ``matched`` those of ``shapes`` still available that ``program``
        matches, each counted as one evaluation: by its ``run``, or by ``passed``
        when the box surely passes them (``sure``); ``shared``: the pair result of
        the box's one outcome (``PairProgram.result``), if it has one."""
        members, vals, result = self.members, part.vals, program.result
        if sure and shared is not None:
            # (every shape passes with the one outcome: no run at all)
            alive = [(shape, shared) for shape in shapes if shape in members]
            matched.extend(alive)
            self._counts.evaluations += len(alive)
            return
        if sure and BY_READS:
            # (ranks that read the vector: a run per values they read)
            self._counts.evaluations += by_reads(part, program, shapes, members, matched)
            return
        run = program.passed if sure else program.run
        runs = 0
        for shape in shapes:
            if shape in members:
                runs += 1
                out = run(vals[shape], as_rank)
                if out[0]:
                    matched.append((shape, shared if out is result else
                                    make_pair((True, out[1], out[2], out[3], None))))
        self._counts.evaluations += runs

    def _sieved(self, part: Part, program: PairProgram, groups: list[list[int]],
                job_ad: ClassAd) -> list[int]:
        """The shapes of ``part`` (all of them: ``program`` is no box) but for the
        groups of equal own literals dead for the class (``literal_tests.LiteralSieve``:
        no probe) and those where one of the program's tests fails on the literals
        alone (``literal_tests``: one probe per group, counted as one evaluation,
        stands for every shape of the group)."""
        members, vals = self.members, part.vals
        alive = self._sieve.alive(part.offer.ad, self._vector(part.offer),  # type: ignore[arg-type]
                                  job_ad, groups, vals)
        kept: list[int] = []
        probes = 0
        for group in groups if alive is None else alive:
            # (the first shape still there is probed; the rest are looked for only
            # when the probe keeps the group)
            for shape in group:
                if shape in members:
                    break
            else:
                continue
            probes += 1
            if not fails_on_literals(program, vals[shape]):
                kept.extend([shape for shape in group if shape in members])
        self._counts.evaluations += probes
        return kept

    def _run(self, shape: int, pe: PairEval, key: tuple, column: RankColumn | None
             ) -> tuple[list[tuple], float]:
        """The sorted entries of one static shape for a pair result (``key``: the shape
        and the number of its ranks, the pair's job rank or the class's column and
        dependent ranks, ``_holder``) and the least
        weight of their offers, made once and shared by every list built of it, until
        half of the offers it was made of have left (as a list is compacted,
        ``entries``)."""
        members = self.members[shape]
        found = self._runs.get(key)
        if found is None or len(members) * 2 < len(found[0]):
            registry = self.registry
            run = make_entries(registry, members, pe, NO_PREEMPTION, column=column)
            run.sort()
            least = min((registry[k].weight for k in members), default=math.inf)
            found = self._runs[key] = (run, least)
        return found


def _pair_of(outcome: tuple) -> PairEval:
    """The pair result of a static shape of a program's ``outcome`` (no fit: a
    static slot is never carved)."""
    return make_pair((True, outcome[1], outcome[2], outcome[3], None))
