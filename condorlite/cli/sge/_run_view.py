"""A scheduling run (``core.sge.dispatch.Run``) as JSON and text, and its section
appended to a schedule file: shared by ``sge schedule`` (dry run or recorded cycle)
and ``sge explain``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from condorlite.cli.jsontext import Encoded
from condorlite.cli.render import local_stamp
from condorlite.core.sge.dispatch import Grant, Reservation, Resource, Run, Started
from condorlite.errors import CondorliteError


class ScheduleFileError(CondorliteError):
    """The schedule file cannot be written (EX_IOERR)."""

    exit_code = 74
    kind = "io"


def _resources(items: tuple[Resource, ...]) -> list[dict[str, Any]]:
    return [
        {"level": r.level, "object": r.object, "resource": r.resource, "amount": r.amount}
        for r in items
    ]


def _grants(items: tuple[Grant, ...]) -> list[dict[str, Any]]:
    return [{"queue_instance": g.queue_instance, "host": g.host, "slots": g.slots} for g in items]


def placed(p: Started | Reservation) -> dict[str, Any]:
    """A started task or a reservation as JSON (``data.started``, ``data.reservations``)."""
    return {
        "job": p.job,
        "task": p.task,
        "user": p.owner,
        "pe": p.pe,
        "slots": p.slots,
        "queue_instances": _grants(p.grants),
        "start_time": p.start,
        "duration": p.duration,
        "resources": _resources(p.resources),
    }


def run_data(run: Run, warnings: tuple[str, ...], dry_run: bool = True) -> dict[str, Any]:
    """The run as JSON (``data`` of ``sge schedule``). The jobs of a category turned
    down share its reasons (one tuple, ``dispatch.run``): each tuple is encoded once
    (``jsontext.Encoded``; 1,624 among 86,928 waiting jobs at 1,000 hosts x 100,000
    jobs)."""
    encoded: dict[int, Encoded] = {}  # id of a reasons tuple (``run`` keeps it alive)

    def reasons(items: tuple[str, ...]) -> Encoded:
        found = encoded.get(id(items))
        if found is None:
            found = encoded[id(items)] = Encoded(list(items))
        return found

    return {
        "now": run.now,
        "dry_run": dry_run,
        "started": [placed(s) for s in run.started],
        "reservations": [placed(r) for r in run.reservations],
        "waiting": [
            {
                "job": w.job,
                "tasks": list(w.tasks),
                "user": w.owner,
                "reserved": w.reserved,
                "reasons": reasons(w.reasons),
            }
            for w in run.waiting
        ],
        "messages": list(run.messages),
        "schedule": list(run.schedule),
        "warnings": list(warnings),
    }


def _when(epoch: int) -> str:
    return local_stamp(epoch)


def _where(grants: tuple[Grant, ...]) -> str:
    return ",".join(f"{g.queue_instance}={g.slots}" for g in grants)


def _uses(items: tuple[Resource, ...]) -> str:
    return " ".join(f"{r.level}:{r.object}:{r.resource}={r.amount:g}" for r in items)


def run_text(run: Run, dry_run: bool = True) -> list[str]:
    """The run as text lines (the human output of ``sge schedule``)."""
    mode = "dry run" if dry_run else "recorded"
    lines = [f"Scheduling run at {run.now} ({_when(run.now)}), {mode}"]
    lines += ["", f"Started ({len(run.started)}):"]
    lines += [
        f"  {s.job}.{s.task} {s.owner} {s.slots} slot(s) in {_where(s.grants)}  "
        f"{_uses(s.resources)}"
        for s in run.started
    ] or ["  none"]
    lines += ["", f"Reserving ({len(run.reservations)}):"]
    lines += [
        f"  {r.job}.{r.task} {r.owner} from {r.start} ({_when(r.start)}) for {r.duration} s, "
        f"{r.slots} slot(s) in {_where(r.grants)}  {_uses(r.resources)}"
        for r in run.reservations
    ] or ["  none"]
    lines += ["", f"Waiting ({len(run.waiting)}):"]
    if run.messages:
        lines.append("  every job: " + run.messages[0])
        lines += [f"             {m}" for m in run.messages[1:]]
    for w in run.waiting:
        tasks = ",".join(str(t) for t in w.tasks)
        lines.append(f"  {w.job} (tasks {tasks}) {w.owner}{', reserved' if w.reserved else ''}")
        lines += [f"    {reason}" for reason in w.reasons] or ["    (no reason of its own)"]
    if not run.waiting:
        lines.append("  none")
    lines += ["", "Schedule file:"] + [f"  {line}" for line in run.schedule]
    return lines


def append_schedule(path: Path, lines: tuple[str, ...]) -> None:
    """Append the run's section to the schedule file ``path`` (as Grid Engine appends
    each run to ``$SGE_ROOT/$SGE_CELL/common/schedule``)."""
    try:
        with path.open("a", encoding="utf-8") as out:
            out.write("".join(f"{line}\n" for line in lines))
    except OSError as exc:
        raise ScheduleFileError(f"{path}: cannot write: {exc.strerror or exc}") from None
