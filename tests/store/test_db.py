"""The SQLite state: schema, transactions, translation of sqlite errors."""

from __future__ import annotations

import sqlite3
import time

import pytest

from condorlite.core.accounting import AccountantState, ClaimRow, Record
from condorlite.errors import DataError, InputMissingError, StateLockedError, StateWriteError
from condorlite.store import paths
from condorlite.store.db import open_state
from condorlite.store.schema import SCHEMA_VERSION


def test_first_use_creates_dir_config_and_schema(tmp_path):
    where = tmp_path / "a" / "b"
    store = open_state(where)
    assert store.path == where and store.db_path == where / "state.db"
    assert store.config_path.read_text().startswith("# condorlite configuration")
    assert store.schema_version == SCHEMA_VERSION
    conn = sqlite3.connect(store.db_path)
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    with store.transaction(write=False) as tx:
        assert tx.load_accountant() == AccountantState(None, {})


def test_state_dir_resolution(tmp_path, monkeypatch):
    assert paths.resolve_state_dir(tmp_path / "x", {"CONDORLITE_STATE_DIR": "/e"}) == tmp_path / "x"
    assert str(paths.resolve_state_dir(None, {"CONDORLITE_STATE_DIR": "/e"})) == "/e"
    assert paths.resolve_state_dir(None, {}).name == "condorlite"


def test_accountant_claims_and_history_round_trip(tmp_path):
    store = open_state(tmp_path)
    rec = Record("a@x", priority=3.25, resources_used=2, weighted_resources_used=2.5,
                 begin_usage_time=17, ceiling=4, floor=1)
    claims = [ClaimRow("slot1@h", "1.0", "a@x", 2.5, 100.0, {"Cpus": 2}),
              ClaimRow("slot2@h", "1.1", "a@x", 1.0, 101.0)]
    with store.transaction() as tx:
        tx.save_accountant(AccountantState(1234.5, {"a@x": rec}))
        tx.save_claims(claims)
        tx.add_history("cycle", "one cycle", {"matches": 2}, 1234.5)
        tx.add_history("cycle", "two", {"matches": 0}, 1300.0)
    with store.transaction(write=False) as tx:
        assert tx.load_accountant() == AccountantState(1234.5, {"a@x": rec})
        assert tx.load_claims() == claims
        last = tx.last_history("cycle")
        assert (last["what"], last["data"], last["time"]) == ("two", {"matches": 0}, 1300.0)
        assert last["who"]
        assert tx.last_history("edit") is None
        assert [h["what"] for h in tx.history()] == ["two", "one cycle"]


def test_an_exception_rolls_everything_back(tmp_path):
    store = open_state(tmp_path)
    with pytest.raises(RuntimeError), store.transaction() as tx:
        tx.save_accountant(AccountantState(5.0, {"a@x": Record("a@x")}))
        raise RuntimeError("boom")
    with store.transaction(write=False) as tx:
        assert tx.load_accountant() == AccountantState(None, {})


def test_read_transaction_refuses_writes(tmp_path):
    store = open_state(tmp_path)
    with pytest.raises(StateWriteError), store.transaction(write=False) as tx:
        tx.save_claims([])


def test_locked_state_fails_with_75_within_the_timeout(tmp_path):
    store = open_state(tmp_path, lock_timeout=0.3)
    holder = sqlite3.connect(store.db_path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        started = time.monotonic()
        with pytest.raises(StateLockedError) as err, store.transaction():
            pass
        elapsed = time.monotonic() - started
        assert 0.25 <= elapsed < 3.0
        assert str(tmp_path) in err.value.message and err.value.exit_code == 75
        with store.transaction(write=False) as tx:  # readers are not blocked (WAL)
            tx.load_accountant()
    finally:
        holder.execute("ROLLBACK")


def test_corrupt_db_is_reported_and_left_untouched(tmp_path):
    db = tmp_path / "state.db"
    garbage = b"this is not sqlite at all\n" * 200
    db.write_bytes(garbage)
    with pytest.raises(DataError) as err:
        open_state(tmp_path)
    assert err.value.exit_code == 65 and "left untouched" in err.value.message
    assert db.read_bytes() == garbage


def test_foreign_sqlite_db_is_refused_and_left_untouched(tmp_path):
    db = tmp_path / "state.db"
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE users (id INTEGER)")
    conn.commit()
    conn.close()
    before = db.read_bytes()
    with pytest.raises(DataError, match="not condorlite's"):
        open_state(tmp_path)
    assert db.read_bytes() == before


def test_newer_schema_is_refused(tmp_path):
    open_state(tmp_path)
    conn = sqlite3.connect(tmp_path / "state.db")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(DataError, match="newer"):
        open_state(tmp_path)


def test_unwritable_state_dir_is_73(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(StateWriteError) as err:
        open_state(blocker / "state")
    assert err.value.exit_code == 73


def test_no_create_on_missing_state(tmp_path):
    with pytest.raises(InputMissingError, match="no state at"):
        open_state(tmp_path / "none", create=False)
    assert not (tmp_path / "none").exists()


def test_claim_extra_is_stored_as_sorted_key_json(tmp_path):
    import json

    store = open_state(tmp_path)
    extra = {"resources": {"Memory": 2048.5, "Cpus": 2}, "observed": False,
             "partitionable": "slot1@hé", "preempted_user": None}
    with store.transaction() as tx:
        tx.save_claims([ClaimRow("slot1@hé#1.0", "1.0", "a@x", 2.0, 100.0, extra)])
    stored = sqlite3.connect(store.db_path).execute("SELECT extra FROM claims").fetchone()[0]
    assert stored == json.dumps(extra, sort_keys=True)
    assert stored.startswith('{"observed": false, "partitionable": "slot1@h\\u00e9"')


def test_prune_history_keeps_the_newest_row_of_each_kind(tmp_path):
    from condorlite.store.db import open_state

    store = open_state(tmp_path)
    with store.transaction(write=True) as tx:
        for t in (10.0, 20.0, 30.0):
            tx.add_history("negotiation_cycle", f"cycle {t}", {}, t)
        tx.add_history("setfactor", "old edit", {}, 5.0)
        tx.add_history("setprio", "recent edit", {}, 40.0)
        assert tx.prune_history(35.0) == 2  # cycles 10 and 20; 30 and the edit are newest
        kept = [(r["kind"], r["time"]) for r in tx.history()]
    assert kept == [("setprio", 40.0), ("setfactor", 5.0), ("negotiation_cycle", 30.0)]


def _files(where):
    return {p.name: p.read_bytes() for p in where.iterdir()}


@pytest.mark.parametrize("dir_writable", [True, False])
def test_reading_a_state_never_writes_it(tmp_path, monkeypatch, dir_writable):
    """Opened to read, a state is read and its database and config are left as they
    were. In a directory this user cannot write (faked here, as root may write
    anywhere), SQLite could not make its WAL index, so the database is opened
    immutable and no file at all appears (issue 17, item 8)."""
    where = tmp_path / "s"
    store = open_state(where)
    with store.transaction() as tx:
        tx.add_history("setfactor", "a@x factor 2", {}, 1.0)
    before = _files(where)
    if not dir_writable:
        monkeypatch.setattr("condorlite.store.db.os.access", lambda *_a, **_k: False)
    reader = open_state(where, create=False)
    with reader.transaction(write=False) as tx:
        assert [h["what"] for h in tx.history()] == ["a@x factor 2"]
    with pytest.raises(StateWriteError, match="internal"), reader.transaction(write=True):
        pass
    after = _files(where)
    for name in ("state.db", "condorlite.toml"):
        assert after[name] == before[name]
    if not dir_writable:
        assert after.keys() == before.keys()


def test_reading_an_older_schema_asks_for_a_writer(tmp_path):
    import sqlite3

    where = tmp_path / "s"
    open_state(where)
    conn = sqlite3.connect(where / "state.db")
    conn.execute("PRAGMA user_version = 1")
    conn.close()
    with pytest.raises(DataError, match="schema version 1"):
        open_state(where, create=False)
