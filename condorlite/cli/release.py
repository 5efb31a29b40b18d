"""``condorlite release``: end stored claims by hand (HTCondor's ``RemoveMatch``).

::

    condorlite release JOBID [JOBID ...]     # every claim naming these jobs
    condorlite release --slot NAME [--slot NAME ...]

What names what (exactly one of the two forms per run):

* ``JOBID`` is ``ClusterId.ProcId`` (every claim whose job is that one) or a bare
  ``ClusterId`` (every claim of a job of that cluster); numbers compare as numbers, so
  ``007.0`` is ``7.0``. Claims whose job id is not of that form are named by slot only.
* ``--slot NAME`` is a stored claim's slot exactly (a static or dynamic slot's Name, or
  a piece of a partitionable slot, stored as ``<pslot Name>#<job id>``), or the Name of
  a partitionable slot: every piece carved from it.

The run is ONE write transaction: every argument is resolved first, and an argument
that names no claim stops the run (exit 1) before anything is written. Then the
accountant is brought up to ``--now`` (``update_priorities``: decay and the usage of
every claim charged up to now), each released claim is charged ``remove_match``
(its submitter and, with groups, its group stop paying its weight from now), the
claims are saved without them and one history row of kind ``edit`` is appended
(``data.command = "release"``, ``data.claims`` the released claims). ``--dry-run``
does the same in a read transaction and writes nothing.

A released claim is forgotten, not forbidden: a slot ad that still shows the slot
claimed gives its user an observed claim again at the next ``negotiate``, and a job
still idle in the job input may be matched again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from condorlite.cli._params import ConfigOpt, JsonOpt, LockTimeoutOpt, NowOpt, StateDirOpt
from condorlite.cli._state import DEFAULT_LOCK_TIMEOUT, Clock, open_store
from condorlite.cli.claims_view import claim_json
from condorlite.cli.errors import run_command
from condorlite.cli.render import Result, plain, print_text, real
from condorlite.core import accounting as acct
from condorlite.core.accounting import AccountantState, ClaimRow
from condorlite.core.policy import Policy
from condorlite.errors import DomainError, UsageError

HISTORY_KIND = "edit"
CLAIMS_HINT = "condorlite status --claims lists the stored claims"
_JOB_ID = re.compile(r"(\d+)(?:\.(\d+))?")


# -- naming claims -----------------------------------------------------------------------


@dataclass(frozen=True)
class JobRef:
    """One JOBID argument: a cluster, and a proc unless the whole cluster is meant."""

    text: str
    cluster: int
    proc: int | None

    def names(self, row: ClaimRow) -> bool:
        found = _JOB_ID.fullmatch(row.job)
        if found is None or found.group(2) is None:
            return False
        return int(found.group(1)) == self.cluster and (
            self.proc is None or int(found.group(2)) == self.proc)


def parse_job_ref(text: str) -> JobRef:
    """``C.P`` or ``C`` (digits only); anything else is a usage error naming it."""
    found = _JOB_ID.fullmatch(text.strip())
    if found is None:
        raise UsageError(f"JOBID {text!r} is not ClusterId.ProcId or ClusterId "
                         "(e.g. 123.0 or 123)")
    proc = None if found.group(2) is None else int(found.group(2))
    return JobRef(text, int(found.group(1)), proc)


def slot_names(name: str, row: ClaimRow) -> bool:
    """True when ``--slot name`` names the claim: its slot exactly, or the
    partitionable slot it was carved from."""
    return row.slot == name or (row.extra or {}).get("partitionable") == name


def select(rows: list[ClaimRow], jobs: list[str], slots: list[str]) -> list[ClaimRow]:
    """The claims the arguments name, each once, sorted by slot.

    Raises UsageError for a malformed JOBID and DomainError listing every argument
    that names no stored claim (so one run reports all of them)."""
    refs = [parse_job_ref(text) for text in jobs]
    picked: dict[str, ClaimRow] = {}
    unknown: list[str] = []
    for ref in refs:
        hits = [row for row in rows if ref.names(row)]
        unknown += [] if hits else [f"job {ref.text}"]
        picked.update((row.slot, row) for row in hits)
    for name in slots:
        hits = [row for row in rows if slot_names(name, row)]
        unknown += [] if hits else [f"slot {name}"]
        picked.update((row.slot, row) for row in hits)
    if unknown:
        raise DomainError(f"no stored claim of {', '.join(unknown)}", hint=CLAIMS_HINT)
    return [picked[slot] for slot in sorted(picked)]


# -- the transaction ---------------------------------------------------------------------


def release(state: AccountantState, policy: Policy, released: list[ClaimRow],
            now: float) -> AccountantState:
    """The accountant at ``now`` with every claim of ``released`` ended: priorities
    updated first, then ``remove_match(submitter, weight)`` per claim in slot order."""
    state = acct.update_priorities(state, policy, now)
    for row in released:
        state = acct.remove_match(state, policy, row.submitter, row.weight, now)
    return state


def usage_json(state: AccountantState, names: list[str]) -> list[dict[str, Any]]:
    """Each named record's usage after the release (a record may have been recreated)."""
    out = []
    for name in names:
        rec = state.records.get(name)
        out.append({"name": name,
                    "resources_used": 0 if rec is None else rec.resources_used,
                    "weighted_resources_used": 0 if rec is None
                    else real(rec.weighted_resources_used)})
    return out


def _what(released: list[ClaimRow]) -> str:
    parts = [f"{row.slot} (job {row.job or '-'}, {row.submitter})" for row in released]
    return f"released {len(released)} claim{'s' if len(released) != 1 else ''}: " \
           + ", ".join(parts)


def _body(job_ids: list[str] | None, slots: list[str] | None, state_dir: Path | None,
          config: Path | None, now: str | float | None, dry_run: bool,
          lock_timeout: float) -> Result:
    job_ids, slots = list(job_ids or []), list(slots or [])
    if bool(job_ids) == bool(slots):
        raise UsageError("give JOBID(s) or --slot NAME, exactly one of the two")
    for ref in job_ids:
        parse_job_ref(ref)  # a malformed id is a usage error before the state is opened
    clock = Clock(now)
    store = open_store(state_dir, lock_timeout, config)
    policy = store.policy
    with store.transaction(write=not dry_run) as tx:
        at = clock.read()  # after the lock: see Clock
        rows = tx.load_claims()
        released = select(rows, job_ids, slots)
        state = release(tx.load_accountant(), policy, released, at)
        gone = {row.slot for row in released}
        if not dry_run:
            tx.save_accountant(state)
            tx.save_claims([row for row in rows if row.slot not in gone])
            tx.add_history(HISTORY_KIND, _what(released), {
                "command": "release", "claims": [claim_json(r) for r in released],
                "jobs": job_ids, "slots": slots}, at)
    submitters = sorted({row.submitter for row in released})
    data = {"released": [claim_json(r) for r in released],
            "usage": usage_json(state, submitters), "dry_run": dry_run}
    return Result("release", data, lambda console: _draw(console, data))


def _draw(console: Console, data: dict[str, Any]) -> None:
    verb = "Would release" if data["dry_run"] else "Released"
    lines = []
    for claim in data["released"]:
        lines.append(f"{verb} the claim of {claim['slot']} (job {claim['job'] or '-'}, "
                     f"{claim['submitter']}, weight {plain(claim['weight'])})")
    for use in data["usage"]:
        lines.append(f"{use['name']} now uses {plain(use['weighted_resources_used'])} (weighted) "
                     f"in {use['resources_used']} slot(s)")
    observed = [c["slot"] for c in data["released"] if c["observed"]]
    if observed:
        lines.append(f"Note: {', '.join(observed)} came from slot ads; while an ad still "
                     "shows the slot claimed, the next negotiate counts it again.")
    if data["dry_run"]:
        lines.append("(dry run: nothing was written)")
    print_text(console, "\n".join(lines))


def register(app: typer.Typer) -> None:
    @app.command("release")
    def release_command(
        job_ids: Annotated[list[str] | None, typer.Argument(
            metavar="JOBID",
            help="ClusterId.ProcId, or ClusterId for every job of the cluster.")] = None,
        slot: Annotated[list[str] | None, typer.Option(
            "--slot", metavar="NAME",
            help="A claimed slot's Name, <pslot>#<job> for one piece, or a partitionable "
                 "slot's Name for all its pieces (repeatable).")] = None,
        state_dir: StateDirOpt = None,
        config: ConfigOpt = None,
        now: NowOpt = None,
        dry_run: Annotated[bool, typer.Option(
            "--dry-run", help="Show what would be released, but write nothing.")] = False,
        lock_timeout: LockTimeoutOpt = DEFAULT_LOCK_TIMEOUT,
        as_json: JsonOpt = False,
    ) -> None:
        """End stored claims by hand: charge the accountant and forget them."""
        run_command("release", as_json, lambda: _body(
            job_ids, slot, state_dir, config, now, dry_run, lock_timeout))
