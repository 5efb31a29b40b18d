"""``condorlite sge qstat``: the jobs of a cell dump with the figures the scheduler gives
them, laid out as ``qstat -ext -urg -pri`` lays them out.

Columns follow qstat: always ``job-ID prior``; ``--pri`` adds ``nurg npprior ntckts ...
ppri``; ``--urg`` adds ``nurg urg rrcontr wtcontr dlcontr`` and ``deadline``; ``--ext``
adds ``ntckts project department`` and ``cpu mem io tckts ovrts otckt ftckt stckt share``.
Widths are qstat's (a value wider than its column pushes the line, as in qstat);
running jobs come first, then pending jobs in the order the scheduler takes them.
Times are local time, as qstat prints them. ``--json`` gives every column at full
precision whatever the flags.
"""

from __future__ import annotations

import time
from itertools import pairwise
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from condorlite.cli._params import ConfigOpt, JsonOpt, NowOpt, StateDirOpt
from condorlite.cli.errors import run_command
from condorlite.cli.jsontext import Rows, real
from condorlite.cli.render import Result, print_text
from condorlite.cli.sge import whatif
from condorlite.cli.sge._cell import CellOpt, cell_dir, collector_paused, run_time
from condorlite.cli.sge._recorded import PricedCell, read_priced, with_recorded_usage
from condorlite.core.sge.objects import Cell
from condorlite.core.sge.priority import JobPriority, Prioritisation, prioritise
from condorlite.store.sge_cell import read_cell

#: (job, task) -> (master queue instance, slots held), for running tasks.
Placement = dict[tuple[int, int], tuple[str, int]]

UsersOpt = Annotated[
    list[str] | None,
    typer.Option("-u", "--user", help="Only these users' jobs (repeatable; default: all)."),
]


def job_data(row: JobPriority) -> dict[str, Any]:
    """One job line as JSON: qstat's column names as keys, numbers at full precision
    (floats go through ``jsontext.real``: the large documents are written by orjson)."""
    job, u = row.job, row.urgency
    return {
        "job": job.number,
        "task": row.task,
        "prio": real(row.prio),
        "nurg": real(row.nurg),
        "npprior": real(row.npprior),
        "ntckts": real(row.ntckts),
        "urg": real(u.urg),
        "rrcontr": real(u.rrcontr),
        "wtcontr": real(u.wtcontr),
        "dlcontr": real(u.dlcontr),
        "ppri": job.ppri,
        "tckts": real(row.tickets),
        "ovrts": job.override_tickets,
        "otckt": real(row.otckt),
        "ftckt": real(row.ftckt),
        "stckt": real(row.stckt),
        "share": real(row.share),
        "name": job.name,
        "user": job.owner,
        "project": job.project,
        "department": row.department,
        "state": row.state,
        "tasks": list(row.tasks),
        "submission_time": job.submission_time,
        "start_time": row.start_time,
        "deadline": job.deadline or None,
        "slots": _slots(row),
        "sharetree_node": row.node,
    }


def task_label(ids: tuple[int, ...]) -> str:
    """qstat's ja-task-ID: ``n``, ``a-b:s`` for three or more ids in one step, else
    the ids joined by commas (``1,4,5``, ``2,3``), as the recorded runs show."""
    if len(ids) >= 3:
        step = ids[1] - ids[0]
        if step > 0 and all(b - a == step for a, b in pairwise(ids)):
            return f"{ids[0]}-{ids[-1]}:{step}"
    return ",".join(str(i) for i in ids)


def _slots(row: JobPriority) -> int:
    """qstat's slots: for a pending job the slots its urgency assumes (the PE's
    ``urgency_slots`` over a range); for a running one its PE range's first id (the
    granted count is in running.xml, which this command does not read)."""
    if not row.running and row.urgency.slots:
        return row.urgency.slots
    return row.job.pe_range[0].min if row.job.pe_range else 1


def _usage(row: JobPriority) -> tuple[str, str, str]:
    """qstat's cpu (d:hh:mm:ss), mem and io of a running task; NA without usage."""
    if not row.running:
        return "", "", ""
    task = next((t for t in row.job.tasks if t.number == row.task), None)
    usage = task.usage if task is not None else {}
    if "cpu" not in usage:
        return "NA", "NA", "NA"
    seconds = int(usage["cpu"])
    days, rest = divmod(seconds, 86400)
    cpu = f"{days}:{rest // 3600:02d}:{rest % 3600 // 60:02d}:{rest % 60:02d}"
    return cpu, f"{usage.get('mem', 0.0):.5f}", f"{usage.get('io', 0.0):.5f}"


def _when(epoch: int | None) -> str:
    return time.strftime("%m/%d/%Y %H:%M:%S", time.localtime(epoch)) if epoch else ""


def _line(row: JobPriority, ext: bool, urg: bool, pri: bool, where: Placement) -> str:
    job, u = row.job, row.urgency
    out = [f"{job.number:7d} {row.prio:7.5f}"]
    if pri or urg:
        out.append(f"{row.nurg:7.5f}")
    if pri:
        out.append(f"{row.npprior:7.5f}")
    if pri or ext:
        out.append(f"{row.ntckts:7.5f}")
    if urg:
        out.append(f"{u.urg:8.0f} {u.rrcontr:8.0f} {u.wtcontr:8.0f} {u.dlcontr:8.0f}")
    if pri:
        out.append(f"{job.ppri:5d}")
    out.append(f"{job.name[:10]:<10} {job.owner[:12]:<12}")
    if ext:
        out.append(f"{(job.project or 'NA')[:16]:<16} {(row.department or 'NA')[:10]:<10}")
    out.append(f"{row.state:<5} {_when(row.start_time or job.submission_time):<19}")
    if urg:
        out.append(f"{_when(job.deadline):<19}")
    if ext:
        cpu, mem, io = _usage(row)
        out.append(f"{cpu:<10} {mem:<7} {io:<7}")
        out.append(
            f"{int(row.tickets):5d} {row.ovrts:5d} {int(row.otckt):5d} "
            f"{int(row.ftckt):5d} {int(row.stckt):5d} {row.share:<5.2f}"
        )
    task = task_label(row.tasks) if row.job.is_array else ""
    queue, slots = where.get((row.job.number, row.task), ("", _slots(row)))
    out.append(f"{queue:<30} {slots:5d} {task}")
    return " ".join(out).rstrip()


def _header(ext: bool, urg: bool, pri: bool) -> str:
    out = ["job-ID  prior  "]
    if pri or urg:
        out.append("nurg   ")
    if pri:
        out.append("npprior")
    if pri or ext:
        out.append("ntckts ")
    if urg:
        out.append("urg      rrcontr  wtcontr  dlcontr ")
    if pri:
        out.append(" ppri")
    out.append("name       user        ")
    if ext:
        out.append("project          department")
    out.append("state submit/start at     ")
    if urg:
        out.append("deadline          ")
    if ext:
        out.append("cpu        mem     io      tckts ovrts otckt ftckt stckt share")
    out.append("queue                          slots ja-task-ID")
    return " ".join(out)


def placements(cell: Cell) -> Placement:
    """Where each running task runs (``running.xml``): its master queue instance and
    the slots it holds there and elsewhere, as qstat prints them."""
    out: dict[tuple[int, int], tuple[str, int]] = {}
    for grant in cell.running:
        key = (grant.job, grant.task)
        queue, slots = out.get(key, ("", 0))
        out[key] = (grant.queue_instance if grant.master else queue, slots + grant.slots)
    return out


def _qstat_order(rows: list[JobPriority], where: Placement, cell: Cell) -> list[JobPriority]:
    """Running tasks grouped by queue instance, in the order qstat lists the instances
    (queue_instances.xml), then by job and task; pending jobs keep the scheduler's
    order."""
    rank = {name: i for i, name in enumerate(cell.queue_instances)}

    def key(row: JobPriority) -> tuple[int, int, int]:
        queue = where.get((row.job.number, row.task), ("", 0))[0]
        return (rank.get(queue, len(rank)), row.job.number, row.task)

    running = sorted((r for r in rows if r.running), key=key)
    return running + [r for r in rows if not r.running]


def render_table(
    console: Console, rows: list[JobPriority], ext: bool, urg: bool, pri: bool, where: Placement
) -> None:
    if not rows:
        return  # qstat prints nothing, not even its header, when no job matches
    header = _header(ext, urg, pri)
    # qstat's rule is as long as its header, which ends in a blank.
    lines = [header, "-" * (len(header) + 1)]
    lines += [_line(r, ext, urg, pri, where) for r in rows]
    print_text(console, "\n".join(lines))


def _qstat(
    cell: Path | None,
    config: Path | None,
    state_dir: Path | None,
    now: str | float | None,
    users: list[str] | None,
    ext: bool,
    urg: bool,
    pri: bool,
) -> Result:
    priced = read_priced(cell, config, state_dir, now)
    dump = priced.cell
    result: Prioritisation = prioritise(dump, priced.at)
    wanted = set(users or ())
    where = placements(dump)
    rows = _qstat_order(
        [r for r in result.jobs if not wanted or r.job.owner in wanted], where, dump
    )

    def line(row: JobPriority) -> dict[str, Any]:
        job = job_data(row)
        job["queue"], job["slots"] = where.get((row.job.number, row.task), (None, job["slots"]))
        return job

    data = {
        "now": result.now,
        "max_tickets": result.max_tickets,
        "jobs": Rows(rows, line),  # 100,000 lines on a large cell: two halves at once
        "usage_source": priced.usage_source,
        "warnings": list(dump.warnings),
    }
    return Result(
        "sge qstat", data, lambda console: render_table(console, rows, ext, urg, pri, where),
        sources=(dump, result),  # freed by the process's end, not object by object here
    )


def _what_if(cell: Path | None, config: Path | None, state_dir: Path | None,
             now: str | float | None, texts: list[str]) -> Result:
    dump_dir = cell_dir(cell, config, state_dir)
    dump = read_cell(dump_dir)
    at = run_time(now, dump.now)

    def priced(side: Cell, directory: Path) -> PricedCell:
        return with_recorded_usage(side, directory, state_dir, config, at)

    return whatif.result(whatif.what_if(dump_dir, dump, texts, at, priced))


def register(app: typer.Typer) -> None:
    @app.command("qstat")
    def qstat(
        cell: CellOpt = None,
        now: NowOpt = None,
        users: UsersOpt = None,
        ext: Annotated[
            bool, typer.Option("--ext", "-ext", help="Tickets, project, department.")
        ] = False,
        urg: Annotated[bool, typer.Option("--urg", "-urg", help="Urgency and its parts.")] = False,
        pri: Annotated[
            bool, typer.Option("--pri", "-pri", help="Normalised priorities, ppri.")
        ] = False,
        what_if: Annotated[list[str] | None, typer.Option(
            "--what-if", metavar="CHANGE",
            help="Show how the order and tickets move after CHANGE: KEY=VALUE of "
            "sched_conf, 'user|project|userset NAME KEY=VALUE', or 'sharetree PATH "
            "shares=N' (repeatable).")] = None,
        as_json: JsonOpt = False,
        config: ConfigOpt = None,
        state_dir: StateDirOpt = None,
    ) -> None:
        """Jobs of a cell dump with priority, urgency and tickets, in scheduling order."""
        if what_if:
            with collector_paused():
                run_command("sge qstat", as_json,
                            lambda: _what_if(cell, config, state_dir, now, list(what_if)))
            return
        with collector_paused():
            run_command(
                "sge qstat",
                as_json,
                lambda: _qstat(cell, config, state_dir, now, users, ext, urg, pri),
            )
