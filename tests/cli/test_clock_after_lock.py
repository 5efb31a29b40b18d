"""The clock is read after the lock is taken (issue 17, item 6): a writer that waited
for another one charges up to the moment it really starts, so two overlapping cron runs
never stamp the later commit with the earlier time."""

from __future__ import annotations

import math
import sqlite3
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from condorlite.cli import app
from condorlite.store.db import open_state

ROOT = Path(__file__).resolve().parents[2]
CONFIG = str(ROOT / "examples" / "condorlite.toml")


def _hold_lock(db: Path, seconds: float, released: list[float], held: threading.Event) -> None:
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    held.set()
    time.sleep(seconds)
    released.append(time.time())
    conn.execute("COMMIT")
    conn.close()


@pytest.mark.parametrize("command", [
    ["setfactor", "alice@example.org", "2"],
    ["negotiate", "--config", CONFIG],
])
def test_a_writer_that_waited_reads_the_clock_after_the_wait(tmp_path: Path,
                                                             command: list[str]) -> None:
    state = tmp_path / "s"
    store = open_state(state, config_path=None)
    released: list[float] = []
    held = threading.Event()
    holder = threading.Thread(target=_hold_lock,
                              args=(store.db_path, 2.0, released, held))
    holder.start()
    held.wait(5)
    done = CliRunner().invoke(app, [*command, "--state-dir", str(state),
                                    "--lock-timeout", "30", "--json"])
    holder.join()
    assert done.exit_code == 0, done.output
    with open_state(state, create=False).transaction(write=False) as tx:
        stamped = tx.history(limit=1)[0]["time"]
    # the clock is read in whole seconds; before the lock it would be 2 s earlier
    assert stamped >= math.floor(released[0])
