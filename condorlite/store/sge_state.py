"""The Grid Engine cycle's state in ``state.db`` (schema version 3, ``schema.MIGRATIONS``):
``sge_usage`` (one row per ``UsageKey``), ``sge_runs`` (one row per running task, its
queue instances and granted resources as JSON), ``meta.sge_last_cycle`` and
``meta.sge_halftime`` (the halftime the last cycle decayed with).

Read and written inside a ``db.Transaction`` (its connection; sqlite errors reach the
transaction's single translation point). ``save`` replaces everything, so what is
stored is exactly the ``SgeState`` given; rows are written in key order.
"""

from __future__ import annotations

import json
from typing import Any

from condorlite.core.sge.cycle import RunRecord, SgeState
from condorlite.core.sge.dispatch import Grant, Resource
from condorlite.core.sge.usage import UsageKey, UsageRecord, UsageVector
from condorlite.store.transaction import Transaction

_USAGE_COLUMNS = "kind, name, project, cpu, mem, io, lt_cpu, lt_mem, lt_io, usage_time"
_RUN_COLUMNS = ("job, task, owner, project, source, start_time, slots, grants, resources, "
                "debited_cpu, debited_mem, debited_io")


def load(tx: Transaction) -> SgeState:
    """The stored state (empty before the first cycle)."""
    conn = tx.conn
    last, halftime = _meta_int(tx, "sge_last_cycle"), _meta_int(tx, "sge_halftime")
    records = {}
    for v in conn.execute(f"SELECT {_USAGE_COLUMNS} FROM sge_usage "
                          "ORDER BY kind, name, project"):
        key = UsageKey(str(v[0]), str(v[1]), str(v[2]))
        records[key] = UsageRecord(key, UsageVector(float(v[3]), float(v[4]), float(v[5])),
                                   UsageVector(float(v[6]), float(v[7]), float(v[8])),
                                   int(v[9]))
    runs = {}
    for v in conn.execute(f"SELECT {_RUN_COLUMNS} FROM sge_runs ORDER BY job, task"):
        run = RunRecord(
            job=int(v[0]), task=int(v[1]), owner=str(v[2]),
            project=None if v[3] is None else str(v[3]), source=str(v[4]),
            start_time=int(v[5]), slots=int(v[6]), grants=_grants(v[7]),
            resources=_resources(v[8]),
            debited=UsageVector(float(v[9]), float(v[10]), float(v[11])))
        runs[(run.job, run.task)] = run
    return SgeState(last, records, runs, halftime)


def save(tx: Transaction, state: SgeState) -> None:
    """Replace the stored state by ``state``."""
    conn = tx.conn
    if not tx.write:
        raise AssertionError("sge_state.save inside a read-only transaction")
    for key, value in (("sge_last_cycle", state.last_cycle), ("sge_halftime", state.halftime)):
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)",
                     (key, None if value is None else str(value)))
    conn.execute("DELETE FROM sge_usage")
    conn.executemany(
        f"INSERT INTO sge_usage ({_USAGE_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ((k.kind, k.name, k.project, r.usage.cpu, r.usage.mem, r.usage.io,
          r.long_term.cpu, r.long_term.mem, r.long_term.io, r.usage_time)
         for k, r in sorted(state.records.items())))
    conn.execute("DELETE FROM sge_runs")
    conn.executemany(
        f"INSERT INTO sge_runs ({_RUN_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        ((r.job, r.task, r.owner, r.project, r.source, r.start_time, r.slots,
          json.dumps([_grant_json(g) for g in r.grants]),
          json.dumps([_resource_json(x) for x in r.resources]),
          r.debited.cpu, r.debited.mem, r.debited.io)
         for _, r in sorted(state.runs.items())))


def _meta_int(tx: Transaction, key: str) -> int | None:
    row = tx.conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None or row[0] is None else int(row[0])


def _grant_json(g: Grant) -> dict[str, Any]:
    return {"queue_instance": g.queue_instance, "host": g.host, "slots": g.slots}


def _resource_json(r: Resource) -> dict[str, Any]:
    return {"level": r.level, "object": r.object, "resource": r.resource, "amount": r.amount}


def _grants(text: str) -> tuple[Grant, ...]:
    return tuple(Grant(str(g["queue_instance"]), str(g["host"]), int(g["slots"]))
                 for g in json.loads(text))


def _resources(text: str) -> tuple[Resource, ...]:
    return tuple(Resource(str(r["level"]), str(r["object"]), str(r["resource"]),
                          float(r["amount"])) for r in json.loads(text))
