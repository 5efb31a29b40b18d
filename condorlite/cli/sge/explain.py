"""``condorlite sge explain JOB``: one job's priority taken apart (``core.sge.explain``),
and where the next scheduling run puts it (``core.sge.dispatch``, as ``sge schedule
--dry-run``): the queue instances it starts in, the reservation it makes, or why it
waits."""

from __future__ import annotations

from dataclasses import asdict
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from condorlite.cli._params import ConfigOpt, JsonOpt, NowOpt, StateDirOpt
from condorlite.cli.errors import run_command
from condorlite.cli.render import Result, local_stamp, print_text
from condorlite.cli.sge._cell import CellOpt, collector_paused
from condorlite.cli.sge._recorded import read_priced
from condorlite.cli.sge._run_view import placed
from condorlite.cli.sge.qstat import job_data
from condorlite.core.sge.dispatch import schedule
from condorlite.core.sge.explain import Explanation, explain
from condorlite.core.sge.objects import Cell
from condorlite.core.sge.priority import Prioritisation, prioritise


def explain_data(e: Explanation) -> dict[str, Any]:
    u = e.row.urgency
    return {
        "job": job_data(e.row),
        "weights": e.weights,
        "products": e.products,
        "urgency": {
            "terms": [asdict(t) for t in u.terms],
            "slots": u.slots,
            "min": e.urgency_range[0],
            "max": e.urgency_range[1],
        },
        "max_tickets": e.max_tickets,
        "sources": [asdict(s) for s in e.sources],
        "override_parts": [p._asdict() for p in e.row.override_parts],
        "functional_parts": e.row.functional_parts._asdict(),
        "sharetree_part": e.row.sharetree_part._asdict() if e.row.sharetree_part else None,
        "settings": e.conf,
        "position": e.position,
        "pending_jobs": e.pending,
        "lift": asdict(e.lift) if e.lift else None,
    }


def _text(e: Explanation) -> list[str]:
    r, u, w, p = e.row, e.row.urgency, e.weights, e.products
    job = r.job
    state = "running" if r.running else f"pending, {e.position} of {e.pending} in order"
    lines = [
        f"Job {job.number} ({job.name}, user {job.owner}, project {job.project or 'NA'}, "
        f"department {r.department or 'NA'}): {state}",
        f"prio {r.prio:.5f} = weight_priority {w['weight_priority']:g} x npprior "
        f"{r.npprior:.5f} ({p['npprior']:.5f})",
        f"     + weight_urgency {w['weight_urgency']:g} x nurg {r.nurg:.5f} ({p['nurg']:.5f})",
        f"     + weight_ticket {w['weight_ticket']:g} x ntckts {r.ntckts:.5f} ({p['ntckts']:.5f})",
        f"npprior = (ppri {job.ppri} + 1024) / 2048",
        "",
        f"Urgency {u.urg:.0f} (nurg = (urg - {e.urgency_range[0]:.0f}) / "
        f"({e.urgency_range[1]:.0f} - {e.urgency_range[0]:.0f}) over all jobs):",
    ]
    for t in u.terms:
        if t.amount is None:
            lines.append(f"  {t.resource}: string request, urgency {t.weight:g}")
        else:
            lines.append(
                f"  {t.resource}: {t.amount:g} x urgency {t.weight:g} x {t.slots} slot(s)"
                f" = {t.contribution:.2f}"
            )
    lines.append(
        f"  rrcontr {u.rrcontr:.0f}, wtcontr {u.wtcontr:.0f} (waiting time x "
        f"{e.conf['weight_waiting_time']:g}), dlcontr {u.dlcontr:.0f}"
    )
    lines += [
        "",
        f"Tickets {r.tickets:.0f} (ntckts = tickets / {e.max_tickets:.0f}, the most any "
        f"job holds): override {r.otckt:.0f}, functional {r.ftckt:.0f}, "
        f"share tree {r.stckt:.0f}; policy_hierarchy {e.conf['policy_hierarchy']}",
    ]
    lines += _ticket_lines(e)
    if e.lift is not None:
        lift = e.lift
        lines += [
            "",
            f"Ahead of it: job {lift.ahead_job} at {lift.ahead_prio:.5f} (gap {lift.gap:.5f}).",
        ]
        if lift.ppri_needed is not None:
            lines.append(f"  qalter -p {lift.ppri_needed} {job.number} would put it ahead")
        if lift.override_tickets_needed is not None:
            lines.append(
                f"  about {lift.override_tickets_needed} more override tickets "
                f"(qalter -ot) would put it ahead"
            )
    return lines


def _ticket_lines(e: Explanation) -> list[str]:
    """Each ticket source with what it gave (``explain`` in the core has the rules)."""
    r = e.row
    out = []
    shares = {(s.kind, s.name): s for s in e.sources}
    for part in r.override_parts:
        given = shares.get((part.kind, part.name))
        whole = f" of its {given.oticket}" if given and part.kind != "job" else ""
        out.append(f"  override: {part.kind} {part.name} gives {part.tickets:.0f}{whole}")
    f = r.functional_parts
    for kind, amount in (
        ("user", f.user),
        ("project", f.project),
        ("department", f.department),
        ("job", f.job),
    ):
        if amount:
            out.append(
                f"  functional: the {kind} category gives {amount:.0f} "
                f"(weight_{kind} x share of weight_tickets_functional)"
            )
    if r.sharetree_part is not None:
        t = r.sharetree_part
        out.append(
            f"  share tree: node {t.node} targets {t.target:.5f} of the tree's "
            f"tickets; this job's part is 1/{1 / t.fraction:g} of that"
            if t.fraction
            else f"  share tree: node {t.node}, no part for this job"
        )
    elif r.node is None and r.stckt == 0:
        out.append("  share tree: the job's user and project have no node in the tree")
    for s in e.sources:
        out.append(f"  ({s.kind} {s.name}: oticket {s.oticket}, fshare {s.fshare})")
    return out


def placement(dump: Cell, result: Prioritisation, job: int, at: int) -> dict[str, Any]:
    """Where the next scheduling run (``sge schedule --dry-run``) puts ``job``:
    ``status`` ``starts`` (with ``started``: its tasks' placements), ``reserves``
    (``reservations``: start time, duration, queue instances), ``waits`` (``reasons``,
    as ``qstat -j`` gives them), ``running``, or ``unknown`` when the dump has no
    hosts and queues to dispatch on (a policy-only dump)."""
    if not dump.queues:
        return {"status": "unknown",
                "why": "the dump has no hosts and queues (make it with dump-cell.sh)"}
    run = schedule(dump, result, at)
    started = [placed(s) for s in run.started if s.job == job]
    reserved = [placed(r) for r in run.reservations if r.job == job]
    waiting = [w for w in run.waiting if w.job == job]
    if started:
        return {"status": "starts", "started": started, "reservations": reserved}
    if reserved:
        return {"status": "reserves", "reservations": reserved,
                "reasons": [r for w in waiting for r in w.reasons]}
    if waiting:
        return {"status": "waits", "reasons": [r for w in waiting for r in w.reasons]}
    return {"status": "running"}


def _placement_lines(p: dict[str, Any]) -> list[str]:
    if p["status"] == "unknown":
        return [f"  where: not computed: {p['why']}"]
    if p["status"] == "running":
        return ["  where: running; the next run leaves it where it is"]
    out = []
    for s in p.get("started", []):
        where = ", ".join(f"{g['queue_instance']}={g['slots']}" for g in s["queue_instances"])
        out.append(f"  where: the next run starts task {s['task']} now in {where}")
    for r in p.get("reservations", []):
        where = ", ".join(f"{g['queue_instance']}={g['slots']}" for g in r["queue_instances"])
        out.append(f"  where: task {r['task']} reserves {where} from {local_stamp(r['start_time'])}"
                   f" for {r['duration']} s")
    if p["status"] in ("waits", "reserves"):
        out.append("  waits because:" if p.get("reasons")
                   else "  waits; the run records no reason for it")
        out += [f"    {reason}" for reason in p.get("reasons", [])]
    return out


def _explain(
    cell: Path | None,
    config: Path | None,
    state_dir: Path | None,
    now: str | float | None,
    job: int,
) -> Result:
    priced = read_priced(cell, config, state_dir, now)
    dump, at = priced.cell, priced.at
    result = prioritise(dump, at)
    e = explain(result, dump, job)
    data = explain_data(e)
    data["usage_source"] = priced.usage_source
    data["placement"] = placement(dump, result, job, at)

    def human(console: Console) -> None:
        print_text(console, "\n".join([*_text(e), *_placement_lines(data["placement"])]))

    return Result("sge explain", data, human)


def register(app: typer.Typer) -> None:
    @app.command("explain")
    def explain_cmd(
        job: Annotated[int, typer.Argument(help="Job number.")],
        cell: CellOpt = None,
        now: NowOpt = None,
        as_json: JsonOpt = False,
        config: ConfigOpt = None,
        state_dir: StateDirOpt = None,
    ) -> None:
        """One job's priority taken apart: urgency terms, ticket sources, what lifts it."""
        with collector_paused():
            run_command("sge explain", as_json, lambda: _explain(cell, config, state_dir, now, job))
