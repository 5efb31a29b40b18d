"""What a cycle says of each job: its rejections and its note (what ``negotiate
--explain`` tells of it), the note worded only when read.

A rejection's reason is HTCondor's wording (``rejection_reason``): "PREEMPTION_REQUIREMENTS
== False" when the policy refused a slot that would have matched, else "submitter limit
exceeded" when a limit refused one (or only rank preemption was open to the job), else
"no match found". ``Rejections`` keeps each job's last rejection; the ones that stand at
the end are those of jobs no later spin or turn matched, in (turn order, queue order).

The cycle keeps one raw note per job it looked at: a rejection's words, or the number of
the autocluster whose rejection made it pass the job over (jobs are passed over in every
spin, tens of thousands of them). A matched job's note is its match, whatever was noted
of it before; it is not written per match but found among the matches when read.

The raw notes are logged as written (``NoteLog``), a run of rows passed over as one
entry (``SkippedRun``: the turn's rows and the span), and made into the job -> note
table only when a note is first read: the table is the log replayed in order, so each
job's note is the last written and the jobs come in the order first written, as if each
had been written into the table at once. Only ``--explain`` reads notes; the cycle
passes over some hundred thousand rows at 10,000 slots.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import NamedTuple

from condorlite.core.matching.candidates import Candidates
from condorlite.core.model import Job, Match, Rejection
from condorlite.core.negotiation.turns import Turn


def rejection_reason(cands: Candidates, only_rank: bool) -> str:
    """The reason a job whose list ``cands`` gave it nothing is rejected (module doc)."""
    if cands.rej_policy:
        return "PREEMPTION_REQUIREMENTS == False"
    if cands.rej_limit or only_rank:
        return "submitter limit exceeded"
    return "no match found"


class Rejections:
    """Each job's last rejection in a cycle, and which stand at the end (module doc)."""

    __slots__ = ("_queue", "last")

    def __init__(self) -> None:
        self.last: dict[str, Rejection] = {}
        #: job id -> (queue key, input index) of every job ever rejected
        self._queue: dict[str, tuple] = {}

    def add(self, job: Job, submitter: str, reason: str, cluster: int) -> None:
        self.last[job.id] = Rejection(job.id, submitter, reason, cluster)
        self._queue[job.id] = (job.queue_key(), job.index)

    def standing(self, turns: list[Turn]) -> list[Rejection]:
        """The rejections of jobs no later spin or turn matched, in (turn order,
        queue order)."""
        order = {t.info.name: i for i, t in enumerate(turns)}
        done = {t.info.name: t.done for t in turns}
        queue = self._queue
        return sorted(
            (r for r in self.last.values() if r.job not in done[r.submitter]),
            key=lambda r: (order[r.submitter], queue[r.job]))

class Note(NamedTuple):
    """One job's raw note: a rejection's words."""

    job: str
    text: str


class SkippedRun(NamedTuple):
    """The jobs of ``ids[start:end]`` (a turn's job ids, all of autocluster ``cluster``)
    passed over because that autocluster was rejected earlier in the turn: each one's
    raw note is ``cluster``. A row matched in an earlier spin may be among them: its
    note is its match whatever was noted (``CycleNotes``), so it is not left out."""

    ids: list[str]
    start: int
    end: int
    cluster: int


class NoteLog:
    """The raw notes of a cycle as written (module doc): ``note`` for one job,
    ``skipped`` for a run of rows; ``table`` replays them, once."""

    __slots__ = ("_table", "log")

    def __init__(self) -> None:
        #: ``Note`` and ``SkippedRun`` entries in the order written
        self.log: list[Note | SkippedRun] = []
        self._table: dict[str, str | int] | None = None

    def note(self, job: str, text: str) -> None:
        self.log.append(Note(job, text))

    def skipped(self, ids: list[str], start: int, end: int, cluster: int) -> None:
        self.log.append(SkippedRun(ids, start, end, cluster))

    def table(self) -> dict[str, str | int]:
        """Job id -> its raw note (the last written), in the order first written. Made
        when first asked, after the cycle (nothing is logged once it is read)."""
        table = self._table
        if table is None:
            table = self._table = {}
            for entry in self.log:
                if type(entry) is SkippedRun:
                    table.update(dict.fromkeys(entry.ids[entry.start:entry.end],
                                               entry.cluster))
                else:
                    table[entry.job] = entry.text
        return table


#: The note of a job passed over because its autocluster was rejected (the cycle keeps
#: the autocluster's number, worded only when read: jobs are passed over in every
#: spin).
_SKIPPED = "skipped: autocluster {} was rejected earlier"
#: The note of a matched job, worded from its match when read.
_MATCHED = "matched to {} ({}) in pie spin {}"


class CycleNotes(Mapping[str, str]):
    """The per-job notes, worded when read: a matched job's note is its match (slot,
    reason, spin: ``_MATCHED``), whatever was noted of it before; a job passed over
    because its autocluster was rejected is noted as the autocluster's number
    (``_SKIPPED``). Only ``--explain`` reads one note of the tens of thousands, so
    the matches are looked up by job only then. A view of the cycle's notes, like
    ``autocluster_of``: ``Cycle.result`` is a cycle's last step."""

    __slots__ = ("_log", "_matched", "_matches")

    def __init__(self, log: NoteLog, matches: list[Match]) -> None:
        self._log, self._matches = log, matches
        self._matched: dict[str, Match] | None = None

    def _by_job(self) -> dict[str, Match]:
        if self._matched is None:
            self._matched = {m.job: m for m in self._matches}
        return self._matched

    def __getitem__(self, job: str) -> str:
        match = self._by_job().get(job)
        if match is not None:
            return _MATCHED.format(match.slot, match.reason, match.spin)
        note = self._log.table()[job]
        if type(note) is int:
            return _SKIPPED.format(note)
        return note  # type: ignore[return-value]

    def __iter__(self) -> Iterator[str]:
        matched = self._by_job()
        yield from matched
        yield from (job for job in self._log.table() if job not in matched)

    def __len__(self) -> int:
        matched = self._by_job()
        return len(matched) + sum(1 for job in self._log.table() if job not in matched)
