"""The submitters' turns: each one's queue of rows going in, its report coming out.

``build_turns`` makes one ``Turn`` per submitter with idle jobs: its jobs in queue order
(JobPrio desc, QDate, ClusterId, ProcId, input order; ``queue_blocks``) as rows of
(job id, autocluster, match class, job), kept as one aligned list per field
(``row_maps.turn_rows``: ``ids``, ``clusters``, ``classes``, ``jobs``; the turn's loop
zips them), the turns sorted by (EUP, name). A submitter the accountant does not know
gets EUP ``0.5 x DEFAULT_PRIO_FACTOR`` and usage 0, entered in the cycle's ``eup`` and ``usage``.

At the end, ``submitter_reports`` gives each turn's ``SubmitterReport`` (share and limit
of its first main-round spin, usage after the cycle, what it matched).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import compress, count
from operator import ne

from condorlite.core.matching.autocluster import Autoclusters
from condorlite.core.matching.queue_blocks import QueueBlocks
from condorlite.core.matching.row_maps import turn_rows
from condorlite.core.model import Job, Submitter, SubmitterReport
from condorlite.core.policy import Policy


@dataclass
class Turn:
    """One submitter's state across the cycle."""

    info: Submitter
    jobs: list[Job]
    done: set[str] = field(default_factory=set)
    #: the job id, autocluster and match class of each of ``jobs``, aligned with it
    ids: list[str] = field(default_factory=list)
    clusters: list[int] = field(default_factory=list)
    classes: list[int] = field(default_factory=list)
    matched_weight: float = 0.0
    matched_jobs: int = 0
    share: float | None = None
    limit: float | None = None
    #: where each run of rows of one autocluster begins, after the first (and the
    #: number of rows): made by the first ``run_end``
    _run_starts: list[int] | None = field(default=None, init=False, repr=False,
                                          compare=False)

    def run_end(self, at: int) -> int:
        """The position after the run of rows of one autocluster that holds the row at
        ``at - 1`` (rows never change, so the runs are found once per turn, at C
        level, and each question is a bisection)."""
        starts = self._run_starts
        if starts is None:
            clusters = self.clusters
            starts = list(compress(count(1), map(ne, clusters[1:], clusters)))
            starts.append(len(clusters))
            self._run_starts = starts
        return starts[bisect_left(starts, at)]


def build_turns(idle: list[Job], submitters: Mapping[str, Submitter], ac: Autoclusters,
                policy: Policy, eup: dict[str, float], usage: dict[str, float]
                ) -> list[Turn]:
    """The turns of the submitters of ``idle`` (module doc), sorted by (EUP, name)."""
    # Queue order a block of rows at a time (``queue_blocks``): the grouping cut
    # the blocks while it read the jobs; other groupings have them cut here.
    blocks = ac.blocks
    if blocks is None or blocks.jobs is not idle:
        blocks = QueueBlocks(idle)
    rows_of = turn_rows(ac.cluster_of, ac.match_class_of, idle)
    turns = []
    for name, spans in blocks.spans().items():
        fresh = Submitter(name, eup=0.5 * policy.default_prio_factor, usage=0.0)
        info = submitters.get(name) or fresh
        eup.setdefault(name, info.eup)
        usage.setdefault(name, info.usage)
        columns = rows_of(spans)
        turns.append(Turn(info, columns.jobs, ids=columns.ids, clusters=columns.clusters,
                          classes=columns.classes))
    turns.sort(key=lambda t: (eup[t.info.name], t.info.name))
    return turns


def submitter_reports(turns: list[Turn], eup: Mapping[str, float],
                      usage: Mapping[str, float]) -> list[SubmitterReport]:
    """Each turn's report, in turn order."""
    return [SubmitterReport(
        name=t.info.name, effective_priority=eup[t.info.name],
        share=t.share or 0.0, limit=t.limit or 0.0, usage=usage[t.info.name],
        matched=t.matched_weight, matched_jobs=t.matched_jobs, idle_jobs=len(t.jobs))
        for t in turns]

