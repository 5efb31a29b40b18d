"""Schema migrations: a version-1 state gains the hierarchical-usage column."""

from __future__ import annotations

import sqlite3

from condorlite.core.accounting import AccountantState, Record
from condorlite.store import schema
from condorlite.store.db import open_state
from condorlite.store.schema import SCHEMA_VERSION


def make_v1(path) -> None:
    """A state database exactly as schema version 1 created it, with one record."""
    path.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path / "state.db", isolation_level=None)
    for statement in schema.MIGRATIONS[1].split(";"):
        if statement.strip():
            conn.execute(statement)
    conn.execute(
        "INSERT INTO records VALUES ('physics', 2.5, 1000.0, 1, 2.0, 0.0, 0.0, 10.0, 20.0, "
        "5.0, 6.0, -1, 0, 1, 'physics')")
    conn.execute("UPDATE meta SET value = '1234.0' WHERE key = 'last_update_time'")
    conn.execute(f"PRAGMA application_id = {schema.APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 1")
    conn.close()


def test_version_1_has_no_hier_column():
    cols = schema._V1_RECORD_FIELDS
    assert "hier_weighted_resources_used" not in cols
    assert cols[-1] == "accounting_group" and len(cols) == 15


def test_a_version_1_state_is_migrated_and_keeps_its_records(tmp_path):
    make_v1(tmp_path)
    store = open_state(tmp_path)
    conn = sqlite3.connect(tmp_path / "state.db")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 3
    with store.transaction(write=False) as tx:
        state = tx.load_accountant()
    rec = state.records["physics"]
    assert state.last_update_time == 1234.0
    assert rec == Record("physics", 2.5, 1000.0, 1, 2.0, 0.0, 0.0, 10.0, 20.0, 5.0, 6.0,
                         -1, 0, True, "physics", 0.0)
    # The new column round-trips.
    with store.transaction() as tx:
        tx.save_accountant(AccountantState(1300.0, {
            "physics": Record("physics", hier_weighted_resources_used=7.5)}))
    with store.transaction(write=False) as tx:
        assert tx.load_accountant().records["physics"].hier_weighted_resources_used == 7.5


def test_migrating_twice_is_a_no_op(tmp_path):
    make_v1(tmp_path)
    open_state(tmp_path)
    store = open_state(tmp_path)
    with store.transaction(write=False) as tx:
        assert list(tx.load_accountant().records) == ["physics"]


def test_a_new_state_has_the_column(tmp_path):
    open_state(tmp_path)
    conn = sqlite3.connect(tmp_path / "state.db")
    cols = [row[1] for row in conn.execute("PRAGMA table_info(records)")]
    assert cols[-1] == "hier_weighted_resources_used"
