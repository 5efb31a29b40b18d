"""``condorlite eval``: placeholder registration until the evaluator lands."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    """Register the command (filled in by the ClassAd work)."""
