"""Pending jobs grouped into categories, as the functional and override policies group them.

Both policies hand out pending tickets one job at a time: each round they work out what
the first job of every category would get if it ran next, consider the best one
running, and go on. Jobs of one category (same job share or job override tickets, and
the same user, project and department entities, counting an entity with no shares as
none) would all get the same figure, so only each category's first job is tried.

Inside a category jobs keep the order of the pending list; when the policy depends on
an earlier one (``policy_hierarchy``), they are ordered by the tickets they already
hold, most first, then by seniority (``build_functional_categories``). Jobs of
categories with no shares at all get nothing and are left out.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from operator import attrgetter

from condorlite.core.sge.refs import Entity, JobRef


@dataclass(eq=False, slots=True)
class Category:
    """Jobs that a policy would treat alike; ``refs[pos:]`` are those not yet placed."""

    job_share: int
    user: Entity | None
    project: Entity | None
    dept: Entity | None
    user_share: int
    project_share: int
    dept_share: int
    refs: list[JobRef] = field(default_factory=list)
    pos: int = 0

    @property
    def first(self) -> JobRef | None:
        return self.refs[self.pos] if self.pos < len(self.refs) else None

    def rest(self) -> list[JobRef]:
        """The refs after the first one still waiting."""
        return self.refs[self.pos + 1 :]


def _goes_after(earlier: JobRef, new: JobRef) -> bool:
    """Whether ``new`` is inserted after ``earlier`` in a dependent category: fewer
    tickets, or as many and ``earlier`` is senior (the real scheduler's comparison,
    including its task-number rule for two tasks of one job)."""
    if earlier.tickets > new.tickets:
        return True
    if earlier.tickets == new.tickets:
        e_time, n_time = earlier.job.submission_time, new.job.submission_time
        e_job, n_job = earlier.job.number, new.job.number
        if e_time < n_time or (e_time == n_time and e_job < n_job):
            return True
        if e_job == n_job and earlier.task < new.task:
            return True
    return False


#: Marks a combination ``build_categories`` has not met yet (None: no category).
_NEW = Category(0, None, None, None, 0, 0, 0)


def build_categories(
    refs: Iterable[JobRef],
    *,
    dependent: bool,
    job_share: Callable[[JobRef], int],
    entity_share: Callable[[Entity], int],
) -> tuple[list[Category], int]:
    """The categories of the pending ``refs`` and how many jobs they hold (module doc).

    ``job_share`` gives a ref's own figure (job share or job override tickets),
    ``entity_share`` an entity's (fshare or oticket).

    Refs with the same own figure and the same three entities (by identity) fall in one
    category, so the shares are looked at once per such combination (``_category``),
    not once per ref. In a dependent category each ref is placed after the last one it
    ``_goes_after``; that relation is "less than" on (-tickets, submission time, job
    number, task) (a strict total order: no two refs share job and task; tickets are
    never NaN), so the insertions leave the list sorted by that key, and a category
    whose refs did not arrive in that order is sorted once at the end instead
    (``tests/sge/test_priority_shortcuts.py`` checks both against each other).
    """
    categories: list[Category] = []
    index: dict[tuple[int, int, int, int], Category] = {}
    kinds: dict[tuple, Category | None] = {}  # (own, user, project, dept) -> category
    listed: set[int] = set()
    unsorted: dict[int, Category] = {}  # id -> a dependent category out of order
    count = 0
    for ref in refs:
        if not ref.queued:
            continue
        kind = (job_share(ref), ref.user, ref.project, ref.dept)
        category = kinds.get(kind, _NEW)
        if category is _NEW:
            category = kinds[kind] = _category(*kind, entity_share, index)
            if category is not None and id(category) not in listed:
                listed.add(id(category))
                categories.append(category)
        if category is None:
            continue  # no shares at all: nothing to hand out
        count += 1
        members = category.refs
        if dependent and members:
            last = members[-1]
            # _goes_after's first test inline (NaN tickets go to the call, as before)
            if not last.tickets > ref.tickets and not _goes_after(last, ref):
                unsorted[id(category)] = category
        members.append(ref)
    for category in unsorted.values():
        # by (-tickets, submission time, job number, task) as two stable sorts with C
        # keys: seniority, then most tickets first (equal tickets keep that order)
        category.refs.sort(key=_seniority)
        category.refs.sort(key=_tickets, reverse=True)
    return categories, count


def _category(
    own: int,
    user: Entity | None,
    project: Entity | None,
    dept: Entity | None,
    entity_share: Callable[[Entity], int],
    index: dict[tuple[int, int, int, int], Category],
) -> Category | None:
    """The category of refs with figure ``own`` and these entities (made and indexed
    when new), or None when none of them has a share; an entity with no share counts as
    none, so refs whose entities differ only in those share a category."""
    u_share = entity_share(user) if user is not None else 0
    p_share = entity_share(project) if project is not None else 0
    d_share = entity_share(dept) if dept is not None else 0
    if not (own or u_share or p_share or d_share):
        return None
    key = (
        own,
        id(user) if u_share else 0,
        id(project) if p_share else 0,
        id(dept) if d_share else 0,
    )
    category = index.get(key)
    if category is None:
        category = index[key] = Category(
            own,
            user if u_share else None,
            project if p_share else None,
            dept if d_share else None,
            u_share,
            p_share,
            d_share,
        )
    return category


_seniority = attrgetter("job.submission_time", "job.number", "task")
_tickets = attrgetter("tickets")


class Auction:
    """Picks, round after round, the category whose first job would get most tickets.

    ``price(category)`` is what the category's first job would get if it ran next (it
    may record that figure on the job); ``seniority(ref)`` breaks ties, smallest first.
    Prices only ever fall as jobs are placed (counts and share sums only grow), so a
    lazy heap is exact: an entry whose recomputed price equals its stored one is the
    best of all (the others' stored prices are upper bounds). This is what makes a round
    cost O(log n) instead of the real scheduler's pass over every category; the choice
    is the same.
    """

    def __init__(
        self,
        categories: Iterable[Category],
        price: Callable[[Category], float],
        seniority: Callable[[JobRef], tuple[int, ...]],
    ) -> None:
        self._price = price
        self._seniority = seniority
        self._heap: list[tuple[float, tuple[int, ...], int, Category]] = []
        self._seq = 0
        for category in categories:
            self.push(category)

    def push(self, category: Category) -> None:
        """(Re-)enter ``category`` with its current first job, if it has one left."""
        ref = category.first
        if ref is None:
            return
        self._seq += 1
        entry = (-self._price(category), self._seniority(ref), self._seq, category)
        heapq.heappush(self._heap, entry)

    def pop_best(self) -> tuple[Category, float] | None:
        """The best category and its first job's price, taken out of the auction."""
        while self._heap:
            stored, _, _, category = heapq.heappop(self._heap)
            price = self._price(category)
            if price == -stored:
                return category, price
            self.push(category)
        return None

    def categories(self) -> list[Category]:
        """The categories still in the auction, in the order they were first entered."""
        return [entry[3] for entry in sorted(self._heap, key=lambda e: e[2])]
