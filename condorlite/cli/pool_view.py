"""``condorlite status``'s pool view: one row per slot ad, then the totals per platform.

As HTCondor's ``condor_status`` shows it: one row per slot ad (Name, OpSys, Arch, State,
Activity, LoadAv, Mem, ActvtyTime) then the totals table keyed by ``Arch/OpSys``, with
modern condor_status's columns Total Owner Claimed Unclaimed Matched Preempting Drain
Backfill BkIdle; beside each slot, the claim the state records on it (if any).

Rules (deterministic, documented):

* slots are listed by ``Machine``, then ``Name``, comparing digit runs as numbers
  (``slot2`` before ``slot10``);
* ActvtyTime = (``MyCurrentTime``, else ``LastHeardFrom``) - ``EnteredCurrentActivity``,
  printed ``days+hh:mm:ss`` as condor_status does; empty when an attribute is missing;
* a slot with ``BackfillSlot = true`` counts as Backfill when Claimed and as BkIdle
  (outside Total) when Unclaimed; State ``Drained`` counts as Drain;
* a slot without a string Arch/OpSys or with an unknown State is left out of the totals
  and counted as malformed, as condor_status does.

``pool_data`` gathers (JSON-ready), ``draw_pool`` prints what it gathered.
"""

from __future__ import annotations

import re
from typing import Any

from rich.console import Console

from condorlite.cli.ad_values import ad_int, ad_num, ad_str, ad_value
from condorlite.cli.render import print_text
from condorlite.core.classad import ClassAd

#: Totals columns, in condor_status's order; JSON keys are the snake_case names.
TOTAL_COLUMNS: tuple[tuple[str, str], ...] = (
    ("Total", "total"), ("Owner", "owner"), ("Claimed", "claimed"),
    ("Unclaimed", "unclaimed"), ("Matched", "matched"), ("Preempting", "preempting"),
    ("Drain", "drain"), ("Backfill", "backfill"), ("BkIdle", "backfill_idle"),
)
_STATE_COLUMN = {"owner": "owner", "unclaimed": "unclaimed", "claimed": "claimed",
                 "matched": "matched", "preempting": "preempting", "backfill": "backfill",
                 "drained": "drain"}


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


def slot_row(ad: ClassAd) -> dict[str, Any]:
    """The facts of one slot the pool view shows (JSON-ready)."""
    now = ad_int(ad, "MyCurrentTime")
    if now is None:
        now = ad_int(ad, "LastHeardFrom")
    entered = ad_int(ad, "EnteredCurrentActivity")
    return {
        "name": ad_str(ad, "Name"),
        "machine": ad_str(ad, "Machine"),
        "opsys": ad_str(ad, "OpSys"),
        "arch": ad_str(ad, "Arch"),
        "state": ad_str(ad, "State"),
        "activity": ad_str(ad, "Activity"),
        "load_avg": ad_num(ad, "LoadAvg"),
        "memory": ad_int(ad, "Memory"),
        "activity_time": None if now is None or entered is None else now - entered,
        "slot_type": ad_str(ad, "SlotType"),
        "backfill": ad_value(ad, "BackfillSlot") is True,
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


def draw_pool(console: Console, data: dict[str, Any]) -> None:
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
