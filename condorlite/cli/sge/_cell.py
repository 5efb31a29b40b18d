"""Where the ``sge`` commands find their cell dump and their time.

``--cell DIR`` names the dump; without it ``SGE_CELL_DUMP`` of the configuration
(``--config``, ``$CONDORLITE_CONFIG``, else ``STATE_DIR/condorlite.toml`` when it
exists; a relative path is taken from the file's directory). These commands only read:
they never create a state directory. The time is ``--now``, else the dump's own ``now``
(the time the real scheduler ran on it), else the clock. A command runs with Python's
cyclic garbage collector paused (``collector_paused``).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer

from condorlite.errors import UsageError

CellOpt = Annotated[
    Path | None,
    typer.Option(
        "--cell",
        help="Cell dump directory (default: SGE_CELL_DUMP in the configuration).",
        file_okay=False,
    ),
]


def cell_dir(cell: Path | None, config: Path | None, state_dir: Path | None) -> Path:
    """The dump directory of ``--cell`` or the configuration (module doc)."""
    if cell is not None:
        return cell
    # imported here: the configuration and state modules (and the ClassAd language
    # they load) cost a command given --cell about 0.09 s for nothing
    from condorlite.store.config import load_policy
    from condorlite.store.paths import resolve_state_dir

    path = config if config is not None else resolve_state_dir(state_dir) / "condorlite.toml"
    if path.is_file():
        configured = load_policy(path).sge_cell_dump
        if configured:
            given = Path(configured).expanduser()
            return given if given.is_absolute() else path.parent / given
    raise UsageError(
        "no cell dump: give --cell DIR or set SGE_CELL_DUMP in condorlite.toml",
        hint="make one on a live cell with tools/sge/dump-cell.sh DIR",
    )


def run_time(now: str | float | None, dumped: int | None) -> int:
    """``--now``, else the dump's ``now``, else the clock, in whole seconds (Grid
    Engine's clock has whole seconds)."""
    if now is None and dumped is not None:
        return dumped
    from condorlite.cli._state import now_or_clock  # only then (see ``cell_dir``)

    return int(now_or_clock(now))


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused for one command. A cell is read and
    priced into millions of small objects (jobs, tasks, refs, rows) that all live to
    the end of the command, and the collector's passes kept walking them: a third of a
    100,000-job ``sge qstat``. Reference counting still frees everything that is not a
    cycle; the few cycles these commands make (share-tree nodes and their parents) live
    to the end anyway. On the way out every object is moved to the oldest generation
    (``freeze`` then ``unfreeze``, no walk): re-enabled as they were, the first
    allocation would have walked them all at once (0.6 s)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        gc.unfreeze()
        if enabled:
            gc.enable()
