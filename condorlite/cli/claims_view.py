"""The stored claims as ``status --claims`` and ``release`` show them.

A claim row is one of three kinds, shown in the ``State`` column:

* ``matched``: made by ``negotiate`` (a match), charged from the match on;
* ``observed``: read from a busy slot ad (a claim condorlite did not make);
* ``pending``: a match that preempted ``preempted_user``, whose slot ad still showed
  that user at the last cycle (``core.negotiation.claims``); charged to the new user only.

Rows are listed by slot name, digit runs compared as numbers (``slot2`` before
``slot10``), then by the name itself. Times print in local time labelled with the
zone (``render.local_stamp``).
"""

from __future__ import annotations

import re
from typing import Any

from rich.console import Console

from condorlite.cli.render import local_stamp, plain, print_text, real
from condorlite.core.accounting import ClaimRow


def _natural(text: str) -> tuple[Any, ...]:
    return tuple(int(p) if p.isdigit() else p.lower() for p in re.split(r"(\d+)", text))


def claim_json(row: ClaimRow) -> dict[str, Any]:
    """One stored claim, JSON-ready: ``slot``, ``job`` (null when none), ``submitter``,
    ``weight``, ``since`` (epoch seconds), ``observed``, ``partitionable`` (the parent
    of a piece, else null) and ``preempted_user`` (null unless pending)."""
    extra = row.extra or {}
    return {"slot": row.slot, "job": row.job or None, "submitter": row.submitter,
            "weight": real(row.weight), "since": real(row.start_time),
            "observed": bool(extra.get("observed", False)),
            "partitionable": extra.get("partitionable"),
            "preempted_user": extra.get("preempted_user")}


def claims_data(rows: list[ClaimRow]) -> dict[str, Any]:
    """Every claim (sorted, module doc) and the total weight they charge."""
    ordered = sorted(rows, key=lambda r: (_natural(r.slot), r.slot))
    return {"claims": [claim_json(r) for r in ordered],
            "total_weight": real(sum(r.weight for r in ordered))}


def state_of(claim: dict[str, Any]) -> str:
    if claim["preempted_user"]:
        return f"pending (preempting {claim['preempted_user']})"
    return "observed" if claim["observed"] else "matched"


def _stamp(epoch: float) -> str:
    return local_stamp(epoch)


def draw_claims(console: Console, data: dict[str, Any]) -> None:
    claims = data["claims"]
    if not claims:
        console.print("No stored claims.", markup=False, highlight=False)
        return
    cells = [(c["slot"], c["job"] or "-", c["submitter"], plain(c['weight']),
              _stamp(c["since"]), state_of(c)) for c in claims]
    head = ("Slot", "Job", "Submitter", "Weight", "Since", "State")
    widths = [max(len(head[i]), *(len(row[i]) for row in cells)) for i in range(5)]

    def line(row: tuple[str, ...]) -> str:
        left = [row[i].ljust(widths[i]) if i != 3 else row[i].rjust(widths[i])
                for i in range(5)]
        return " ".join([*left, row[5]]).rstrip()

    lines = [line(head), "", *(line(row) for row in cells), ""]
    lines.append(f"{len(claims)} claim{'s' if len(claims) != 1 else ''}, "
                 f"total weight {plain(data['total_weight'])}")
    print_text(console, "\n".join(lines))
