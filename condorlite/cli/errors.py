"""The one place where exceptions become messages and exit codes.

Deliberate failures are ``condorlite.errors.CondorliteError`` subclasses, which carry
their exit code (see that module's table). Anything else is a bug: it is reported as an
internal error with exit 70 (EX_SOFTWARE), and the traceback is shown only when
``CONDORLITE_DEBUG`` is set, so a user never sees one by accident.
"""

from __future__ import annotations

import os
import traceback
from collections.abc import Callable

import typer

from condorlite.cli.render import Result, envelope, print_json, render, stderr_console
from condorlite.errors import CondorliteError

EX_SOFTWARE = 70


def _report(command: str, as_json: bool, kind: str, message: str, code: int, hint=None) -> None:
    if as_json:
        entry = {"kind": kind, "message": message}
        if hint:
            entry["hint"] = hint
        print_json(envelope(command, None, [entry]))
    else:
        err = stderr_console()
        err.print(f"condorlite {command}: {message}", markup=False)
        if hint:
            err.print(f"hint: {hint}", markup=False)
    raise typer.Exit(code)


def run_command(command: str, as_json: bool, body: Callable[[], Result]) -> None:
    """Run a command body, render its Result, and exit with the right code."""
    try:
        result = body()
    except CondorliteError as exc:
        _report(command, as_json, exc.kind, exc.message, exc.exit_code, exc.hint)
        return
    except KeyboardInterrupt:
        _report(command, as_json, "interrupted", "interrupted", 130)
        return
    except Exception as exc:  # a bug: say so plainly, traceback only on request
        if os.environ.get("CONDORLITE_DEBUG"):
            traceback.print_exc()
        _report(
            command,
            as_json,
            "internal",
            f"internal error: {type(exc).__name__}: {exc}",
            EX_SOFTWARE,
            hint=None if os.environ.get("CONDORLITE_DEBUG") else "set CONDORLITE_DEBUG=1 "
            "for a traceback and report it",
        )
        return
    render(result, as_json)
    if result.exit_code:
        raise typer.Exit(result.exit_code)
