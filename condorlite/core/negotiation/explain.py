"""Why one job does or does not match the slots: the facts behind ``negotiate --explain``.

A ``Requirements`` expression is read as a list of *clauses*: its top-level ``&&``
operands, looking through parentheses (``(A) && ((B) && C)`` has clauses A, B, C). For
each slot the job's clauses are evaluated in order with MY = job and TARGET = slot,
and the first one that does not hold is charged to that slot; when all the job's
clauses hold, the slot's own Requirements clauses are tried the same way with MY =
slot and TARGET = job. A clause "holds" as Requirements do (``requirements_hold``):
boolean true or a non-zero number. When the failing clause is a bare reference to an
attribute of the same ad (the slot's ``START`` in ``START && WithinResourceLimits``),
its expression is split and tried in turn, up to ``MAX_DEPTH`` levels, and the clause
is named ``START: <inner clause>``.

So every slot that does not match is counted exactly once, under the first clause that
stops it; the counts are grouped by (side, clause, value) and listed most slots first,
then job side before slot side, then clause text. Slots are the ads as read (a
partitionable slot with all its resources), not what the cycle left of them.
"""

from __future__ import annotations

from typing import Any

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import AttrRef, Binary, Expr, Paren
from condorlite.core.classad.printer import unparse
from condorlite.core.classad.values import Error, Undefined
from condorlite.core.model import JOB_STATUS_NAMES, Claim, CycleResult, Job, Slot

MAX_DEPTH = 3


def clauses(expr: Expr) -> list[Expr]:
    """The top-level ``&&`` operands of ``expr``, through parentheses, left to right."""
    while isinstance(expr, Paren):
        expr = expr.inner
    if isinstance(expr, Binary) and expr.op == "&&":
        return clauses(expr.left) + clauses(expr.right)
    return [expr]


def _holds(value: object) -> bool:
    if value is True:
        return True
    return type(value) in (int, float) and value != 0


def _kind(value: object) -> str:
    if value is False:
        return "false"
    if value is Undefined:
        return "undefined"
    if value is Error:
        return "error"
    return "not a boolean"


def _strip(expr: Expr) -> Expr:
    while isinstance(expr, Paren):
        expr = expr.inner
    return expr


def first_failure(expr: Expr, my: ClassAd, target: ClassAd, now: float,
                  depth: int = 0) -> tuple[str, str] | None:
    """(clause text, value kind) of the first clause of ``expr`` that does not hold, or
    None when every clause holds."""
    for clause in clauses(expr):
        value = adeval.eval_expr(clause, my, target, now)
        if _holds(value):
            continue
        text = unparse(clause)
        inner = _strip(clause)
        if (depth < MAX_DEPTH and isinstance(inner, AttrRef)
                and inner.scope in (None, "my")):
            bound = adeval.attr(my, inner.name)
            if bound is not None:
                deeper = first_failure(bound, my, target, now, depth + 1)
                if deeper is not None and deeper[0] != unparse(bound):
                    return f"{text}: {deeper[0]}", deeper[1]
        return text, _kind(value)
    return None


def _slot_failure(job: Job, slot: Slot, now: float) -> tuple[str, str, str] | None:
    """(side, clause, value) stopping this pair, or None when they match."""
    for side, my, target in (("job", job.ad, slot.ad), ("slot", slot.ad, job.ad)):
        if adeval.requirements_hold(my, target, now=int(now)):
            continue
        expr = adeval.attr(my, "Requirements")
        if expr is None:
            return side, "Requirements", "undefined"
        found = first_failure(expr, my, target, now)
        # Every clause can hold while the whole does not (e.g. a number && a boolean is
        # an error); then the whole expression is the culprit.
        if found is None:
            value = adeval.eval_attr(my, "Requirements", target, now)
            return side, unparse(expr), _kind(value)
        return side, found[0], found[1]
    return None


def _outcome(job: Job, result: CycleResult, claims: list[Claim]) -> str:
    if not job.idle:
        return f"not negotiated: the job is {JOB_STATUS_NAMES.get(job.status, job.status)}"
    held = [c.slot for c in claims if c.job == job.id]
    note = result.notes.get(job.id)
    if note is not None:
        return note
    if held:
        return f"not negotiated: it already holds a claim on {held[0]}"
    return ("not reached: its submitter's turns ended (limit, ceiling or no slots left) "
            "before this job came up")


def _plain(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def holders(job: Job, matching: list[str], result: CycleResult, claims: list[Claim],
            preemption_requirements: str | None,
            priorities: dict[str, float] | None = None) -> dict[str, Any] | None:
    """Who holds the slots that match ``job`` both ways, after the cycle (None when the
    job was matched, or no matching slot is held).

    ``slots``: how many of the ``matching`` slot names a claim names; ``by``: per
    holder (most slots first, then name) its slot count and effective priority (from
    ``priorities``, every record's EUP, else from the cycle's submitters; null when
    neither knows it), and ``worse``: whether that EUP is higher
    (worse) than the job's submitter's, which priority preemption needs;
    ``preemption_requirements`` the policy text, and ``priority_preemption`` false when
    it is the literal False (HTCondor's default: only a slot's Rank can preempt)."""
    if any(m.job == job.id for m in result.matches):
        return None
    names = set(matching)
    counts: dict[str, int] = {}
    for claim in claims:
        if claim.slot in names and claim.job != job.id:
            counts[claim.submitter] = counts.get(claim.submitter, 0) + 1
    if not counts:
        return None
    eup = {s.name: s.effective_priority for s in result.submitters}
    eup.update(priorities or {})
    mine = eup.get(job.submitter)
    by = [{"submitter": who, "slots": n, "effective_priority": eup.get(who),
           "worse": mine is not None and eup.get(who) is not None and eup[who] > mine}
          for who, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    text = preemption_requirements
    off = text is not None and text.strip().lower() == "false"
    return {"slots": sum(counts.values()), "matching": len(matching), "by": by,
            "preemption_requirements": text, "priority_preemption": not off}


def explain_job(job: Job, slots: list[Slot], result: CycleResult, claims: list[Claim],
                now: float, group: dict[str, Any] | None = None,
                preemption_requirements: str | None = None,
                priorities: dict[str, float] | None = None) -> dict[str, Any]:
    """Where ``job`` stands after ``result`` (JSON-ready; see the module doc).

    ``group`` (with accounting groups) holds the figures of the job's group,
    ``capped_by``: the group (itself or an ancestor) that refuses surplus and held it at
    quota this cycle, or None, and ``limit_reached``: the group's usage reached its last
    turn's limit. An idle job left unmatched while ``capped_by`` is set waits because
    of that quota; else while ``limit_reached``, because of its group's turn limit. The
    outcome says so, and ``detail`` keeps the negotiator's own note."""
    counts: dict[tuple[str, str, str], int] = {}
    job_true = matching = 0
    matching_names: list[str] = []
    for slot in slots:
        failure = _slot_failure(job, slot, now)
        if failure is None:
            matching += 1
            job_true += 1
            matching_names.append(slot.name)
            continue
        if failure[0] == "slot":
            job_true += 1
        counts[failure] = counts.get(failure, 0) + 1
    failing = [{"side": side, "clause": clause, "value": value, "slots": n}
               for (side, clause, value), n in sorted(
                   counts.items(), key=lambda kv: (-kv[1], kv[0][0] != "job", kv[0][1],
                                                   kv[0][2]))]
    report = next((s for s in result.submitters if s.name == job.submitter), None)
    figures = None if report is None else {
        "effective_priority": report.effective_priority, "share": report.share,
        "limit": report.limit, "usage": report.usage, "matched": report.matched,
        "matched_jobs": report.matched_jobs, "idle_jobs": report.idle_jobs,
    }
    match = next((m for m in result.matches if m.job == job.id), None)
    outcome = _outcome(job, result, claims)
    detail = None
    if group is not None and match is None and job.idle and group.get("capped_by"):
        detail = outcome
        cap = group["capped_by"]
        whose = "its group" if cap == group["name"] else "its group's ancestor"
        outcome = (f"waiting: {whose} {cap} is at its quota and does not accept surplus "
                   f"(GROUP_ACCEPT_SURPLUS_{cap} false)")
    elif group is not None and match is None and job.idle and group.get("limit_reached"):
        # Surplus is allowed, but the turn's limit comes from the allocation, which
        # comes from the group's demand (requested cores): wide slots can fill it first.
        detail = outcome
        outcome = (f"waiting: its group {group['name']} reached its turn limit of "
                   f"{_plain(group['last_turn_limit'])} (allocation {group['allocated']:g} from "
                   f"a demand of {group['requested']:g})")
    return {
        "job": job.id,
        "submitter": job.submitter,
        "status": JOB_STATUS_NAMES.get(job.status, str(job.status)),
        "autocluster": result.autocluster_of.get(job.id),
        "submitter_figures": figures,
        "slots": len(slots),
        "job_requirements_hold": job_true,
        "matching_slots": matching,
        "failing": failing,
        "matched_slot": None if match is None else match.slot,
        "outcome": outcome,
        "detail": detail,
        "group": group,
        "held": holders(job, matching_names, result, claims, preemption_requirements,
                        priorities) if job.idle else None,
    }
