"""``condorlite sge schedule --dry-run``: one Grid Engine scheduling run on a cell dump
(``core.sge.dispatch``): the jobs it starts, the reservations it makes, why the others
wait, and the run's section of the schedule file.

Only the dry run is built: the command reads the dump and prints; it never writes a
state directory. Without ``--dry-run`` it refuses (exit 2) rather than pretend to
record the run. ``--schedule-file PATH`` appends the run's section to PATH, as Grid
Engine appends each run to ``$SGE_ROOT/$SGE_CELL/common/schedule``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from condorlite.cli._params import ConfigOpt, JsonOpt, NowOpt, StateDirOpt
from condorlite.cli.errors import run_command
from condorlite.cli.render import Result, local_stamp, print_text
from condorlite.cli.sge._cell import CellOpt, cell_dir, collector_paused, run_time
from condorlite.core.sge.dispatch import Grant, Reservation, Resource, Run, Started, schedule
from condorlite.core.sge.priority import prioritise
from condorlite.errors import CondorliteError, UsageError
from condorlite.store.sge_cell import read_cell

NOT_BUILT = "recording runs in the state directory is not built yet; use --dry-run"


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


def run_data(run: Run, warnings: tuple[str, ...]) -> dict[str, Any]:
    return {
        "now": run.now,
        "dry_run": True,
        "started": [placed(s) for s in run.started],
        "reservations": [placed(r) for r in run.reservations],
        "waiting": [
            {
                "job": w.job,
                "tasks": list(w.tasks),
                "user": w.owner,
                "reserved": w.reserved,
                "reasons": list(w.reasons),
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


def run_text(run: Run) -> list[str]:
    lines = [f"Scheduling run at {run.now} ({_when(run.now)}), dry run"]
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


def _append(path: Path, lines: tuple[str, ...]) -> None:
    try:
        with path.open("a", encoding="utf-8") as out:
            out.write("".join(f"{line}\n" for line in lines))
    except OSError as exc:
        raise ScheduleFileError(f"{path}: cannot write: {exc.strerror or exc}") from None


def _schedule(
    cell: Path | None,
    config: Path | None,
    state_dir: Path | None,
    now: float | None,
    dry_run: bool,
    schedule_file: Path | None,
) -> Result:
    if not dry_run:
        raise UsageError(NOT_BUILT, hint="condorlite sge schedule --dry-run --cell DIR")
    dump = read_cell(cell_dir(cell, config, state_dir))
    at = run_time(now, dump.now)
    run = schedule(dump, prioritise(dump, at), at)
    if schedule_file is not None:
        _append(schedule_file, run.schedule)

    def human(console: Console) -> None:
        print_text(console, "\n".join(run_text(run)))

    return Result("sge schedule", run_data(run, dump.warnings), human)


def register(app: typer.Typer) -> None:
    @app.command("schedule")
    def schedule_cmd(
        cell: CellOpt = None,
        now: NowOpt = None,
        dry_run: Annotated[
            bool,
            typer.Option(
                "--dry-run",
                help="Compute the run and print it; write no state (the only mode built "
                "so far: without it the command exits 2).",
            ),
        ] = False,
        schedule_file: Annotated[
            Path | None,
            typer.Option(
                "--schedule-file",
                help="Append the run's schedule-file section (MONITOR=1 format) to PATH.",
                dir_okay=False,
            ),
        ] = None,
        as_json: JsonOpt = False,
        config: ConfigOpt = None,
        state_dir: StateDirOpt = None,
    ) -> None:
        """One scheduling run (dry run): jobs started, reservations, why the rest wait."""
        with collector_paused():
            run_command(
                "sge schedule",
                as_json,
                lambda: _schedule(cell, config, state_dir, now, dry_run, schedule_file),
            )
