"""Opening the state from a command's options, and the clock: both belong to the CLI.

``now_or_clock`` is the only place a command reads the real time; ``open_store`` turns
``--state-dir`` / ``--lock-timeout`` into an opened ``StateStore`` (the store applies the
state-dir resolution rule).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from condorlite.errors import InputMissingError, UsageError
from condorlite.store.adfiles import configured_paths
from condorlite.store.db import StateStore, open_state

DEFAULT_LOCK_TIMEOUT = 5.0


def now_or_clock(now: float | None) -> float:
    """``--now`` when given (must be finite and >= 0), else the wall clock."""
    if now is None:
        return float(int(time.time()))
    if now != now or now in (float("inf"), float("-inf")) or now < 0:
        raise UsageError(f"--now must be epoch seconds >= 0, not {now}")
    return float(now)


def open_store(
    state_dir: Path | None,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    config: Path | None = None,
) -> StateStore:
    """Open the state dir; ``config`` (``--config``) replaces STATE_DIR/condorlite.toml."""
    if config is not None and not config.is_file():
        raise InputMissingError(f"--config {config}: no such file")
    return open_state(state_dir, create=True, lock_timeout=lock_timeout, config_path=config)


def ad_paths(given: list[str] | None, configured: tuple[str, ...], store: StateStore,
             what: str, option: str) -> list[Any]:
    """The ad paths of ``--slots``/``--jobs`` when given, else the config's SLOTS/JOBS
    (relative to the config file); neither is a usage error naming both."""
    if given:
        return list(given)
    if configured:
        return configured_paths(configured, store.config_path)
    raise UsageError(f"no {what} ads: give {option} or set {option[2:].upper()} in "
                     f"{store.config_path}")
