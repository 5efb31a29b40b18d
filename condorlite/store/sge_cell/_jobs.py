"""What ``jobs.xml`` (``qstat -xml -j '*'``, read by ``_jobfast`` or ``_jobscan``)
holds, and the pending tasks of ``queue_instances.xml`` (``Pending``: read first, so
that each job is built once with every task).

``qstat -xml -j '*'`` prints ``<detailed_job_info><djob_info>`` with one ``<element>``
per job, or, when no job exists, ``<unknown_jobs><ST_name>*</ST_name></unknown_jobs>``
(zero jobs). qstat asks the qmaster for a fixed list of job fields (``qstat.c``), and
that list lacks ``JB_department``, ``JB_ja_n_h_ids``/``u``/``o``/``s``/``a_h_ids`` and
every hold: jobs.xml cannot say which tasks are pending or held. Read here:

* ``JB_job_number``, ``JB_job_name``, ``JB_owner``, ``JB_group``,
  ``JB_submission_time``, ``JB_project`` (absent: none), ``JB_priority`` (ppri + 1024),
  ``JB_deadline``, ``JB_execution_time`` (-a), ``JB_override_tickets``,
  ``JB_jobshare``, ``JB_reserve``, ``JB_pe`` and ``JB_pe_range/ranges``;
* ``JB_hard_resource_list`` / ``JB_soft_resource_list``: ``qstat_l_requests`` with
  ``CE_name`` (the full name even when qsub was given the shortcut: ``-l mf=1G`` reads
  ``mem_free``), ``CE_stringval`` as typed, ``CE_doubleval`` the amount;
* ``JB_hard_queue_list/destin_ident_list/QR_name``;
* ``JB_jid_predecessor_list/job_predecessors/JRE_job_number`` (-hold_jid);
* ``JB_ja_structure/task_id_range``: every task id the job was submitted with;
* ``JB_ja_tasks/ulong_sublist``: the materialised tasks, ``JAT_task_number``,
  ``JAT_status`` (128 running; 65536 finished, kept until the scheduler has seen it),
  ``JAT_start_time`` and ``JAT_scaled_usage_list/scaled`` (``UA_name``, ``UA_value``).

The department is the one the qmaster gave the job at submission (``set_department``
in ``sge_userset_qmaster.c``): the first DEPT userset listing the owner, else the first
listing ``@group``, else ``defaultdepartment`` if it exists. Derived here from the
dump's usersets, in their order, since jobs.xml does not carry it.

Pending tasks come from ``qstat -f -xml -u '*'`` (``queue_instances.xml``): its
``<job_info>`` lists each pending job's tasks by state (``qw``, ``hqw``, ``Eqw`` ...)
with ``<tasks>`` as ``1-4:1`` or ``1,4,5`` (no ``<tasks>``: a job that is not an
array). Holds are the ``h`` state letter. ``JB_ja_structure`` cannot do this: tasks
that finished and left the qmaster are still in it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from condorlite.core.sge.jobs import JIDLE, SlotRange, Task, construct
from condorlite.core.sge.objects import Userset
from condorlite.errors import DataError

from . import _xml

JOBS_COMMAND = "qstat -xml -j '*'"
QUEUE_INSTANCES_COMMAND = "qstat -f -xml -u '*'"
DEFAULT_DEPARTMENT = "defaultdepartment"


@dataclass(frozen=True)
class PendingEntry:
    """One pending line of queue_instances.xml: a job's task ids (None: the job is no
    array) in one state."""

    job: int
    tasks: tuple[int, ...] | None
    state: str


# --- what a job is ----------------------------------------------------------------------


class Departments:
    """The department the qmaster gives a job at submission (module docstring): the
    first DEPT userset, in dump order, listing the owner, else the first listing
    ``@group``, else ``defaultdepartment`` when it exists. Indexed once per dump."""

    def __init__(self, usersets: dict[str, Userset]) -> None:
        self._by_member: dict[str, str] = {}
        for dept in usersets.values():
            if dept.is_department:
                for member in dept.entries:
                    self._by_member.setdefault(member, dept.name)
        self._default = DEFAULT_DEPARTMENT if DEFAULT_DEPARTMENT in usersets else None

    def of(self, owner: str, group: str) -> str | None:
        found = self._by_member.get(owner)
        if found is None:
            found = self._by_member.get(f"@{group}")
        return found if found is not None else self._default


# --- pending tasks from queue_instances.xml ------------------------------------------------


def task_ids(text: str) -> tuple[int, ...]:
    """``1-4:1``, ``1,4,5``, ``2-10:2,13``: qstat's task id lists (ValueError if not)."""
    ids: list[int] = []
    for part in text.strip().split(","):
        bounds, _, step = part.partition(":")
        low, _, high = bounds.partition("-")
        ids.extend(range(int(low), int(high or low) + 1, int(step or 1)))
    return tuple(ids)


_PENDING = re.compile(rb'<job_list state="pending">(.*?)</job_list>', re.DOTALL)
_NUMBER = re.compile(rb"<JB_job_number>([^<]*)</JB_job_number>")
_STATE = re.compile(rb"<state>([^<]*)</state>")
_TASKS = re.compile(rb"<tasks>([^<]*)</tasks>")


def scan_pending(data: bytes, source: str) -> list[PendingEntry]:
    """The pending lines of ``qstat -f -xml`` (its ``<job_info>``), scanned rather than
    parsed: the list holds every pending job, 30 MB for 100,000 of them, and a full
    parse took seconds (``_xml.check_prolog`` guards the document first). A regular
    list is read by ``_pending_plain``; anything else (and any error) by the regular
    expressions, whose error names the line."""
    _xml.check_prolog(data, source, QUEUE_INSTANCES_COMMAND)
    plain = _pending_plain(data)
    if plain is not None:
        return plain
    out = []
    for match in _PENDING.finditer(data):
        block = match.group(1)
        number, state, tasks = _NUMBER.search(block), _STATE.search(block), _TASKS.search(block)
        try:
            if number is None or state is None:
                raise ValueError("expected <JB_job_number> and <state>")
            ids = None if tasks is None else task_ids(tasks.group(1).decode())
            out.append(PendingEntry(int(number.group(1)), ids, state.group(1).decode().strip()))
        except (ValueError, UnicodeDecodeError) as exc:
            line = data.count(b"\n", 0, match.start()) + 1
            found = (tasks.group(1) if tasks else block[:60]).decode("utf-8", "replace")
            raise DataError.at(source, line, f"tasks: expected task ids like 1-4:1 or "
                            f"1,4,5, found {found!r} ({exc})") from None
    return out


_OPEN = b'<job_list state="pending">'
_CLOSE = b"</job_list>"


def _pending_plain(data: bytes) -> list[PendingEntry] | None:
    """``scan_pending``'s entries found with ``bytes.find`` (half the time of the
    regular expressions on 100,000 jobs), or None when the list is not plain: a block
    not closed before the next one opens, a field missing or not closed right after
    its text, a value that does not convert. When it returns, the entries are those
    of the regular expressions: each block runs from its opening tag to the first
    ``</job_list>`` (no opening tag between them), and each field is the first of its
    tag in the block, its text up to the next ``<``, which closes it."""
    first = data.find(_OPEN)
    if first < 0:
        return []
    out = []
    try:
        for part in data[first + len(_OPEN):].split(_OPEN):
            end = part.find(_CLOSE)
            if end < 0:
                return None
            number = _field(part, b"<JB_job_number>", b"</JB_job_number>", end)
            state = _field(part, b"<state>", b"</state>", end)
            if number is None or state is None:
                return None
            tasks = None
            if part.find(b"<tasks>", 0, end) >= 0:
                text = _field(part, b"<tasks>", b"</tasks>", end)
                if text is None:
                    return None
                tasks = task_ids(text.decode())
            out.append(construct(PendingEntry, {
                "job": int(number), "tasks": tasks, "state": state.decode().strip()}))
    except (ValueError, UnicodeDecodeError):
        return None
    return out


def _field(part: bytes, opening: bytes, closing: bytes, end: int) -> bytes | None:
    """The text of the first ``opening`` in ``part[:end]`` when ``closing`` follows it
    at the next ``<``; None otherwise."""
    start = part.find(opening, 0, end)
    if start < 0:
        return None
    start += len(opening)
    close = part.find(b"<", start, end)
    if close < 0 or not part.startswith(closing, close):
        return None
    return part[start:close]


def queue_info(data: bytes) -> bytes:
    """Only the ``<queue_info>`` part of ``qstat -f -xml`` with its ``<job_info>`` root
    closed again: the queue instances, without the pending list that follows them."""
    end = data.find(b"</queue_info>")
    if end < 0:
        return data
    return data[: end + len(b"</queue_info>")] + b"\n</job_info>\n"


class Pending:
    """The pending lines of queue_instances.xml by job, or ``None`` when the dump has
    no such file; ``tasks`` completes one job's tasks (module docstring)."""

    def __init__(self, entries: list[PendingEntry] | None) -> None:
        self.known = entries is not None
        self.by_job: dict[int, list[PendingEntry]] = {}
        for entry in entries or ():
            self.by_job.setdefault(entry.job, []).append(entry)

    def tasks(self, number: int, materialised: tuple[Task, ...],
              task_ids: tuple[SlotRange, ...]) -> tuple[Task, ...]:
        """Every task of job ``number``, in task order: the materialised ones, those of
        its pending lines (held ``h``, error ``E``; a line without ids: every id of
        ``task_ids`` not materialised) or, without queue_instances.xml, every id of
        ``task_ids`` not materialised, none held."""
        entries = self.by_job.get(number, []) if self.known else None
        if not materialised and entries and len(entries) == 1 and len(task_ids) == 1:
            # the common job: nothing materialised, one pending line
            entry, ids = entries[0], task_ids[0]
            if entry.tasks is None and ids.min == ids.max:
                state = entry.state
                return (construct(Task, {"number": ids.min, "status": 0, "start_time": 0,
                                         "usage": {}, "held": "h" in state,
                                         "error": "E" in state}),)
        known = {t.number: t for t in materialised}
        tasks = known | _pending_of(known, task_ids, entries)
        return tuple(tasks[n] for n in sorted(tasks))

    def unmatched(self, numbers: set[int]) -> list[int]:
        """Jobs with pending lines that jobs.xml does not have, in order."""
        return sorted(set(self.by_job) - numbers)


def _pending_of(known: dict[int, Task], task_ids: tuple[SlotRange, ...],
                entries: list[PendingEntry] | None) -> dict[int, Task]:
    every = [n for r in task_ids for n in r.values()]
    if entries is None:  # no queue_instances.xml: all not materialised, none held
        return {n: Task(n) for n in every if n not in known}
    out: dict[int, Task] = {}
    for entry in entries:
        ids = entry.tasks if entry.tasks is not None else [n for n in every if n not in known]
        flags = {"held": "h" in entry.state, "error": "E" in entry.state}
        for number in ids:
            base = known.get(number)
            if base is None:
                out[number] = Task(number, **flags)
            elif base.status == JIDLE:  # enrolled but still pending
                out[number] = replace(base, **flags)
    return out


def held(tasks: tuple[Task, ...]) -> bool:
    """A job is held when it has waiting tasks and every one of them is held."""
    waiting = False
    for task in tasks:
        if task.status == JIDLE:
            if not task.held:
                return False
            waiting = True
    return waiting
