"""The accountant edits: setprio, setfactor, setaccum, setbegin, setlast, setceiling,
setfloor, resetusage, resetall, delete (``condor_userprio -setprio`` and friends).

Each edit runs in one write transaction: priorities are first brought up to ``--now``
(so the edit happens "at now" and later decay starts from it), then the edit is
applied, saved and recorded in the history table. The confirmation printed is the one
``condor_userprio`` prints; ``--json`` returns the record after the change.
"""

# No "from __future__ import annotations": Typer must see the Annotated metadata of
# the commands built in a loop below as objects, not as text naming a closure variable.

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any

import typer

from condorlite.cli._params import ConfigOpt, JsonOpt, LockTimeoutOpt, NowOpt, StateDirOpt
from condorlite.cli._state import DEFAULT_LOCK_TIMEOUT, Clock, open_store
from condorlite.cli.errors import run_command
from condorlite.cli.render import Result, print_text, stderr_console
from condorlite.cli.userprio import record_json
from condorlite.core import accounting as acct
from condorlite.core.accounting import AccountantState


@dataclass(frozen=True)
class EditSpec:
    """One edit command: how it changes the state and what it prints."""

    command: str
    help: str
    apply: Callable[..., AccountantState]
    message: Callable[[str, Any], str]
    value_type: type | None = None
    value_name: str = "VALUE"


EDITS: tuple[EditSpec, ...] = (
    EditSpec("setprio", "Set the real priority of NAME (>= 0).", acct.set_priority,
             lambda n, v: f"The priority of {n} was set to {v:f}", float),
    EditSpec("setfactor", "Set the priority factor of NAME (>= 1).", acct.set_factor,
             lambda n, v: f"The priority factor of {n} was set to {v:f}", float),
    EditSpec("setaccum", "Set the accumulated (weighted) usage of NAME, in seconds.",
             acct.set_accumulated_usage,
             lambda n, v: f"The Accumulated Usage of {n} was set to {v:f}", float, "SECONDS"),
    EditSpec("setbegin", "Set the usage start time of NAME (epoch seconds).",
             acct.set_begin_usage_time,
             lambda n, v: f"The Begin Usage Time of {n} was set to {v:d}", int, "EPOCH"),
    EditSpec("setlast", "Set the last usage time of NAME (epoch seconds).",
             acct.set_last_usage_time,
             lambda n, v: f"The Last Usage Time of {n} was set to {v:d}", int, "EPOCH"),
    EditSpec("setceiling", "Set the ceiling of NAME (slots; -1 unlimited).", acct.set_ceiling,
             lambda n, v: f"The ceiling of {n} was set to {v:d}", int, "N"),
    EditSpec("setfloor", "Set the floor of NAME (slots; 0 none).", acct.set_floor,
             lambda n, v: f"The floor of {n} was set to {v:d}", int, "N"),
    EditSpec("resetusage", "Reset the accumulated usage of NAME to zero.",
             lambda st, _p, n, now: acct.reset_usage(st, n, now),
             lambda n, _v: f"The accumulated usage of {n} was reset"),
    EditSpec("delete", "Remove the accountant record NAME.",
             lambda st, _p, n, _now: acct.delete(st, n),
             lambda n, _v: f"The accountant record named {n} was deleted"),
)


def run_edit(
    spec: EditSpec, name: str | None, value: Any, state_dir, now: str | float | None,
    lock_timeout: float, config=None,
) -> Result:
    """Apply one edit in one write transaction and describe the outcome."""
    clock = Clock(now)
    store = open_store(state_dir, lock_timeout, config)
    policy = store.policy
    with store.transaction(write=True) as tx:
        at = clock.read()  # after the lock: see Clock
        state = acct.update_priorities(tx.load_accountant(), policy, at)
        target = target_of(spec, name, state, policy)
        twins = _case_twins(state, target)
        if target is None:  # resetall
            state = acct.reset_all(state, at)
        elif spec.value_type is None:
            state = spec.apply(state, policy, target, at)
        else:
            state = spec.apply(state, policy, target, value, at)
        message = spec.message(target or "", value)
        tx.save_accountant(state)
        tx.add_history(
            "edit", message, {"command": spec.command, "name": target, "value": value}, at
        )
    if target is None:
        data: dict[str, Any] = {"records_reset": len(state.records)}
    elif target in state.records:
        data = record_json(state.records[target])
    else:
        data = {"name": target, "deleted": True}

    if twins:
        # Names are case-sensitive (as HTCondor's are), so this made a second record.
        stderr_console().print(
            f"condorlite {spec.command}: warning: {target} is a new record; "
            f"{', '.join(twins)} {'differs' if len(twins) == 1 else 'differ'} only in case",
            markup=False)
        data["similar_names"] = twins

    def human(console) -> None:
        print_text(console, message)

    return Result(command=spec.command, data=data, human=human)


def target_of(spec: EditSpec, name: str | None, state: Any, policy: Any) -> str | None:
    """The record an edit names. ``delete`` takes any existing record by its exact
    name, so that every record that exists can be removed, even one an older version
    let in with a name the rules now refuse."""
    if name is None:
        return None
    if spec.command == "delete" and name in state.records:
        return name
    return acct.parse_submitter_name(name, policy)


def _case_twins(state: Any, target: str | None) -> list[str]:
    """The existing records whose name equals a new ``target`` but for case."""
    if target is None or target in state.records:
        return []
    folded = target.casefold()
    return sorted(n for n in state.records if n.casefold() == folded)


def _register_valued(app: typer.Typer, spec: EditSpec) -> None:
    # Typer reads the annotations as text, so the value type is spelled out per kind.
    if spec.value_type is int:

        @app.command(spec.command, help=spec.help,
                     context_settings={"ignore_unknown_options": True})
        def int_command(
            name: Annotated[str, typer.Argument(help="user@domain, or a configured group.")],
            value: Annotated[int, typer.Argument(metavar=spec.value_name)],
            state_dir: StateDirOpt = None,
            config: ConfigOpt = None,
            now: NowOpt = None,
            lock_timeout: LockTimeoutOpt = DEFAULT_LOCK_TIMEOUT,
            as_json: JsonOpt = False,
        ) -> None:
            run_command(spec.command, as_json,
                        lambda: run_edit(spec, name, value, state_dir, now, lock_timeout, config))

        return

    @app.command(spec.command, help=spec.help,
                 context_settings={"ignore_unknown_options": True})
    def float_command(
        name: Annotated[str, typer.Argument(help="user@domain, or a configured group.")],
        value: Annotated[float, typer.Argument(metavar=spec.value_name)],
        state_dir: StateDirOpt = None,
        config: ConfigOpt = None,
        now: NowOpt = None,
        lock_timeout: LockTimeoutOpt = DEFAULT_LOCK_TIMEOUT,
        as_json: JsonOpt = False,
    ) -> None:
        run_command(spec.command, as_json,
                    lambda: run_edit(spec, name, value, state_dir, now, lock_timeout, config))


def _register_named(app: typer.Typer, spec: EditSpec) -> None:
    @app.command(spec.command, help=spec.help)
    def command(
        name: Annotated[str, typer.Argument(help="user@domain, or a configured group name.")],
        state_dir: StateDirOpt = None,
        config: ConfigOpt = None,
        now: NowOpt = None,
        lock_timeout: LockTimeoutOpt = DEFAULT_LOCK_TIMEOUT,
        as_json: JsonOpt = False,
    ) -> None:
        run_command(spec.command, as_json,
                    lambda: run_edit(spec, name, None, state_dir, now, lock_timeout, config))


RESETALL = EditSpec("resetall", "Reset the accumulated usage of every record to zero.",
                    lambda st, _p, _n, now: acct.reset_all(st, now),
                    lambda _n, _v: "The accumulated usage was reset for all users")


def register(app: typer.Typer) -> None:
    for spec in EDITS:
        if spec.value_type is None:
            _register_named(app, spec)
        else:
            _register_valued(app, spec)

    @app.command("resetall", help=RESETALL.help)
    def resetall(
        state_dir: StateDirOpt = None,
        config: ConfigOpt = None,
        now: NowOpt = None,
        lock_timeout: LockTimeoutOpt = DEFAULT_LOCK_TIMEOUT,
        as_json: JsonOpt = False,
    ) -> None:
        run_command("resetall", as_json,
                    lambda: run_edit(RESETALL, None, None, state_dir, now, lock_timeout, config))
