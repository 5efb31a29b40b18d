"""``condorlite sge ...``: Grid Engine's scheduler policies on a cell dump.

A Typer sub-app; each module of ``MODULES`` registers its command(s) on it, under the
same rules as the top-level commands (``condorlite.cli``).
"""

from __future__ import annotations

import importlib

import typer

MODULES: tuple[str, ...] = ("qstat", "explain", "sharetree", "schedule", "clearusage")


def register(app: typer.Typer) -> None:
    sub = typer.Typer(
        name="sge",
        help="Grid Engine: job priorities, tickets and urgency from a cell dump.",
        no_args_is_help=True,
        context_settings={"help_option_names": ["-h", "--help"]},
    )
    for name in MODULES:
        importlib.import_module(f"condorlite.cli.sge.{name}").register(sub)
    app.add_typer(sub, name="sge")
