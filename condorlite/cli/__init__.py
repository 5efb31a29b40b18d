"""The condorlite command line: one Typer app, one module per command.

Each module named in ``COMMAND_MODULES`` defines ``register(app)``, which adds its
command(s). Commands parse their arguments, call the core (inside a store transaction
when they write) and hand a ``Result`` to ``errors.run_command``, which renders it and
maps failures to exit codes. This package is the only one that imports typer or rich,
reads the environment or the clock.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import NoReturn

import typer

from condorlite import __version__
from condorlite.cli import render

# Order here is the order of the commands in --help.
COMMAND_MODULES: tuple[str, ...] = (
    "eval",
    "negotiate",
    "release",
    "userprio",
    "history",
    "replay",
    "metrics",
    "export",
    "edit",
    "import_ads",
    "status",
    "sge",
)

#: Command name -> the module of COMMAND_MODULES that registers it, for the commands
#: the console script loads alone (``main``); any other first argument (the edit
#: commands, --help, a typo) loads the whole app.
COMMAND_MODULE_OF: dict[str, str] = {
    "eval": "eval",
    "negotiate": "negotiate",
    "release": "release",
    "userprio": "userprio",
    "history": "history",
    "replay": "replay",
    "metrics": "metrics",
    "export": "export",
    "import": "import_ads",
    "status": "status",
    "sge": "sge",
}


#: Deep enough for expressions of about 20,000 chained clauses.
RECURSION_LIMIT = 100_000


def _version(value: bool) -> None:
    if value:
        typer.echo(f"condorlite {__version__}")
        raise typer.Exit()


def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """HTCondor-compatible fair-share accounting, ClassAd evaluation and matchmaking."""


def build_app(modules: tuple[str, ...] = COMMAND_MODULES) -> typer.Typer:
    """The Typer app with the commands of ``modules`` (all of them by default)."""
    built = typer.Typer(
        name="condorlite",
        help="HTCondor-compatible fair-share accounting, ClassAd evaluation and matchmaking.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    built.callback()(_root)
    for name in modules:
        importlib.import_module(f"condorlite.cli.{name}").register(built)
    return built


def __getattr__(name: str) -> typer.Typer:
    # ``condorlite.cli.app``, the whole app, is built on first use (PEP 562): the
    # console script imports this package too, and loads only the command it runs.
    if name == "app":
        built = globals()["app"] = build_app()
        return built
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def main() -> NoReturn:
    """Console-script entry point.

    Only the module of the command named first is imported (``COMMAND_MODULE_OF``),
    so a run does not pay for loading and registering the other commands; their
    help, usage errors and exit codes are those of the whole app.

    With ``--json`` even an argument error (which Typer reports before any command
    runs) must come out as the one JSON envelope on stdout, so the app then runs in
    non-standalone mode and its usage errors are rendered here; without ``--json``
    Typer prints them as usual.

    The process ends through ``_exit_now``: the interpreter's teardown would free every
    object still alive one by one (hundreds of thousands of ads after a big cycle) and
    run a last full garbage collection, which the operating system's reclaiming of the
    whole process makes useless (render: rendered Results are retained for the same
    reason).
    """
    argv = sys.argv[1:]
    # The ClassAd parser and evaluator recurse along an expression; HTCondor reads host
    # lists of thousands of clauses ("Machine == a || Machine == b || ..."). Python 3.11
    # recursion between Python functions does not use the C stack, so a deep limit is
    # safe; past it the command fails cleanly (errors.run_command), never with 70.
    sys.setrecursionlimit(max(sys.getrecursionlimit(), RECURSION_LIMIT))
    render.retain_results()
    module = COMMAND_MODULE_OF.get(argv[0]) if argv else None
    app = build_app((module,)) if module is not None else build_app()
    try:
        spelling = htcondor_spelling(app, argv)
        if spelling is not None:
            _usage_error(argv, spelling)
        _run(app, argv)
    except SystemExit as exc:
        _exit_now(exc.code)
    _exit_now(0)


def htcondor_spelling(app: typer.Typer, argv: list[str]) -> str | None:
    """What to say to a word written as HTCondor's tools spell it: one dash before a
    long option (``-allusers``) or before a command (``condor_userprio -setfactor``).
    Click would read ``-allusers`` as ``-a`` and answer "No such option: -a"."""
    from typer.main import get_command

    group = get_command(app)
    commands = getattr(group, "commands", {})
    command = commands.get(argv[0]) if argv else None
    options: set[str] = set()
    if command is not None:
        for param in command.params:
            options.update(getattr(param, "opts", ()))
            options.update(getattr(param, "secondary_opts", ()))
    for word in argv[1:] if command is not None else argv:
        if word == "--":
            break
        if not word.startswith("-") or word.startswith("--") or len(word) <= 2:
            continue
        name = word[1:].split("=", 1)[0]
        if f"--{name}" in options:
            return f"{word}: condorlite spells it --{name} (two dashes)"
        if name in commands or name in get_command(build_app()).commands:  # type: ignore[attr-defined]
            return f"{word}: in condorlite that is a command: condorlite {name} ..."
    return None


def _usage_error(argv: list[str], message: str) -> NoReturn:
    command = argv[0] if argv and not argv[0].startswith("-") else "condorlite"
    if "--json" in argv:
        render.print_json(render.envelope(command, None, [{"kind": "usage", "message": message}]))
    else:
        print(f"condorlite {command}: {message}" if command != "condorlite"
              else f"condorlite: {message}", file=sys.stderr)
    sys.exit(2)


def _run(app: typer.Typer, argv: list[str]) -> None:
    if "--json" not in argv:
        app(prog_name="condorlite")
        return
    try:
        code = app(args=argv, prog_name="condorlite", standalone_mode=False)
    except Exception as exc:  # Typer's usage errors carry exit_code and format_message
        if not (hasattr(exc, "exit_code") and hasattr(exc, "format_message")):
            raise
        # The root takes no option but --version/--help, so a command comes first.
        command = argv[0] if argv and not argv[0].startswith("-") else "condorlite"
        error = {"kind": "usage", "message": exc.format_message()}
        render.print_json(render.envelope(command, None, [error]))
        sys.exit(exc.exit_code)
    sys.exit(code if isinstance(code, int) else 0)


def _exit_now(code: object) -> NoReturn:
    """Exit as ``SystemExit(code)`` would (None is 0, a message is printed and is 1),
    with stdout and stderr flushed but without the interpreter's teardown (``main``).
    When flushing fails (e.g. a closed pipe), the ordinary exit reports it as always."""
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        sys.exit(status)
    os._exit(status & 0xFF)
