"""Carved states whose pair waits until a scan reaches them.

A request's list (``candidates.Candidates``) is read from the front, and a scan usually
stops long before its end; yet ``carved_lists`` would run the class's program
(``carving.PairProgram``) at every carved state that holds the class's fixed requests
and has no pair result yet, to make the state's entry. When the state's first key,
``-NEGOTIATOR_PRE_JOB_RANK``, reads nothing of the job (it is in the state's
``Offer.independent``), the entry's place is known up to that key without the pair:
the state is *deferred*, kept as a ``Deferred`` record made at the list's build, and
its pair is run, and its entry made, only when the list's merge reaches that key
(``DeferredStates.grow``, asked by ``Candidates.merge_more``).

Exactness: a record holds what the state's entry is made of at the build (the offer's
position, name and version, its vector's values and its independent ranks: carving
gives an offer new ones, never changes them in place) and the class's program, a
function of the values alone. So a deferred entry, whenever made, is the entry the
eager walk makes at the build (``candidates.make_entry`` for an offer nobody holds,
no rank column). Records are grouped by their first key and a group is made whole:
every entry made so far sorts before every entry not made (``grow``), so the merged
prefix of the list stays the sorted prefix of the whole, and the scan meets the same
entries in the same order. Only the pairs run (and counted as evaluations) differ:
those of states no scan reaches are never run.

A first key that is no number (NaN) is never deferred: it has no order.
"""

from __future__ import annotations

from typing import NamedTuple

from condorlite.core.matching.candidates import (
    FLT_MAX,
    NO_MATCH,
    POST,
    PairEval,
    as_rank,
    box_pair,
    make_pair,
)
from condorlite.core.matching.carving import PairProgram
from condorlite.core.matching.offer_shapes import EvaluationCount
from condorlite.core.model import NO_PREEMPTION, REASON_ORDER

#: the reason order and preemption rank keys of an entry by no preemption
_FREE_ORDER, _FREE_PRANK = -REASON_ORDER[NO_PREEMPTION], FLT_MAX


class Deferred(NamedTuple):
    """One carved state of one offer nobody holds, as a list's build saw it: the
    entry's first key (``-pre``) and position first, so records sort by key then by
    the offer's position (unique in a list)."""

    neg_pre: float
    idx: int
    version: int
    name: str
    #: the state's vector values and independent ranks (``Offer.independent``)
    vals: tuple
    independent: dict[str, float]
    pair_shape: int
    program: PairProgram


GROW = 64


class DeferredStates(list):
    """The entries of a list's deferred states made so far (the list's items, sorted),
    and the records not made yet (module doc). A pending run of ``Candidates``:
    ``Candidates.merge_more`` asks ``grow`` before it cuts the runs at its bound."""

    __slots__ = ("_at", "_counts", "_known", "_records")

    def __init__(self, records: list[Deferred], known_pairs: dict[int, PairEval],
                 counts: EvaluationCount) -> None:
        super().__init__()
        records.sort()
        self._records = records
        self._at = 0
        self._known = known_pairs
        self._counts = counts

    @property
    def done(self) -> bool:
        """Whether every record's entry has been made."""
        return self._at >= len(self._records)

    def grow(self, start: int, bound: tuple | None, chunk: int) -> tuple | None:
        chunk = min(chunk, GROW)
        """Make the entries of every record whose first key is at most ``bound``'s
        (all of them when there is no bound, until more than ``chunk`` wait beyond
        ``start``, the merge's place in this run); a group of equal first keys is
        made whole. Returns the merge's bound, lowered to this run's ``chunk``-th
        entry from ``start`` when that is smaller (``Candidates.merge_more``): every
        entry not made sorts after it."""
        if len(self) - start > chunk:
            mark = self[start + chunk - 1]
            if bound is None or mark < bound:
                bound = mark
        records, at = self._records, self._at
        end = len(records)
        while at < end and (bound is None or records[at].neg_pre <= bound[0]):
            key = records[at].neg_pre
            group = []
            while at < end and records[at].neg_pre == key:
                entry = self._entry(records[at])
                at += 1
                if entry is not None:
                    group.append(entry)
            group.sort()
            self.extend(group)
            if len(self) - start > chunk:
                mark = self[start + chunk - 1]
                if bound is None or mark < bound:
                    bound = mark
        self._at = at
        return bound

    def _entry(self, record: Deferred) -> tuple | None:
        """The record's entry (``make_entry`` of the state at the build, no
        preemption, no rank column), its pair run when not known yet (as
        ``carved_lists`` runs it), or None when the state does not match."""
        known = self._known.get(record.pair_shape)
        if known is None:
            program = record.program
            self._counts.evaluations += 1
            outcome = program.run(record.vals, as_rank)
            known = self._known[record.pair_shape] = (
                NO_MATCH if not outcome[0] else box_pair(program)
                if program.result is not None else make_pair(outcome))
        if not known.match:
            return None
        values = record.independent
        post = values[POST] if POST in values else known.dependent[POST]
        return (record.neg_pre, -known.job_rank, -post, _FREE_ORDER, _FREE_PRANK,
                record.name, record.idx, record.version, NO_PREEMPTION)
