"""Crash safety and concurrency of the state directory (issue 3, "Reliability").

- a writer killed with SIGKILL at random points leaves the old or the new state;
- 20 concurrent writers on distinct users lose no update;
- a locked state makes a writing command exit 75 within its timeout.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal
import sqlite3
import time

import pytest
from typer.testing import CliRunner

from condorlite.cli import app
from condorlite.cli.edit import EDITS, run_edit
from condorlite.core.accounting import AccountantState, Record
from condorlite.store.db import open_state

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")

N_RECORDS = 300


def _writer_forever(state_dir) -> None:
    """Child process: transaction k sets every record's priority to k and logs row k."""
    try:
        store = open_state(state_dir, lock_timeout=30)
        while True:
            with store.transaction() as tx:
                state = tx.load_accountant()
                k = next(iter(state.records.values())).priority + 1 if state.records else 1
                records = {f"u{i:04d}@x": Record(f"u{i:04d}@x", priority=float(k))
                           for i in range(N_RECORDS)}
                tx.save_accountant(AccountantState(float(k), records))
                tx.add_history("w", f"write {k}", {"k": k}, float(k))
    finally:
        os._exit(0)


def test_kill_minus_9_leaves_old_or_new_state(tmp_path):
    rng = random.Random(3)
    open_state(tmp_path)
    for _ in range(6):
        pid = os.fork()
        if pid == 0:
            _writer_forever(tmp_path)
        time.sleep(rng.uniform(0.05, 0.4))
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        store = open_state(tmp_path)
        with store.transaction(write=False) as tx:
            state = tx.load_accountant()
            rows = tx.history(limit=100000)
        prios = {r.priority for r in state.records.values()}
        assert len(prios) <= 1, "a mix of two transactions is visible"
        if state.records:
            k = prios.pop()
            assert len(state.records) == N_RECORDS
            assert state.last_update_time == k
            assert len([h for h in rows if h["kind"] == "w"]) == k
    result = CliRunner().invoke(app, ["userprio", "--allusers", "--json", "--now", "5",
                                      "--state-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output


def _edit_many(args) -> None:
    state_dir, user = args
    spec = next(e for e in EDITS if e.command == "setfactor")
    for j in range(1, 6):
        run_edit(spec, f"{user}@x", float(j), state_dir, 1000.0 + j, 60.0)


def test_twenty_concurrent_writers_lose_nothing(tmp_path):
    open_state(tmp_path)
    users = [f"user{i:02d}" for i in range(20)]
    ctx = multiprocessing.get_context("fork")
    with ctx.Pool(20) as pool:
        pool.map(_edit_many, [(tmp_path, u) for u in users])
    with open_state(tmp_path).transaction(write=False) as tx:
        state = tx.load_accountant()
        history = tx.history(limit=1000)
    assert sorted(state.records) == [f"{u}@x" for u in users]
    assert {r.priority_factor for r in state.records.values()} == {5.0}
    assert len(history) == 100


def test_locked_state_exits_75_within_the_timeout(tmp_path):
    open_state(tmp_path)
    holder = sqlite3.connect(tmp_path / "state.db", isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        started = time.monotonic()
        result = CliRunner().invoke(app, [
            "setprio", "a@x", "3", "--state-dir", str(tmp_path), "--lock-timeout", "0.3",
            "--json", "--now", "10"])
        elapsed = time.monotonic() - started
    finally:
        holder.execute("ROLLBACK")
    assert result.exit_code == 75
    [error] = json.loads(result.output)["errors"]
    assert error["kind"] == "state_locked" and str(tmp_path) in error["message"]
    assert elapsed < 5
