"""The one place where exceptions become messages and exit codes.

Deliberate failures are ``condorlite.errors.CondorliteError`` subclasses, which carry
their exit code (see that module's table). Anything else is a bug: it is reported as an
internal error with exit 70 (EX_SOFTWARE), and the traceback is shown only when
``CONDORLITE_DEBUG`` is set, so a user never sees one by accident.
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable

import typer

from condorlite.cli.render import (
    Result,
    envelope,
    print_json,
    render,
    stderr_console,
    visible,
)
from condorlite.errors import CondorliteError, DataError, OutputError, UsageError

EX_SOFTWARE = 70
#: What a shell reports for a process killed by SIGPIPE (128 + 13): ``| head`` closed
#: the pipe; nothing is wrong, and nothing more is said.
EX_PIPE = 141


def _report(command: str, as_json: bool, kind: str, message: str, code: int, hint=None,
            entry: dict | None = None) -> None:
    """Say what failed (one JSON envelope, or a line on stderr) and exit ``code``;
    ``entry`` is the error's own ``to_json()`` (its place included) when it has one."""
    if as_json:
        if entry is None:
            entry = {"kind": kind, "message": message}
            if hint:
                entry["hint"] = hint
        try:
            print_json(envelope(command, None, [entry]))
            sys.stdout.flush()
        except OSError:
            # stdout is gone or full: the failure itself still reaches stderr.
            _silence_stdout()
            stderr_console().print(f"condorlite {command}: {visible(message)}", markup=False)
    else:
        err = stderr_console()
        err.print(f"condorlite {command}: {visible(message)}", markup=False)
        if hint:
            err.print(f"hint: {visible(hint)}", markup=False)
    raise typer.Exit(code)


def usage_failure(message: str) -> Callable[[], Result]:
    """A command body that fails with a usage error (2): for option combinations a
    command refuses before doing anything (``run_command`` reports it as usual)."""
    def fail() -> Result:
        raise UsageError(message)
    return fail


def run_command(command: str, as_json: bool, body: Callable[[], Result]) -> None:
    """Run a command body, render its Result, and exit with the right code."""
    try:
        result = body()
    except CondorliteError as exc:
        _report(command, as_json, exc.kind, exc.message, exc.exit_code, exc.hint,
                exc.to_json())
        return
    except KeyboardInterrupt:
        _report(command, as_json, "interrupted", "interrupted", 130)
        return
    except RecursionError:
        _report(command, as_json, "data",
                "an expression is nested or chained too deeply to parse or evaluate "
                "(over about 20,000 levels)", DataError.exit_code)
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
    _render_or_fail(command, result, as_json)
    if result.exit_code:
        raise typer.Exit(result.exit_code)


def _render_or_fail(command: str, result: Result, as_json: bool) -> None:
    """Render ``result``; a reader that went away (a closed pipe) ends the command
    quietly with 141, any other output error with a message on stderr and 74. The
    state a command wrote is already committed: only the output is lost."""
    try:
        render(result, as_json)
        sys.stdout.flush()
    except BrokenPipeError:
        _silence_stdout()
        raise typer.Exit(EX_PIPE) from None
    except OSError as exc:
        _silence_stdout()
        stderr_console().print(
            f"condorlite {command}: cannot write the output: {exc.strerror or exc}",
            markup=False,
        )
        raise typer.Exit(OutputError.exit_code) from None


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's last flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError):
        pass
