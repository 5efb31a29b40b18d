"""Override tickets: an admin's fixed grants to users, projects, departments and jobs.

A job's override tickets are the sum over its user, project and department of that
entity's ``oticket``, plus the job's own (``qalter -ot``). With
``share_override_tickets`` true an entity's tickets are split evenly among its jobs:

    running job:  oticket(entity) / job_cnt(entity)      (its running jobs)
    pending job:  oticket(entity) / (job_cnt(entity) + 1)

where, for pending jobs, ``job_cnt`` grows as pending jobs are placed one at a time:
each round the first job of every category (``categories``) is priced as if it were
the next to run, the one with most tickets (ties: lower job number, then task) takes
them and counts as running, and so on. The k-th pending job of a user with no running
jobs thus gets ``oticket / k``. With ``share_override_tickets`` false every job gets
each entity's full ``oticket``.
"""

from __future__ import annotations

import heapq
from collections.abc import Sequence
from operator import attrgetter
from typing import NamedTuple

from condorlite.core.sge.categories import Category, build_categories
from condorlite.core.sge.refs import Entity, JobRef, OverridePart


def running_override(ref: JobRef, shared: bool) -> float:
    """``calc_job_override_tickets``: set and return ``ref.oticket`` for a running job
    (or any job when the tickets are not shared)."""
    parts = []
    for entity in ref.entities:
        if entity is None or not entity.oticket:
            continue
        if not shared:
            parts.append(OverridePart(entity.kind, entity.name, float(entity.oticket)))
        elif entity.job_cnt:
            parts.append(OverridePart(entity.kind, entity.name, entity.oticket / entity.job_cnt))
    return _set(ref, parts)


def _set(ref: JobRef, parts: list[OverridePart]) -> float:
    if ref.job.override_tickets:
        parts.append(OverridePart("job", str(ref.job.number), float(ref.job.override_tickets)))
    ref.override_parts = tuple(parts)
    ref.oticket = sum(p.tickets for p in parts)
    return ref.oticket


def pending_override(refs: Sequence[JobRef], *, shared: bool, dependent: bool) -> None:
    """Set ``oticket`` of every pending ref (module doc); with ``dependent`` the tickets
    are also added to ``ref.tickets`` for the policies after this one."""
    if not shared:
        for ref in refs:
            if ref.queued:
                running_override(ref, shared=False)
                if dependent:
                    ref.tickets += ref.oticket
        return
    categories, count = build_categories(
        refs,
        dependent=dependent,
        job_share=_job_oticket,
        entity_share=_entity_oticket,
    )
    bidders = [_Bidder.of(category) for category in categories]
    kept = {id(e): (e, e.job_cnt) for bidder in bidders for e in bidder.entities}
    _auction(bidders, count)
    # The winners counted as running only while the pending jobs were placed.
    for entity, job_cnt in kept.values():
        entity.job_cnt = job_cnt


_job_oticket = attrgetter("job.override_tickets")
_entity_oticket = attrgetter("oticket")


class _Bidder(NamedTuple):
    """A category in the override auction: its jobs, their entities that have override
    tickets (the category's, shared by all its jobs) and the job tickets each of its
    jobs has (``qalter -ot``, part of the category's key, so equal for all)."""

    category: Category
    entities: tuple[Entity, ...]
    own: int

    @classmethod
    def of(cls, category: Category) -> _Bidder:
        found = (category.user, category.project, category.dept)
        return cls(category, tuple(e for e in found if e is not None and e.oticket > 0),
                   category.job_share)

    def price(self) -> float:
        """``calc_pjob_override_tickets_shared``: what the first job left would get
        next, ``sum oticket / (job_cnt + 1)`` over the entities, then its own."""
        total = 0.0
        for entity in self.entities:
            total += entity.oticket / (entity.job_cnt + 1)
        return total + self.own


def _auction(bidders: list[_Bidder], rounds: int) -> None:
    """Place ``rounds`` jobs one at a time: each round the first job left of the bidder
    with the highest price (ties: lower job number, then task) gets that price and
    counts as running for its entities (module doc).

    A lazy heap of ``(-price, job number, task, bidder)``: prices only fall as jobs are
    placed, so a stored price is an upper bound, and an entry whose price, worked out
    again, is unchanged is the best of all. No two entries tie (a ref is one job and
    task), so the heap's shape does not matter. The winner's bidder goes back in with
    its next job's price; when that entry is below both of the top's children it is the
    next winner itself, set in place and taken without a second look (its price is
    current). Same choices as the real scheduler's pass over every category."""
    heap = []
    for i, bidder in enumerate(bidders):
        first = bidder.category.refs[0]
        heap.append((-bidder.price(), first.job.number, first.task, i))
    heapq.heapify(heap)
    fresh = False  # whether the top entry's price is known current
    for _ in range(rounds):
        if not heap:
            break
        while not fresh:
            stored, number, task, i = heap[0]
            price = bidders[i].price()
            fresh = price == -stored
            if not fresh:
                heapq.heapreplace(heap, (-price, number, task, i))
        stored, _, _, i = heap[0]
        bidder = bidders[i]
        category = bidder.category
        _win(category.refs[category.pos], bidder, -stored)
        category.pos += 1
        if category.pos == len(category.refs):
            heapq.heappop(heap)
            fresh = False
            continue
        following = category.refs[category.pos]
        entry = (-bidder.price(), following.job.number, following.task, i)
        size = len(heap)
        fresh = (size < 2 or entry < heap[1]) and (size < 3 or entry < heap[2])
        if fresh:
            heap[0] = entry  # the smallest entry: the heap stays a heap
        else:
            heapq.heapreplace(heap, entry)


def _win(ref: JobRef, bidder: _Bidder, tickets: float) -> None:
    """The winner gets ``tickets`` (recording where they came from, before it counts
    as running) and counts as running for its entities with override tickets (the
    only ones whose count the auction reads; ``pending_override`` restores them)."""
    parts = [OverridePart(e.kind, e.name, e.oticket / (e.job_cnt + 1)) for e in bidder.entities]
    if bidder.own:
        parts.append(OverridePart("job", str(ref.job.number), float(bidder.own)))
    ref.override_parts = tuple(parts)
    ref.oticket = tickets
    # The real scheduler adds the tickets whether or not a policy depends on them;
    # only dependent policies read ``tickets``, and they come after this one.
    ref.tickets += tickets
    for entity in bidder.entities:
        entity.job_cnt += 1
