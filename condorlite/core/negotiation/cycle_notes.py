"""A cycle's per-job notes (what ``negotiate --explain`` tells of a job), worded only
when read.

The cycle keeps one raw note per job it looked at: a rejection's words, or the number of
the autocluster whose rejection made it pass the job over (jobs are passed over in every
spin, tens of thousands of them). A matched job's note is its match, whatever was noted
of it before; it is not written per match but found among the matches when read.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from condorlite.core.model import Match

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

    __slots__ = ("_matched", "_matches", "_raw")

    def __init__(self, raw: dict[str, str | int | tuple], matches: list[Match]) -> None:
        self._raw, self._matches = raw, matches
        self._matched: dict[str, Match] | None = None

    def _by_job(self) -> dict[str, Match]:
        if self._matched is None:
            self._matched = {m.job: m for m in self._matches}
        return self._matched

    def __getitem__(self, job: str) -> str:
        match = self._by_job().get(job)
        if match is not None:
            return _MATCHED.format(match.slot, match.reason, match.spin)
        note = self._raw[job]
        if type(note) is int:
            return _SKIPPED.format(note)
        return note  # type: ignore[return-value]

    def __iter__(self) -> Iterator[str]:
        matched = self._by_job()
        yield from matched
        yield from (job for job in self._raw if job not in matched)

    def __len__(self) -> int:
        matched = self._by_job()
        return len(matched) + sum(1 for job in self._raw if job not in matched)
