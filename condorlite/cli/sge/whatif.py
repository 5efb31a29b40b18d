"""``condorlite sge qstat --what-if CHANGE``: how the order and the tickets move.

The cell dump is read twice at the same ``--now``: as it is, and with the changes
(``store.sge_cell._changes``: a sched_conf key, a user, project or userset key, a
share-tree node's shares) made in a temporary copy whose unchanged files are links to
the dump's. Both are prioritised; the difference is per job line (job and its first
task, as qstat groups a job's pending tasks): its place in the scheduling order, prio
and tickets before and after, for every line whose place or figures moved, ordered by
the size of the move (then job number); and per user, the tickets of their pending
lines summed. Both sides are priced with the share-tree usage plain ``sge qstat`` would
use (``_recorded``; ``usage_source`` in the answer). Nothing is written but the
temporary copy, removed at the end.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from condorlite.cli.render import Result, print_text
from condorlite.cli.sge._recorded import PricedCell
from condorlite.core.sge.objects import Cell
from condorlite.core.sge.priority import JobPriority, prioritise
from condorlite.store.sge_cell import changed_dump, parse_change, read_cell

#: Lines the human output lists (all are in --json).
SHOWN = 30


def _pending(rows: tuple[JobPriority, ...]) -> dict[tuple[int, int], tuple[int, JobPriority]]:
    out: dict[tuple[int, int], tuple[int, JobPriority]] = {}
    for place, row in enumerate(r for r in rows if not r.running):
        out[(row.job.number, row.task)] = (place + 1, row)
    return out


def _side(entry: tuple[int, JobPriority] | None) -> dict[str, Any] | None:
    if entry is None:
        return None
    place, row = entry
    return {"place": place, "prio": row.prio, "tckts": row.tickets, "ntckts": row.ntckts,
            "otckt": row.otckt, "ftckt": row.ftckt, "stckt": row.stckt}


def _by_user(rows: tuple[JobPriority, ...]) -> dict[str, float]:
    out: dict[str, float] = {}
    for row in rows:
        if not row.running:
            out[row.job.owner] = out.get(row.job.owner, 0.0) + row.tickets
    return out


def what_if(dump_dir: Path, dump: Cell, texts: list[str], now: int,
            priced: Callable[[Cell, Path], PricedCell]) -> dict[str, Any]:
    """The difference (module doc) as JSON-ready data; ``dump`` is ``dump_dir`` read.
    ``priced(cell, directory)`` gives a side its share-tree usage (``_recorded``: the
    dump's share_mon, else the state's recorded usage, else none); both sides take it
    from the same place, since the changed copy links the dump's share_mon."""
    changes = [parse_change(t) for t in texts]
    current = priced(dump, dump_dir)
    before = prioritise(current.cell, now)
    with tempfile.TemporaryDirectory(prefix="condorlite-sge-what-if-") as tmp:
        changed_dump(dump_dir, changes, Path(tmp))
        after = prioritise(priced(read_cell(Path(tmp)), Path(tmp)).cell, now)
    old, new = _pending(before.jobs), _pending(after.jobs)
    moved = []
    for key in old.keys() | new.keys():
        b, a = _side(old.get(key)), _side(new.get(key))
        if b != a:
            shift = (b["place"] if b else 0) - (a["place"] if a else 0)
            moved.append({"job": key[0], "task": key[1],
                          "user": (new.get(key) or old[key])[1].job.owner,
                          "before": b, "after": a, "places_up": shift})
    moved.sort(key=lambda m: (-abs(m["places_up"]), m["job"], m["task"]))
    users_b, users_a = _by_user(before.jobs), _by_user(after.jobs)
    users = [{"user": u, "tickets_before": users_b.get(u, 0.0),
              "tickets_after": users_a.get(u, 0.0)}
             for u in sorted(users_b.keys() | users_a.keys())
             if users_b.get(u, 0.0) != users_a.get(u, 0.0)]
    return {"what_if": texts, "now": now, "pending_lines": len(new), "moved": moved,
            "users": users, "usage_source": current.usage_source}


def result(data: dict[str, Any]) -> Result:
    def human(console) -> None:  # type: ignore[no-untyped-def]
        lines = [f"What if: {'; '.join(data['what_if'])}",
                 f"{len(data['moved'])} of {data['pending_lines']} pending lines move "
                 f"(place in the scheduling order, prio, tickets)"]
        if data["users"]:
            lines += ["", f"{'user':<16} {'tickets before':>15} {'tickets after':>15}"]
            lines += [f"{u['user']:<16} {u['tickets_before']:>15.2f} "
                      f"{u['tickets_after']:>15.2f}" for u in data["users"]]
        if data["moved"]:
            lines += ["", f"{'job-ID':>8} {'task':>5} {'user':<12} {'place':>13} "
                      f"{'prio':>17} {'tckts':>13}"]
            for m in data["moved"][:SHOWN]:
                b, a = m["before"] or {}, m["after"] or {}
                place = f"{b.get('place', '-')} -> {a.get('place', '-')}"
                prio = f"{b.get('prio', 0):.5f} -> {a.get('prio', 0):.5f}"
                tckts = f"{b.get('tckts', 0):.0f} -> {a.get('tckts', 0):.0f}"
                lines.append(f"{m['job']:>8} {m['task']:>5} {m['user']:<12} {place:>13} "
                             f"{prio:>17} {tckts:>13}")
            if len(data["moved"]) > SHOWN:
                lines.append(f"... {len(data['moved']) - SHOWN} more in --json")
        print_text(console, "\n".join(lines))

    return Result("sge qstat", data, human)
