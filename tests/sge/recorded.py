"""The real scheduler's recorded decisions (``expected/qstat.xml``) and the comparison
of condorlite's figures with them, within what qstat prints.

Precision of qstat (README of the recording kit): tickets are truncated to integers,
prio/ntckts/npprior/nurg and share have 5 decimals in the XML, urg and its three parts
are rounded to integers.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data" / "sge"


@dataclass(frozen=True)
class Printed:
    """One job line of ``qstat -xml -ext -urg -pri`` after the run."""

    job: int
    state: str
    task: str
    fields: dict[str, float]


#: XML element -> condorlite's JSON key, for the compared numbers.
FIELDS = {
    "JAT_prio": "prio",
    "JAT_ntix": "ntckts",
    "JB_nppri": "npprior",
    "JB_nurg": "nurg",
    "JB_urg": "urg",
    "JB_rrcontr": "rrcontr",
    "JB_wtcontr": "wtcontr",
    "JB_dlcontr": "dlcontr",
    "JB_priority": "ppri",
    "tickets": "tckts",
    "otickets": "otckt",
    "ftickets": "ftckt",
    "stickets": "stckt",
    "JAT_share": "share",
}
#: How far condorlite may be from the printed figure: 5-decimal values are rounded,
#: integers of urgency are rounded, tickets are truncated.
TOLERANCE = {
    "prio": 0.5e-5 + 1e-9,
    "ntckts": 0.5e-5 + 1e-9,
    "npprior": 0.5e-5 + 1e-9,
    "nurg": 0.5e-5 + 1e-9,
    "share": 0.5e-5 + 1e-9,
    "urg": 1.0,
    "rrcontr": 1.0,
    "wtcontr": 1.0,
    "dlcontr": 1.0,
    "ppri": 0.0,
}
TICKETS = ("tckts", "otckt", "ftckt", "stckt")


def snapshots() -> list[Path]:
    """Every recorded run that has the real scheduler's qstat output."""
    return sorted(p.parent.parent for p in DATA.glob("*/*/expected/qstat.xml"))


def printed(snapshot: Path) -> list[Printed]:
    """The job lines of the run's ``expected/qstat.xml``, in qstat's order."""
    root = ET.parse(snapshot / "expected" / "qstat.xml").getroot()
    out = []
    for element in root.iter("job_list"):
        fields = {}
        for tag, key in FIELDS.items():
            text = element.findtext(tag)
            if text not in (None, ""):
                fields[key] = float(text)
        out.append(
            Printed(
                job=int(element.findtext("JB_job_number")),
                state=element.findtext("state") or "",
                task=element.findtext("tasks") or "",
                fields=fields,
            )
        )
    return out


def _as_printed(tickets: float) -> int:
    """Tickets as qstat prints them: truncated to an integer and wrapped to 32 bits
    (a figure over 2**31 prints negative; the scheduler's own values are right)."""
    wrapped = int(tickets) % 2**32
    return wrapped - 2**32 if wrapped >= 2**31 else wrapped


def differences(ours: dict[str, float], theirs: Printed) -> list[str]:
    """Where condorlite's figures for one job fall outside what qstat printed."""
    out = []
    for key, value in theirs.fields.items():
        mine = ours.get(key)
        if mine is None:
            continue
        if key in TICKETS:
            ok = abs(_as_printed(mine) - value) <= 1
        else:
            ok = abs(mine - value) <= TOLERANCE.get(key, 1e-5)
        if not ok:
            out.append(f"job {theirs.job} {key}: condorlite {mine!r}, qstat {value!r}")
    return out


def compare(snapshot: Path) -> list[str]:
    """Every way condorlite's figures and order for ``snapshot`` differ from what the
    real qstat printed (empty when they agree)."""
    from condorlite.core.sge.priority import prioritise
    from condorlite.store.sge_cell import read_cell

    cell = read_cell(snapshot)
    result = prioritise(cell, cell.now)
    ours: dict[int, dict[str, float]] = {}
    for row in result.jobs:
        u = row.urgency
        ours.setdefault(
            row.job.number,
            {
                "prio": row.prio,
                "ntckts": row.ntckts,
                "npprior": row.npprior,
                "nurg": row.nurg,
                "urg": u.urg,
                "rrcontr": u.rrcontr,
                "wtcontr": u.wtcontr,
                "dlcontr": u.dlcontr,
                "ppri": row.job.ppri,
                "tckts": row.tickets,
                "otckt": row.otckt,
                "ftckt": row.ftckt,
                "stckt": row.stckt,
                "share": row.share,
            },
        )
    problems: list[str] = []
    qstat = printed(snapshot)
    for line in qstat:
        if line.job not in ours:
            problems.append(f"job {line.job}: condorlite has no row")
            continue
        problems += differences(ours[line.job], line)
    order: list[int] = []
    for row in result.jobs:
        if not row.running and row.job.number not in order:
            order.append(row.job.number)
    theirs = [line.job for line in qstat if "q" in line.state]
    if order != theirs:
        problems.append(f"pending order: condorlite {order}, qstat {theirs}")
    return problems
