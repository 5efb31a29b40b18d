"""Output that cannot be written is a clean failure (issue 17, item 9): a full disk is
a message on stderr and exit 74, a reader that went away (a closed pipe) a quiet 141."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "NO_COLOR": "1", "TZ": "UTC"}
CELL = ROOT / "examples" / "sge-cell"
FULL = Path("/dev/full")


def _command(tmp_path: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "condorlite", "userprio", "--allusers",
            "--config", str(ROOT / "examples" / "condorlite.toml"),
            "--state-dir", str(tmp_path / "state"), "--now", "1760000000", *extra]


@pytest.fixture
def state(tmp_path: Path) -> Path:
    subprocess.run([sys.executable, "-m", "condorlite", "negotiate",
                    "--config", str(ROOT / "examples" / "condorlite.toml"),
                    "--state-dir", str(tmp_path / "state"), "--now", "1760000000"],
                   check=True, capture_output=True, env=ENV, timeout=120)
    return tmp_path


@pytest.mark.skipif(not FULL.exists(), reason="no /dev/full on this system")
@pytest.mark.parametrize("extra", [(), ("--json",)], ids=["text", "json"])
def test_a_full_disk_is_exit_74_with_a_message(state: Path, extra: tuple[str, ...]) -> None:
    with FULL.open("w") as out:
        done = subprocess.run(_command(state, *extra), stdout=out, stderr=subprocess.PIPE,
                              text=True, env=ENV, timeout=120)
    assert done.returncode == 74
    assert "cannot write the output" in done.stderr and "Traceback" not in done.stderr


@pytest.mark.skipif(not FULL.exists(), reason="no /dev/full on this system")
def test_sge_qstat_to_a_full_disk(tmp_path: Path) -> None:
    with FULL.open("w") as out:
        done = subprocess.run([sys.executable, "-m", "condorlite", "sge", "qstat",
                               "--cell", str(CELL)], stdout=out, stderr=subprocess.PIPE,
                              text=True, env=ENV, timeout=120)
    assert done.returncode == 74 and "Traceback" not in done.stderr


def test_a_closed_pipe_is_a_quiet_141(state: Path) -> None:
    command = [sys.executable, "-m", "condorlite", "negotiate", "--dry-run",
               "--config", str(ROOT / "examples" / "condorlite.toml"),
               "--state-dir", str(state / "state"), "--now", "1760003600"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=ENV)
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()
    error = process.stderr.read()
    assert process.wait(timeout=120) == 141
    assert error == b""
