"""The entries of one shape's offers in a request's candidate list, and the runs kept.

The offers of one shape share their pair result, reason and ranks for a request:
``ShapeEntries.add`` works them out once for the shape (the reason through
``reasons.Reasons`` for held offers, with the rejection counts of each offer) and adds
an entry per offer to the list being built. The sorted entries of a held shape or of a
shape of offers with a resource vector are kept as a *run* per (shape, the class's job
rank or rank column, dependent ranks, reason) and handed to every class that gives the
same, until an offer enters the shape (``OfferShapes.joins``) or half of the run's
offers have left it; the list merges its runs as far as a scan reads
(``Candidates.merge_more``). (A carved state of one offer nobody holds does not come
here: ``carved_lists`` makes its entry into the list.)

It owns the kept runs; it reads the shapes' registry and joins and asks the match
table for pair results (``match_table.MatchTable.pair``). The request lists
(``request_lists``) and the carved lists (``carved_lists``) add shapes through it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

from condorlite.core.adeval import ClassAd
from condorlite.core.matching.candidates import Candidates, PairEval, RejectCounts, make_entries
from condorlite.core.matching.offer_shapes import OfferShapes
from condorlite.core.matching.rank_columns import RankColumn
from condorlite.core.model import NO_PREEMPTION, RANK_PREEMPTION


class ListBuild(NamedTuple):
    """One request's list being built a shape at a time (``RequestLists``): the
    request (class, job ad, submitter, its Submitter* bindings, rank-only mode and the
    key part they make), the class's known pair results, what is being built (the list
    and its kept runs) and the class's rank column (``rank_columns``; None: the pair
    results' job rank holds)."""

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


class ShapeEntries:
    """A cycle's shape entries and kept runs (module doc). ``pair``: the match table's
    ``pair``; ``reason_of``: ``reasons.Reasons.reason``."""

    def __init__(self, shapes: OfferShapes, pair: Callable[..., PairEval],
                 reason_of: Callable[..., str | None]) -> None:
        self._registry = shapes.registry
        self._joins = shapes.joins
        self._pair = pair
        self._reason_of = reason_of
        #: (shape, job rank, dependent ranks, reason) -> (joins, sorted entries), for
        #: held shapes and shapes of offers with a vector (``add``)
        self._kept_entries: dict[tuple, tuple[int, list[tuple]]] = {}

    def add(self, out: Candidates, class_id, job_ad, submitter, signature, only_rank,
            members, known: PairEval | None, shape: int | None = None,
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
        kept_runs.append(self.kept(shape, members, pe, reason,
                                   (shape, pe.job_rank if column is None else column,
                                    tuple(pe.dependent.items()), reason), column))

    def kept(self, shape: int, members, pe: PairEval, reason: str, key: tuple,
             column: RankColumn | None) -> list[tuple]:
        """The sorted entries of a shape's offers for a pair result and reason, kept
        under ``key`` (shape, job rank or column, dependent ranks, reason) until an
        offer enters the shape or half of them have left (``add``)."""
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
