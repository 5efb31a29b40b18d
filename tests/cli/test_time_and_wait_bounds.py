"""``--now`` past the year 9999 is a usage error, and ``--lock-timeout inf`` waits for
the writer that holds the state (issue 17, item 6)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "NO_COLOR": "1"}

#: holds the state's write lock from "holding" until a line arrives on its stdin (not
#: for a fixed time: under load a command's start-up alone can outlast any sleep)
HOLD = """
import sys
from condorlite.store.db import open_state
store = open_state(sys.argv[1])
with store.transaction(write=True):
    print("holding", flush=True)
    sys.stdin.readline()
"""


def _condorlite(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "condorlite", *args], capture_output=True,
                          text=True, env=ENV, timeout=120)


def test_now_after_year_9999_is_a_usage_error(tmp_path: Path) -> None:
    done = _condorlite("userprio", "--state-dir", str(tmp_path), "--now", "1e17")
    assert done.returncode == 2 and "year 9999" in done.stderr
    done = _condorlite("sge", "qstat", "--cell", str(ROOT / "examples" / "sge-cell"),
                       "--now", "1e17")
    assert done.returncode == 2


def test_lock_timeout_inf_waits_for_the_writer(tmp_path: Path) -> None:
    assert _condorlite("setfactor", "a@x.org", "2", "--state-dir", str(tmp_path),
                       "--now", "1760000000").returncode == 0
    holder = subprocess.Popen([sys.executable, "-c", HOLD, str(tmp_path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=ENV)
    patient = None
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "holding"
        quick = _condorlite("setfactor", "a@x.org", "3", "--state-dir", str(tmp_path),
                            "--now", "1760000000", "--lock-timeout", "0.1")
        assert quick.returncode == 75
        patient = subprocess.Popen(
            [sys.executable, "-m", "condorlite", "setfactor", "a@x.org", "3", "--state-dir",
             str(tmp_path), "--now", "1760000000", "--lock-timeout", "inf"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=ENV)
        # however long it takes to start, it cannot finish while the lock is held
        time.sleep(1.0)
        assert patient.poll() is None
        holder.communicate("release\n", timeout=30)
        _, err = patient.communicate(timeout=120)
        assert patient.returncode == 0, err
    finally:
        for proc in (holder, patient):
            if proc is not None and proc.poll() is None:
                proc.kill()
                proc.wait()


def test_now_takes_an_iso_8601_date(tmp_path: Path) -> None:
    """``--now 2025-10-09T08:53:20Z`` is ``--now 1760000000`` (issue 20)."""
    assert _condorlite("setfactor", "a@x.org", "2", "--state-dir", str(tmp_path),
                       "--now", "1760000000").returncode == 0
    by_epoch = _condorlite("userprio", "--allusers", "--state-dir", str(tmp_path),
                           "--now", "1760000000", "--json")
    by_date = _condorlite("userprio", "--allusers", "--state-dir", str(tmp_path),
                          "--now", "2025-10-09T08:53:20Z", "--json")
    assert by_epoch.returncode == by_date.returncode == 0
    assert by_epoch.stdout == by_date.stdout
    wrong = _condorlite("userprio", "--state-dir", str(tmp_path), "--now", "yesterday")
    assert wrong.returncode == 2 and "ISO 8601" in wrong.stderr
