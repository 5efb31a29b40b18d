"""Options shared by every command, declared once so their names and help never drift."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

JsonOpt = Annotated[
    bool,
    typer.Option("--json", help="Print one JSON document (the versioned envelope) on stdout."),
]

StateDirOpt = Annotated[
    Path | None,
    typer.Option(
        "--state-dir",
        help="State directory (default: $CONDORLITE_STATE_DIR, else the user state dir).",
        envvar="CONDORLITE_STATE_DIR",
        show_envvar=True,
        file_okay=False,
    ),
]

NowOpt = Annotated[
    str | None,
    typer.Option(
        "--now",
        help="The time to act at: epoch seconds or an ISO 8601 date or time "
        "(default: $CONDORLITE_NOW, else the clock).",
        envvar="CONDORLITE_NOW",
        show_envvar=True,
        metavar="WHEN",
    ),
]

LockTimeoutOpt = Annotated[
    float,
    typer.Option(
        "--lock-timeout",
        help="Seconds to wait for another command holding the state before exiting 75 "
        "(inf: wait until it is done).",
        envvar="CONDORLITE_LOCK_TIMEOUT",
        show_envvar=True,
        min=0.0,
    ),
]

ConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--config",
        help="Policy file to use instead of STATE_DIR/condorlite.toml.",
        envvar="CONDORLITE_CONFIG",
        show_envvar=True,
        dir_okay=False,
    ),
]
