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

from collections.abc import Sequence

from condorlite.core.sge.categories import Auction, Category, build_categories
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


def _explained(ref: JobRef, entities: tuple[Entity, ...]) -> None:
    """Record where the winner's tickets came from (before it counts as running);
    ``entities`` are its entities with override tickets (``_FirstPrice.entities``)."""
    parts = [OverridePart(e.kind, e.name, e.oticket / (e.job_cnt + 1)) for e in entities]
    _set(ref, parts)


class _FirstPrice:
    """``calc_pjob_override_tickets_shared``: the tickets a category's first job would
    get next (set as its ``oticket``); the category's entities that have override
    tickets are found once (a category's jobs share their entities)."""

    def __init__(self) -> None:
        self._entities: dict[int, tuple[Entity, ...]] = {}

    def entities(self, category: Category, ref: JobRef) -> tuple[Entity, ...]:
        """The entities of ``ref`` (a job of ``category``) that have override tickets."""
        found = self._entities.get(id(category))
        if found is None:
            found = self._entities[id(category)] = tuple(
                e for e in ref.entities if e is not None and e.oticket > 0)
        return found

    def __call__(self, category: Category) -> float:
        ref = category.first
        assert ref is not None
        entities = self.entities(category, ref)
        total = 0.0
        for entity in entities:
            total += entity.oticket / (entity.job_cnt + 1)
        total += ref.job.override_tickets
        ref.oticket = total
        return total


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
        job_share=lambda r: r.job.override_tickets,
        entity_share=lambda e: e.oticket,
    )
    first_price = _FirstPrice()
    auction = Auction(categories, first_price, lambda r: (r.job.number, r.task))
    placed: list[JobRef] = []
    for _ in range(count):
        best = auction.pop_best()
        if best is None:
            break
        category, tickets = best
        winner = category.first
        assert winner is not None
        _explained(winner, first_price.entities(category, winner))
        winner.oticket = tickets
        winner.count(queued=False)
        # The real scheduler adds the tickets whether or not a policy depends on them;
        # only dependent policies read ``tickets``, and they come after this one.
        winner.tickets += tickets
        placed.append(winner)
        category.pos += 1
        auction.push(category)
    for ref in placed:
        ref.count(queued=False, step=-1)
