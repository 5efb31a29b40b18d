"""Files of the state directory that only their owner may read or change.

Invariants: the directory is 0700 and owned by this user (refused when another user
owns it or others can write to it); files are created 0600 whatever the umask, with
O_EXCL and never through a symlink; a file is replaced by write-then-rename, so a crash
never leaves half of one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from condorlite.errors import StateWriteError

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def private_dir(where: Path) -> None:
    """Create ``where`` 0700 whatever the umask, or check the existing one: owned by
    this user and writable by nobody else (as ssh refuses a key others can change),
    since accountant records and history are private and a directory others can write
    to lets them plant files the next command follows."""
    if not where.exists():
        where.mkdir(parents=True, mode=0o700)
        os.chmod(where, 0o700)  # mkdir's mode is filtered by the umask
        return
    info = where.stat()
    if hasattr(os, "getuid") and info.st_uid != os.getuid():
        raise StateWriteError(
            f"the state directory {where} belongs to another user (uid {info.st_uid})",
            hint="use a state directory of your own (--state-dir)",
        )
    if info.st_mode & 0o022:
        raise StateWriteError(
            f"the state directory {where} can be written by other users "
            f"(mode {info.st_mode & 0o777:o})",
            hint=f"chmod go-w {where}",
        )


def private_file(path: Path) -> None:
    """Create ``path`` empty and 0600 when it does not exist (SQLite would create it
    with the umask's mode); never through a symlink."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o600)
    except FileExistsError:
        return
    except OSError as exc:
        raise StateWriteError(f"cannot create {path}: {exc}") from None
    os.fchmod(fd, 0o600)
    os.close(fd)


def write_new(path: Path, text: str) -> None:
    # Write then rename, so a crash never leaves a half-written config behind; the
    # temporary file is made by mkstemp (O_EXCL, 0600), so no planted name or symlink
    # is ever followed.
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=path.name + ".", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
