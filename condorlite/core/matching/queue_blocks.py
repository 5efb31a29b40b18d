"""A cycle's idle jobs in queue order, found a block of rows at a time.

Queue order (HTCondor's, per submitter): JobPrio higher first, then QDate, ClusterId,
ProcId lower first, then the input index; jobs equal in all of these keep their
order in the idle list. As one key per row (the row: the job's position in the idle
list)::

    queue_key(job, row) = (submitter, -JobPrio, QDate, ClusterId, ProcId, index, row)

No two rows share a key, and sorting a submitter's rows by it is the stable sort by
``(Job.queue_key(), index)`` of its jobs in idle order.

A *block* is a stretch of consecutive rows with one submitter and one JobPrio along
which (QDate, ClusterId, ProcId) increases from each row to the next.
Invariant: a block's keys increase with the row, so its first row (its *head*) holds
its least key and its rows are already in queue order. Any cut into such stretches
will do (an extra cut changes no answer below), so the jobs are cut a chunk at a
time, every chunk starting a block. Queues are submitted cluster by cluster, so a
block is a cluster's procs or a few clusters in a row: a million jobs make about
ten thousand blocks, and the answers below cost a key per block, not per job.

* ``QueueBlocks.least(start, end)``: the least key of rows ``start`` to ``end``: the
  least of the key of ``start`` and of each head after it (each other row's key is
  above its predecessor's).
* ``QueueBlocks.spans()``: each submitter's rows in queue order, as stretches. Its
  blocks are sorted by their heads' keys; a block whose head key is above every key
  of the blocks before it follows them as it is; blocks whose key ranges overlap
  (a head below the greatest key met so far) are merged into one *tangle* whose rows
  are sorted by key one by one, which is exact whatever the input order, and rare
  (a cluster's procs listed out of order).

Cost: finding the cuts compares five fields of each job, as one tuple, with the
previous row's (a row not above the one before starts a block), one of two ways
(``COMPILED`` chooses; the tests run both): in C (``oldscan.descents``: the fields
read and compared in one loop, no tuple built), or in Python (the reference: a tuple
per row by a list comprehension, compared at C level by ``operator.le``). A stretch
with no such cut is split where its (submitter, JobPrio) pair changes by bisection
over the jobs, the pairs ascending along it.
Nothing here sorts or keys every job. The fields are compared as Python values:
JobPrio, QDate, ClusterId, ProcId and index are integers (``ad_decoder.job_from_ad``).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable
from itertools import chain, compress, count, islice
from operator import attrgetter, le

from condorlite.core.classad import oldscan
from condorlite.core.model import Job

#: rows cut together (the sweep of ``significant`` passes its own chunks)
CHUNK = 1024
#: a job's (submitter, JobPrio), the pair a stretch is bisected by
_PAIR = attrgetter("submitter", "prio")
#: the fields a row is compared by, in order, as ``Job``'s member descriptors
_FIELDS = tuple(Job.__dict__[name] for name in ("submitter", "prio", "qdate", "cluster", "proc"))
#: the cuts in C (``oldscan.descents``) where it is built and the scanner is on
COMPILED = oldscan.enabled() and oldscan.descents is not None


def queue_key(job: Job, row: int) -> tuple:
    """The key of ``job`` at ``row`` (see the module doc)."""
    return (job.submitter, -job.prio, job.qdate, job.cluster, job.proc, job.index, row)


def chunk_heads(jobs: list[Job], first: int) -> list[int]:
    """The heads of the blocks of ``jobs`` (rows ``first`` on), ascending; ``first``
    is always one."""
    if not jobs:
        return []
    if COMPILED and type(jobs) is list:
        cuts = oldscan.descents(jobs, _FIELDS)
    else:
        fields = [(job.submitter, job.prio, job.qdate, job.cluster, job.proc) for job in jobs]
        cuts = [0, *compress(count(1), map(le, fields[1:], fields))]
    heads = []
    for start, end in zip(cuts, [*islice(cuts, 1, None), len(jobs)], strict=True):
        # Along a stretch that only increases the (submitter, prio) pairs ascend:
        # each pair's rows are a run ending where the pair bisects (to its right).
        while True:
            heads.append(first + start)
            head, last = jobs[start], jobs[end - 1]
            sub, prio = head.submitter, head.prio
            if last.submitter == sub and last.prio == prio:
                break
            start = bisect_right(jobs, (sub, prio), start, end, key=_PAIR)
    return heads


class QueueBlocks:
    """The blocks of a list of idle jobs (see the module doc): ``heads`` ascending,
    the first row 0 (when there are jobs); the lists are never changed."""

    __slots__ = ("heads", "jobs")

    def __init__(self, jobs: list[Job], heads: list[int] | None = None) -> None:
        #: the jobs the rows are, and the first row of each block
        self.jobs = jobs
        if heads is None:
            heads = list(chain.from_iterable(
                chunk_heads(jobs[first:first + CHUNK], first)
                for first in range(0, len(jobs), CHUNK)))
        self.heads = heads

    def least(self, start: int, end: int) -> tuple:
        """The least ``queue_key`` of rows ``start`` to ``end`` (end excluded, not
        empty)."""
        heads, jobs = self.heads, self.jobs
        inside = heads[bisect_right(heads, start):bisect_left(heads, end)]
        best = queue_key(jobs[start], start)
        for row in inside:
            key = queue_key(jobs[row], row)
            if key < best:
                best = key
        return best

    def spans(self) -> dict[str, list[tuple[int, int]]]:
        """Each submitter's rows in queue order, as (start, end) stretches of rows
        (adjacent stretches joined); submitters in order of their first row."""
        jobs, heads = self.jobs, self.heads
        by_sub: dict[str, list[tuple[tuple, int, int]]] = {}
        # (no heads without jobs: the one end left over is not paired)
        for head, end in zip(heads, islice([*heads, len(jobs)], 1, None), strict=False):
            job = jobs[head]
            block = (_key(job, head), head, end)
            try:
                by_sub[job.submitter].append(block)
            except KeyError:
                by_sub[job.submitter] = [block]
        return {sub: _ordered(jobs, blocks) for sub, blocks in by_sub.items()}


def _key(job: Job, row: int) -> tuple:
    """``queue_key`` without the submitter (one submitter's rows are compared)."""
    return (-job.prio, job.qdate, job.cluster, job.proc, job.index, row)


def _ordered(jobs: list[Job], blocks: list[tuple[tuple, int, int]]
             ) -> list[tuple[int, int]]:
    """One submitter's blocks (head key, head, end) as stretches in queue order."""
    blocks.sort()  # (head keys are distinct: the rest of a tuple is never compared)
    out: list[tuple[int, int]] = []
    tangle: list[tuple[tuple, int, int]] = []
    top: tuple | None = None  # the greatest key of the blocks in ``tangle``
    for block in blocks:
        last = _key(jobs[block[2] - 1], block[2] - 1)
        if top is not None and block[0] < top:
            tangle.append(block)
            if last > top:
                top = last
            continue
        _flush(jobs, tangle, out)
        tangle, top = [block], last
    _flush(jobs, tangle, out)
    return out


def _flush(jobs: list[Job], tangle: list[tuple[tuple, int, int]],
           out: list[tuple[int, int]]) -> None:
    """Append the rows of ``tangle`` (blocks whose key ranges overlap, or one block)
    to ``out`` in key order."""
    if not tangle:
        return
    if len(tangle) == 1:
        _append(out, [(tangle[0][1], tangle[0][2])])
        return
    rows = sorted(chain.from_iterable(range(head, end) for _, head, end in tangle),
                  key=lambda row: _key(jobs[row], row))
    _append(out, [(row, row + 1) for row in rows])


def _append(out: list[tuple[int, int]], spans: Iterable[tuple[int, int]]) -> None:
    for start, end in spans:
        if out and out[-1][1] == start:
            out[-1] = (out[-1][0], end)
        else:
            out.append((start, end))
