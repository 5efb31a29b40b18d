"""``condorlite sge clearusage [NAME...]``: reset the recorded share-tree usage as
``qconf -clearusage`` does (``core.sge.usage.cleared``): every user's and project's
decayed usage becomes 0 and each user's per-project usage goes; long-term usage, the
records' time stamps and what was charged for running tasks stay (so a running task
is charged only what it uses from now on, as in Grid Engine).

With NAMEs only those users and projects are reset (Grid Engine's qconf has no names;
``qconf -Muser`` resets one user). A NAME with no recorded usage is exit 1 and nothing
is written. One write transaction under the state lock, with an ``sge_clearusage``
history row at ``--now``.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from condorlite.cli._params import ConfigOpt, JsonOpt, LockTimeoutOpt, NowOpt, StateDirOpt
from condorlite.cli._state import DEFAULT_LOCK_TIMEOUT, Clock, open_store
from condorlite.cli.errors import run_command
from condorlite.cli.render import Result, print_text
from condorlite.core.sge.usage import cleared
from condorlite.errors import DomainError
from condorlite.store import sge_state

CLEAR_KIND = "sge_clearusage"


def _clear(names: tuple[str, ...], state_dir: Path | None, config: Path | None,
           now: str | float | None, lock_timeout: float) -> Result:
    clock = Clock(now)
    store = open_store(state_dir, lock_timeout, config, write=True)
    with store.transaction(write=True) as tx:
        at = clock.read()
        state = sge_state.load(tx)
        known = {k.name for k in state.records}
        unknown = sorted(set(names) - known)
        if unknown:
            raise DomainError(
                f"no recorded usage for {', '.join(unknown)}",
                hint=f"recorded: {', '.join(sorted(known)) or 'nobody'}")
        records, touched = cleared(state.records, names)
        sge_state.save(tx, replace(state, records=records))
        rows: list[dict[str, Any]] = [
            {"kind": k.kind, "name": k.name, "project": k.project or None} for k in touched]
        data = {"time": at, "names": list(names), "cleared": rows}
        tx.add_history(CLEAR_KIND, f"cleared {len(rows)} usage record(s)", data, at)

    def human(console: Console) -> None:
        lines = [f"cleared {r['kind']} {r['name']}"
                 + (f" (in project {r['project']})" if r["project"] else "") for r in rows]
        print_text(console, "\n".join(lines or ["no usage was recorded"]))

    return Result("sge clearusage", data, human)


def register(app: typer.Typer) -> None:
    @app.command("clearusage")
    def clearusage(
        names: Annotated[list[str] | None, typer.Argument(
            metavar="NAME", help="Users or projects to reset (default: all).")] = None,
        now: NowOpt = None,
        lock_timeout: LockTimeoutOpt = DEFAULT_LOCK_TIMEOUT,
        as_json: JsonOpt = False,
        config: ConfigOpt = None,
        state_dir: StateDirOpt = None,
    ) -> None:
        """Reset the recorded share-tree usage (all, or the named users and projects),
        as qconf -clearusage does."""
        run_command("sge clearusage", as_json, lambda: _clear(
            tuple(names or ()), state_dir, config, now, lock_timeout))
