"""Reads and writes of the state database inside one transaction (``db.StateStore.transaction``).

Rules:
- Every method runs on the connection of the transaction it belongs to; none commits,
  rolls back or translates ``sqlite3`` errors (``StateStore.transaction`` does, in one
  place). A write in a read-only transaction is an internal error (``_need_write``).
- Each ``save_*`` replaces a whole table (records, claims) with what it is given, so a
  state is always the result of one writing command, never a mix.
- Values come back with the types they were written with: SQLite gives integers back for
  whole REAL values, so ``_typed`` restores each record column's type; JSON columns
  (``extra``, history ``data``) are written with sorted keys (deterministic bytes).
"""

from __future__ import annotations

import getpass
import json
import os
import sqlite3
from collections.abc import Iterable
from dataclasses import astuple, dataclass
from typing import Any

from condorlite.core.accounting import AccountantState, ClaimRow, Record
from condorlite.errors import StateWriteError
from condorlite.store.schema import RECORD_FIELDS


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
        cols = ", ".join(RECORD_FIELDS)
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
        marks = ", ".join("?" for _ in RECORD_FIELDS)
        self.conn.executemany(
            f"INSERT INTO records ({', '.join(RECORD_FIELDS)}) VALUES ({marks})",
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
