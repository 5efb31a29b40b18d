"""``condorlite negotiate``: one negotiation cycle, in one state transaction.

What one run does (the contract of ``docs/negotiate.md``, "The command"):

1. read the slot and job ads (``--slots`` / ``--jobs``, else ``SLOTS`` / ``JOBS`` of the
   config) and decode them; an unparsable file stops the run (65) and a missing one
   too (66) before the state is touched; an ad that cannot take part (no Name, no
   ClusterId/ProcId, no Requirements, no Owner, a duplicate) is listed under
   ``problems`` and skipped;
2. in one transaction: bring the accountant up to ``now``; reconcile the stored claims
   with the ads (``core.negotiation.claims.reconcile``), charging ``remove_match`` for every claim
   that ended and ``add_match`` for every claim newly seen in a busy slot ad;
3. run the cycle (``core.negotiation.group_cycle.negotiate``: ``run_cycle``, or with GROUP_NAMES
   the group turns on one pool) with each submitter's EUP, usage, floor and ceiling
   from the accountant (a submitter without a record gets a new one's figures); the
   groups' round-robin times come from the last cycle's history row;
4. charge every preemption (``remove_match``, the slot's claim dropped) and every
   match (``add_match``, a new claim; a piece of a partitionable slot is stored as
   ``<slot>#<job>``);
5. save the accountant and the claims and append a ``negotiation_cycle`` history row
   whose ``data["cycle"]`` holds the cycle's statistics, ``data["demand"]`` each
   submitter's weighted running + idle jobs (``userprio --quotas`` reads it) and, with
   groups, ``data["group_rr_time"]`` (group -> epoch of its last round-robin service).

``--dry-run`` runs steps 1-4 in a read transaction and writes nothing. The two
durations (``duration``: the whole command; ``matchmaking_duration``: the
``run_cycle`` call, in seconds) are wall-clock figures: they appear only in the JSON
``cycle`` object and the history row, never in the human output, so that the same
state, ads, config and ``--now`` print the same text byte for byte.
"""
from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from condorlite.cli import negotiate_view as view
from condorlite.cli._params import ConfigOpt, JsonOpt, LockTimeoutOpt, NowOpt, StateDirOpt
from condorlite.cli._state import DEFAULT_LOCK_TIMEOUT, Clock, ad_paths, open_store
from condorlite.cli.errors import run_command, usage_failure
from condorlite.cli.history_rows import CYCLE_KIND, accounts_of
from condorlite.cli.negotiate_inputs import decode, load_ads, read_inputs
from condorlite.cli.negotiate_run import cycle_data, group_fact, result_data, run_in
from condorlite.cli.negotiate_whatif import apply_edits, changed_policy, compare, parse_what_ifs
from condorlite.cli.render import Result, stderr_console
from condorlite.cli.status import JobsOpt, SlotsOpt
from condorlite.core.accounting import effective_priority
from condorlite.core.negotiation.explain import explain_job
from condorlite.errors import DataError
from condorlite.store.adfiles import (
    collector_paused,
    expand_paths,
)
from condorlite.store.db import StateStore
from condorlite.store.transaction import Transaction


def _history_what(cycle: dict[str, Any]) -> str:
    return (f"{cycle['matches']} matches, {cycle['rejections']} rejections, "
            f"{cycle['idle_jobs']} idle jobs, {cycle['active_submitters']} submitters")


# -- the command -------------------------------------------------------------------------


def run_cycle(slots: list[Any] | None, jobs: list[Any] | None, state_dir: Path,
              now: float, lock_timeout: float, config: Path | None) -> Result:
    """One real cycle at ``now`` (``replay`` runs them on a copy of the state)."""
    return _body(slots, jobs, state_dir, now, False, None, lock_timeout, config,
                 summary=True)


def _what_if_body(slots: list[str] | None, jobs: list[str] | None, state_dir: Path | None,
                  now: str | float | None, texts: list[str], lock_timeout: float,
                  config: Path | None, allow_empty: bool) -> Result:
    """``--what-if``: both cycles in one read transaction (``negotiate_whatif``)."""
    what = parse_what_ifs(texts)
    clock = Clock(now)
    store = open_store(state_dir, lock_timeout, config, write=False)
    changed = changed_policy(what, store.config_path, store.policy)
    loaded = load_ads(slots, jobs, store)
    sides = []
    with store.transaction(write=False) as tx:
        at = clock.read()
        for policy, edit in ((store.policy, None),
                             (changed, apply_edits(what, changed, at))):
            inputs = decode(loaded.slots, loaded.jobs, policy)
            if not inputs.slots and not allow_empty:
                _refuse_empty_pool(tx, slots, store)
            outcome = run_in(tx, inputs, policy, at, demand=False, edit=edit)
            sides.append(result_data(outcome, inputs, cycle_data(outcome, inputs, at, True)))
    data = compare(sides[0], sides[1], what)
    return Result("negotiate", data, lambda console: view.draw_what_if(console, data),
                  sources=(loaded,))


def _body(slots: list[str] | None, jobs: list[str] | None, state_dir: Path | None,
          now: str | float | None, dry_run: bool, explain: str | None,
          lock_timeout: float, config: Path | None, allow_empty: bool = False,
          summary: bool = False) -> Result:
    started = time.perf_counter()
    clock = Clock(now)
    store = open_store(state_dir, lock_timeout, config, write=not dry_run)
    policy = store.policy
    inputs = read_inputs(slots, jobs, store)
    with store.transaction(write=not dry_run) as tx:
        at = clock.read()  # after the lock: see Clock
        if not inputs.slots and not allow_empty:
            _refuse_empty_pool(tx, slots, store)
        outcome = run_in(tx, inputs, policy, at, demand=not dry_run)
        cycle = cycle_data(outcome, inputs, at, dry_run)
        cycle["duration"] = round(time.perf_counter() - started, 6)
        data = result_data(outcome, inputs, {k: cycle[k] for k in sorted(cycle)})
        if not dry_run:
            tx.save_accountant(outcome.accountant)
            tx.save_claim_values(outcome.live.row_values())
            row: dict[str, Any] = {
                "cycle": data["cycle"], "demand": outcome.demand,
                "accounts": accounts_of(outcome.accountant, data["submitters"],
                                        data["rejections"])}
            if outcome.groups is not None:
                row["group_rr_time"] = outcome.rr_time
            tx.add_history(CYCLE_KIND, _history_what(cycle), row, at)
            if policy.history_retention > 0:
                tx.prune_history(at - policy.history_retention)
    if outcome.clock_behind:
        stderr_console().print(
            f"condorlite negotiate: --now is {outcome.clock_behind:g} s before the state's "
            f"last update: nothing was charged or decayed, and the update time was kept",
            markup=False,
        )
    if explain is not None:
        job = next((j for j in inputs.jobs if j.id == explain.strip()), None)
        if job is None:
            # The cycle is cron's and runs whatever the question; a job that left the
            # queue (or a typo) is answered "unknown", with a warning.
            data["explain"] = {"job": explain.strip(), "status": "unknown",
                               "message": f"no job {explain.strip()} in the job ads"}
            stderr_console().print(
                f"condorlite negotiate: warning: no job {explain.strip()} in the job ads "
                f"(give it as ClusterId.ProcId, e.g. 123.0); the cycle ran", markup=False)
        else:
            data["explain"] = explain_job(job, inputs.slots, outcome.result,
                                          outcome.live_claims, at,
                                          group_fact(outcome.groups, job.submitter),
                                          policy.preemption_requirements,
                                          {n: effective_priority(r) for n, r in
                                           outcome.accountant.records.items()})
    return Result("negotiate", data, lambda console: view.draw(console, data, summary),
                  sources=(inputs, outcome))


@contextmanager
def _collector_paused_aging() -> Iterator[None]:
    """``collector_paused`` for the whole command, and what was allocated meanwhile then
    handed to the collector's oldest generation unexamined (``gc.freeze`` then
    ``gc.unfreeze``).

    The cycle allocates millions of small objects and frees them by reference counting
    (it makes no reference cycles worth collecting): with the cyclic collector running,
    its passes over the heap of ads cost about a third of the cycle on the 10,000-slot
    benchmark pool. It stays paused while the result is rendered too. Re-enabled as
    it is, its first pass would walk every object allocated while it was paused (all
    still in the youngest generation), about 0.3 s on that pool, to find nothing.
    """
    with collector_paused():
        try:
            yield
        finally:
            gc.freeze()
            gc.unfreeze()


def _refuse_empty_pool(tx: Transaction, slots: list[str] | None, store: StateStore) -> None:
    """No slot ad was read: if claims are recorded, that looks like a failed dump (a
    pool does not vanish between two cycles), and ending every claim would stop all
    usage; refuse, naming what was read, unless ``--allow-empty`` says it is real."""
    claims = tx.load_claim_values()
    if not claims:
        return
    paths = ad_paths(slots, store.policy.slots, store.config_path, "slot", "--slots")
    files = expand_paths([p for p in paths if str(p) != "-"])
    read = ", ".join(str(p) for p in paths)
    raise DataError(
        f"no slot ads were read from {read} ({len(files)} ad file(s)); ending all "
        f"{len(claims)} recorded claims would look like a failed dump",
        hint="if the pool really is empty, run again with --allow-empty",
    )


def register(app: typer.Typer) -> None:
    @app.command("negotiate")
    def negotiate(
        slots: SlotsOpt = None,
        jobs: JobsOpt = None,
        state_dir: StateDirOpt = None,
        config: ConfigOpt = None,
        now: NowOpt = None,
        dry_run: Annotated[bool, typer.Option(
            "--dry-run", help="Run the cycle and print it, but write nothing.")] = False,
        explain: Annotated[str | None, typer.Option(
            "--explain", metavar="JOBID",
            help="Also explain where one idle job (ClusterId.ProcId) stands.")] = None,
        lock_timeout: LockTimeoutOpt = DEFAULT_LOCK_TIMEOUT,
        allow_empty: Annotated[bool, typer.Option(
            "--allow-empty",
            help="Accept reading no slot ad at all (every recorded claim then ends).",
        )] = False,
        summary: Annotated[bool, typer.Option(
            "--summary",
            help="Print totals, submitters and problems, not every match (for cron).",
        )] = False,
        what_if: Annotated[list[str] | None, typer.Option(
            "--what-if", metavar="CHANGE",
            help="Run the cycle as it is and after CHANGE (an edit such as 'setfactor "
            "NAME 500', or KNOB=VALUE; repeatable) and print the difference; writes "
            "nothing.")] = None,
        as_json: JsonOpt = False,
    ) -> None:
        """Run one negotiation cycle: match idle jobs to slots in fair-share order."""
        if what_if:
            if explain is not None:
                run_command("negotiate", as_json,
                            usage_failure("--what-if and --explain exclude each other"))
            with _collector_paused_aging():
                run_command("negotiate", as_json, lambda: _what_if_body(
                    slots, jobs, state_dir, now, list(what_if), lock_timeout, config,
                    allow_empty))
            return
        with _collector_paused_aging():
            run_command("negotiate", as_json, lambda: _body(
                slots, jobs, state_dir, now, dry_run, explain, lock_timeout, config,
                allow_empty, summary))
