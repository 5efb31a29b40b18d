"""``negotiate --what-if CHANGE``: the cycle as it is and as it would be after CHANGE.

A CHANGE is an accountant edit as its command is spelled (``setfactor alice@x 500``,
``setprio``, ``setaccum``, ``setceiling``, ``setfloor``, ``resetusage``, ``delete``,
``resetall``; any edit command) or a knob (``GROUP_QUOTA_group_physics=40``,
``PRIORITY_HALFLIFE=3600``, ``PREEMPTION_REQUIREMENTS=RemoteUserPrio > 2``: the value is
TOML when it reads as TOML, else text). Every change given is applied together.

Both cycles run in ONE read transaction on the same state and the same ads (read once,
decoded once per policy): first as things are, then with the knobs in the policy and
the edits applied to the accountant once it is brought up to ``--now``, as an edit
command at ``--now`` would do. Nothing is written (``--what-if`` implies ``--dry-run``).

The difference, from the two cycles' ``negotiate --json`` data:

* per submitter (either cycle): EUP, share, limit, weight matched and jobs matched
  and rejected, before and after, and ``gained`` = weight matched after - before;
* per group (with GROUP_NAMES): effective quota, allocation, weight matched;
* the jobs whose outcome changed, in job order, each with ``change``: ``status`` when
  it was matched in one cycle and rejected or left out (neither matched nor rejected:
  the cycle ended before reaching it) in the other, or rejected for another reason;
  ``slot`` when it was matched in both, to another slot or for another reason.

Submitters come in name order, groups in name order; the output is deterministic.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any

from condorlite.cli.edit import EDITS, EditSpec, target_of
from condorlite.core import accounting as acct
from condorlite.core.accounting import AccountantState
from condorlite.core.policy import Policy
from condorlite.errors import CondorliteError, UsageError
from condorlite.store.config import policy_with

#: The edit commands a change may name (resetall takes no name).
EDIT_BY_COMMAND: dict[str, EditSpec] = {spec.command: spec for spec in EDITS}


@dataclass(frozen=True)
class EditChange:
    """One accountant edit: the spec, the record it names and its value."""

    text: str
    spec: EditSpec | None  # None: resetall
    name: str | None
    value: Any


@dataclass
class WhatIf:
    """The changes of one run: edits in the order given, knobs by name."""

    texts: list[str]
    edits: list[EditChange] = field(default_factory=list)
    knobs: dict[str, str] = field(default_factory=dict)


def _edit(text: str, words: list[str]) -> EditChange:
    command, args = words[0], words[1:]
    if command == "resetall":
        if args:
            raise UsageError(f"--what-if {text!r}: resetall takes no argument")
        return EditChange(text, None, None, None)
    spec = EDIT_BY_COMMAND.get(command)
    if spec is None:
        known = ", ".join([*EDIT_BY_COMMAND, "resetall"])
        raise UsageError(f"--what-if {text!r}: not an edit ({known}) nor KNOB=VALUE")
    wanted = 1 if spec.value_type is None else 2
    if len(args) != wanted:
        form = "NAME" if wanted == 1 else f"NAME {spec.value_name}"
        raise UsageError(f"--what-if {text!r}: {command} takes {form}")
    value = None
    if spec.value_type is not None:
        try:
            value = spec.value_type(args[1])
        except ValueError:
            raise UsageError(f"--what-if {text!r}: {args[1]!r} is not a "
                             f"{spec.value_type.__name__}") from None
    return EditChange(text, spec, args[0], value)


def parse_what_ifs(texts: list[str]) -> WhatIf:
    """The changes of ``--what-if`` options; a bad one is a usage error naming it."""
    out = WhatIf(list(texts))
    for text in texts:
        knob, eq, value = text.partition("=")
        if eq and knob.strip() and " " not in knob.strip():
            out.knobs[knob.strip()] = value
            continue
        try:
            words = shlex.split(text)
        except ValueError as exc:
            raise UsageError(f"--what-if {text!r}: {exc}") from None
        if not words:
            raise UsageError("--what-if needs an edit or KNOB=VALUE")
        out.edits.append(_edit(text, words))
    return out


def changed_policy(what: WhatIf, config_path, policy: Policy) -> Policy:  # type: ignore[no-untyped-def]
    """The policy with the knobs of ``what`` (the same policy without any)."""
    if not what.knobs:
        return policy
    try:
        return policy_with(config_path, what.knobs)
    except CondorliteError as exc:
        raise UsageError(f"--what-if: {exc.message}") from None


def apply_edits(what: WhatIf, policy: Policy, now: float):  # type: ignore[no-untyped-def]
    """A function that applies the edits of ``what`` to an accountant at ``now`` (None
    without edits); a bad name or value is a usage error naming the change."""
    if not what.edits:
        return None

    def edit(state: AccountantState) -> AccountantState:
        for change in what.edits:
            try:
                if change.spec is None:
                    state = acct.reset_all(state, now)
                    continue
                target = target_of(change.spec, change.name, state, policy)
                if change.spec.value_type is None:
                    state = change.spec.apply(state, policy, target, now)
                else:
                    state = change.spec.apply(state, policy, target, change.value, now)
            except CondorliteError as exc:
                raise UsageError(f"--what-if {change.text!r}: {exc.message}") from None
        return state

    return edit


# -- the difference ------------------------------------------------------------------------

#: Per-submitter figures compared, as ``negotiate --json`` names them.
SUBMITTER_FIELDS = ("effective_priority", "share", "limit", "usage", "matched",
                    "matched_jobs", "idle_jobs")
#: Per-group figures compared.
GROUP_FIELDS = ("effective_quota", "allocated", "matched", "usage_after")


def _outcomes(data: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for m in data["matches"]:
        out[m["job"]] = {"status": "matched", "submitter": m["submitter"], "slot": m["slot"],
                         "reason": m["reason"]}
    for r in data["rejections"]:
        out.setdefault(r["job"], {"status": "rejected", "submitter": r["submitter"],
                                  "reason": r["reason"]})
    return out


def _job_key(job: str) -> tuple[int, int, str]:
    cluster, _, proc = job.partition(".")
    ok = cluster.isdigit() and proc.isdigit()
    return (int(cluster), int(proc), "") if ok else (-1, -1, job)


def _rejected_by(data: dict[str, Any]) -> dict[str, int]:
    out: dict[str, int] = {}
    for r in data["rejections"]:
        out[r["submitter"]] = out.get(r["submitter"], 0) + 1
    return out


def _side(row: dict[str, Any] | None, fields: tuple[str, ...], extra: dict[str, Any]
          ) -> dict[str, Any] | None:
    if row is None:
        return None
    return {**{k: row.get(k) for k in fields}, **extra}


def compare(before: dict[str, Any], after: dict[str, Any], what: WhatIf) -> dict[str, Any]:
    """The ``data`` of a what-if run (module doc) from the two cycles' JSON data."""
    subs_b = {s["name"]: s for s in before["submitters"]}
    subs_a = {s["name"]: s for s in after["submitters"]}
    rej_b, rej_a = _rejected_by(before), _rejected_by(after)
    submitters = []
    for name in sorted(subs_b.keys() | subs_a.keys()):
        b = _side(subs_b.get(name), SUBMITTER_FIELDS, {"rejected_jobs": rej_b.get(name, 0)})
        a = _side(subs_a.get(name), SUBMITTER_FIELDS, {"rejected_jobs": rej_a.get(name, 0)})
        gained = (a["matched"] if a else 0) - (b["matched"] if b else 0)
        submitters.append({"name": name, "before": b, "after": a, "gained": gained})
    grp_b = {g["name"]: g for g in before["groups"]}
    grp_a = {g["name"]: g for g in after["groups"]}
    groups = []
    for name in sorted(grp_b.keys() | grp_a.keys()):
        b, a = _side(grp_b.get(name), GROUP_FIELDS, {}), _side(grp_a.get(name), GROUP_FIELDS, {})
        gained = (a["matched"] if a else 0) - (b["matched"] if b else 0)
        groups.append({"name": name, "before": b, "after": a, "gained": gained})
    out_b, out_a = _outcomes(before), _outcomes(after)
    jobs = []
    for job in sorted(out_b.keys() | out_a.keys(), key=_job_key):
        b, a = out_b.get(job), out_a.get(job)
        if b != a:
            same = b is not None and a is not None and b["status"] == a["status"] == "matched"
            jobs.append({"job": job, "change": "slot" if same else "status",
                         "before": b, "after": a})
    totals = {side: {k: data["cycle"][k] for k in ("matches", "rejections", "pie_spins")}
              for side, data in (("before", before), ("after", after))}
    return {"what_if": what.texts, "time": before["cycle"]["time"], "cycles": totals,
            "submitters": submitters, "groups": groups, "jobs": jobs,
            "problems": before["problems"]}
