"""The condorlite command line: one Typer app, one module per command.

Each module named in ``COMMAND_MODULES`` defines ``register(app)``, which adds its
command(s). Commands parse their arguments, call the core (inside a store transaction
when they write) and hand a ``Result`` to ``errors.run_command``, which renders it and
maps failures to exit codes. This package is the only one that imports typer or rich,
reads the environment or the clock.
"""

from __future__ import annotations

import importlib

import typer

from condorlite import __version__

# Order here is the order of the commands in --help.
COMMAND_MODULES: tuple[str, ...] = (
    "eval",
    "negotiate",
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
    """Console-script entry point."""
    app(prog_name="condorlite")
