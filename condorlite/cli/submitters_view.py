"""``condorlite status --submitters``: jobs per submitter, as ``condor_status -submitters``.

One row per submitter and schedd machine (RunningJobs, IdleJobs, HeldJobs from the job
ads' JobStatus 2, 1, 5), then the totals per submitter and in all.

Rules: rows are listed by submitter name, then machine; the schedd machine of a job is
the host part of its ``GlobalJobId`` (``host#c.p#t``), none without one; a job ad whose
submitter cannot be told (no Owner) is left out and counted. ``submitters_data``
gathers (JSON-ready), ``draw_submitters`` prints what it gathered.
"""

from __future__ import annotations

from typing import Any

from rich.console import Console

from condorlite.cli.ad_values import ad_int, ad_str
from condorlite.cli.render import print_text
from condorlite.core.classad import ClassAd
from condorlite.core.model import AdProblem, submitter_of
from condorlite.core.policy import Policy

JOB_STATUS_COLUMN = {2: "running_jobs", 1: "idle_jobs", 5: "held_jobs"}


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
        status = ad_int(ad, "JobStatus")
        gid = ad_str(ad, "GlobalJobId")
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


def draw_submitters(console: Console, data: dict[str, Any]) -> None:
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
