"""Which share-tree usage the reading ``sge`` commands price with (``sge qstat``,
``sge sharetree``, ``sge explain``, ``sge schedule --dry-run``).

Precedence, first that applies:

1. the dump's ``share_mon`` file (what the real qmaster holds; ``share_mon`` in the
   answer's ``usage_source``);
2. the usage recorded in the state directory by ``sge schedule`` cycles, brought up to
   the command's time as the next cycle would bring it (decayed, the running tasks'
   usage since the last cycle charged; ``state``), with condorlite's own runs
   running; nothing is written;
3. none: every node has usage 0 (``none``; no state directory, one that never
   recorded a cycle, or one of an older schema, which cannot hold a cycle).

The state is opened to read only: a missing state directory is case 3, never created.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from condorlite.cli._state import open_store
from condorlite.cli.sge._cell import cell_dir, run_time
from condorlite.core.sge.cycle import advance, priced_with
from condorlite.core.sge.objects import Cell
from condorlite.errors import NoStateError
from condorlite.store import sge_state
from condorlite.store.schema import OlderSchemaError
from condorlite.store.sge_cell import read_cell

SHARE_MON = "share_mon"
STATE = "state"
NONE = "none"


@dataclass(frozen=True)
class PricedCell:
    """The cell to price and where its usage came from (module doc)."""

    cell: Cell
    usage_source: str


def with_recorded_usage(dump: Cell, dump_dir: Path, state_dir: Path | None,
                        config: Path | None, at: int) -> PricedCell:
    """``dump`` with the usage of the module doc's precedence, at ``at``."""
    if (dump_dir / SHARE_MON).is_file():
        return PricedCell(dump, SHARE_MON)
    try:
        store = open_store(state_dir, config=config, write=False)
    except (NoStateError, OlderSchemaError):
        return PricedCell(dump, NONE)
    with store.transaction(write=False) as tx:
        state = sge_state.load(tx)
    if state.last_cycle is None:
        return PricedCell(dump, NONE)
    adv = advance(state, dump, at)
    return PricedCell(priced_with(adv.cell, adv.state.records), STATE)


@dataclass(frozen=True)
class PricedRead:
    """A dump read for a reading command: the cell with its usage, the time to price
    at (``_cell.run_time``) and the usage's source."""

    cell: Cell
    at: int
    usage_source: str


def read_priced(cell: Path | None, config: Path | None, state_dir: Path | None,
                now: str | float | None) -> PricedRead:
    """Read the dump of ``--cell`` (or the configuration's) and choose its usage."""
    dump_dir = cell_dir(cell, config, state_dir)
    dump = read_cell(dump_dir)
    at = run_time(now, dump.now)
    priced = with_recorded_usage(dump, dump_dir, state_dir, config, at)
    return PricedRead(priced.cell, at, priced.usage_source)
