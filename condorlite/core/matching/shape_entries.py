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

A run for a job rank new to a shape (not a rank column's) is *derived* from the run
last kept for the shape with the same dependent ranks and reason, while no offer has
entered the shape since (``_joins`` unchanged): the job rank is the same in every
entry of a run, so the other run's order is this one's, and no entry of it differs
but by that rank. An offer enters a shape whenever its state or version changes
(``OfferShapes.place``, ``CarvedStates.carve``), so with the joins unchanged the
shape's offers are the other run's less those that left, each with the version,
name and independent ranks its entry there has: the derived run is the other's
entries, the left ones dropped, each with the new job rank (on the 10,000-slot
partitionable row, 64,037 of the 137,643 entries made for new keys; the sort and
each offer's look-ups saved). A rank column's new run is derived alike from that run or
from the run last kept for the shape with another column (same dependent ranks and
reason, joins unchanged): each entry takes its offer's value of the column, and the run
is sorted again (the values differ per offer); only the offers' own ranks are saved.
A job rank's run with no job rank's run to derive from takes a column's the same way,
sorted again. (10,000-slot partitionable-rank row: of 235,631 entries in new runs,
80,127 made from the offers, 171,112 before.)

A column's rank of an offer is made once per (column, offer), negated as an entry
holds it (``RankColumn.negated``), and every column run, derived or made, reads it
with one look-up per entry; ``value`` is asked only of an offer not there. A column
run is sorted by that rank alone first (float keys, compared without a tuple
comparison), then whole: the offers of a shape mostly tie on the ranks before it,
so the whole sort only checks the order (each column run is one (column, state)'s:
nothing of it repeats between classes or lists, session 31; its making is what
costs).

It owns the kept runs; it reads the shapes' registry and joins and asks the match
table for pair results (``match_table.MatchTable.pair``). The request lists
(``request_lists``) and the carved lists (``carved_lists``) add shapes through it.
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter
from typing import NamedTuple

from condorlite.core.adeval import ClassAd
from condorlite.core.matching.candidates import (
    Candidates,
    PairEval,
    RejectCounts,
    make_entries,
)
from condorlite.core.matching.offer_shapes import OfferShapes
from condorlite.core.matching.rank_columns import RankColumn
from condorlite.core.model import NO_PREEMPTION, RANK_PREEMPTION

#: an entry's job rank (negated), its second key
_JOB_RANK = itemgetter(1)

#: whether a run for a new job rank is derived from a kept run of another (module
#: doc); the tests switch it off to compare
DERIVE = True


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
        #: (job rank, dependent ranks, reason) -> shape -> (joins, sorted entries), for
        #: held shapes and shapes of offers with a vector (``add``; by the ranks
        #: first: a list's walk over a static looks the ranks up once, ``runs``)
        self._kept_entries: dict[tuple, dict[int, tuple[int, list[tuple]]]] = {}
        #: (dependent ranks, reason) -> shape -> (joins, sorted entries) of the run
        #: last kept for it with a pair's job rank (not a column's): a new job rank's
        #: run is derived from it (module doc)
        self._like: dict[tuple, dict[int, tuple[int, list[tuple]]]] = {}
        #: the same for the run last kept for it with a rank column's job ranks: a
        #: new column's run is derived from it when there is no ``_like`` run
        self._like_columns: dict[tuple, dict[int, tuple[int, list[tuple]]]] = {}

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
            if counts.rej_policy:
                out.rej_policy += counts.rej_policy * len(members)
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
                                   (pe.job_rank if column is None else column,
                                    tuple(pe.dependent.items()), reason), column))

    def runs(self, key: tuple) -> dict[int, tuple[int, list[tuple]]]:
        """The runs kept under ``key`` (job rank or column, dependent ranks, reason),
        by shape, each with the shape's joins when made: a run is the one ``kept``
        gives while the joins are the same and at least half its offers are left
        (read so by ``carved_lists``, which asks ``kept`` otherwise)."""
        runs = self._kept_entries.get(key)
        if runs is None:
            runs = self._kept_entries[key] = {}
        return runs

    def kept(self, shape: int, members, pe: PairEval, reason: str, key: tuple,
             column: RankColumn | None) -> list[tuple]:
        """The sorted entries of a shape's offers for a pair result and reason, kept
        under ``key`` (job rank or column, dependent ranks, reason) and ``shape``
        until an offer enters the shape or half of them have left (``add``)."""
        joins = self._joins[shape]
        runs = self.runs(key)
        found = runs.get(shape)
        if found is None or found[0] != joins or len(members) * 2 < len(found[1]):
            if not DERIVE:
                kept = make_entries(self._registry, members, pe, reason, column=column)
                kept.sort()
                runs[shape] = (joins, kept)
                return kept
            like_key = key[1:]
            alike = self._like.get(like_key)
            if alike is None:
                alike = self._like[like_key] = {}
            like = alike.get(shape)
            if column is not None:
                return self._column_run(shape, members, pe, reason, like_key, like, column,
                                        runs, joins)
            if like is not None and like[0] == joins:
                kept = _derived(like[1], -pe.job_rank, members)
            else:
                columns = self._like_columns.get(like_key)
                like = None if columns is None else columns.get(shape)
                if like is not None and like[0] == joins:
                    # (a column's run: its order is the column's, sorted again)
                    kept = _derived(like[1], -pe.job_rank, members)
                else:
                    kept = make_entries(self._registry, members, pe, reason)
                kept.sort()
            runs[shape] = alike[shape] = (joins, kept)
            return kept
        # Carving moves an offer to another shape and stamps it (``stamp``); nothing
        # else leaves a vector shape (an offer entering one counts in ``_joins``).
        # The scan passes over a kept entry of a state its offer had left before the
        # list was made (``Candidates.built``, ``Offer.stamps``): the offer's state
        # then has its own entry in the list, or none.
        return found[1]


    def _column_run(self, shape: int, members, pe: PairEval, reason: str, like_key: tuple,
                    like: tuple[int, list[tuple]] | None, column: RankColumn,
                    runs: dict, joins: int) -> list[tuple]:
        """``kept``'s new run for a rank column: derived (module doc) from the run last
        kept for the shape with the same dependent ranks and reason, a pair's job
        rank's (``like``) or another column's, while the joins are the same, each
        entry with the column's value of its offer, then sorted (the values differ
        per offer); else made. Kept as the last column run of the shape (never a
        source for a pair's job rank: its order is the column's)."""
        if like is None or like[0] != joins:
            columns = self._like_columns.get(like_key)
            like = None if columns is None else columns.get(shape)
        if like is None or like[0] != joins:
            kept = make_entries(self._registry, members, pe, reason, column)
        else:
            kept = _column_derived(like[1], column, self._registry, members)
        # (sorted first by the job rank alone, float keys the sort compares without
        # a tuple comparison, then whole: a shape's offers mostly tie on the ranks
        # before it, so the whole sort finds the list in order and only checks it)
        kept.sort(key=_JOB_RANK)
        kept.sort()
        runs[shape] = (joins, kept)
        columns = self._like_columns.get(like_key)
        if columns is None:
            columns = self._like_columns[like_key] = {}
        columns[shape] = (joins, kept)
        return kept


def _column_derived(run: list[tuple], column: RankColumn, registry: list,
                    members: dict[int, None]) -> list[tuple]:
    """The entries of ``run`` (as ``_derived`` reads it) of the offers in ``members``,
    each with the job rank the column gives its offer (negated, as an entry holds it):
    unsorted. The rank is read from the column's row of negated values
    (``RankColumn.negated``: each kept for every version, made once per offer), one
    look-up per entry; when an offer has none there, the run is made again asking
    ``value`` for those (with the joins unchanged an entry's version is its
    offer's, so ``value`` of the offer is the entry's)."""
    if len(run) != len(members):
        run = [e for e in run if e[6] in members]
    negated = column.negated()
    try:
        return [(e[0], negated[e[6]], e[2], e[3], e[4], e[5], e[6], e[7], e[8])
                for e in run]
    except KeyError:  # (an offer new to the column, or one whose value has a version)
        get, value = negated.get, column.value
        return [(e[0], rank if (rank := get(e[6])) is not None else -value(registry[e[6]]),
                 e[2], e[3], e[4], e[5], e[6], e[7], e[8]) for e in run]


def _derived(run: list[tuple], job_rank: float, members: dict[int, None]) -> list[tuple]:
    """The entries of ``run`` (a shape's sorted entries for one job rank, made when
    its offers were ``members`` and those since left, module doc) of the offers in
    ``members``, with ``job_rank`` (negated, as an entry holds it): sorted as ``run``
    is, the rank being the same in every entry."""
    # (the fields by index: a tuple display of them is the cheapest rebuild measured)
    if len(run) == len(members):  # (none left: the offers are the same)
        return [(e[0], job_rank, e[2], e[3], e[4], e[5], e[6], e[7], e[8]) for e in run]
    return [(e[0], job_rank, e[2], e[3], e[4], e[5], e[6], e[7], e[8]) for e in run
            if e[6] in members]
