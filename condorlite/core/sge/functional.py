"""Functional tickets: ``weight_tickets_functional`` split by user, project, department
and job shares (``fshare``, ``qsub -js``), weighted by ``weight_user``,
``weight_project``, ``weight_department`` and ``weight_job``.

For a job with entity shares ``s_k`` (its user's, project's and department's
``fshare``, and its own job share) and the sums ``S_k`` of those shares over the jobs
counted so far::

    ftickets = sum_k  w_k * s_k * T / S_k          (a term is 0 when S_k is 0)

``T`` is ``weight_tickets_functional``. With ``share_functional_shares`` true an
entity's share is split among its jobs (``s = fshare / job_cnt``) and counted once in
``S``; false, every job carries the full ``fshare`` and each one adds it to ``S``.

Running jobs are priced together: the sums run over every running job, and ``w_k`` are
the configured weights of the categories with a nonzero sum, normalised to 1.

Pending jobs are priced one at a time (``max_functional_jobs_to_schedule`` of them), as
if each ran after those before it: each round the first job of every category
(``categories``) is priced with ``s = fshare / (job_cnt + 1)`` (shared) against the sums
so far plus 0.001, without adding its own share to ``S`` when shared (the real
scheduler's estimate), the best one (ties: earlier submission, lower job number, then
task) counts as running, and its tickets are worked out again with its share added to
the sums as for running jobs. The weights are all four configured weights normalised.
Pending jobs past the limit get the figure of their category's first job.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from operator import attrgetter

from condorlite.core.sge.categories import Auction, Category, build_categories
from condorlite.core.sge.objects import SchedConf
from condorlite.core.sge.refs import FunctionalParts, JobRef

#: Added to every share sum while pricing pending jobs (the real scheduler's guard
#: against a division by zero, which also makes the estimate slightly lower).
PENDING_SUM_GUARD = 0.001


@dataclass
class ShareSums:
    """The running sums ``S_k`` of the module doc."""

    user: float = 0.0
    project: float = 0.0
    dept: float = 0.0
    job: float = 0.0

    def copy(self) -> ShareSums:
        return ShareSums(self.user, self.project, self.dept, self.job)


@dataclass(frozen=True)
class Weights:
    user: float
    project: float
    dept: float
    job: float

    @classmethod
    def of(cls, conf: SchedConf, sums: ShareSums | None) -> Weights:
        """The configured weights, keeping only categories with shares when ``sums``
        is given, normalised to sum to 1."""
        raw = [conf.weight_user, conf.weight_project, conf.weight_department, conf.weight_job]
        if sums is not None:
            have = [sums.user, sums.project, sums.dept, sums.job]
            raw = [w if s > 0 else 0.0 for w, s in zip(raw, have, strict=True)]
        total = sum(raw)
        if total > 0:
            raw = [w / total for w in raw]
        return cls(*raw)


def count_shares(ref: JobRef, sums: ShareSums, shared: bool, add_all: bool) -> None:
    """``calc_job_functional_tickets_pass1``: the ref's shares, added to ``sums``.

    An entity's share is added when ``add_all`` or when the ref is its entity's only
    counted job."""
    for attr, entity in (("user", ref.user), ("project", ref.project), ("dept", ref.dept)):
        if entity is None:
            continue
        share = entity.fshare / entity.job_cnt if shared else float(entity.fshare)
        setattr(ref, f"{attr}_fshare", share)
        if add_all or entity.job_cnt <= 1:
            setattr(sums, attr, getattr(sums, attr) + share)
    ref.job_fshare = float(ref.job.jobshare)
    sums.job += ref.job_fshare


def price(ref: JobRef, sums: ShareSums, total: float, weights: Weights) -> float:
    """``calc_job_functional_tickets_pass2``: set and return ``ref.fticket``."""
    user = ref.user_fshare * total / sums.user if ref.user and sums.user else 0.0
    project = ref.project_fshare * total / sums.project if ref.project and sums.project else 0.0
    dept = ref.dept_fshare * total / sums.dept if ref.dept and sums.dept else 0.0
    job = ref.job.jobshare * total / sums.job if sums.job else 0.0
    ref.fticket = (
        weights.user * user + weights.dept * dept + weights.project * project + weights.job * job
    )
    ref.functional_parts = FunctionalParts(
        weights.user * user,
        weights.project * project,
        weights.dept * dept,
        weights.job * job,
    )
    return ref.fticket


def _estimate(
    ref: JobRef, category: Category, sums: ShareSums, total: float, weights: Weights, shared: bool
) -> float:
    """``calc_intern_pending_job_functional_tickets``: what the category's first job
    would get if it ran next (module doc). Spelled out per entity (no ``setattr`` by
    name): every category is estimated twice, 5,000 of them on a large cell."""
    guard = PENDING_SUM_GUARD
    t_user, t_project = sums.user + guard, sums.project + guard
    t_dept, t_job = sums.dept + guard, sums.job + guard
    user, project, dept = ref.user, ref.project, ref.dept
    if user is not None:
        share = category.user_share
        ref.user_fshare = value = share / (user.job_cnt + 1) if shared else float(share)
        if not shared:
            t_user += value
    if project is not None:
        share = category.project_share
        ref.project_fshare = value = share / (project.job_cnt + 1) if shared else float(share)
        if not shared:
            t_project += value
    if dept is not None:
        share = category.dept_share
        ref.dept_fshare = value = share / (dept.job_cnt + 1) if shared else float(share)
        if not shared:
            t_dept += value
    ref.job_fshare = float(category.job_share)
    t_job += ref.job_fshare
    return price(ref, ShareSums(t_user, t_project, t_dept, t_job), total, weights)


def _copy_figures(source: JobRef, dest: JobRef) -> None:
    """``copy_ftickets``: a later job of a category takes the first one's figures."""
    dest.user_fshare = source.user_fshare
    dest.project_fshare = source.project_fshare
    dest.dept_fshare = source.dept_fshare
    dest.job_fshare = float(dest.job.jobshare)
    dest.fticket = source.fticket
    dest.functional_parts = source.functional_parts


def pending_functional(
    refs: Sequence[JobRef],
    running_sums: ShareSums,
    conf: SchedConf,
    *,
    dependent: bool,
) -> None:
    """Set ``fticket`` of every pending ref (module doc)."""
    total = float(conf.weight_tickets_functional)
    shared = conf.share_functional_shares
    weights = Weights.of(conf, None)
    sums = running_sums.copy()
    categories, count = build_categories(
        refs,
        dependent=dependent,
        job_share=_job_share,
        entity_share=_fshare,
    )
    rounds = min(conf.max_functional_jobs_to_schedule, count)

    def estimate(category: Category) -> float:
        ref = category.first
        assert ref is not None
        value = _estimate(ref, category, sums, total, weights, shared)
        return value + ref.tickets if dependent else value

    auction = Auction(categories, estimate, JobRef.sort_key)
    placed: list[JobRef] = []
    leftover: list[Category] = []
    for i in range(rounds):
        last = i == rounds - 1
        if last:
            # The last round's estimates are what the jobs left over keep.
            for category in auction.categories():
                estimate(category)
        best = auction.pop_best()
        if best is None:
            break
        category, _ = best
        winner = category.first
        assert winner is not None
        category.pos += 1
        if category.first is not None:
            _copy_figures(winner, category.first)
        winner.count(queued=False)
        count_shares(winner, sums, shared, add_all=not shared)
        price(winner, sums, total, weights)
        placed.append(winner)
        if last:
            leftover.append(category)
        else:
            auction.push(category)
    for ref in placed:
        ref.count(queued=False, step=-1)
        if dependent:
            ref.tickets += ref.fticket
    _distribute(auction.categories() + leftover, dependent)


_job_share = attrgetter("job.jobshare")
_fshare = attrgetter("fshare")


def _distribute(categories: list[Category], dependent: bool) -> None:
    """``destribute_ftickets``: every job left in a category gets its first job's
    figures (and, when dependent, adds them to its tickets; the first job does not).

    Only the tickets and their parts are copied (``_copy_figures`` also copies the
    shares): the shares are working figures that only ``price`` reads, for a job being
    placed, and a job that gets its figures here is never placed after (this is the
    policy's last step; the next calculation makes new refs). 100,000 refs on a large
    cell."""
    for category in categories:
        first = category.first
        if first is None:
            continue
        fticket, parts = first.fticket, first.functional_parts
        for ref in category.rest():
            ref.fticket = fticket
            ref.functional_parts = parts
            if dependent:
                ref.tickets += fticket
