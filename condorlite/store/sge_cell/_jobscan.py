"""``jobs.xml`` read by one pass of a regular expression over the bytes.

``qstat -xml -j '*'`` is verbose: about 4 KB a job, most of it environment lists,
mail lists, binding and output paths that no policy reads. Building an ElementTree of
a 100,000-job dump (425 MB) took 33 s and 3.7 GB; this scanner takes the elements the
reader needs (``_jobs`` lists them) as ``<TAG>text`` tokens in document order (the
tags as one trie-shaped alternation: about 0.9 s for the 425 MB) and never builds the
rest. This module is the careful reader: every value keeps its token's index for its
message. ``_jobfast`` runs the same loop without that bookkeeping and comes here only
when something is irregular.

Structure is followed only as far as the tokens need it: a stack of the *container*
elements the reader cares about (``JB_hard_resource_list``, ``JB_ja_tasks`` ...), so a
``CE_name`` is known to be a hard or a soft request and an ``RN_min`` a PE range or the
task structure. A record inside a container (a request, a range, a task, a usage entry)
starts at its first field (``CE_name``, ``RN_min``) or, for tasks, when a field comes
that the current task already has. A job starts at a ``JB_job_number`` outside every
container.

What this gives up against a full parser: well-formedness in between the tokens is not
checked. What it keeps: a document type declaration is refused first (``_xml``); the
document must be ``<detailed_job_info>`` closed at its end, or ``<unknown_jobs>``, so a
truncated dump is refused; every value is checked and a bad one names its line (counted
from its byte offset); text is unescaped as XML escapes it.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field

from condorlite.core.sge.jobs import Job, ResourceRequest, SlotRange, Task
from condorlite.core.sge.objects import Complex, Userset
from condorlite.errors import DataError

from . import _xml
from ._jobs import JOBS_COMMAND, Departments, Pending, held

CONTAINERS = (
    "JB_hard_resource_list",
    "JB_soft_resource_list",
    "JB_hard_queue_list",
    "JB_pe_range",
    "JB_ja_structure",
    "JB_ja_tasks",
    "JB_jid_predecessor_list",
    "JAT_scaled_usage_list",
)
SCALARS = (
    "JB_job_number",
    "JB_job_name",
    "JB_owner",
    "JB_group",
    "JB_submission_time",
    "JB_project",
    "JB_department",
    "JB_priority",
    "JB_deadline",
    "JB_execution_time",
    "JB_override_tickets",
    "JB_jobshare",
    "JB_reserve",
    "JB_pe",
)
FIELDS = (
    "CE_name",
    "CE_stringval",
    "CE_doubleval",
    "RN_min",
    "RN_max",
    "RN_step",
    "QR_name",
    "JRE_job_number",
    "JAT_task_number",
    "JAT_status",
    "JAT_start_time",
    "UA_name",
    "UA_value",
)


def _alternatives(tags: tuple[str, ...] | list[str]) -> bytes:
    """The tags as one alternation shaped as a trie (``JB_(?:job_(?:name|number)|...)``):
    ``re`` tries a plain alternation's branches one by one at every ``<``, a trie's
    only along the characters that match, which halves the scan."""
    heads: dict[str, list[str]] = {}
    ends = False
    for tag in sorted(set(tags)):
        if tag:
            heads.setdefault(tag[0], []).append(tag[1:])
        else:
            ends = True
    branches = []
    for head, tails in heads.items():
        inner = _alternatives(tails)
        several = len(tails) > 1 or any(not t for t in tails)
        branches.append(re.escape(head).encode() + (b"(?:" + inner + b")" if several else inner))
    if ends:
        # an empty alternative last: the longer tags are tried first
        return b"|".join(branches) + b"|"
    return b"|".join(branches)


#: An opening tag of interest with its text, or the closing tag of a container (other
#: closing tags are not tokens: that keeps the scan at one candidate per '<' of interest).
TOKEN = re.compile(
    rb"<(" + _alternatives(CONTAINERS + SCALARS + FIELDS) + rb")>([^<]*)"
    rb"|</(" + _alternatives(CONTAINERS) + rb")>"
)
CONTAINER_TAGS = frozenset(t.encode() for t in CONTAINERS)
#: The first field of a record: it starts a new one.
RECORD_STARTS = frozenset({b"CE_name", b"RN_min", b"UA_name"})


#: A record's fields: tag -> (token index, raw text).
_Record = dict[bytes, tuple[int, bytes]]


@dataclass
class _Draft:
    """One job being assembled from its tokens (``start`` is its first token's index)."""

    start: int
    scalars: _Record = field(default_factory=dict)
    records: dict[bytes, list[_Record]] = field(default_factory=dict)

    def record(self, container: bytes) -> list[_Record]:
        return self.records.setdefault(container, [])


class _Scan:
    """The token loop and the conversions. Records hold each value with its token's
    index; a bad value's line is found from that index only when there is one."""

    def __init__(self, data: bytes, source: str) -> None:
        self.data = data
        self.source = source

    def fail(self, index: int, problem: str) -> DataError:
        offset = len(self.data)
        for number, match in enumerate(TOKEN.finditer(self.data)):
            if number == index:
                offset = match.start()
                break
        line = self.data.count(b"\n", 0, offset) + 1
        return DataError.at(self.source, line, f"{problem}")

    def string(self, item: tuple[int, bytes] | None) -> str:
        """A text value, decoded and unescaped ('' when absent)."""
        if item is None:
            return ""
        index, raw = item
        try:
            value = raw.decode("utf-8").strip()
        except UnicodeDecodeError as exc:
            raise self.fail(index, f"not UTF-8 text: {exc.reason}") from None
        return html.unescape(value) if "&" in value else value

    def drafts(self) -> list[_Draft]:
        jobs: list[_Draft] = []
        stack: list[bytes] = []
        # The record being filled in each open container (a task stays current while
        # its usage list opens and closes inside it).
        current: dict[bytes, _Record] = {}
        containers, starts = CONTAINER_TAGS, RECORD_STARTS
        for index, (tag, raw, closed) in enumerate(TOKEN.findall(self.data)):
            if closed:
                if not stack or stack[-1] != closed:
                    raise self.fail(index, f"</{closed.decode()}> closes nothing open")
                stack.pop()
                continue
            if tag in containers:
                stack.append(tag)
                current.pop(tag, None)
                continue
            if not stack:
                if tag == b"JB_job_number":
                    jobs.append(_Draft(index))
                elif not jobs:
                    raise self.fail(index, f"<{tag.decode()}> before any <JB_job_number>")
                jobs[-1].scalars.setdefault(tag, (index, raw))
                continue
            if not jobs:
                raise self.fail(index, f"<{tag.decode()}> before any <JB_job_number>")
            container = stack[-1]
            record = current.get(container)
            if record is None or tag in record or tag in starts:
                record = current[container] = {}
                jobs[-1].record(container).append(record)
                if container == b"JAT_scaled_usage_list":
                    # usage belongs to the task being read
                    record[b"_task"] = (index, b"%d" % (len(jobs[-1].record(b"JB_ja_tasks")) - 1))
            record[tag] = (index, raw)
        if stack:
            raise self.fail(1 << 62, f"<{stack[-1].decode()}> is never closed (truncated?)")
        return jobs

    def int(self, item: tuple[int, bytes] | None, tag: str, default: int = 0) -> int:
        if item is None:
            return default
        index, raw = item
        try:
            return int(raw)
        except ValueError:
            raise self.fail(
                index, f"{tag}: expected an integer, found {raw.decode(errors='replace')!r}"
            ) from None

    def float(self, item: tuple[int, bytes] | None, tag: str) -> float:
        if item is None:
            return 0.0
        index, raw = item
        try:
            return float(raw)
        except ValueError:
            raise self.fail(
                index, f"{tag}: expected a number, found {raw.decode(errors='replace')!r}"
            ) from None

    def ranges(self, records: list[_Record]) -> tuple[SlotRange, ...]:
        out = []
        for r in records:
            if b"RN_min" not in r or b"RN_max" not in r:
                raise self.fail(_first(r), "expected RN_min and RN_max in a range")
            low = self.int(r[b"RN_min"], "RN_min")
            high = self.int(r[b"RN_max"], "RN_max")
            step = self.int(r.get(b"RN_step"), "RN_step", 1)
            if low > high or step < 0:
                raise self.fail(
                    r[b"RN_min"][0],
                    f"expected RN_min <= RN_max and RN_step >= 0, found {low}-{high}:{step}",
                )
            out.append(SlotRange(low, high, step))
        return tuple(out)


def _first(record: _Record) -> int:
    return min(index for index, _ in record.values())


def _requests(
    scan: _Scan, records: list[_Record], shortcuts: dict[str, str], complexes: dict[str, Complex]
) -> tuple[ResourceRequest, ...]:
    out = []
    for r in records:
        if b"CE_name" not in r:
            raise scan.fail(_first(r), "expected a CE_name in a request")
        name = scan.string(r[b"CE_name"])
        if name not in complexes and name in shortcuts:
            name = shortcuts[name]
        value = scan.string(r.get(b"CE_stringval"))
        out.append(ResourceRequest(name, value, scan.float(r.get(b"CE_doubleval"), "CE_doubleval")))
    return tuple(out)


def _tasks(scan: _Scan, draft: _Draft) -> tuple[Task, ...]:
    """The materialised tasks, each with its usage entries."""
    usage: dict[int, dict[str, float]] = {}
    for entry in draft.records.get(b"JAT_scaled_usage_list", ()):
        if b"UA_name" in entry:
            index = int(entry[b"_task"][1])
            value = scan.float(entry.get(b"UA_value"), "UA_value")
            usage.setdefault(index, {})[scan.string(entry[b"UA_name"])] = value
    tasks: list[Task] = []
    for index, record in enumerate(draft.records.get(b"JB_ja_tasks", ())):
        if b"JAT_task_number" not in record:
            raise scan.fail(_first(record), "expected JAT_task_number")
        tasks.append(
            Task(
                scan.int(record[b"JAT_task_number"], "JAT_task_number"),
                scan.int(record.get(b"JAT_status"), "JAT_status"),
                scan.int(record.get(b"JAT_start_time"), "JAT_start_time"),
                usage.get(index, {}),
            )
        )
    return tuple(sorted(tasks, key=lambda t: t.number))


def _job(
    scan: _Scan,
    draft: _Draft,
    complexes: dict[str, Complex],
    shortcuts: dict[str, str],
    departments: Departments,
    pending: Pending,
) -> Job:
    s, records = draft.scalars, draft.records
    if b"JB_owner" not in s:
        raise scan.fail(draft.start, "expected a <JB_owner> element, found none")
    owner, group = scan.string(s[b"JB_owner"]), scan.string(s.get(b"JB_group"))
    reserve = scan.string(s.get(b"JB_reserve")).lower() or "false"
    if reserve not in ("true", "false"):
        raise scan.fail(
            s[b"JB_reserve"][0], f"JB_reserve: expected true or false, found {reserve!r}"
        )
    number = scan.int(s[b"JB_job_number"], "JB_job_number")
    tasks = pending.tasks(number, _tasks(scan, draft),
                          scan.ranges(records.get(b"JB_ja_structure", [])))
    return Job(
        number=number,
        name=scan.string(s.get(b"JB_job_name")),
        owner=owner,
        group=group,
        submission_time=scan.int(s.get(b"JB_submission_time"), "JB_submission_time"),
        project=scan.string(s.get(b"JB_project")) or None,
        department=scan.string(s.get(b"JB_department")) or departments.of(owner, group),
        ppri=scan.int(s.get(b"JB_priority"), "JB_priority", 1024) - 1024,
        deadline=scan.int(s.get(b"JB_deadline"), "JB_deadline"),
        override_tickets=scan.int(s.get(b"JB_override_tickets"), "JB_override_tickets"),
        jobshare=scan.int(s.get(b"JB_jobshare"), "JB_jobshare"),
        hard_requests=_requests(
            scan, records.get(b"JB_hard_resource_list", []), shortcuts, complexes
        ),
        soft_requests=_requests(
            scan, records.get(b"JB_soft_resource_list", []), shortcuts, complexes
        ),
        hard_queues=tuple(
            scan.string(r[b"QR_name"])
            for r in records.get(b"JB_hard_queue_list", [])
            if b"QR_name" in r
        ),
        pe=scan.string(s.get(b"JB_pe")) or None,
        pe_range=scan.ranges(records.get(b"JB_pe_range", [])),
        reserve=reserve == "true",
        tasks=tasks,
        hold=held(tasks),
        execution_time=scan.int(s.get(b"JB_execution_time"), "JB_execution_time"),
        predecessors=tuple(
            scan.int(r[b"JRE_job_number"], "JRE_job_number")
            for r in records.get(b"JB_jid_predecessor_list", [])
            if b"JRE_job_number" in r
        ),
    )


def read_jobs(
    data: bytes,
    source: str,
    complexes: dict[str, Complex],
    usersets: dict[str, Userset],
    pending: Pending,
) -> list[Job]:
    """Every job of ``jobs.xml`` (module doc), with every task (``Pending.tasks``)."""
    if not check_document(data, source):
        return []
    scan = _Scan(data, source)
    departments = Departments(usersets)
    shortcuts = {c.shortcut: c.name for c in complexes.values()}
    out: list[Job] = []
    seen: set[int] = set()
    for draft in scan.drafts():
        job = _job(scan, draft, complexes, shortcuts, departments, pending)
        if job.number in seen:
            raise scan.fail(draft.start, f"job {job.number} given twice")
        seen.add(job.number)
        out.append(job)
    return out


def check_document(data: bytes, source: str) -> bool:
    """The prolog, root and end of ``jobs.xml`` (module doc); False when the document
    is ``<unknown_jobs>`` (no job)."""
    _xml.check_prolog(data, source, JOBS_COMMAND)
    head = data[:4096]
    if b"<unknown_jobs" in head and b"<detailed_job_info" not in head:
        return False
    if b"<detailed_job_info" not in head:
        raise DataError(
            f"{source}:1: expected <detailed_job_info> or <unknown_jobs> ({JOBS_COMMAND})"
        )
    if not data[-4096:].rstrip().endswith(b"</detailed_job_info>"):
        line = data.count(b"\n") + 1
        raise DataError(
            f"{source}:{line}: the document does not end with </detailed_job_info> (truncated?)"
        )
    return True
