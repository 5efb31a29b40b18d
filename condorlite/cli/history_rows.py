"""What a cycle's history row keeps of each account, and reading it back.

``negotiate`` writes one history row per cycle (kind ``negotiation_cycle``); besides the cycle's
statistics (``cycle``) the row holds ``accounts``: record name -> ``Figures`` as a JSON
object, for every record that is not *at rest* after the cycle. At rest means: real
priority at its minimum 0.5, no weighted slot in use, and no idle or matched job in
the cycle. So a record absent from a row was at rest at that time (this keeps a row
small in a pool with thousands of old records), and a row written before the
accounts were recorded has none at all (``history`` says so).

Invariants: the figures are those the state holds after the cycle (the accountant
updated to the cycle's time, this cycle's matches in use), so a point equals what
``userprio --now T`` showed right after the cycle at T; ``eup = max(0.5, rup) x
factor``.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from condorlite.core.accounting import MIN_PRIORITY, AccountantState, effective_priority

#: The history kind of a negotiation cycle row.
CYCLE_KIND = "negotiation_cycle"


@dataclass(frozen=True, slots=True)
class Figures:
    """One account at one cycle: the accountant's figures after it (``rup``, ``eup``,
    ``factor``, ``in_use`` = weighted slots in use, ``slots`` = slots in use,
    ``usage`` = weighted accumulated usage in slot-seconds), its group
    (``group``, "<none>" outside groups; ``is_group`` for a group's own record), and
    what the cycle did for it: ``matched`` (weight), ``matched_jobs``,
    ``rejected_jobs``, ``idle_jobs``."""

    rup: float
    eup: float
    factor: float
    in_use: float
    slots: int
    usage: float
    group: str
    is_group: bool
    matched: float = 0.0
    matched_jobs: int = 0
    rejected_jobs: int = 0
    idle_jobs: int = 0

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Figures:
        """Read back what ``accounts_of`` wrote; unknown keys (a later version's) are
        ignored, missing cycle counts are 0."""
        return cls(
            rup=float(data["rup"]), eup=float(data["eup"]), factor=float(data["factor"]),
            in_use=float(data["in_use"]), slots=int(data["slots"]),
            usage=float(data["usage"]), group=str(data["group"]),
            is_group=bool(data["is_group"]), matched=float(data.get("matched", 0.0)),
            matched_jobs=int(data.get("matched_jobs", 0)),
            rejected_jobs=int(data.get("rejected_jobs", 0)),
            idle_jobs=int(data.get("idle_jobs", 0)),
        )


def accounts_of(state: AccountantState, submitters: list[dict[str, Any]],
                rejections: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The ``accounts`` of a cycle row: every record not at rest (module doc), with
    the cycle's ``submitters`` and ``rejections`` (as ``negotiate --json`` gives them)
    folded in, in name order."""
    cycle = {s["name"]: s for s in submitters}
    rejected: dict[str, int] = {}
    for rej in rejections:
        rejected[rej["submitter"]] = rejected.get(rej["submitter"], 0) + 1
    out: dict[str, dict[str, Any]] = {}
    for name in sorted(state.records):
        rec = state.records[name]
        mine = cycle.get(name)
        if (mine is None and rec.priority <= MIN_PRIORITY
                and rec.weighted_resources_used == 0 and rec.resources_used == 0):
            continue
        figures = Figures(
            rup=max(MIN_PRIORITY, rec.priority), eup=effective_priority(rec),
            factor=rec.priority_factor, in_use=rec.weighted_resources_used,
            slots=rec.resources_used, usage=rec.weighted_accumulated_usage,
            group=rec.accounting_group, is_group=rec.is_accounting_group,
            matched=0.0 if mine is None else float(mine["matched"]),
            matched_jobs=0 if mine is None else int(mine["matched_jobs"]),
            rejected_jobs=rejected.get(name, 0),
            idle_jobs=0 if mine is None else int(mine["idle_jobs"]),
        )
        out[name] = asdict(figures)
    return out
