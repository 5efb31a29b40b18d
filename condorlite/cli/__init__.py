"""The condorlite command line: one Typer app, one module per command.

Each module named in ``COMMAND_MODULES`` defines ``register(app)``, which adds its
command(s). Commands parse their arguments, call the core (inside a store transaction
when they write) and hand a ``Result`` to ``errors.run_command``, which renders it and
maps failures to exit codes. This package is the only one that imports typer or rich,
reads the environment or the clock.
"""

from __future__ import annotations

import importlib
import sys

import typer

from condorlite import __version__
from condorlite.cli.render import envelope, print_json

# Order here is the order of the commands in --help.
COMMAND_MODULES: tuple[str, ...] = (
    "eval",
    "negotiate",
    "release",
    "userprio",
    "edit",
    "import_ads",
    "status",
)

app = typer.Typer(
    name="condorlite",
    help="HTCondor-compatible fair-share accounting, ClassAd evaluation and matchmaking.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"condorlite {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    """HTCondor-compatible fair-share accounting, ClassAd evaluation and matchmaking."""


for _name in COMMAND_MODULES:
    importlib.import_module(f"condorlite.cli.{_name}").register(app)


def main() -> None:
    """Console-script entry point.

    With ``--json`` even an argument error (which Typer reports before any command
    runs) must come out as the one JSON envelope on stdout, so the app then runs in
    non-standalone mode and its usage errors are rendered here; without ``--json``
    Typer prints them as usual.
    """
    argv = sys.argv[1:]
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
        print_json(envelope(command, None, [error]))
        sys.exit(exc.exit_code)
    sys.exit(code if isinstance(code, int) else 0)
