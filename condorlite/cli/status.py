"""``condorlite status``: the pool, its submitters, the last negotiation cycle, the claims.

Four views, the first three as HTCondor's ``condor_status`` shows them:

* default: one row per slot ad (Name, OpSys, Arch, State, Activity, LoadAv, Mem,
  ActvtyTime) then the totals table keyed by ``Arch/OpSys``, with modern
  condor_status's columns Total Owner Claimed Unclaimed Matched Preempting Drain
  Backfill BkIdle;
* ``--submitters``: like ``condor_status -submitters``, one row per submitter and
  schedd machine (RunningJobs, IdleJobs, HeldJobs from the job ads' JobStatus 2, 1, 5),
  then the totals per submitter;
* ``--negotiator``: the statistics of the last cycle ``negotiate`` recorded;
* ``--claims``: the claims stored in the state (``cli.claims_view``): slot, job,
  submitter, weight, since when, and whether matched, observed or pending.

Every view ends with the state directory, its schema version and the last cycle time.

Rules (deterministic, documented):

* slots are listed by ``Machine``, then ``Name``, comparing digit runs as numbers
  (``slot2`` before ``slot10``); submitters by name, then machine;
* ActvtyTime = (``MyCurrentTime``, else ``LastHeardFrom``) - ``EnteredCurrentActivity``,
  printed ``days+hh:mm:ss`` as condor_status does; empty when an attribute is missing;
* a slot with ``BackfillSlot = true`` counts as Backfill when Claimed and as BkIdle
  (outside Total) when Unclaimed; State ``Drained`` counts as Drain;
* a slot without a string Arch/OpSys or with an unknown State is left out of the totals
  and counted as malformed, as condor_status does;
* the schedd machine of a job is the host part of its ``GlobalJobId`` (``host#c.p#t``).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from condorlite.cli._params import ConfigOpt, JsonOpt, LockTimeoutOpt, StateDirOpt
from condorlite.cli._state import DEFAULT_LOCK_TIMEOUT, ad_paths, open_store
from condorlite.cli.claims_view import claims_data, draw_claims
from condorlite.cli.errors import run_command
from condorlite.cli.history_rows import CYCLE_KIND
from condorlite.cli.render import Result, local_stamp, print_text
from condorlite.core.classad import ClassAd
from condorlite.core.classad.values import Error, Undefined
from condorlite.core.model import AdProblem, submitter_of
from condorlite.core.policy import Policy
from condorlite.errors import NoStateError
from condorlite.store.adfiles import read_ads
from condorlite.store.db import policy_without_state

#: Totals columns, in condor_status's order; JSON keys are the snake_case names.
TOTAL_COLUMNS: tuple[tuple[str, str], ...] = (
    ("Total", "total"), ("Owner", "owner"), ("Claimed", "claimed"),
    ("Unclaimed", "unclaimed"), ("Matched", "matched"), ("Preempting", "preempting"),
    ("Drain", "drain"), ("Backfill", "backfill"), ("BkIdle", "backfill_idle"),
)
_STATE_COLUMN = {"owner": "owner", "unclaimed": "unclaimed", "claimed": "claimed",
                 "matched": "matched", "preempting": "preempting", "backfill": "backfill",
                 "drained": "drain"}
JOB_STATUS_COLUMN = {2: "running_jobs", 1: "idle_jobs", 5: "held_jobs"}

SlotsOpt = Annotated[list[str] | None, typer.Option(
    "--slots", help="Slot ad file, directory or - (repeatable; default: SLOTS in the config).")]
JobsOpt = Annotated[list[str] | None, typer.Option(
    "--jobs", help="Job ad file, directory or - (repeatable; default: JOBS in the config).")]


# -- reading values ------------------------------------------------------------------


def _value(ad: ClassAd, name: str) -> object:
    return Undefined if ad.get(name) is None else ad.evaluate(name, None)


def _str(ad: ClassAd, name: str) -> str | None:
    value = _value(ad, name)
    return value if isinstance(value, str) else None


def _num(ad: ClassAd, name: str) -> float | None:
    value = _value(ad, name)
    if value is Undefined or value is Error or isinstance(value, bool):
        return None
    return float(value) if isinstance(value, int | float) else None


def _int(ad: ClassAd, name: str) -> int | None:
    number = _num(ad, name)
    return None if number is None or number != number or abs(number) == float("inf") \
        else int(number)


def _natural(text: str) -> tuple[Any, ...]:
    """Sort key comparing digit runs as numbers: slot2 < slot10."""
    return tuple(int(p) if p.isdigit() else p.lower() for p in re.split(r"(\d+)", text))


def format_duration(seconds: int) -> str:
    """condor_status's ``days+hh:mm:ss``."""
    sign = "-" if seconds < 0 else ""
    seconds = abs(seconds)
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{sign}{days}+{hours:02d}:{minutes:02d}:{secs:02d}"


# -- the pool view -------------------------------------------------------------------


def slot_row(ad: ClassAd) -> dict[str, Any]:
    """The facts of one slot the pool view shows (JSON-ready)."""
    now = _int(ad, "MyCurrentTime")
    if now is None:
        now = _int(ad, "LastHeardFrom")
    entered = _int(ad, "EnteredCurrentActivity")
    return {
        "name": _str(ad, "Name"),
        "machine": _str(ad, "Machine"),
        "opsys": _str(ad, "OpSys"),
        "arch": _str(ad, "Arch"),
        "state": _str(ad, "State"),
        "activity": _str(ad, "Activity"),
        "load_avg": _num(ad, "LoadAvg"),
        "memory": _int(ad, "Memory"),
        "activity_time": None if now is None or entered is None else now - entered,
        "slot_type": _str(ad, "SlotType"),
        "backfill": _value(ad, "BackfillSlot") is True,
    }


def _empty_totals() -> dict[str, int]:
    return {key: 0 for _title, key in TOTAL_COLUMNS}


def pool_totals(rows: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, int], int]:
    """(per Arch/OpSys totals sorted by key, the grand total, malformed ad count)."""
    by_key: dict[str, dict[str, int]] = {}
    grand = _empty_totals()
    malformed = 0
    for row in rows:
        state = (row["state"] or "").lower()
        column = _STATE_COLUMN.get(state)
        if row["arch"] is None or row["opsys"] is None or column is None:
            malformed += 1
            continue
        if row["backfill"] and column in ("unclaimed", "claimed"):
            column = "backfill_idle" if column == "unclaimed" else "backfill"
        totals = by_key.setdefault(f"{row['arch']}/{row['opsys']}", _empty_totals())
        for target in (totals, grand):
            target[column] += 1
            if column != "backfill_idle":
                target["total"] += 1
    per_key = [{"platform": key, **by_key[key]} for key in sorted(by_key)]
    return per_key, grand, malformed


def recorded_claims(claims: list[Any]) -> dict[str, dict[str, Any]]:
    """The state's claims per slot name, as the pool view shows them beside the ad:
    a piece ``<pslot>#<job>`` counts under its partitionable slot. Each value:
    ``jobs`` (in slot order), ``submitters`` (sorted, distinct), ``weight`` (summed)."""
    out: dict[str, dict[str, Any]] = {}
    for row in claims:
        slot = row.slot.partition("#")[0]
        entry = out.setdefault(slot, {"jobs": [], "submitters": [], "weight": 0.0})
        if row.job:
            entry["jobs"].append(row.job)
        if row.submitter not in entry["submitters"]:
            entry["submitters"] = sorted([*entry["submitters"], row.submitter])
        entry["weight"] += float(row.weight)
    return out


def pool_data(ads: list[ClassAd], claims: list[Any] | None = None) -> dict[str, Any]:
    """The pool view: a row per slot ad (with ``recorded_claim``, the state's claim on
    it, null when none: the ads predate the last cycle, so a slot the cycle matched
    still says Unclaimed), totals per platform and in all."""
    recorded = recorded_claims(claims or [])
    rows = sorted(({**slot_row(ad), "recorded_claim": None} for ad in ads),
                  key=lambda r: (_natural(r["machine"] or ""), _natural(r["name"] or "")))
    for row in rows:
        row["recorded_claim"] = recorded.get(row["name"] or "")
    per_key, grand, malformed = pool_totals(rows)
    return {"slots": rows, "totals": per_key, "total": grand, "malformed": malformed}


def _claim_cell(claim: dict[str, Any] | None) -> str:
    if claim is None:
        return ""
    jobs = claim["jobs"]
    who = ", ".join(claim["submitters"])
    if len(jobs) > 1:
        return f"{len(jobs)} pieces: {who}"
    return f"{jobs[0] if jobs else '-'} {who}"


def _draw_pool(console: Console, data: dict[str, Any]) -> None:
    rows = data["slots"]

    def wide(key: str, title: str, least: int) -> int:
        return max([least, len(title)] + [len(r[key] or "") for r in rows])

    width, os_w, arch_w = wide("name", "Name", 4), wide("opsys", "OpSys", 10), \
        wide("arch", "Arch", 6)
    state_w, act_w = wide("state", "State", 9), wide("activity", "Activity", 8)
    mem_width = max([4] + [len(str(r["memory"])) for r in rows if r["memory"] is not None])
    claimed = any(r["recorded_claim"] for r in rows)
    lines = [(f"{'Name':<{width}} {'OpSys':<{os_w}} {'Arch':<{arch_w}} {'State':<{state_w}} "
              f"{'Activity':<{act_w}} {'LoadAv':>6} {'Mem':>{mem_width}} {'ActvtyTime':>12}"
              + ("  Claim in the state" if claimed else "")), ""]
    for r in rows:
        load = "" if r["load_avg"] is None else f"{r['load_avg']:.3f}"
        mem = "" if r["memory"] is None else str(r["memory"])
        age = "" if r["activity_time"] is None else format_duration(r["activity_time"])
        claim = _claim_cell(r["recorded_claim"]) if claimed else ""
        lines.append(f"{r['name'] or '':<{width}} {r['opsys'] or '':<{os_w}} "
                     f"{r['arch'] or '':<{arch_w}} {r['state'] or '':<{state_w}} "
                     f"{r['activity'] or '':<{act_w}} {load:>6} "
                     f"{mem:>{mem_width}} {age:>12}  {claim}".rstrip())
    lines.append("")
    key_width = 2 + max([5] + [len(t["platform"]) for t in data["totals"]])
    head = f"{'Total':>6} {'Owner':>5} {'Claimed':>7} {'Unclaimed':>9} {'Matched':>7} " \
           f"{'Preempting':>10} {'Drain':>6} {'Backfill':>8} {'BkIdle':>6}"
    lines += [" " * key_width + head, ""]

    def counts(t: dict[str, int]) -> str:
        widths = (6, 5, 7, 9, 7, 10, 6, 8, 6)
        return " ".join(f"{t[key]:>{w}}" for (_title, key), w in
                        zip(TOTAL_COLUMNS, widths, strict=True))

    for t in data["totals"]:
        lines.append(f"{t['platform']:>{key_width}}" + counts(t))
    if data["totals"]:
        lines.append("")
    lines.append(f"{'Total':>{key_width}}" + counts(data["total"]))
    if data["malformed"]:
        lines += ["", f"(Omitted {data['malformed']} malformed ads in computed attribute totals)"]
    print_text(console, "\n".join(lines))


# -- the submitters view -------------------------------------------------------------


def submitters_data(ads: list[ClassAd], policy: Policy) -> dict[str, Any]:
    """Job counts per (submitter, schedd machine) and per submitter."""
    rows: dict[tuple[str, str | None], dict[str, Any]] = {}
    skipped = 0
    for ad in ads:
        try:
            name = submitter_of(ad, policy)
        except AdProblem:
            skipped += 1
            continue
        status = _int(ad, "JobStatus")
        gid = _str(ad, "GlobalJobId")
        machine = gid.split("#", 1)[0] if gid and "#" in gid else None
        row = rows.setdefault((name, machine), {"name": name, "machine": machine,
                                                "running_jobs": 0, "idle_jobs": 0,
                                                "held_jobs": 0})
        if status in JOB_STATUS_COLUMN:
            row[JOB_STATUS_COLUMN[status]] += 1
    ordered = [rows[k] for k in sorted(rows, key=lambda k: (k[0], k[1] or ""))]
    totals: dict[str, dict[str, Any]] = {}
    for row in ordered:
        t = totals.setdefault(row["name"], {"name": row["name"], "running_jobs": 0,
                                            "idle_jobs": 0, "held_jobs": 0})
        for key in JOB_STATUS_COLUMN.values():
            t[key] += row[key]
    grand = {key: sum(t[key] for t in totals.values()) for key in JOB_STATUS_COLUMN.values()}
    return {"submitters": ordered, "submitter_totals": list(totals.values()),
            "total": grand, "skipped_jobs": skipped}


def _draw_submitters(console: Console, data: dict[str, Any]) -> None:
    rows = data["submitters"]
    nw = max([4] + [len(r["name"]) for r in rows])
    mw = max([7] + [len(r["machine"] or "") for r in rows])
    lines = [f"{'Name':<{nw}} {'Machine':<{mw}} {'RunningJobs':>11} {'IdleJobs':>8} "
             f"{'HeldJobs':>8}", ""]
    for r in rows:
        lines.append(f"{r['name']:<{nw}} {r['machine'] or '':<{mw}} {r['running_jobs']:>11} "
                     f"{r['idle_jobs']:>8} {r['held_jobs']:>8}")
    kw = 2 + max([5] + [len(t["name"]) for t in data["submitter_totals"]])
    lines += ["", " " * kw + f"{'RunningJobs':>18} {'IdleJobs':>18} {'HeldJobs':>18}", ""]
    for t in [*data["submitter_totals"], None, {"name": "Total", **data["total"]}]:
        if t is None:
            lines.append("")
            continue
        lines.append(f"{t['name']:>{kw}}{t['running_jobs']:>18} {t['idle_jobs']:>18} "
                     f"{t['held_jobs']:>18}")
    if data["skipped_jobs"]:
        lines += ["", f"({data['skipped_jobs']} job ads without an Owner were left out)"]
    print_text(console, "\n".join(lines))


# -- the negotiator view and the state footer ----------------------------------------


def _flatten(data: Any, prefix: str = "") -> list[tuple[str, Any]]:
    """Scalars of a nested statistics dict as (dotted key, value); lists by length."""
    if isinstance(data, dict):
        out: list[tuple[str, Any]] = []
        for key, value in data.items():
            out += _flatten(value, f"{prefix}.{key}" if prefix else str(key))
        return out
    if isinstance(data, list):
        return [(f"{prefix} (count)", len(data))]
    return [(prefix, data)]


def _when(epoch: float | None) -> str:
    if epoch is None:
        return "never"
    stamp = local_stamp(epoch)
    # Whole epoch seconds print as integers; a fractional --now keeps its fraction.
    shown = int(epoch) if float(epoch).is_integer() else epoch
    return f"{stamp} ({shown})"


def _draw_negotiator(console: Console, cycle: dict[str, Any] | None) -> None:
    if cycle is None:
        console.print("No negotiation cycle recorded yet (run condorlite negotiate).",
                      markup=False)
        return
    stats = cycle["data"].get("cycle", cycle["data"]) if isinstance(cycle["data"], dict) \
        else cycle["data"]
    items = [("time", _when(cycle["time"])), ("run by", cycle["who"]), *_flatten(stats)]
    width = max(len(k) for k, _v in items)
    lines = ["Last negotiation cycle", ""]
    lines += [f"  {k:<{width}}  {v}" for k, v in items]
    print_text(console, "\n".join(lines))


def _draw_state(console: Console, state: dict[str, Any]) -> None:
    if state["schema_version"] is None:
        console.print(f"\nState: none at {state['state_dir']} (no negotiate has run there)",
                      markup=False, highlight=False)
        return
    console.print(f"\nState: {state['state_dir']} (schema {state['schema_version']}); "
                  f"last negotiation cycle: {_when(state['last_cycle_time'])}",
                  markup=False, highlight=False)


# -- the command -----------------------------------------------------------------------



def _body(slots: list[str] | None, jobs: list[str] | None, show_submitters: bool,
          show_negotiator: bool, state_dir: Path | None, lock_timeout: float,
          config: Path | None = None, show_claims: bool = False) -> Result:
    cycle: dict[str, Any] | None = None
    claim_rows: list[Any] = []
    data: dict[str, Any]
    try:
        store = open_store(state_dir, lock_timeout, config, write=False)
    except NoStateError:
        # The slot and submitter views read ads only, as condor_status needs no
        # accountant; the negotiator and claims views are the state's.
        if show_negotiator or show_claims:
            raise
        source = policy_without_state(state_dir, config)
        data = {"state_dir": str(source.state_dir), "schema_version": None,
                "last_cycle_time": None}
        policy, config_path = source.policy, source.config_path
    else:
        with store.transaction(write=False) as tx:
            cycle = tx.last_history(CYCLE_KIND)
            claim_rows = tx.load_claims()
        data = {"state_dir": str(store.path), "schema_version": store.schema_version,
                "last_cycle_time": None if cycle is None else cycle["time"]}
        policy, config_path = store.policy, store.config_path
    draws: list[Callable[[Console], None]] = []
    if not show_submitters and not show_negotiator and not show_claims:
        paths = ad_paths(slots, policy.slots, config_path, "slot", "--slots")
        pool = pool_data([loaded.ad for loaded in read_ads(paths, stdin=sys.stdin)],
                         claim_rows)
        data["pool"] = pool
        draws.append(lambda c: _draw_pool(c, pool))
    if show_submitters:
        paths = ad_paths(jobs, policy.jobs, config_path, "job", "--jobs")
        subs = submitters_data([loaded.ad for loaded in read_ads(paths, stdin=sys.stdin)],
                               policy)
        data["submitters"] = subs
        draws.append(lambda c: _draw_submitters(c, subs))
    if show_negotiator:
        data["negotiator"] = {"last_cycle": cycle}
        draws.append(lambda c: _draw_negotiator(c, cycle))
    if show_claims:
        claims = claims_data(claim_rows)
        data["claims"] = claims
        draws.append(lambda c: draw_claims(c, claims))

    def human(console: Console) -> None:
        for i, draw in enumerate(draws):
            if i:
                console.print("")
            draw(console)
        _draw_state(console, data)

    return Result("status", data, human)


def register(app: typer.Typer) -> None:
    @app.command("status")
    def status(
        slots: SlotsOpt = None,
        jobs: JobsOpt = None,
        submitters: Annotated[bool, typer.Option(
            "--submitters", help="Jobs per submitter, as condor_status -submitters.")] = False,
        negotiator: Annotated[bool, typer.Option(
            "--negotiator", help="Statistics of the last negotiation cycle.")] = False,
        claims: Annotated[bool, typer.Option(
            "--claims", help="The claims stored in the state (what release ends).")] = False,
        state_dir: StateDirOpt = None,
        config: ConfigOpt = None,
        lock_timeout: LockTimeoutOpt = DEFAULT_LOCK_TIMEOUT,
        as_json: JsonOpt = False,
    ) -> None:
        """Show the pool as condor_status does, its submitters, the last cycle or the
        stored claims."""
        run_command("status", as_json, lambda: _body(
            slots, jobs, submitters, negotiator, state_dir, lock_timeout, config, claims))
