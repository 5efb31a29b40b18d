"""``condorlite sge schedule``: one Grid Engine scheduling run on a cell dump
(``core.sge.dispatch``): the jobs it starts, the reservations it makes, why the others
wait, and the run's section of the schedule file.

With ``--dry-run`` the run is computed and printed and nothing is written; the jobs are
priced with the dump's ``share_mon`` usage, else with the usage recorded in the state
directory brought up to the run's time as a cycle would (read only; none when there is
no state). Without it the run is one recorded cycle (``cli.sge.cycle``). ``--schedule-file
PATH`` appends the run's section to PATH, as Grid Engine appends each run to
``$SGE_ROOT/$SGE_CELL/common/schedule``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from condorlite.cli._params import ConfigOpt, JsonOpt, LockTimeoutOpt, NowOpt, StateDirOpt
from condorlite.cli._state import DEFAULT_LOCK_TIMEOUT
from condorlite.cli.errors import run_command
from condorlite.cli.render import Result, print_text
from condorlite.cli.sge._cell import CellOpt, cell_dir, collector_paused, run_time
from condorlite.cli.sge._recorded import with_recorded_usage
from condorlite.cli.sge._run_view import append_schedule, run_data, run_text
from condorlite.cli.sge.cycle import record_cycle
from condorlite.core.sge.dispatch import schedule
from condorlite.core.sge.priority import prioritise
from condorlite.store.sge_cell import read_cell


def _dry_run(
    cell: Path | None,
    config: Path | None,
    state_dir: Path | None,
    now: str | float | None,
    schedule_file: Path | None,
) -> Result:
    dump_dir = cell_dir(cell, config, state_dir)
    dump = read_cell(dump_dir)
    at = run_time(now, dump.now)
    priced = with_recorded_usage(dump, dump_dir, state_dir, config, at)
    prioritisation = prioritise(priced.cell, at)
    run = schedule(priced.cell, prioritisation, at)
    if schedule_file is not None:
        append_schedule(schedule_file, run.schedule)
    data = run_data(run, dump.warnings)
    data["usage_source"] = priced.usage_source

    def human(console: Console) -> None:
        print_text(console, "\n".join(run_text(run)))

    # the cell and its priorities live on to the process's end, never freed object by
    # object on the way out of this function (0.15 s at 100,000 jobs; ``Result.sources``)
    return Result("sge schedule", data, human, sources=(dump, priced.cell, prioritisation))


def register(app: typer.Typer) -> None:
    @app.command("schedule")
    def schedule_cmd(
        cell: CellOpt = None,
        now: NowOpt = None,
        dry_run: Annotated[
            bool,
            typer.Option(
                "--dry-run",
                help="Compute the run and print it; write no state (without it the run "
                "is recorded in the state directory: runs, share-tree usage, history).",
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
        lock_timeout: LockTimeoutOpt = DEFAULT_LOCK_TIMEOUT,
        as_json: JsonOpt = False,
        config: ConfigOpt = None,
        state_dir: StateDirOpt = None,
    ) -> None:
        """One scheduling run: jobs started, reservations, why the rest wait; recorded
        in the state directory unless --dry-run."""
        with collector_paused():
            if dry_run:
                run_command("sge schedule", as_json,
                            lambda: _dry_run(cell, config, state_dir, now, schedule_file))
                return
            run_command("sge schedule", as_json, lambda: record_cycle(
                cell, config, state_dir, now, lock_timeout, schedule_file))
