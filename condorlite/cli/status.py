"""``condorlite status``: the pool, its submitters, the last negotiation cycle, the claims.

Four views, the first three as HTCondor's ``condor_status`` shows them, each a module
that gathers its data (JSON-ready) and draws it:

* default: one row per slot ad, then the totals per platform (``cli.pool_view``);
* ``--submitters``: like ``condor_status -submitters``, one row per submitter and
  schedd machine, then the totals per submitter (``cli.submitters_view``);
* ``--negotiator``: the statistics of the last cycle ``negotiate`` recorded (here);
* ``--claims``: the claims stored in the state (``cli.claims_view``): slot, job,
  submitter, weight, since when, and whether matched, observed or pending.

Every view ends with the state directory, its schema version and the last cycle time.
The slot and submitter views read ads only and need no state (as condor_status needs no
accountant); the negotiator and claims views are the state's. Several views asked for
at once print in the order above, separated by a blank line.
"""

from __future__ import annotations

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
from condorlite.cli.pool_view import draw_pool, pool_data
from condorlite.cli.render import Result, local_stamp, print_text
from condorlite.cli.submitters_view import draw_submitters, submitters_data
from condorlite.errors import NoStateError
from condorlite.store.adfiles import read_ads
from condorlite.store.db import policy_without_state

SlotsOpt = Annotated[list[str] | None, typer.Option(
    "--slots", help="Slot ad file, directory or - (repeatable; default: SLOTS in the config).")]
JobsOpt = Annotated[list[str] | None, typer.Option(
    "--jobs", help="Job ad file, directory or - (repeatable; default: JOBS in the config).")]


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
        draws.append(lambda c: draw_pool(c, pool))
    if show_submitters:
        paths = ad_paths(jobs, policy.jobs, config_path, "job", "--jobs")
        subs = submitters_data([loaded.ad for loaded in read_ads(paths, stdin=sys.stdin)],
                               policy)
        data["submitters"] = subs
        draws.append(lambda c: draw_submitters(c, subs))
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
