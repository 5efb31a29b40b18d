"""Candidate lists for one request: listing, ordering and counting a request's candidate
offers.

``offer_shapes.OfferShapes`` keeps the offers (their shapes, walks and carved states)
and ``match_table.MatchTable`` answers one pair at a time; one ``RequestLists`` per
cycle, owned by the matchmaker, turns those answers into a request's sorted list
(``candidates``): the whole offer list a shape at a time (``_by_shape``: static offers
through ``static_lists``, held offers a group at a time through ``held_groups`` (with
priority preemption on, a class's matching groups from ``held_walks`` and their entries
from ``held_lists``, made once per submitter), carved states a static at a time through
``carved_lists``, each shape's entries through ``shape_entries``, runs kept per shape
for reuse), or a few offers one by one, each with the reason it is a candidate
(``reasons.Reasons``, which also keeps the counts behind a rejection reason). The list
is merged only as far as a scan reads it (``Candidates.merge_more``).

It reads the shapes' tables (never changes them) and asks the match table
(``match_table.MatchTable``: ``pair``, ``preemption_allowed``, ``program``, ``outgrown``);
what it keeps is its own: the shape entries and their kept runs, the carved lists,
the static lists, and its ``Reasons``.
The module doc of ``matchmaker`` states the rules (match, reasons, order).
"""

from __future__ import annotations

import math

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.matching.candidates import (
    ENTRY_REASON,
    Candidates,
    RejectCounts,
    SharedEntries,
    make_entries,
    make_entry,
)
from condorlite.core.matching.carved_lists import CarvedLists
from condorlite.core.matching.evaluation_count import EvaluationCount
from condorlite.core.matching.held_lists import HeldLists
from condorlite.core.matching.held_refusals import HeldRefusals
from condorlite.core.matching.held_walks import HeldWalks
from condorlite.core.matching.match_table import MatchTable
from condorlite.core.matching.offer_shapes import OfferShapes
from condorlite.core.matching.offers import SUBMITTER_PREFIXES, Offer
from condorlite.core.matching.preq_verdicts import PreqVerdicts
from condorlite.core.matching.rank_columns import RankColumn, RankColumns
from condorlite.core.matching.reasons import Reasons
from condorlite.core.matching.shape_entries import ListBuild, ShapeEntries
from condorlite.core.matching.slot_ranks import job_numbers
from condorlite.core.matching.static_lists import StaticLists
from condorlite.core.model import (
    NO_PREEMPTION,
    RANK_PREEMPTION,
)


class RequestLists:
    """A cycle's candidate lists (see the module doc).

    ``shapes``: the offers in their shapes (read only); ``table``: the pair results
    (``match_table.MatchTable``: ``pair``, ``preemption_allowed``, ``program``,
    ``outgrown``; its ``pairs`` are read here, and filled by the carved lists with the
    results of box programs as ``pair`` would); ``columns``: the classes' job ranks
    per offer (``rank_columns``: a class with a column takes its entries' job rank
    from it, never from a pair result); ``counts``: the cycle's evaluation count."""

    def __init__(self, shapes: OfferShapes, table: MatchTable, columns: RankColumns,
                 counts: EvaluationCount) -> None:
        self.now = table.now
        self.per_submitter = table.per_submitter
        self.preemption_off = table.preemption_off
        self._pair = table.pair
        self._pairs = table.pairs
        #: each class's job ranks per offer, when its Rank reads rank-only names
        self._column = columns.of_class
        # The shapes' tables, read here (the objects themselves: never rebound there).
        self._shapes = shapes
        self._registry = shapes.registry
        self._pmembers, self._held = shapes.pmembers, shapes.held
        self._pair_of_shape = shapes.pair_of_shape
        #: why an offer is a candidate, the slots' Ranks of a class, the counts behind
        #: a rejection (``reasons``)
        self.reasons = Reasons(table, counts, shapes.shape_keys)
        self._reason_of, self._slot_rank = self.reasons.reason, self.reasons.slot_rank
        #: an ad's numbers of names (``expr_numbers.Canon.key``): a class's job's of
        #: the names the held slots' Ranks read (``HeldGroups.plan``)
        self._number = shapes.shape_keys.canon.key
        preq = PreqVerdicts(table.exprs.preemption_requirements, shapes.shape_keys.canon.key,
                            table.now, counts, table.preemption_allowed)
        #: the held groups a submitter's lists can never list (``held_refusals``)
        self._refusals = HeldRefusals(shapes.held, shapes.registry, preq)
        #: the held groups a class matches, kept per class key (``held_walks``)
        self._walks = HeldWalks(shapes.held, shapes.registry, table,
                                shapes.shape_keys.canon.key, shapes.resource_names,
                                table.now, counts, self._refusals.key_of,
                                self.reasons.walk_ranks, self.reasons.rank_key)
        #: a class key's held entries per submitter, with preemption on (``held_lists``)
        #: entries shared between lists (of one reason, job rank source and offer)
        shared = SharedEntries(shapes.registry)
        self._held_lists = HeldLists(shapes.held, shapes.registry, preq, table.preq_names,
                                     shared)
        #: each shape's entries and the runs kept per shape (``shape_entries``)
        self._entries = ShapeEntries(shapes, table.pair, self._reason_of)
        #: the walks over the vector statics (``carved_lists``)
        self._carved = CarvedLists(shapes, table, counts, self._entries)
        #: the classes' lists of unheld static offers (``static_lists``)
        self._static = StaticLists(shapes.registry, shapes.members, shapes.pair_of_shape,
                                   table)

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
        own = positions is not None
        if own:
            # (a loop, not ``all`` of a generator: a take-back list asks for every
            # slot it carved, and a generator's step costs more than the test)
            for idx, offer in zip(positions, offers, strict=True):  # type: ignore[arg-type]
                if offer.seq != idx or not offer.available:
                    own = False
                    break
        if own:
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
                (class_id, part), job_ad, known_pairs,
                lambda offer: self._pair(class_id, job_ad, offer, signature), column)
            # (and its runs made as the merge reaches them, ``static_blocks``)
            if self._static.later((class_id, part), kept_runs):
                out.lazy_held = True
        else:
            out.static_floor = math.inf
        # Nothing below adds or removes shapes or members, so the dicts are walked as is.
        for shape, members in self._pmembers.items():
            known = known_pairs.get(pair_of[shape])
            if known is not None and not known.match:
                continue  # no need to look at the shape's offers at all
            self._entries.add(out, class_id, job_ad, submitter, signature, only_rank,
                              members, known, shape, kept_runs, column)
        build = ListBuild(out, class_id, job_ad, submitter, signature, only_rank, part,
                          known_pairs, kept_runs, column)
        self._held_candidates(build)
        sources = self._carved.add(build)
        # The kept lists come sorted, and so does the rest once sorted alone: they are
        # merged a part at a time, as far as the scan reads (``Candidates.merge_more``),
        # with the carved states whose entries are made as the merge reaches them.
        rest = out.entries
        rest.sort()
        out.entries = []
        out.pending = [[run, 0] for run in (*kept_runs, rest) if run]
        if sources:
            out.pending.extend([source.entries, 0, source] for source in sources)
            out.lazy_runs = len(sources)
        out.merge_more()
        return out

    def _held_candidates(self, build: ListBuild) -> None:
        """``_by_shape`` over the held offers without a resource vector, a group (pair
        shape) at a time (``held_groups``). With priority preemption on, the class's
        matching groups (``held_walks``); else a group whose offers cannot be listed
        is counted for the rejection reason, or deferred to ``settle_deferred``."""
        out, class_id, job_ad, submitter, signature, only_rank, part, known_pairs, \
            kept_runs, column = build
        if not self.preemption_off:
            # Every held group may be listed but those the submitter's lists never
            # can (``held_refusals``): the class's matching groups, found once per
            # class key and refused keys (``held_walks``), their entries made once
            # per submitter and shared by its lists (``held_lists``).
            refusals = self._refusals.refusals(class_id, job_ad, submitter, signature)
            walk = self._walks.matching((class_id, part), job_ad, signature, known_pairs,
                                        refusals)
            self._held_lists.add(out, kept_runs, (class_id, part), job_ad, submitter,
                                 signature, only_rank, walk, column)
            return
        registry = self._registry
        # Groups whose offers cannot prefer the job by rank only count for the
        # rejection reason: deferred (see below) straight from the class's plan; a
        # rank-only list, which lists offers by rank alone and counts nothing, passes
        # them over.
        number = self._number
        deferred, held = self._held.plan(
            (class_id, part), lambda first: self._slot_rank(class_id, part, job_ad, first),
            self.reasons.rank_key, lambda names: job_numbers(number, job_ad, names),
            lambda keys, firsts, ask: self.reasons.slot_row(job_ad, keys, firsts, ask))
        if not only_rank:
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
                self._entries.add(out, class_id, job_ad, submitter, signature, only_rank,
                                  members, known, shape, kept_runs, column)

    def settle_deferred(self, cands: Candidates, class_id: int, job_ad: ClassAd) -> None:
        """``Reasons.settle_deferred``: count the held offers left unevaluated."""
        self.reasons.settle_deferred(cands, class_id, job_ad)


def submitter_signature(job_ad: ClassAd) -> tuple:
    """The job ad's bindings of the names the negotiator inserts (``Submitter*``,
    ``SubmittorPrio``), in name order: equal signatures mean the inserted attributes
    cannot tell two evaluations of one job class apart."""
    # (made for every list: two string compares pass over most names before the
    # method call, as every name of either prefix sorts in ["submitter", "submittp");
    # a ClassAd-lite ad's table gives the bindings with the names, no look-up each)
    table = adeval.table(job_ad)
    if table is not None:
        return tuple(sorted([(n, entry[1]) for n, entry in table.items()
                             if _PREFIX_LOW <= n < _PREFIX_HIGH
                             and n.startswith(SUBMITTER_PREFIXES)]))
    names = sorted([n for n in adeval.lower_names(job_ad)
                    if _PREFIX_LOW <= n < _PREFIX_HIGH and n.startswith(SUBMITTER_PREFIXES)])
    return tuple([(n, adeval.attr(job_ad, n)) for n in names])


#: bounds of the lower-cased names that may start with a ``SUBMITTER_PREFIXES`` one:
#: every such name sorts in [low, high) (tested)
_PREFIX_LOW, _PREFIX_HIGH = "submitter", "submittp"
