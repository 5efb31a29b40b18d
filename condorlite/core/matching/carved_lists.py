"""A request's candidates among the offers with a resource vector, a static at a time.

The carved states of partitionable slots (and static slots whose numbers are a vector,
``static_programs``) are grouped by *static*: the bindings their evaluations read
other than the vector (``OfferShapes.groups``). ``CarvedLists.add`` walks a request's
statics: a static no state of which can match the class (a program that never does,
``never_matches``) or hold its literal requests any more (``spent_statics``: carving
only lowers amounts) is passed over, and kept as passed over for the class for good;
in the others, a state with less of a resource than the class's fixed request is
passed over without a pair evaluation (whether a state holds a set of fixed requests
is kept per set: a state never changes), and the states that hold them are added
through ``shape_entries.ShapeEntries``, with the program's one result when the
program is a box without bounds left to test (``carving``); a state of one offer
nobody holds has its entry made into the list's rest (a kept run of one entry would
cost its key and look-up and the list's merge a run to bisect, for no sort saved;
``candidates.make_entry`` written out in the walk, the list's hottest loop on a
partitionable pool: 1.3 million states visited at 10,000 slots). A static of offers
nobody holds whose pre-job rank reads nothing of the job (and whose class's rank
column, if any, is the same in every state of its offers) is not walked: its
offers' order by that rank (``ordered_states``) is handed to the list, which makes
their entries only as far as its merge reads (about a quarter of a list's carved
entries were ever read; a static whose states several offers share is walked for
good at its first class whose pair is a box, ``static_orders``); so is one whose
pre-job rank reads the job only through the slots' own literal tests
(``literal_orders``), with the class's offsets (the offers its tests give other
values) merged in; each tier of the order
where the class's fixed requests ask for a resource the states have none of is passed
over. The groups of a static whose ``Requirements`` cannot hold for the class by the
slots' own literal tests (``literal_matches``: other owners' busy desktops) are left
out of its walk, and a static whose groups all are is passed over before its program
is made. An only-rank list passes over the statics of offers nobody holds: none of
them can be listed by rank alone.

It owns which shapes hold a set of fixed requests and the statics passed over per
class; it reads the shapes' tables and asks the match table (``program``,
``outgrown``, ``literal_requests``).
"""

from __future__ import annotations

from condorlite.core.matching.candidates import (
    FLT_MAX,
    NO_MATCH,
    POST,
    PRE,
    PairEval,
    as_rank,
    box_pair,
    make_pair,
)
from condorlite.core.matching.carving import PairProgram
from condorlite.core.matching.evaluation_count import EvaluationCount
from condorlite.core.matching.literal_matches import LiteralMatches
from condorlite.core.matching.literal_orders import LiteralOrders, LiteralSnapshot
from condorlite.core.matching.literal_states import LiteralStates
from condorlite.core.matching.match_table import MatchTable
from condorlite.core.matching.offer_shapes import OfferShapes
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.ordered_states import OrderedStates
from condorlite.core.matching.rank_columns import RankColumn
from condorlite.core.matching.shape_entries import ListBuild, ShapeEntries
from condorlite.core.matching.static_orders import StaticOrders
from condorlite.core.model import NO_PREEMPTION, REASON_ORDER

#: whether a shape's pair is the program run here, and an unheld shape's entries
#: taken kept here (``_fitting_candidates``); the tests switch it off to compare
DIRECT = True

#: whether a static's entries may be made from its offers' order (``ordered_states``)
ORDERED = True

#: whether the groups of offers whose Requirements cannot hold for a class are left
#: out of its walk (``literal_matches``); the tests switch it off to compare
MATCHES = True

#: an entry's reason-order key by no preemption (``candidates.make_entry``)
_FREE_ORDER = -REASON_ORDER[NO_PREEMPTION]


class CarvedLists:
    """A cycle's walks over the vector statics (module doc)."""

    def __init__(self, shapes: OfferShapes, table: MatchTable, counts: EvaluationCount,
                 entries: ShapeEntries) -> None:
        self._counts = counts
        self._entries = entries
        self._program, self._outgrown = table.program, table.outgrown
        #: ((class, Submitter* part), static) -> its program, once made (read only)
        self._programs = table.programs
        self._literal_requests = table.literal_requests
        # The shapes' tables, read here (the objects themselves: never rebound there).
        self._registry, self._groups = shapes.registry, shapes.groups
        self._shape_left, self._pair_of_shape = shapes.shape_left, shapes.pair_of_shape
        self._spent = shapes.spent
        #: shape -> how many times an offer entered it (``ShapeEntries.kept``'s test)
        self._joins = shapes.joins
        #: fixed requests (position, amount)... -> shape -> whether the shape holds them
        self._fitting: dict[tuple, dict[int, bool]] = {}
        #: (class, Submitter* part) -> the vector statics its lists pass over for good:
        #: no state can match it (a program that never does) or hold its fixed
        #: requests any more (``spent_statics``: carving only lowers amounts)
        self._dead: dict[tuple, set[int]] = {}
        #: each static's offers in order of their pre-job rank (``static_orders``)
        literal = LiteralOrders(shapes.exprs.pre, shapes.job_defined, shapes.now)
        self._orders = StaticOrders(shapes, literal)
        #: the groups of offers whose Requirements cannot hold for a class, by
        #: their literal tests (``literal_matches``)
        self._matches = LiteralMatches(shapes.registry, literal.known, shapes.now)
        #: (rank column, static) -> whether the column's value of each of the
        #: static's offers is the same in every state
        self._column_fixed: dict[tuple, bool] = {}

    def add(self, build: ListBuild) -> list:
        """Add to a request's list (``RequestLists._by_shape``) the offers with a
        resource vector, a static (box) at a time: by the class's program for the
        static (``carving``), passing over the states too small for its fixed requests
        without a pair evaluation. Returns the sources of entries made as the list's
        merge reaches them: a static's offers in order (``ordered_states``), when the
        class's entries of it sort first by a rank that does not read the job, and
        nothing else."""
        class_id, job_ad, part = build.class_id, build.job_ad, build.part
        registry = self._registry
        self._orders.sync()
        sources: list = []
        # (a static's offers are all nobody's or all held)
        only_rank = build.only_rank
        ordered = ORDERED and DIRECT and not only_rank
        column = build.column
        walked, shared = self._orders.walked, self._orders.shared_states
        # (read here for each static: the tables themselves, never rebound there)
        ordered_tiers, unsplit = self._orders.orders, self._matches.unsplit
        # (the statics passed over below are passed over for good: kept per class)
        dead = self._dead.get((class_id, part))
        if dead is None:
            dead = self._dead[(class_id, part)] = set()
        for static, shapes in self._groups.items():
            if not shapes or static in dead:
                continue
            first = registry[next(iter(next(iter(shapes.values()))))]
            if only_rank and first.holder is None:
                # (nobody's offers are never listed by rank alone, ``Reasons.reason``:
                # no pair of them is needed; passing over a static is never noted)
                continue
            # (an ordered static's states by tier: whether one holds a request is
            # found without reading the tiers that cannot, ``_holds_any``)
            tiers = (ordered_tiers.get(static) if ordered and first.holder is None
                     else None)
            if tiers is None or ((class_id, part), static) in self._programs:
                if self._outgrown((class_id, part), job_ad, first):
                    dead.add(static)
                    continue  # no state left holds the class's requests: no program needed
            else:
                # (``MatchTable.outgrown`` by the tiers)
                requests = self._literal_requests((class_id, part), job_ad, first)
                if requests and not self._holds_any(static, tiers, requests):
                    dead.add(static)
                    continue
            live = (self._matches.live(static, first, job_ad, shapes)
                    if MATCHES and not only_rank and static not in unsplit else None)
            if live is not None and not live:
                # (no state of the static can match the class, nor ever will: the
                # groups of a static are its offers', ``literal_matches``)
                dead.add(static)
                continue
            program = self._program((class_id, part), job_ad, first)
            if program is not None and program.never:  # type: ignore[attr-defined]
                dead.add(static)
                continue  # no state of these slots can match the class
            # A state with less of a resource than the class's fixed request cannot
            # match: it is passed over without a pair evaluation. Without a program
            # (a static of one slot, evaluated in full) the fixed requests are the
            # class's literal ones, as ``outgrown`` tests them.
            if program is None:
                fixed = [("", amount, pos) for pos, amount in self._literal_requests(
                    (class_id, part), job_ad, first)]
            else:
                fixed = program.fixed  # type: ignore[attr-defined]
            # A box without bounds left to test: a state holding the fixed requests
            # matches, with the program's one result (``carving``).
            boxed = (box_pair(program) if program is not None and program.result is not None
                     and not program.bounds else None)
            asked = tuple((p, a) for _, a, p in fixed)
            if self._spent.known(static, asked):
                dead.add(static)
                continue  # (no state holds the fixed requests any more: ``spent_statics``)
            if live is not None:
                # (the groups of offers whose Requirements cannot hold for the class,
                # by their literal tests, left out: ``literal_matches``)
                if not self._fitting_candidates(build, live, first, fixed, asked,
                                                boxed, program):
                    # (no live state holds the requests, nor ever will: for this
                    # class only, the dead groups may still fit others)
                    dead.add(static)
                continue
            tiers = literal = None
            if boxed is not None and static in shared and static not in walked:
                # (a box's state costs the walk one look-up, and a state of several
                # offers one kept run for every class, where the order makes an entry
                # per offer per class: walked for good, ``static_orders``)
                self._orders.walk(static)
            if ordered and first.holder is None and (boxed is not None or program is not None):
                # (the positions the class asks more than nothing of: a tier with
                # nothing left at one of them holds no state for it, ``ordered_states``)
                asking = {pos for _, amount, pos in fixed if amount > 0}
                if PRE in first.independent:
                    tiers = self._orders.snapshot(static, asking)
                elif static not in walked:
                    # (a pre-job rank that reads the job through literal tests alone:
                    # ordered by one tests' values, the class's offsets apart)
                    literal = self._orders.literal(first, job_ad, asking)
                    tiers = None if literal is None else literal.items
            if tiers is not None and column is not None and not self._same_everywhere(
                    column, static, self._orders.tiers(static)):  # type: ignore[arg-type]
                tiers = None
            if tiers is not None:
                if not self._holds_any(static, tiers, asked):
                    dead.add(static)
                else:
                    self._ordered_sources(sources, build, tiers, literal, fixed, asked,
                                          boxed, program)
                continue
            if not self._fitting_candidates(build, shapes, first, fixed, asked, boxed,
                                            program):
                self._spent.note(static, asked)
                dead.add(static)
        return sources

    def _holds_any(self, static: int, tiers: dict[tuple, list[tuple]],
                   asked: tuple[tuple[int, float], ...]) -> bool:
        """Whether a state of an ordered static (``tiers``: its items, the available
        offers, one per shape) holds every (position, amount) of ``asked``, the tiers
        with nothing left where an amount is more than nothing passed over unread
        (``ordered_states``); when none does, noted for good (``spent_statics``)."""
        spent = self._spent
        if spent.known(static, asked):
            return False
        shape_left = self._shape_left
        asking = {pos for pos, amount in asked if amount > 0}
        for tier, items in tiers.items():
            if not asking.isdisjoint(tier):
                continue
            for item in items:
                have = shape_left[item[3]]
                for pos, amount in asked:
                    if amount > have[pos]:
                        break
                else:
                    return True
        spent.note(static, asked)
        return False

    def _ordered_sources(self, sources: list, build: ListBuild,
                         tiers: dict[tuple, list[tuple]], literal: LiteralSnapshot | None,
                         fixed: list[tuple[str, float, int]], asked: tuple,
                         boxed: PairEval | None, program: PairProgram | None) -> None:
        """Add to ``sources`` a static's ordered sources for a class: one per tier
        ``tiers`` holds (``StaticOrders.snapshot``: those where its fixed requests ask
        nothing of a position with nothing left; a tier where one does holds no state
        for it: passed over, its items unread), the offsets (``literal``) with the
        first."""
        args = (self._pair_of_shape, self._shape_left, fixed, boxed, program,
                build.known_pairs, self._counts, build.column)
        extra = None if literal is None else literal.extra
        for items in tiers.values():
            if literal is None:
                sources.append(OrderedStates(items, *args))  # type: ignore[arg-type]
            else:
                sources.append(LiteralStates(literal._replace(items=items, extra=extra),
                                             *args))  # type: ignore[arg-type]
                extra = []
        if extra:
            # (every tier passed over or empty: the offsets alone)
            sources.append(LiteralStates(literal._replace(items=[], extra=extra),  # type: ignore[union-attr]
                                         *args))  # type: ignore[arg-type]

    def _same_everywhere(self, column: RankColumn, static: int,
                         tiers: dict[tuple, list[tuple]]) -> bool:
        """Whether ``column``'s value of each offer of ``static`` (``tiers``: its
        available offers, ``ordered_states``) is the same in every state: kept per
        (column, static), as a static never gains an offer."""
        key = (column, static)
        found = self._column_fixed.get(key)
        if found is None:
            registry = self._registry
            found = self._column_fixed[key] = column.all_same_in_every_state(
                registry[item[1]] for items in tiers.values() for item in items)
        return found

    def _fitting_candidates(self, build: ListBuild, shapes: dict[int, dict[int, None]],
                            first: Offer, fixed: list[tuple[str, float, int]], asked: tuple,
                            boxed: PairEval | None, program: PairProgram | None) -> bool:
        """``add`` over one static's shapes that hold the class's fixed
        requests ``asked`` (those that do not are passed over without a pair
        evaluation); with ``boxed``, each fitting shape's pair is that one result;
        else a shape's pair not yet known is the class's ``program`` run at its
        vector (``MatchTable.fresh_pair`` written out: the program is the one
        ``pair`` would take), when there is one, without testing the fixed requests
        again (``PairProgram.run_fitted``). Returns whether any shape holds them."""
        out, class_id, job_ad, submitter, signature, only_rank, _, known_pairs, \
            kept_runs, column = build
        pair_of, shape_left = self._pair_of_shape, self._shape_left
        # (a state never changes: whether it holds a set of fixed requests is kept
        # per set, for every class asking for the same amounts)
        fitting = self._fitting.setdefault(asked, {})
        any_fit = False
        # Offers nobody holds (a static's offers are all held or all not), listed
        # by no preemption: each fitting shape's entries are the kept ones of
        # (shape, its pair's ranks, no preemption), ``ShapeEntries.add`` written out.
        free = first.holder is None and not only_rank
        if boxed is not None and free:
            # (the runs kept for the box's one result, by shape, looked up at the
            # first shape of several offers: a run still the one ``ShapeEntries.kept``
            # would give is taken without the call)
            run_key = (boxed.job_rank if column is None else column,
                       tuple(boxed.dependent.items()), NO_PREEMPTION)
            runs, joins = None, self._joins
        run = None if program is None or not DIRECT else program.run_fitted
        registry, kept = self._registry, self._entries.kept
        # (the pairs worked out here, added to the cycle's count once at the end)
        evaluations = 0
        rest = out.entries
        append = rest.append
        for shape, members in shapes.items():
            fit = fitting.get(shape)
            if fit is None:
                # (whether the state holds every fixed request (spelling, amount,
                # position), by ``slot_vectors.left`` of each resource: a plain loop here,
                # where a new state meets each set on every walk)
                have = shape_left[shape]
                fit = True
                for _, amount, pos in fixed:
                    if amount > have[pos]:
                        fit = False
                        break
                fitting[shape] = fit
            if not fit:
                continue
            any_fit = True
            pair_shape = pair_of[shape]
            if boxed is not None:
                known = boxed
                if pair_shape not in known_pairs:
                    evaluations += 1
                    known_pairs[pair_shape] = boxed
                if not free:
                    self._entries.add(out, class_id, job_ad, submitter, signature,
                                      only_rank, members, boxed, shape, kept_runs, column)
                    continue
                if len(members) != 1:
                    if runs is None:
                        runs = self._entries.runs(run_key)
                    found = runs.get(shape)
                    if found is not None and found[0] == joins[shape] \
                            and len(members) * 2 >= len(found[1]):
                        kept_runs.append(found[1])
                    else:
                        kept_runs.append(kept(shape, members, boxed, NO_PREEMPTION, run_key,
                                              column))
                    continue
            else:
                known = known_pairs.get(pair_shape)
                if known is None:
                    if run is None:
                        self._entries.add(out, class_id, job_ad, submitter, signature,
                                          only_rank, members, None, shape, kept_runs, column)
                        continue
                    evaluations += 1
                    for idx in members:  # noqa: B007 (the first: its offers share the state)
                        break
                    outcome = run(registry[idx].vector.vals, as_rank)
                    known = known_pairs[pair_shape] = (
                        NO_MATCH if not outcome[0] else box_pair(program)  # type: ignore[arg-type]
                        if program.result is not None else make_pair(outcome))  # type: ignore[union-attr]
                if not known.match:
                    continue
                if not free:
                    self._entries.add(out, class_id, job_ad, submitter, signature,
                                      only_rank, members, known, shape, kept_runs, column)
                    continue
                if len(members) != 1:
                    kept_runs.append(kept(shape, members, known, NO_PREEMPTION, (
                        known.job_rank if column is None else column,
                        tuple(known.dependent.items()), NO_PREEMPTION), column))
                    continue
            # One offer nobody holds: its entry made into the rest, not kept
            # (``candidates.make_entry`` by no preemption, written out).
            for idx in members:  # noqa: B007 (the one offer: cheaper than next(iter()))
                break
            offer = registry[idx]
            values, ranks = offer.independent, known.dependent
            append((-(values[PRE] if PRE in values else ranks[PRE]),
                    -(known.job_rank if column is None else column.value(offer)),
                    -(values[POST] if POST in values else ranks[POST]),
                    _FREE_ORDER, FLT_MAX, offer.name, idx, offer.version, NO_PREEMPTION))
        self._counts.evaluations += evaluations
        return any_fit

