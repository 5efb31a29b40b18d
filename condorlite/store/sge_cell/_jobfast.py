"""The fast way through ``jobs.xml``: the careful scanner's work without its bookkeeping.

``_jobscan`` keeps every value with its token's index, so that a bad value names its
line, and checks each value as it converts it; on 100,000 jobs that bookkeeping costs
more than the scan itself. ``read_jobs`` here runs the same token loop over the same
tokens (``_jobscan.TOKEN``: the same container stack, the same rule for where a record
starts, the first of a repeated scalar kept) keeping only the raw texts, and converts
them as ``_jobscan`` does but without its messages. Anything irregular (a closing tag
out of place, a token before the first job, a container never closed, a missing owner
or job number, a value that does not convert, a bad range or ``JB_reserve``, a job
given twice) raises ``Irregular``; the caller then reads the document again with
``_jobscan``, which gives the error with its line.

Invariant: when ``read_jobs`` returns, its jobs are equal, field by field, to those
``_jobscan`` returns for the same bytes. Equal values are shared within each part read
(``JobsRead``: a large document is read in two parts at once): one ``SlotRange`` or
request tuple for every job that gives the same text (they are frozen).
"""

from __future__ import annotations

import html
from collections.abc import Iterator
from dataclasses import dataclass

from condorlite.core.sge.jobs import Job, ResourceRequest, SlotRange, Task, construct
from condorlite.core.sge.objects import Complex, Userset
from condorlite.forked import ChildFailed, Forked

from . import _jobscan
from ._jobs import Departments, Pending, held
from ._jobscan import CONTAINER_TAGS, RECORD_STARTS, TOKEN

#: A record (one request, range, task, usage entry): tag -> raw text.
_Fields = dict[bytes, bytes]


class Irregular(Exception):
    """The document is not the plain case this module reads; ``_jobscan`` reads it."""


class _Draft:
    """One job's raw texts: its scalars and, per container, its records."""

    __slots__ = ("records", "scalars")

    def __init__(self) -> None:
        self.scalars: _Fields = {}
        self.records: dict[bytes, list[_Fields]] = {}


#: The scan's stretch: tokens are taken this many bytes at a time, not all at once.
CHUNK = 8 << 20


def _stretches(data: bytes, start: int = 0, size: int | None = None
               ) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of each stretch of about ``CHUNK`` bytes of ``data[start:size]``
    the tokens are taken from: a stretch ends where a ``<JB_job_number>`` starts (a
    token never spans a ``<``), so the tokens are those of one scan, and the 2 million
    token tuples of a 100,000-job dump are never all alive."""
    size = len(data) if size is None else size
    while start < size:
        end = data.find(b"<JB_job_number>", start + CHUNK, size)
        end = size if end < 0 else end
        yield start, end
        start = end


def _drafts(data: bytes, start: int = 0, end: int | None = None) -> list[_Draft]:
    """The jobs' raw texts in ``data[start:end]``, as ``_jobscan._Scan.drafts``
    assembles them. A part that starts at a ``<JB_job_number>`` and ends with every
    container closed gives the drafts the whole scan gives for it (the scan's state
    between jobs is the empty stack); any other part is ``Irregular``."""
    jobs: list[_Draft] = []
    stack: list[bytes] = []
    current: dict[bytes, _Fields] = {}
    containers, starts = CONTAINER_TAGS, RECORD_STARTS
    draft: _Draft | None = None
    scalars: _Fields = {}
    for stretch_start, stretch_end in _stretches(data, start, end):
        for tag, raw, closed in TOKEN.findall(data, stretch_start, stretch_end):
            if closed:
                if not stack or stack[-1] != closed:
                    raise Irregular
                stack.pop()
            elif tag in containers:
                stack.append(tag)
                current.pop(tag, None)
            elif not stack:
                if tag == b"JB_job_number":
                    draft = _Draft()
                    jobs.append(draft)
                    scalars = draft.scalars
                elif draft is None:
                    raise Irregular
                if tag not in scalars:
                    scalars[tag] = raw
            else:
                if draft is None:
                    raise Irregular
                container = stack[-1]
                record = current.get(container)
                if record is None or tag in record or tag in starts:
                    record = current[container] = {}
                    draft.records.setdefault(container, []).append(record)
                    if container == b"JAT_scaled_usage_list":
                        # usage belongs to the task being read (its index; -1: none yet)
                        tasks = draft.records.get(b"JB_ja_tasks", ())
                        record[b"_task"] = b"%d" % (len(tasks) - 1)
                record[tag] = raw
    if stack:
        raise Irregular
    return jobs


def _text(raw: bytes | None) -> str:
    """As ``_Scan.string``: decoded, stripped, unescaped; '' when absent."""
    if raw is None:
        return ""
    value = raw.decode("utf-8").strip()
    return html.unescape(value) if "&" in value else value


class _Reader:
    """The conversions, with the equal values already built (module doc)."""

    def __init__(self, complexes: dict[str, Complex], departments: Departments,
                 pending: Pending) -> None:
        self.complexes = complexes
        self.shortcuts = {c.shortcut: c.name for c in complexes.values()}
        self.departments = departments
        self.pending = pending
        self._texts: dict[bytes | None, str] = {}
        self._ranges: dict[tuple[tuple[bytes, ...], ...], tuple[SlotRange, ...]] = {}
        self._requests: dict[tuple[tuple[bytes | None, ...], ...],
                             tuple[ResourceRequest, ...]] = {}

    def ranges(self, records: list[_Fields] | None) -> tuple[SlotRange, ...]:
        if not records:
            return ()
        if len(records) == 1:  # the common case, without a generator
            r = records[0]
            key: tuple[tuple[bytes, ...], ...] = (
                (r[b"RN_min"], r[b"RN_max"], r.get(b"RN_step", b"1")),)
        else:
            key = tuple((r[b"RN_min"], r[b"RN_max"], r.get(b"RN_step", b"1")) for r in records)
        found = self._ranges.get(key)
        if found is None:
            out = []
            for r in records:
                low, high = int(r[b"RN_min"]), int(r[b"RN_max"])
                step = int(r.get(b"RN_step", b"1"))
                if low > high or step < 0:
                    raise Irregular
                out.append(SlotRange(low, high, step))
            found = self._ranges[key] = tuple(out)
        return found

    def requests(self, records: list[_Fields] | None) -> tuple[ResourceRequest, ...]:
        if not records:
            return ()
        if len(records) == 1:  # the common case, without a generator
            r = records[0]
            key: tuple[tuple[bytes | None, ...], ...] = (
                (r[b"CE_name"], r.get(b"CE_stringval"), r.get(b"CE_doubleval")),)
        else:
            key = tuple((r[b"CE_name"], r.get(b"CE_stringval"), r.get(b"CE_doubleval"))
                        for r in records)
        found = self._requests.get(key)
        if found is None:
            out = []
            for raw_name, raw_value, raw_amount in key:
                name = _text(raw_name)
                if name not in self.complexes and name in self.shortcuts:
                    name = self.shortcuts[name]
                amount = 0.0 if raw_amount is None else float(raw_amount)
                out.append(ResourceRequest(name, _text(raw_value), amount))
            found = self._requests[key] = tuple(out)
        return found

    def text(self, raw: bytes | None) -> str:
        """``_text``, once per distinct text (owners, groups, projects repeat)."""
        found = self._texts.get(raw)
        if found is None:
            found = self._texts[raw] = _text(raw)
        return found

    def job(self, draft: _Draft) -> Job:
        s, records, text = draft.scalars, draft.records, self.text
        owner, group = text(s[b"JB_owner"]), text(s.get(b"JB_group"))
        reserve = text(s.get(b"JB_reserve")).lower() or "false"
        if reserve not in ("true", "false"):
            raise Irregular
        number = int(s[b"JB_job_number"])
        structure = self.ranges(records.get(b"JB_ja_structure"))
        # the plain job lists nothing but its task ids: no request, queue, PE, task
        plain = len(records) == (b"JB_ja_structure" in records)
        parts = _NO_PARTS if plain else self.parts(records)
        tasks = self.pending.tasks(number, parts.tasks, structure)
        return construct(Job, {
            "number": number,
            "name": text(s.get(b"JB_job_name")),
            "owner": owner,
            "group": group,
            "submission_time": int(s.get(b"JB_submission_time", b"0")),
            "project": text(s.get(b"JB_project")) or None,
            "department": text(s.get(b"JB_department")) or self.departments.of(owner, group),
            "ppri": int(s.get(b"JB_priority", b"1024")) - 1024,
            "deadline": int(s.get(b"JB_deadline", b"0")),
            "override_tickets": int(s.get(b"JB_override_tickets", b"0")),
            "jobshare": int(s.get(b"JB_jobshare", b"0")),
            "hard_requests": parts.hard_requests,
            "soft_requests": parts.soft_requests,
            "hard_queues": parts.hard_queues,
            "pe": text(s.get(b"JB_pe")) or None,
            "pe_range": parts.pe_range,
            "reserve": reserve == "true",
            "tasks": tasks,
            "hold": held(tasks),
            "execution_time": int(s.get(b"JB_execution_time", b"0")),
            "predecessors": parts.predecessors,
        })

    def parts(self, records: dict[bytes, list[_Fields]]) -> _Parts:
        """What a job's containers other than ``JB_ja_structure`` give."""
        queues = records.get(b"JB_hard_queue_list")
        predecessors = records.get(b"JB_jid_predecessor_list")
        return _Parts(
            hard_requests=self.requests(records.get(b"JB_hard_resource_list")),
            soft_requests=self.requests(records.get(b"JB_soft_resource_list")),
            hard_queues=() if queues is None else tuple(
                _text(r[b"QR_name"]) for r in queues if b"QR_name" in r),
            pe_range=self.ranges(records.get(b"JB_pe_range")),
            predecessors=() if predecessors is None else tuple(
                int(r[b"JRE_job_number"]) for r in predecessors if b"JRE_job_number" in r),
            tasks=_tasks(records),
        )


@dataclass(slots=True)
class _Parts:
    """A job's fields read from its containers (``_Reader.parts``; never changed once
    made: the fields go into the job)."""

    hard_requests: tuple[ResourceRequest, ...] = ()
    soft_requests: tuple[ResourceRequest, ...] = ()
    hard_queues: tuple[str, ...] = ()
    pe_range: tuple[SlotRange, ...] = ()
    predecessors: tuple[int, ...] = ()
    tasks: tuple[Task, ...] = ()


_NO_PARTS = _Parts()


def _tasks(records: dict[bytes, list[_Fields]]) -> tuple[Task, ...]:
    """The materialised tasks with their usage, as ``_jobscan._tasks``."""
    listed = records.get(b"JB_ja_tasks", [])
    if not listed and b"JAT_scaled_usage_list" not in records:
        return ()
    usage: dict[int, dict[str, float]] = {}
    for entry in records.get(b"JAT_scaled_usage_list", ()):
        if b"UA_name" in entry:
            value = float(entry.get(b"UA_value", b"0"))
            usage.setdefault(int(entry[b"_task"]), {})[_text(entry[b"UA_name"])] = value
    tasks = [
        Task(int(r[b"JAT_task_number"]), int(r.get(b"JAT_status", b"0")),
             int(r.get(b"JAT_start_time", b"0")), usage.get(index, {}))
        for index, r in enumerate(listed)
    ]
    return tuple(sorted(tasks, key=lambda t: t.number))


#: Below this size jobs.xml is read in one part: forking costs more than it saves.
PARALLEL_BYTES = 16 << 20


class JobsRead:
    """``jobs.xml`` read the fast way, in two parts at once when it is large.

    Made, it forks a child (``condorlite.forked``) that reads the jobs from the first
    ``<JB_job_number>`` past ``head_share`` of the bytes to the end; the caller may
    read other files meanwhile; ``jobs()`` reads the head, takes the tail's jobs from
    the child, or reads the tail itself when the child gave none. The two parts give
    the whole scan's jobs (``_drafts``: the state between jobs is the empty stack; a
    part that does not end with every container closed is ``Irregular``), so the
    jobs are those of one part read whole, in the same order. Anything irregular
    sends the whole document to ``_jobscan``, whose error names the line. Use it as a
    context manager: leaving the block reaps a child whose jobs were never taken.
    """

    def __init__(self, data: bytes, source: str, complexes: dict[str, Complex],
                 usersets: dict[str, Userset], pending: Pending,
                 head_share: float = 0.5) -> None:
        self.data, self.source = data, source
        self.complexes, self.usersets, self.pending = complexes, usersets, pending
        self._reader = _Reader(complexes, Departments(usersets), pending)
        size = len(data)
        split = data.find(b"<JB_job_number>", int(size * head_share))
        self._split = size if size < PARALLEL_BYTES or split < 0 else split
        self._child: Forked[list[Job]] | None = None
        if self._split < size:
            self._child = Forked(lambda: self._part(self._split, size))

    def _part(self, start: int, end: int) -> list[Job]:
        return [self._reader.job(draft) for draft in _drafts(self.data, start, end)]

    def _tail(self) -> list[Job]:
        if self._child is None:
            return []
        try:
            return self._child.result()
        except ChildFailed:  # no second core, or the tail is irregular: read it here
            return self._part(self._split, len(self.data))

    def jobs(self) -> list[Job]:
        """Every job of the document, each with every task (class doc)."""
        try:
            jobs = self._part(0, self._split)
            jobs.extend(self._tail())
            if len({job.number for job in jobs}) != len(jobs):
                raise Irregular
        except (Irregular, KeyError, ValueError):  # UnicodeDecodeError is a ValueError
            self.close()
            return _jobscan.read_jobs(self.data, self.source, self.complexes, self.usersets,
                                      self.pending)
        return jobs

    def close(self) -> None:
        if self._child is not None:
            self._child.close()

    def __enter__(self) -> JobsRead:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def read_jobs(data: bytes, source: str, complexes: dict[str, Complex],
              usersets: dict[str, Userset], pending: Pending) -> list[Job]:
    """Every job of ``jobs.xml``, each with every task: this module's way when the
    document is regular, else ``_jobscan``'s (module doc)."""
    if not _jobscan.check_document(data, source):
        return []
    with JobsRead(data, source, complexes, usersets, pending) as read:
        return read.jobs()
