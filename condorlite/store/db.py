"""The state directory's SQLite database: accountant records, claims, history.

Contract (DESIGN.md 2.1), used by every command that reads or writes state::

    store = open_state(state_dir, create=True, lock_timeout=5.0)
    with store.transaction(write=True) as tx:   # BEGIN IMMEDIATE ... COMMIT / ROLLBACK
        state = tx.load_accountant()
        tx.save_accountant(new_state)
        tx.add_history("setfactor", "alice@x factor 2", {...}, now)

Invariants:
- One writer at a time: a write transaction starts with ``BEGIN IMMEDIATE``; a second
  writer waits up to ``lock_timeout`` seconds, then gets ``StateLockedError`` (75).
- A transaction commits everything or nothing; WAL with ``synchronous=FULL`` means a
  process killed at any point leaves either the old or the new state.
- Every ``sqlite3`` error is translated in ONE place (``_translate``) into condorlite's
  errors; a file that is not a condorlite database is reported, never overwritten.
- The schema carries a version (``PRAGMA user_version``) and an application id;
  ``MIGRATIONS[v]`` brings a database from version v-1 to v.
"""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import socket
import sqlite3
import tomllib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import astuple, dataclass, fields
from pathlib import Path
from typing import Any

from condorlite.core.accounting import AccountantState, ClaimRow, Record
from condorlite.core.policy import Policy
from condorlite.errors import DataError, NoStateError, StateLockedError, StateWriteError
from condorlite.store import config as config_mod
from condorlite.store import paths
from condorlite.store.private import private_dir, private_file, write_new

__all__ = ["ClaimRow", "OlderSchemaError", "StateStore", "Transaction", "open_state"]

#: "CLit" as a 32-bit integer: marks a database as condorlite's.
APPLICATION_ID = 0x434C6974
SCHEMA_VERSION = 3

_RECORD_FIELDS = tuple(f.name for f in fields(Record))
#: The record columns of schema version 1, frozen: later fields come by migration.
_V1_RECORD_FIELDS = _RECORD_FIELDS[:_RECORD_FIELDS.index("accounting_group") + 1]

_SCHEMA_V1 = f"""
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE records (
    {", ".join(f"{name} {'TEXT PRIMARY KEY' if name == 'name' else ''}"
               for name in _V1_RECORD_FIELDS)}
);
CREATE TABLE claims (
    slot TEXT PRIMARY KEY, job TEXT NOT NULL, submitter TEXT NOT NULL,
    weight REAL NOT NULL, start_time REAL NOT NULL, extra TEXT NOT NULL DEFAULT '{{}}'
);
CREATE TABLE history (
    id INTEGER PRIMARY KEY AUTOINCREMENT, time REAL NOT NULL, kind TEXT NOT NULL,
    who TEXT NOT NULL, what TEXT NOT NULL, data TEXT NOT NULL
);
CREATE INDEX history_kind ON history(kind, id);
INSERT INTO meta(key, value) VALUES ('last_update_time', NULL);
"""

#: Version 2: group records carry HierWeightedResourcesUsed (their subtree's usage).
_SCHEMA_V2 = """
ALTER TABLE records ADD COLUMN hier_weighted_resources_used REAL NOT NULL DEFAULT 0;
"""

#: Version 3: Grid Engine's cycle (``store/sge_state.py``): share-tree usage per user,
#: user in a project, and project; the running tasks with what was charged for them;
#: the last cycle's time.
_SCHEMA_V3 = """
CREATE TABLE sge_usage (
    kind TEXT NOT NULL, name TEXT NOT NULL, project TEXT NOT NULL DEFAULT '',
    cpu REAL NOT NULL, mem REAL NOT NULL, io REAL NOT NULL,
    lt_cpu REAL NOT NULL, lt_mem REAL NOT NULL, lt_io REAL NOT NULL,
    usage_time INTEGER NOT NULL, PRIMARY KEY (kind, name, project)
);
CREATE TABLE sge_runs (
    job INTEGER NOT NULL, task INTEGER NOT NULL, owner TEXT NOT NULL, project TEXT,
    source TEXT NOT NULL, start_time INTEGER NOT NULL, slots INTEGER NOT NULL,
    grants TEXT NOT NULL, resources TEXT NOT NULL,
    debited_cpu REAL NOT NULL, debited_mem REAL NOT NULL, debited_io REAL NOT NULL,
    PRIMARY KEY (job, task)
);
INSERT INTO meta(key, value) VALUES ('sge_last_cycle', NULL);
"""

#: version -> SQL script that upgrades from version-1 to version.
MIGRATIONS: dict[int, str] = {1: _SCHEMA_V1, 2: _SCHEMA_V2, 3: _SCHEMA_V3}


class OlderSchemaError(DataError):
    """A state of an older schema opened to read: only a writing command migrates it
    (65, as any unreadable state; a reader that can do without the state catches it)."""


def _translate(exc: sqlite3.Error, where: Path) -> Exception:
    """The one choke point: an sqlite3 error becomes a condorlite error."""
    text = str(exc).lower()
    if "locked" in text or "busy" in text:
        return StateLockedError(
            f"the state in {where} is locked by another condorlite command",
            hint="try again in a moment, or raise --lock-timeout / CONDORLITE_LOCK_TIMEOUT",
        )
    if "not a database" in text or "malformed" in text or "encrypted" in text:
        return DataError(
            f"{where / paths.DB_NAME} is not a readable condorlite database ({exc}); "
            "it was left untouched",
            hint="move it away to start afresh, or restore it from a backup",
        )
    if "readonly" in text or "read-only" in text or "unable to open" in text or "disk" in text:
        return StateWriteError(f"cannot write the state in {where}: {exc}")
    return StateWriteError(f"state database error in {where}: {exc}")


@dataclass
class Transaction:
    """Reads and writes inside one SQLite transaction (see ``StateStore.transaction``)."""

    conn: sqlite3.Connection
    write: bool

    def _need_write(self) -> None:
        if not self.write:
            raise StateWriteError("internal: a write inside a read-only transaction")

    # -- accountant -----------------------------------------------------------------------
    def load_accountant(self) -> AccountantState:
        row = self.conn.execute("SELECT value FROM meta WHERE key='last_update_time'").fetchone()
        last = None if row is None or row[0] is None else float(row[0])
        records: dict[str, Record] = {}
        cols = ", ".join(_RECORD_FIELDS)
        for values in self.conn.execute(f"SELECT {cols} FROM records ORDER BY name"):
            rec = _typed(values)
            records[rec.name] = rec
        return AccountantState(last_update_time=last, records=records)

    def save_accountant(self, state: AccountantState) -> None:
        """Replace every record and the LastUpdateTime by ``state``'s."""
        self._need_write()
        self.conn.execute(
            "INSERT OR REPLACE INTO meta(key, value) VALUES ('last_update_time', ?)",
            (None if state.last_update_time is None else repr(state.last_update_time),),
        )
        self.conn.execute("DELETE FROM records")
        marks = ", ".join("?" for _ in _RECORD_FIELDS)
        self.conn.executemany(
            f"INSERT INTO records ({', '.join(_RECORD_FIELDS)}) VALUES ({marks})",
            (astuple(rec) for _, rec in sorted(state.records.items())),
        )

    # -- claims ---------------------------------------------------------------------------
    def load_claims(self) -> list[ClaimRow]:
        return [ClaimRow(s, j, u, w, t, json.loads(x))
                for s, j, u, w, t, x in self.load_claim_values()]

    def load_claim_values(self) -> list[tuple[str, str, str, float, float, str]]:
        """Every claim as (slot, job, submitter, weight, start_time, extra as JSON
        text), in slot order."""
        return self.conn.execute(
            "SELECT slot, job, submitter, weight, start_time, extra FROM claims ORDER BY slot"
        ).fetchall()

    def save_claims(self, claims: list[ClaimRow]) -> None:
        """Replace all claims by ``claims`` (``extra`` as ``json.dumps(extra,
        sort_keys=True)``)."""
        self.save_claim_values(
            (c.slot, c.job, c.submitter, c.weight, c.start_time,
             json.dumps(c.extra, sort_keys=True))
            for c in claims
        )

    def save_claim_values(self, values: Iterable[tuple[str, str, str, float, float, str]]
                          ) -> None:
        """Replace all claims by rows given as (slot, job, submitter, weight,
        start_time, extra as JSON text), in the order given."""
        self._need_write()
        self.conn.execute("DELETE FROM claims")
        self.conn.executemany(
            "INSERT INTO claims (slot, job, submitter, weight, start_time, extra) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            values,
        )

    # -- history --------------------------------------------------------------------------
    def add_history(self, kind: str, what: str, data: dict[str, Any], now: float) -> None:
        """Append one history row; ``who`` is the OS user running the command."""
        self._need_write()
        self.conn.execute(
            "INSERT INTO history (time, kind, who, what, data) VALUES (?, ?, ?, ?, ?)",
            (now, kind, _who(), what, json.dumps(data, sort_keys=True, allow_nan=False)),
        )

    def prune_history(self, before: float) -> int:
        """Delete history rows older than ``before``, except the newest row of each kind
        (``status`` shows the last cycle however old it is); returns how many went."""
        self._need_write()
        cursor = self.conn.execute(
            "DELETE FROM history WHERE time < ? AND id NOT IN "
            "(SELECT MAX(id) FROM history GROUP BY kind)",
            (before,),
        )
        return cursor.rowcount

    def last_history(self, kind: str) -> dict[str, Any] | None:
        row = self.conn.execute(
            "SELECT id, time, kind, who, what, data FROM history WHERE kind = ? "
            "ORDER BY id DESC LIMIT 1",
            (kind,),
        ).fetchone()
        return None if row is None else _history_dict(row)

    def history_between(self, since: float, until: float) -> list[dict[str, Any]]:
        """Every history row with ``since <= time <= until``, oldest first (by id, the
        order they were written in)."""
        rows = self.conn.execute(
            "SELECT id, time, kind, who, what, data FROM history "
            "WHERE time >= ? AND time <= ? ORDER BY id",
            (since, until),
        )
        return [_history_dict(r) for r in rows]

    def history(self, limit: int = 100) -> list[dict[str, Any]]:
        """The most recent ``limit`` history rows, newest first."""
        rows = self.conn.execute(
            "SELECT id, time, kind, who, what, data FROM history ORDER BY id DESC LIMIT ?",
            (limit,),
        )
        return [_history_dict(r) for r in rows]


def _history_dict(row: tuple[Any, ...]) -> dict[str, Any]:
    hid, time, kind, who, what, data = row
    return {"id": hid, "time": time, "kind": kind, "who": who, "what": what,
            "data": json.loads(data)}


def _typed(v: tuple[Any, ...]) -> Record:
    # SQLite hands integers back for REAL values written as whole numbers; restore types.
    return Record(
        v[0], float(v[1]), float(v[2]), int(v[3]), float(v[4]), float(v[5]), float(v[6]),
        float(v[7]), float(v[8]), float(v[9]), float(v[10]), int(v[11]), int(v[12]),
        bool(v[13]), str(v[14]), float(v[15]),
    )


def _who() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return f"uid {os.getuid()}" if hasattr(os, "getuid") else "unknown"


class StateStore:
    """An opened state directory: its paths, its policy, and transactions on its db."""

    def __init__(self, path: Path, config_path: Path, policy: Policy, lock_timeout: float,
                 read_only: bool = False):
        self.path = path
        self.config_path = config_path
        self.db_path = paths.db_path(path)
        self.policy = policy
        self.lock_timeout = lock_timeout
        self.schema_version = SCHEMA_VERSION
        self.read_only = read_only

    def _connect(self) -> sqlite3.Connection:
        if self.read_only:
            return _connect_read_only(self.db_path, self.lock_timeout)
        conn = sqlite3.connect(
            self.db_path, timeout=self.lock_timeout, isolation_level=None,
            check_same_thread=False,
        )
        conn.execute("PRAGMA synchronous=FULL")
        return conn

    @contextlib.contextmanager
    def transaction(self, write: bool = True) -> Iterator[Transaction]:
        """One transaction: commit when the block ends normally, roll back otherwise."""
        conn = None
        if write and self.read_only:
            raise StateWriteError("internal: a write transaction on a state opened to read")
        try:
            conn = self._connect()
            conn.execute("BEGIN IMMEDIATE" if write else "BEGIN")
            tx = Transaction(conn, write)
            yield tx
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            _rollback(conn)
            raise _translate(exc, self.path) from None
        except BaseException:
            _rollback(conn)
            raise
        finally:
            if conn is not None:
                conn.close()


    def copy_to(self, folder: Path) -> None:
        """A consistent copy of the database into ``folder`` (a private directory made
        by the caller), read in one read transaction with SQLite's backup API: the
        state itself is only read."""
        source = _connect_read_only(self.db_path, self.lock_timeout)
        target = sqlite3.connect(paths.db_path(folder))
        try:
            source.backup(target)
        except sqlite3.Error as exc:
            raise _translate(exc, self.path) from None
        finally:
            target.close()
            source.close()


def _connect_read_only(db: Path, lock_timeout: float) -> sqlite3.Connection:
    """A connection that cannot write (``mode=ro``). In a directory this user cannot
    write, SQLite could not make the WAL index (``-shm``) a reader needs, and nobody
    without root can change the database there, so it is opened ``immutable``."""
    from urllib.parse import quote

    flags = "mode=ro"
    if not os.access(db.parent, os.W_OK):
        flags += "&immutable=1"
    uri = f"file:{quote(str(db.resolve()))}?{flags}"
    return sqlite3.connect(uri, uri=True, timeout=lock_timeout, isolation_level=None,
                           check_same_thread=False)


def _rollback(conn: sqlite3.Connection | None) -> None:
    if conn is not None and conn.in_transaction:
        with contextlib.suppress(sqlite3.Error):
            conn.execute("ROLLBACK")


def _guarded(where: Path, action: Callable[[], Any]) -> Any:
    try:
        return action()
    except sqlite3.Error as exc:
        raise _translate(exc, where) from None


def _prepare_db(db: Path, where: Path, lock_timeout: float) -> None:
    """Create or migrate the schema; refuse a database that is not condorlite's."""
    conn = sqlite3.connect(db, timeout=lock_timeout, isolation_level=None)
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if app_id == APPLICATION_ID and version == SCHEMA_VERSION:
            _ensure_wal(conn)
            return
        conn.execute("BEGIN IMMEDIATE")
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        if app_id != APPLICATION_ID and (tables or version):
            conn.execute("ROLLBACK")
            raise DataError(
                f"{db} is an SQLite database but not condorlite's; it was left untouched",
                hint="point --state-dir at another directory",
            )
        if version > SCHEMA_VERSION:
            conn.execute("ROLLBACK")
            raise DataError(
                f"{db} has schema version {version}, newer than this condorlite "
                f"understands ({SCHEMA_VERSION}); it was left untouched",
                hint="upgrade condorlite",
            )
        for v in range(version + 1, SCHEMA_VERSION + 1):
            for statement in MIGRATIONS[v].split(";"):
                if statement.strip():
                    conn.execute(statement)
        conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
        _ensure_wal(conn)
    finally:
        conn.close()


def _ensure_wal(conn: sqlite3.Connection) -> None:
    # Only ever called on a database known to be condorlite's (never on a foreign one).
    if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
        conn.execute("PRAGMA journal_mode=WAL")


def open_state(
    state_dir: Path | str | None,
    *,
    create: bool = True,
    lock_timeout: float = 5.0,
    config_path: Path | None = None,
) -> StateStore:
    """Open a state directory: to write (``create``), creating it on first use, or to
    read, which never creates, migrates or writes anything.

    ``state_dir`` None applies the rule of ``paths.resolve_state_dir``. On creation the
    commented default ``condorlite.toml`` is written (UID_DOMAIN = this machine's FQDN)
    and ``state.db`` gets the current schema. ``config_path`` overrides the config file.
    Opened to read, a missing state is ``NoStateError`` (66) and a database of an
    older schema is read only after a writing command has migrated it.
    """
    where = paths.resolve_state_dir(state_dir)
    cfg = config_path or paths.config_path(where)
    db = paths.db_path(where)
    if not create:
        return _open_to_read(where, cfg, db, lock_timeout)
    try:
        private_dir(where)
        if config_path is None and not cfg.exists():
            write_new(cfg, config_mod.default_config_text(socket.getfqdn() or "localdomain"))
    except OSError as exc:
        raise StateWriteError(f"cannot create the state directory {where}: {exc}") from None
    if db.exists() and db.is_dir():
        raise StateWriteError(f"{db} is a directory, not a state database")
    policy = config_mod.load_policy(cfg)
    private_file(db)
    _guarded(where, lambda: _prepare_db(db, where, lock_timeout))
    return StateStore(where, cfg, policy, lock_timeout)


@dataclass(frozen=True)
class PolicySource:
    """The policy a command would use in ``state_dir``, read without opening a state."""

    state_dir: Path
    config_path: Path
    policy: Policy


def policy_without_state(state_dir: Path | str | None,
                         config_path: Path | None = None) -> PolicySource:
    """The config in force for ``state_dir`` (``config_path`` when given), whether or not
    a state exists there; nothing is created. For views that need no accountant state
    (``status`` of slot or job ads, as condor_status needs none)."""
    where = paths.resolve_state_dir(state_dir)
    cfg = config_path or paths.config_path(where)
    return PolicySource(where, cfg, _read_policy(cfg))


def _read_policy(cfg: Path) -> Policy:
    if cfg.is_file():
        return config_mod.load_policy(cfg)
    # A state made with --config (or none at all) has no condorlite.toml of its own:
    # reading sees the defaults a writer would have written.
    text = config_mod.default_config_text(socket.getfqdn() or "localdomain")
    return config_mod.policy_from_mapping(tomllib.loads(text), cfg, text)


def _open_to_read(where: Path, cfg: Path, db: Path, lock_timeout: float) -> StateStore:
    if not db.is_file():
        raise NoStateError(
            f"no state at {where}",
            hint="check --state-dir (or $CONDORLITE_STATE_DIR); a negotiate or an edit "
                 "makes one",
        )
    policy = _read_policy(cfg)
    _guarded(where, lambda: _check_schema(db, where, lock_timeout))
    return StateStore(where, cfg, policy, lock_timeout, read_only=True)


def _check_schema(db: Path, where: Path, lock_timeout: float) -> None:
    conn = _connect_read_only(db, lock_timeout)
    try:
        app_id = conn.execute("PRAGMA application_id").fetchone()[0]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
    finally:
        conn.close()
    if app_id != APPLICATION_ID:
        raise DataError(f"{db} is not a condorlite state database; it was left untouched",
                        hint="point --state-dir at another directory")
    if version < SCHEMA_VERSION:
        raise OlderSchemaError(
            f"{db} has schema version {version}; this condorlite reads version "
            f"{SCHEMA_VERSION}",
            hint="a writing command (negotiate, an edit) migrates an older state",
        )
    if version != SCHEMA_VERSION:
        raise DataError(
            f"{db} has schema version {version}; this condorlite reads version "
            f"{SCHEMA_VERSION}",
            hint="a writing command (negotiate, an edit) migrates an older state; "
                 "a newer one needs a newer condorlite",
        )
