"""The state database's schema: its version, its tables, and the migrations between versions.

Rules:
- A condorlite database carries ``APPLICATION_ID`` (``PRAGMA application_id``) and its
  schema version (``PRAGMA user_version``); ``MIGRATIONS[v]`` is the script that brings
  a database from version v-1 to v, so a new database runs them all from version 0.
- A script, once released, never changes: a state written by an older condorlite is
  migrated by exactly the statements that version ran (``_V1_RECORD_FIELDS`` freezes the
  record columns version 1 created; later ``Record`` fields come by migration).
- ``prepare`` is the only writer of the schema: it creates or migrates in one
  ``BEGIN IMMEDIATE`` transaction, and refuses (leaving it untouched) a database that is
  not condorlite's or is of a newer version. ``check_readable`` is what a reader
  accepts: exactly ``SCHEMA_VERSION`` (an older one is ``OlderSchemaError``: only a
  writing command migrates).
- Nothing here translates ``sqlite3`` errors: the caller (``db.py``, the one choke point)
  does.
"""

from __future__ import annotations

import sqlite3
from dataclasses import fields
from pathlib import Path

from condorlite.core.accounting import Record
from condorlite.errors import DataError

#: "CLit" as a 32-bit integer: marks a database as condorlite's.
APPLICATION_ID = 0x434C6974
SCHEMA_VERSION = 3

#: The records table's columns, in ``Record``'s field order (what ``transaction.py`` reads
#: and writes).
RECORD_FIELDS = tuple(f.name for f in fields(Record))
#: The record columns of schema version 1, frozen: later fields come by migration.
_V1_RECORD_FIELDS = RECORD_FIELDS[:RECORD_FIELDS.index("accounting_group") + 1]

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


def prepare(db: Path, lock_timeout: float) -> None:
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


def check_readable(conn: sqlite3.Connection, db: Path) -> None:
    """Refuse to read the database ``db`` (``conn`` is open on it) unless it is
    condorlite's and of ``SCHEMA_VERSION`` exactly."""
    app_id = conn.execute("PRAGMA application_id").fetchone()[0]
    version = conn.execute("PRAGMA user_version").fetchone()[0]
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
