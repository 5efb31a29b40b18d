"""Carved states of a request's list whose entries are made only when a scan nears them.

A list (``candidates.Candidates``) is read from the front and usually only a part of
it: on the 10,000-slot partitionable mix about a quarter of the carved entries a list
is made with are ever merged (``Candidates.merge_more``). A carved state whose entry
needs the class's program run (``carved_lists``: a state of one offer nobody holds,
fitting the class's fixed requests, its pair not known yet) has its first sort key,
``-NEGOTIATOR_PRE_JOB_RANK``, in the offer's job-independent ranks when the pre-job
rank reads nothing of the job; such a state is noted here as a *record* instead, and
its run and entry are made when the merge reaches its key.

A record is the snapshot that makes the entry the list would have been made with,
whatever the offer becomes meanwhile (an entry keeps the version it was made at, and
the scan puts a changed offer right when it meets its entry: the entry must sort where
the eager list had it): (-pre, the offer's position, its version, its vector's values,
its independent ranks, its pair shape, the class's program for the static, the job's
rank from the class's rank column or None). A program's run is a function of the
values alone, and a pair result of the pair shape alone, so the entry made later is
the entry the walk would have made (``make``).

Invariant (what ``Candidates.merge_more`` relies on): ``entries`` is the sorted
prefix of the sorted entries of every record: records are made into entries in order
of -pre, a whole group of equal -pre at a time, so every record left sorts after
every entry made (its first key is larger).
"""

from __future__ import annotations

from condorlite.core.matching.candidates import (
    FLT_MAX,
    NO_MATCH,
    POST,
    PairEval,
    as_rank,
    box_pair,
    make_pair,
)
from condorlite.core.matching.offer_shapes import EvaluationCount
from condorlite.core.matching.offers import Offer
from condorlite.core.model import NO_PREEMPTION, REASON_ORDER

#: an entry's reason-order key by no preemption (``candidates.make_entry``)
_FREE_ORDER = -REASON_ORDER[NO_PREEMPTION]

#: where a record holds its first key (-pre)
_KEY = 0


class PendingStates:
    """The records of one list (module doc), made into sorted entries on demand.

    ``records`` are appended by the walk (``carved_lists``) and sorted once, at the
    first ``grow``; ``entries`` is the sorted prefix made so far and ``done`` whether
    every record is made."""

    __slots__ = ("_counts", "_known", "_next", "_registry", "done", "entries", "records")

    def __init__(self, registry: list[Offer], known_pairs: dict[int, PairEval],
                 counts: EvaluationCount) -> None:
        self._registry = registry
        self._known = known_pairs
        self._counts = counts
        self.records: list[tuple] = []
        self.entries: list[tuple] = []
        self._next = -1  # (records not sorted yet)
        self.done = False

    def grow(self, count: int) -> None:
        """Make entries until there are more than ``count`` or no record is left, a
        whole group of equal -pre at a time."""
        records = self.records
        if self._next < 0:
            records.sort()
            self._next = 0
        entries = self.entries
        at, end = self._next, len(records)
        batch: list[tuple] = []
        while at < end and len(entries) + len(batch) <= count:
            at = self._group(at, batch)
        self._settle(batch, at)

    def through(self, key: float) -> None:
        """Make every record whose -pre is at most ``key`` (the first key of the
        merge's bound) into its entry."""
        records = self.records
        at, end = self._next, len(records)
        batch: list[tuple] = []
        while at < end and records[at][_KEY] <= key:
            at = self._group(at, batch)
        self._settle(batch, at)

    def _settle(self, batch: list[tuple], at: int) -> None:
        if batch:
            batch.sort()
            self.entries.extend(batch)
        self._next = at
        self.done = at >= len(self.records)

    def _group(self, at: int, batch: list[tuple]) -> int:
        """Make the records of equal -pre from ``at`` on into ``batch`` (those that
        match); returns the position after them."""
        records, registry, known_pairs = self.records, self._registry, self._known
        end = len(records)
        first = records[at][_KEY]
        append = batch.append
        while at < end:
            record = records[at]
            key, idx, version, vals, values, pair_shape, program, rank = record
            if key != first:
                break
            at += 1
            known = known_pairs.get(pair_shape)
            if known is None:
                self._counts.evaluations += 1
                outcome = program.run_fitted(vals, as_rank)
                known = known_pairs[pair_shape] = (
                    NO_MATCH if not outcome[0] else box_pair(program)
                    if program.result is not None else make_pair(outcome))
            if not known.match:
                continue
            append((key, -(known.job_rank if rank is None else rank),
                    -(values[POST] if POST in values else known.dependent[POST]),
                    _FREE_ORDER, FLT_MAX, registry[idx].name, idx, version, NO_PREEMPTION))
        return at
