"""Candidate lists for one request: listing, ordering and counting a request's
candidate offers.

``offer_shapes.OfferShapes`` keeps the offers (their shapes, walks and carved states)
and ``match_table.MatchTable`` answers one pair at a time; one
``RequestLists`` per cycle, owned by the matchmaker, turns those answers into a
request's sorted list (``candidates``): the whole offer list a shape at a time
(``_by_shape``: static offers through ``static_lists``, held offers a group at a time
through ``held_groups``, carved states by their programs, entries kept per shape for
reuse), or a few offers one by one, each with the reason it is a candidate
(``reasons.Reasons``, which also keeps the counts behind a rejection reason). The list
is merged only as far as a scan reads it (``Candidates.merge_more``).

It reads the shapes' tables (never changes them) and asks the match table
(``match_table.MatchTable``: ``pair``, ``preemption_allowed``, ``program``, ``outgrown``);
what it keeps is its own: entries kept per shape, which shapes hold a set of fixed
requests, the static lists, and its ``Reasons``.
The module doc of ``matchmaker`` states the rules (match, reasons, order).
"""

from __future__ import annotations

import math
from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.matching.candidates import (
    ENTRY_REASON,
    Candidates,
    PairEval,
    RejectCounts,
    box_pair,
    make_entries,
    make_entry,
)
from condorlite.core.matching.match_table import MatchTable
from condorlite.core.matching.offer_shapes import EvaluationCount, OfferShapes
from condorlite.core.matching.offers import SUBMITTER_PREFIXES, Offer
from condorlite.core.matching.rank_columns import RankColumn, RankColumns
from condorlite.core.matching.reasons import Reasons
from condorlite.core.matching.static_lists import StaticLists
from condorlite.core.model import (
    NO_PREEMPTION,
    RANK_PREEMPTION,
)


class _Build(NamedTuple):
    """One ``_by_shape`` call: the request (class, job ad, submitter, its Submitter*
    bindings, rank-only mode and the key part they make), the class's known pair
    results, what is being built (the list and its kept runs) and the class's rank
    column (``rank_columns``; None: the pair results' job rank holds)."""

    out: Candidates
    class_id: int
    job_ad: ClassAd
    submitter: str
    signature: tuple
    only_rank: bool
    part: tuple
    known_pairs: dict[int, PairEval]
    kept_runs: list[list[tuple]]
    column: RankColumn | None


class RequestLists:
    """A cycle's candidate lists (see the module doc).

    ``shapes``: the offers in their shapes (read only); ``table``: the pair results
    (``match_table.MatchTable``: ``pair``, ``preemption_allowed``, ``program``,
    ``outgrown``; its ``pairs`` are read here, and filled with the results of box
    programs as ``pair`` would); ``columns``: the classes' job ranks per offer
    (``rank_columns``: a class with a column takes its entries' job rank from it,
    never from a pair result); ``counts``: the cycle's evaluation count."""

    def __init__(self, shapes: OfferShapes, table: MatchTable, columns: RankColumns,
                 counts: EvaluationCount) -> None:
        self.now = table.now
        self.per_submitter = table.per_submitter
        self.preemption_off = table.preemption_off
        self._counts = counts
        self._pair, self._preemption_allowed = table.pair, table.preemption_allowed
        self._program, self._outgrown = table.program, table.outgrown
        self._literal_requests = table.literal_requests
        self._pairs = table.pairs
        #: each class's job ranks per offer, when its Rank reads rank-only names
        self._column = columns.of_class
        # The shapes' tables, read here (the objects themselves: never rebound there).
        self._shapes = shapes
        self._registry = shapes.registry
        self._pmembers, self._groups, self._held = shapes.pmembers, shapes.groups, shapes.held
        self._shape_left, self._pair_of_shape = shapes.shape_left, shapes.pair_of_shape
        self._joins, self._spent = shapes.joins, shapes.spent
        #: (shape, job rank, dependent ranks, reason) -> (joins, sorted entries), for
        #: held shapes and shapes of offers with a vector (``_shape_candidates``)
        self._kept_entries: dict[tuple, tuple[int, list[tuple]]] = {}
        #: fixed requests (position, amount)... -> shape -> whether the shape holds them
        self._fitting: dict[tuple, dict[int, bool]] = {}
        #: (class, Submitter* part) -> the vector statics its lists pass over for good:
        #: no state can match it (a program that never does) or hold its fixed
        #: requests any more (``spent_statics``: carving only lowers amounts)
        self._dead: dict[tuple, set[int]] = {}
        #: why an offer is a candidate, the slots' Ranks of a class, the counts behind
        #: a rejection (``reasons``)
        self.reasons = Reasons(table, counts)
        self._reason_of, self._slot_rank = self.reasons.reason, self.reasons.slot_rank
        #: the classes' lists of unheld static offers (``static_lists``)
        self._static = StaticLists(shapes.registry, shapes.members, shapes.pair_of_shape)

    def candidates(
        self,
        class_id: int,
        job_ad: ClassAd,
        submitter: str,
        offers: list[Offer],
        only_rank: bool,
        positions: list[int] | None = None,
        signature: tuple | None = None,
    ) -> Candidates:
        """Every candidate offer for the request, best first (``matchmaker``'s module doc).

        ``offers`` is either the cycle's whole list (the one whose offers were
        prepared, in that order) or a few of its offers; entries carry positions in
        ``offers``, or ``positions[i]`` for ``offers[i]`` when given (increasing, so
        the order is the same). The whole list is walked by slot shape (one pair per
        shape, then the shape's available offers); a short list offer by offer.
        ``signature``: the job ad's ``submitter_signature`` when the caller has it."""
        if self._shapes.is_full(offers):
            return self._by_shape(class_id, job_ad, submitter, only_rank)
        if signature is None:
            signature = submitter_signature(job_ad)
        out = Candidates([], signature=signature, built=self._shapes.clock)
        registry = self._registry
        column = self._column(class_id, job_ad)
        if positions is not None and all(
                offer.seq == idx and offer.available
                for idx, offer in zip(positions, offers, strict=True)):
            # Offers at their own positions (the slots a list carved, taken back):
            # one look per shape, as ``_by_shape`` does, and its entries made together.
            by_shape: dict[int, list[int]] = {}
            for offer in offers:
                by_shape.setdefault(offer.shape, []).append(offer.seq)
            for seqs in by_shape.values():
                counts = RejectCounts()  # (one offer's counts, for each of the shape's)
                entry = self._offer_entry(counts, class_id, job_ad, submitter,
                                          registry[seqs[0]], seqs[0], only_rank, signature,
                                          column)
                out.rej_policy += counts.rej_policy * len(seqs)
                out.rej_rank += counts.rej_rank * len(seqs)
                if entry is not None:
                    reason = entry[ENTRY_REASON]
                    out.entries.append(entry)
                    if len(seqs) > 1:
                        out.entries.extend(make_entries(
                            registry, seqs[1:], self._pair(class_id, job_ad, registry[seqs[0]],
                                                          signature), reason, column=column))
                    out.has_rank = out.has_rank or reason == RANK_PREEMPTION
        else:
            for idx, offer in zip(positions or range(len(offers)), offers, strict=True):
                entry = self._offer_entry(out, class_id, job_ad, submitter, offer, idx,
                                          only_rank, column=column)
                if entry is not None:
                    out.entries.append(entry)
                    out.has_rank = out.has_rank or entry[ENTRY_REASON] == RANK_PREEMPTION
        out.entries.sort()
        return out

    def refresh(self, cands: Candidates, class_id: int, job_ad: ClassAd, submitter: str,
                offer: Offer, idx: int, only_rank: bool) -> tuple | None:
        """The entry of one offer of ``cands``'s request in its current state (at
        position ``idx``), or None: ``candidates(..., [offer], ...)`` for one offer,
        the request's signature taken from ``cands``; rejection counts not kept."""
        return self._offer_entry(RejectCounts(), class_id, job_ad, submitter, offer, idx,
                                 only_rank, cands.signature, self._column(class_id, job_ad))

    def _offer_entry(self, out: Candidates | RejectCounts, class_id: int, job_ad: ClassAd,
                     submitter: str, offer: Offer, idx: int, only_rank: bool,
                     signature: tuple | None = None, column: RankColumn | None = None
                     ) -> tuple | None:
        if not offer.available:
            return None
        if signature is None:
            signature = out.signature
        pe = self._pair(class_id, job_ad, offer, signature)
        if not pe.match:
            return None
        if offer.holder is None:  # ``Reasons.reason`` of an offer nobody holds, without the call
            return None if only_rank else make_entry(offer, idx, pe, NO_PREEMPTION, column)
        reason = self._reason_of(class_id, job_ad, offer, submitter, signature, pe, only_rank,
                              out)
        return None if reason is None else make_entry(offer, idx, pe, reason, column)

    def _by_shape(self, class_id: int, job_ad: ClassAd, submitter: str,
                  only_rank: bool) -> Candidates:
        """``candidates`` over every prepared offer, a shape at a time.

        Equal shapes give equal pair results, reasons and preemption tests, so each
        is worked out once per shape and applied to the shape's available offers
        (rejection counts included, one per offer as the offer-by-offer walk counts).
        Unavailable offers have left their shapes (``retire``), so a shape's members
        are its available offers."""
        signature = submitter_signature(job_ad)
        out = Candidates([], signature=signature, built=self._shapes.clock)
        column = self._column(class_id, job_ad)
        pair_of = self._pair_of_shape
        part = signature if self.per_submitter else ()
        known_pairs = self._pairs.setdefault((class_id, part), {})
        if not self.per_submitter:
            out.pairs = known_pairs
        kept_runs: list[list[tuple]] = []
        # Unheld static offers are candidates by no preemption only, never counted;
        # their entries are a list of their own (``Candidates.static``).
        if not only_rank:
            out.static, out.spos, out.static_floor = self._static.entries(
                (class_id, part), known_pairs,
                lambda offer: self._pair(class_id, job_ad, offer, signature), column)
        else:
            out.static_floor = math.inf
        # Nothing below adds or removes shapes or members, so the dicts are walked as is.
        for shape, members in self._pmembers.items():
            known = known_pairs.get(pair_of[shape])
            if known is not None and not known.match:
                continue  # no need to look at the shape's offers at all
            self._shape_candidates(out, class_id, job_ad, submitter, signature, only_rank,
                                   members, known, shape, kept_runs, column)
        build = _Build(out, class_id, job_ad, submitter, signature, only_rank, part,
                       known_pairs, kept_runs, column)
        self._held_candidates(build)
        self._carved_candidates(build)
        # The kept lists come sorted, and so does the rest once sorted alone: they are
        # merged a part at a time, as far as the scan reads (``Candidates.merge_more``).
        rest = out.entries
        rest.sort()
        out.entries = []
        out.pending = [[run, 0] for run in (*kept_runs, rest) if run]
        out.merge_more()
        return out

    def _held_candidates(self, build: _Build) -> None:
        """``_by_shape`` over the held offers without a resource vector, a group (pair
        shape) at a time (``held_groups``): a group whose offers cannot be listed is
        counted for the rejection reason, or deferred to ``settle_deferred``."""
        out, class_id, job_ad, submitter, signature, only_rank, part, known_pairs, \
            kept_runs, column = build
        registry = self._registry
        held = self._held.groups.items()
        if self.preemption_off and not only_rank:
            # Groups whose offers cannot prefer the job by rank only count for the
            # rejection reason: deferred (see below) straight from the class's plan.
            deferred, held = self._held.plan(
                (class_id, part), lambda first: self._slot_rank(class_id, part, job_ad, first))
            out.deferred = self._held.deferred_counts(deferred, submitter)
        for pair_shape, group in held:
            if not group.total:
                continue
            known = known_pairs.get(pair_shape)
            if known is None:
                first = registry[next(iter(next(iter(group.shapes.values()))))]
                if (self.preemption_off and not only_rank
                        and not self._slot_rank(class_id, part, job_ad, first)
                        > group.lowest_rank()):
                    # Whether it matches or not, no offer here can be listed: the match
                    # only decides the PREEMPTION_REQUIREMENTS count below, which a
                    # rejection reads (``settle_deferred``) and a match never does.
                    count = group.total - group.by_holder.get(submitter, 0)
                    if count:  # (a new list: the plan's may be shared)
                        out.deferred = [*out.deferred, (first, count)]
                    continue
                known = self._pair(class_id, job_ad, first, signature)
            if not known.match:
                continue
            if self.preemption_off and not known.slot_rank > group.lowest_rank():
                # No held offer here prefers the job by rank, and preemption by
                # priority is off: each offer not the submitter's own is refused by
                # PREEMPTION_REQUIREMENTS (as ``Reasons.reason`` counts it), none is listed.
                if not only_rank:
                    out.rej_policy += group.total - group.by_holder.get(submitter, 0)
                continue
            for shape, members in group.shapes.items():
                self._shape_candidates(out, class_id, job_ad, submitter, signature,
                                       only_rank, members, known, shape, kept_runs, column)

    def _carved_candidates(self, build: _Build) -> None:
        """``_by_shape`` over the offers with a resource vector, a static (box) at a
        time: by the class's program for the static (``carving``), passing over the
        states too small for its fixed requests without a pair evaluation."""
        class_id, job_ad, part = build.class_id, build.job_ad, build.part
        registry = self._registry
        # (the statics passed over below are passed over for good: kept per class)
        dead = self._dead.get((class_id, part))
        if dead is None:
            dead = self._dead[(class_id, part)] = set()
        for static, shapes in self._groups.items():
            if not shapes or static in dead:
                continue
            first = registry[next(iter(next(iter(shapes.values()))))]
            if self._outgrown((class_id, part), job_ad, first):
                dead.add(static)
                continue  # no state left holds the class's requests: no program needed
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
            if not self._fitting_candidates(build, shapes, first, fixed, asked, boxed):
                self._spent.note(static, asked)
                dead.add(static)

    def _fitting_candidates(self, build: _Build, shapes: dict[int, dict[int, None]],
                            first: Offer, fixed: list[tuple[str, float, int]], asked: tuple,
                            boxed: PairEval | None) -> bool:
        """``_carved_candidates`` over one static's shapes that hold the class's fixed
        requests ``asked`` (those that do not are passed over without a pair
        evaluation); with ``boxed``, each fitting shape's pair is that one result.
        Returns whether any shape holds them."""
        out, class_id, job_ad, submitter, signature, only_rank, _, known_pairs, \
            kept_runs, column = build
        pair_of, shape_left = self._pair_of_shape, self._shape_left
        # (a state never changes: whether it holds a set of fixed requests is kept
        # per set, for every class asking for the same amounts)
        fitting = self._fitting.setdefault(asked, {})
        any_fit = False
        # A box over offers nobody holds (a static's offers are all held or all
        # not): every fitting shape's entries are the kept ones of (shape, the
        # box's ranks, no preemption), ``_shape_candidates`` written out.
        box_free = boxed is not None and first.holder is None and not only_rank
        if box_free:
            job_rank = boxed.job_rank if column is None else column
            dependent = tuple(boxed.dependent.items())
        for shape, members in shapes.items():
            fit = fitting.get(shape)
            if fit is None:
                fit = fitting[shape] = _fits(fixed, shape_left[shape])
            if not fit:
                continue
            any_fit = True
            if boxed is not None:
                pair_shape = pair_of[shape]
                if pair_shape not in known_pairs:
                    self._counts.evaluations += 1
                    known_pairs[pair_shape] = boxed
                if box_free:
                    kept_runs.append(self._kept(shape, members, boxed, NO_PREEMPTION,
                                                (shape, job_rank, dependent, NO_PREEMPTION),
                                                column))
                    continue
                self._shape_candidates(out, class_id, job_ad, submitter, signature,
                                       only_rank, members, boxed, shape, kept_runs, column)
                continue
            known = known_pairs.get(pair_of[shape])
            if known is not None and not known.match:
                continue
            self._shape_candidates(out, class_id, job_ad, submitter, signature,
                                   only_rank, members, known, shape, kept_runs, column)
        return any_fit

    def _shape_candidates(self, out: Candidates, class_id, job_ad, submitter, signature,
                          only_rank, members, known: PairEval | None,
                          shape: int | None = None,
                          kept_runs: list[list[tuple]] | None = None,
                          column: RankColumn | None = None) -> None:
        """Add the entries (and rejection counts) of one shape's offers to ``out``.

        With ``shape`` the entries are kept per (shape, the pair result's ranks, reason)
        and reused by every class that gives the same (the column stands for the
        job rank when the class has one), until an offer enters the shape
        (``_joins``). Entries of offers that have become unavailable (held static
        slots taken by preemption) stay in (the scan passes over them) until they are
        half of the list. A slot with a resource vector leaves its shape only by
        carving, which stamps it: the scan passes over such entries too (``stamp``)."""
        registry = self._registry
        first = registry[next(iter(members))]
        pe = known if known is not None else self._pair(class_id, job_ad, first, signature)
        if not pe.match:
            return
        if first.holder is None:  # ``Reasons.reason`` of offers nobody holds, without the call
            if only_rank:
                return
            reason = NO_PREEMPTION
        else:
            counts = RejectCounts()
            reason = self._reason_of(class_id, job_ad, first, submitter, signature, pe,
                                  only_rank, counts)
            if counts.rej_policy or counts.rej_rank:
                out.rej_policy += counts.rej_policy * len(members)
                out.rej_rank += counts.rej_rank * len(members)
            if reason is None:
                return
        if reason == RANK_PREEMPTION:
            out.has_rank = True
        vector = first.vector is not None
        if shape is None or kept_runs is None or (first.partitionable and not vector):
            # (a partitionable slot without a vector is placed again when carved)
            out.entries.extend(make_entries(registry, members, pe, reason, column=column))
            return
        kept_runs.append(self._kept(shape, members, pe, reason,
                                    (shape, pe.job_rank if column is None else column,
                                     tuple(pe.dependent.items()), reason), column))

    def _kept(self, shape: int, members, pe: PairEval, reason: str, key: tuple,
              column: RankColumn | None) -> list[tuple]:
        """The sorted entries of a shape's offers for a pair result and reason, kept
        under ``key`` (shape, job rank or column, dependent ranks, reason) until an
        offer enters the shape or half of them have left (``_shape_candidates``)."""
        joins = self._joins[shape]
        found = self._kept_entries.get(key)
        if found is None or found[0] != joins or len(members) * 2 < len(found[1]):
            kept = make_entries(self._registry, members, pe, reason, column=column)
            kept.sort()
            self._kept_entries[key] = (joins, kept)
            return kept
        # Carving moves an offer to another shape and stamps it (``stamp``); nothing
        # else leaves a vector shape (an offer entering one counts in ``_joins``).
        # The scan passes over a kept entry of a state its offer had left before the
        # list was made (``Candidates.built``, ``Offer.stamps``): the offer's state
        # then has its own entry in the list, or none.
        return found[1]

    def settle_deferred(self, cands: Candidates, class_id: int, job_ad: ClassAd) -> None:
        """``Reasons.settle_deferred``: count the held offers left unevaluated."""
        self.reasons.settle_deferred(cands, class_id, job_ad)


def _fits(fixed: list[tuple[str, float, int]], have: tuple[float, ...]) -> bool:
    """Whether a state with ``have`` (``carving.left`` of each resource) holds every
    fixed request (spelling, amount, position)."""
    # A plain loop: all() over a generator costs twice as much on this hot path.
    for _, amount, pos in fixed:  # noqa: SIM110
        if amount > have[pos]:
            return False
    return True


def submitter_signature(job_ad: ClassAd) -> tuple:
    """The job ad's bindings of the names the negotiator inserts (``Submitter*``,
    ``SubmittorPrio``), in name order: equal signatures mean the inserted attributes
    cannot tell two evaluations of one job class apart."""
    names = sorted(n for n in adeval.lower_names(job_ad) if n.startswith(SUBMITTER_PREFIXES))
    return tuple((n, adeval.attr(job_ad, n)) for n in names)
