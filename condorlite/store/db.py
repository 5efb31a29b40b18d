"""The state directory's SQLite database: opening it, and its transactions.

Contract (DESIGN.md 2.1), used by every command that reads or writes state::

    store = open_state(state_dir, create=True, lock_timeout=5.0)
    with store.transaction(write=True) as tx:   # BEGIN IMMEDIATE ... COMMIT / ROLLBACK
        state = tx.load_accountant()
        tx.save_accountant(new_state)
        tx.add_history("setfactor", "alice@x factor 2", {...}, now)

The schema and its migrations are ``schema.py``'s; what a transaction reads and writes
(records, claims, history) is ``transaction.py``'s. This module owns the connections.

Invariants:
- One writer at a time: a write transaction starts with ``BEGIN IMMEDIATE``; a second
  writer waits up to ``lock_timeout`` seconds, then gets ``StateLockedError`` (75).
- A transaction commits everything or nothing; WAL with ``synchronous=FULL`` means a
  process killed at any point leaves either the old or the new state.
- Every ``sqlite3`` error is translated in ONE place (``_translate``) into condorlite's
  errors; a file that is not a condorlite database is reported, never overwritten.
- Opening to read never creates, migrates or writes anything (``schema.check_readable``
  decides what a reader accepts); opening to write creates or migrates
  (``schema.prepare``).
"""

from __future__ import annotations

import contextlib
import os
import socket
import sqlite3
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from condorlite.core.policy import Policy
from condorlite.errors import DataError, NoStateError, StateLockedError, StateWriteError
from condorlite.store import config as config_mod
from condorlite.store import paths, schema
from condorlite.store.private import private_dir, private_file, write_new
from condorlite.store.transaction import Transaction

__all__ = ["PolicySource", "StateStore", "open_state", "policy_without_state"]


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



class StateStore:
    """An opened state directory: its paths, its policy, and transactions on its db."""

    def __init__(self, path: Path, config_path: Path, policy: Policy, lock_timeout: float,
                 read_only: bool = False):
        self.path = path
        self.config_path = config_path
        self.db_path = paths.db_path(path)
        self.policy = policy
        self.lock_timeout = lock_timeout
        self.schema_version = schema.SCHEMA_VERSION
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
    _guarded(where, lambda: schema.prepare(db, lock_timeout))
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
    _guarded(where, lambda: _check_schema(db, lock_timeout))
    return StateStore(where, cfg, policy, lock_timeout, read_only=True)


def _check_schema(db: Path, lock_timeout: float) -> None:
    conn = _connect_read_only(db, lock_timeout)
    try:
        schema.check_readable(conn, db)
    finally:
        conn.close()
