"""Files a command writes for the user (``--plot``, ``metrics -o``, ``export``): all or
nothing, never half a file.

Each file is written to a temporary name in its own directory, then every temporary
is renamed into place; on any failure the temporaries are removed and the command
fails with ``OutputError`` (74), naming what it was writing. A file gets the mode the
umask gives a new file (``mkstemp`` would leave it 0600: a report, a metrics file for
a collector running as another user, a script to hand on), ``0o777`` for an
executable. (The state directory's own files are ``store.private``'s business.)
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from condorlite.errors import OutputError


@dataclass(frozen=True)
class OutFile:
    """One file to write: where, what (text or a writer of a binary stream), and
    whether it is executable."""

    path: Path
    content: str | Callable[[object], None]
    executable: bool = False


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_all(files: list[OutFile], what: str) -> None:
    """Write every file or none (module doc); ``what`` names them in messages
    (``--plot x.svg``, ``DIR``)."""
    temps: list[tuple[str, Path]] = []
    mask = _umask()
    try:
        for item in files:
            folder = item.path.parent if str(item.path.parent) else Path(".")
            folder.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{item.path.name}.", dir=folder)
            temps.append((tmp, item.path))
            if isinstance(item.content, str):
                with os.fdopen(fd, "w", encoding="utf-8") as out:
                    out.write(item.content)
            else:
                with os.fdopen(fd, "wb") as out:
                    item.content(out)
            os.chmod(tmp, (0o777 if item.executable else 0o666) & ~mask)
        for tmp, path in temps:
            os.replace(tmp, path)
    except OSError as exc:
        for tmp, _ in temps:
            Path(tmp).unlink(missing_ok=True)
        raise OutputError(f"{what}: cannot write: {exc.strerror or exc}") from None
    except BaseException:
        for tmp, _ in temps:
            Path(tmp).unlink(missing_ok=True)
        raise
