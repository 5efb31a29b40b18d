"""``condorlite sge schedule`` without ``--dry-run``: one Grid Engine cycle recorded in
the state directory, as ``negotiate`` is for HTCondor.

What one cycle does:

1. read the cell dump (a dump that does not parse stops the command, 65/66, before the
   state is opened);
2. in ONE write transaction (``BEGIN IMMEDIATE``: a second writer waits
   ``--lock-timeout`` seconds, then exits 75), at ``now`` = ``--now``, else the dump's
   ``now``, else the clock read once the lock is held: bring the share-tree usage and
   the runs up to ``now`` (``core.sge.cycle.advance``), price the jobs with the usage
   of the dump's ``share_mon`` when it has one, else with the recorded usage
   (``usage_source``), run the scheduler (``core.sge.dispatch.schedule``), record the
   tasks it started, append an ``sge_cycle`` history row, and append the run's section
   to ``--schedule-file`` when given; commit only when all of it succeeded.

A ``now`` before the last cycle charges and decays nothing and keeps the last cycle's
time (said on stderr and as ``cycle.clock_behind``), as ``negotiate`` does.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from condorlite.cli._state import Clock, open_store
from condorlite.cli.render import Result, print_text, real, stderr_console
from condorlite.cli.sge._cell import cell_dir
from condorlite.cli.sge._run_view import append_schedule, run_data, run_text
from condorlite.core.sge.cycle import (
    FINISHED,
    Advance,
    SgeState,
    advance,
    priced_with,
    record_starts,
)
from condorlite.core.sge.dispatch import Run, schedule
from condorlite.core.sge.objects import Cell
from condorlite.core.sge.priority import prioritise
from condorlite.core.sge.usage import UsageRecord
from condorlite.store import sge_state
from condorlite.store.sge_cell import read_cell

#: The history kind of a recorded cycle.
CYCLE_KIND = "sge_cycle"
SHARE_MON = "share_mon"
RECORDED = "state"


def usage_rows(state: SgeState) -> list[dict[str, Any]]:
    """Every usage record as JSON (``data.usage``), in key order."""
    return [record_json(r) for _, r in sorted(state.records.items())]


def record_json(r: UsageRecord) -> dict[str, Any]:
    return {"kind": r.key.kind, "name": r.key.name, "project": r.key.project or None,
            "cpu": real(r.usage.cpu), "mem": real(r.usage.mem), "io": real(r.usage.io),
            "ltcpu": real(r.long_term.cpu), "ltmem": real(r.long_term.mem),
            "ltio": real(r.long_term.io), "usage_time": r.usage_time}


def cycle_json(adv: Advance, previous: int | None, at: int, source: str) -> dict[str, Any]:
    """``data.cycle``: the time, the previous cycle, what was charged and ended, the
    runs after the cycle, and where the priced usage came from."""
    return {
        "time": at, "previous": previous, "clock_behind": adv.clock_behind,
        "usage_source": source,
        "charged": [{"job": c.job, "task": c.task, "user": c.owner,
                     "cpu": real(c.delta.cpu), "mem": real(c.delta.mem),
                     "io": real(c.delta.io),
                     "to": [{"kind": k.kind, "name": k.name, "project": k.project or None}
                            for k in c.keys]}
                    for c in adv.charges],
        "ended": [{"job": e.job, "task": e.task, "user": e.owner, "reason": e.reason}
                  for e in adv.ended],
    }


def runs_json(state: SgeState) -> list[dict[str, Any]]:
    """The running tasks after the cycle (``data.running``)."""
    return [{"job": r.job, "task": r.task, "user": r.owner, "project": r.project,
             "source": r.source, "start_time": r.start_time, "slots": r.slots,
             "queue_instances": [g.queue_instance for g in r.grants],
             "charged_cpu": real(r.debited.cpu), "charged_mem": real(r.debited.mem),
             "charged_io": real(r.debited.io)} for _, r in sorted(state.runs.items())
            if r.source != FINISHED]


def _whom(keys: list[dict[str, Any]]) -> str:
    """The records a charge went to: ``alice``, ``dave@p1``, ``project p1``."""
    names = [k["name"] + (f"@{k['project']}" if k["project"] else "") if k["kind"] == "user"
             else f"project {k['name']}" for k in keys]
    return ", ".join(names) or "nobody (no user or project object)"


def cycle_text(data: dict[str, Any]) -> list[str]:
    """The recorded part of the human output (after the run's own lines)."""
    cycle = data["cycle"]
    lines = ["", f"Recorded cycle at {cycle['time']} (previous: {cycle['previous']}), "
             f"usage priced from {cycle['usage_source']}"]
    lines += [f"  charged {c['job']}.{c['task']} {c['user']}: cpu {c['cpu']:.6f} mem "
              f"{c['mem']:.6f} io {c['io']:.6f} to {_whom(c['to'])}"
              for c in cycle["charged"]] or ["  charged nothing"]
    lines += [f"  ended {e['job']}.{e['task']} {e['user']}: {e['reason']}"
              for e in cycle["ended"]]
    lines += ["", f"Running ({len(data['running'])}):"]
    lines += [f"  {r['job']}.{r['task']} {r['user']} since {r['start_time']} "
              f"({r['source']}), {r['slots']} slot(s)" for r in data["running"]] or ["  none"]
    lines += ["", "Usage (decayed to the cycle):"]
    lines += [f"  {u['kind']:<7} {u['name'] + ('@' + u['project'] if u['project'] else ''):<20}"
              f" cpu {u['cpu']:.6f} mem {u['mem']:.6f} io {u['io']:.6f}"
              for u in data["usage"]] or ["  none"]
    return lines


def record_cycle(cell: Path | None, config: Path | None, state_dir: Path | None,
                 now: str | float | None, lock_timeout: float,
                 schedule_file: Path | None) -> Result:
    """One recorded cycle (module doc)."""
    clock = Clock(now)
    dump_dir = cell_dir(cell, config, state_dir)
    dump = read_cell(dump_dir)
    source = SHARE_MON if (dump_dir / SHARE_MON).is_file() else RECORDED
    store = open_store(state_dir, lock_timeout, config, write=True)
    with store.transaction(write=True) as tx:
        at = _cycle_time(clock, dump)
        before = sge_state.load(tx)
        adv = advance(before, dump, at)
        priced = adv.cell if source == SHARE_MON else priced_with(adv.cell, adv.state.records)
        run = schedule(priced, prioritise(priced, at), at)
        projects = {j.number: j.project for j in dump.jobs}
        after = record_starts(adv.state, run.started, projects, at)
        sge_state.save(tx, after)
        data = run_data(run, dump.warnings, dry_run=False)
        data["cycle"] = cycle_json(adv, before.last_cycle, at, source)
        data["running"] = runs_json(after)
        data["usage"] = usage_rows(after)
        tx.add_history(CYCLE_KIND, _what(run, adv), {"cycle": data["cycle"]}, at)
        if store.policy.history_retention > 0:
            tx.prune_history(at - store.policy.history_retention)
        if schedule_file is not None:
            append_schedule(schedule_file, run.schedule)
    if adv.clock_behind:
        stderr_console().print(
            f"condorlite sge schedule: --now is {adv.clock_behind} s before the last "
            "recorded cycle: nothing was charged or decayed, and its time was kept",
            markup=False)
    text = run_text(run, dry_run=False) + cycle_text(data)

    def human(console: Console) -> None:
        print_text(console, "\n".join(text))

    return Result("sge schedule", data, human)


def _cycle_time(clock: Clock, dump: Cell) -> int:
    """``--now``, else the dump's ``now``, else the clock (read under the lock)."""
    if clock.given is not None:
        return int(clock.given)
    if dump.now is not None:
        return dump.now
    return int(clock.read())


def _what(run: Run, adv: Advance) -> str:
    return (f"{len(run.started)} started, {len(run.reservations)} reservations, "
            f"{len(adv.charges)} charges, {len(adv.ended)} ended")
