"""Opening the state from a command's options, and the clock: both belong to the CLI.

``now_or_clock`` is the only place a command reads the real time (``Clock`` defers
that read until a writer holds the lock); ``open_store`` turns
``--state-dir`` / ``--lock-timeout`` into an opened ``StateStore`` (the store applies the
state-dir resolution rule).
"""

from __future__ import annotations

import time
from datetime import datetime
from pathlib import Path
from typing import Any

from condorlite.errors import InputMissingError, UsageError
from condorlite.store.adfiles import configured_paths
from condorlite.store.db import StateStore, open_state

#: Long enough to outwait the longest cycle a benchmark pool takes (100,000 slots x
#: 1,000,000 jobs: about 25 s for the whole command, benchmarks/RESULTS.md), so an
#: overlapping cron run waits for the running one instead of failing (issue 17, item 6).
DEFAULT_LOCK_TIMEOUT = 60.0
#: The last second of year 9999 (UTC): a --now past it is a typo, and no time function
#: can print it.
LATEST_NOW = 253402300799.0
#: What ``--lock-timeout inf`` becomes: SQLite takes the wait in milliseconds as an int,
#: so "forever" is a finite 24 days (2**31 ms).
FOREVER = (2**31 - 1) / 1000.0


def now_or_clock(given: str | float | None) -> float:
    """``--now`` when given (epoch seconds, or an ISO 8601 date or time: a time without
    an offset is local time, as ``date -d`` reads it; finite, >= 0 and before the year
    10000), else the wall clock."""
    if given is None:
        return float(int(time.time()))
    return parse_when(given, "--now")


def parse_when(given: str | float, option: str) -> float:
    """A time option's value (``now_or_clock``'s rules) as epoch seconds; a bad one is
    a usage error naming ``option``."""
    now = _epoch(given, option)
    if now != now or now in (float("inf"), float("-inf")) or now < 0:
        raise UsageError(f"{option} must be epoch seconds >= 0, not {now}")
    if now > LATEST_NOW:
        raise UsageError(f"{option} {now:.0f} is after the year 9999 (epoch seconds, not ms?)")
    return float(now)


class Clock:
    """A command's time: ``--now`` checked at once (a usage error before anything is
    opened), the wall clock read only by ``read()``, which writing commands call once
    they hold the state's lock. A command that waited for another writer then charges
    up to the moment it really starts, never to a time the other one already passed."""

    def __init__(self, given: str | float | None):
        self.given = None if given is None else now_or_clock(given)

    def read(self) -> float:
        return now_or_clock(None) if self.given is None else self.given


def _epoch(given: str | float, option: str) -> float:
    if isinstance(given, int | float):
        return float(given)
    text = given.strip()
    try:
        return float(text)
    except ValueError:
        pass
    try:
        return datetime.fromisoformat(text).timestamp()
    except (ValueError, OverflowError, OSError):
        raise UsageError(
            f"{option} must be epoch seconds or an ISO 8601 date or time "
            f"(2025-10-09T08:53:20Z), not {given!r}"
        ) from None


def open_store(
    state_dir: Path | None,
    lock_timeout: float = DEFAULT_LOCK_TIMEOUT,
    config: Path | None = None,
    *,
    write: bool = True,
) -> StateStore:
    """Open the state dir; ``config`` (``--config``) replaces STATE_DIR/condorlite.toml.
    ``write`` False opens it to read: nothing is created or written, and a missing
    state is exit 66."""
    if config is not None and not config.is_file():
        raise InputMissingError(f"--config {config}: no such file")
    wait = min(lock_timeout, FOREVER)  # inf (or anything longer) means: wait
    return open_state(state_dir, create=write, lock_timeout=wait, config_path=config)


def ad_paths(given: list[str] | None, configured: tuple[str, ...], config_path: Path,
             what: str, option: str) -> list[Any]:
    """The ad paths of ``--slots``/``--jobs`` when given, else the config's SLOTS/JOBS
    (relative to the config file); neither is a usage error naming both."""
    if given:
        return list(given)
    if configured:
        return configured_paths(configured, config_path)
    raise UsageError(f"no {what} ads: give {option} or set {option[2:].upper()} in "
                     f"{config_path}")
