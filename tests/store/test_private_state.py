"""The state directory is private (issue 17, item 5): made 0700 with its files 0600
whatever the umask, refused when others can write to it or it is not the user's, and
the config is written through a fresh temporary file, never a planted name."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from condorlite.errors import StateWriteError
from condorlite.store.db import open_state


@pytest.fixture
def open_umask():
    old = os.umask(0)
    yield
    os.umask(old)


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_created_private_even_under_umask_000(tmp_path: Path, open_umask) -> None:
    where = tmp_path / "state"
    open_state(where)
    assert _mode(where) == 0o700
    assert _mode(where / "state.db") == 0o600
    assert _mode(where / "condorlite.toml") == 0o600
    assert sorted(p.name for p in where.iterdir() if p.name.endswith(".tmp")) == []


def test_a_directory_others_can_write_is_refused(tmp_path: Path) -> None:
    where = tmp_path / "shared"
    where.mkdir()
    os.chmod(where, 0o777)
    with pytest.raises(StateWriteError, match="can be written by other users") as info:
        open_state(where)
    assert info.value.exit_code == 73
    assert list(where.iterdir()) == []  # nothing was written


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="needs root to make a directory another user owns")
def test_a_directory_of_another_user_is_refused(tmp_path: Path) -> None:
    where = tmp_path / "theirs"
    where.mkdir(mode=0o700)
    os.chown(where, 12345, 12345)
    with pytest.raises(StateWriteError, match="belongs to another user"):
        open_state(where)


def test_a_planted_symlink_at_a_temporary_name_is_not_followed(tmp_path: Path) -> None:
    where = tmp_path / "state"
    where.mkdir(mode=0o700)
    victim = tmp_path / "victim"
    victim.write_text("precious\n")
    for pid in range(os.getpid() - 2, os.getpid() + 3):  # the old fixed name, any pid
        (where / f"condorlite.toml.tmp{pid}").symlink_to(victim)
    open_state(where)
    assert victim.read_text() == "precious\n"
    assert (where / "condorlite.toml").read_text().startswith("# condorlite configuration")
