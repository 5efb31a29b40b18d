"""Time ``condorlite userprio`` on an accountant with N records (default 10,000).

Builds a state directory in a temporary folder with N submitters (a deterministic mix of
usage, factors and idle times), then runs the real command as a subprocess several
times and prints the best and median wall-clock times of the whole command (Python
start-up, opening the state, decaying every record to --now, sorting, rendering).

    python benchmarks/userprio.py [--records 10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from condorlite.core import accounting as A
from condorlite.core.accounting import AccountantState
from condorlite.store.db import open_state

T0 = 1_700_000_000


def build(state_dir: Path, n: int) -> None:
    rng = random.Random(42)
    store = open_state(state_dir)
    policy = store.policy
    state = A.update_priorities(AccountantState(None), policy, T0 - 3600)
    for i in range(n):
        name = f"user{i:05d}@pool{i % 7}.example.org"
        state = A.add_match(state, policy, name, float(rng.choice((1, 2, 4, 8))), T0 - 3600)
        if i % 3 == 0:
            state = A.set_factor(state, policy, name, rng.choice((1.0, 10.0, 500.0)), T0)
    state = A.update_priorities(state, policy, T0)
    with store.transaction() as tx:
        tx.save_accountant(state)


def time_command(args: list[str], repeat: int) -> list[float]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    opts = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        state_dir = Path(tmp) / "state"
        started = time.perf_counter()
        build(state_dir, opts.records)
        print(f"built {opts.records} records in {time.perf_counter() - started:.2f} s")
        base = [sys.executable, "-m", "condorlite", "userprio", "--state-dir", str(state_dir),
                "--now", str(T0 + 600)]
        for label, extra in (("table (--allusers)", ["--allusers"]),
                             ("--json --allusers", ["--json", "--allusers"]),
                             ("--version (start-up only)", None)):
            args = [sys.executable, "-m", "condorlite", "--version"] if extra is None \
                else base + extra
            times = time_command(args, opts.repeat)
            print(f"userprio {label:26s} best {min(times):.3f} s  "
                  f"median {statistics.median(times):.3f} s  ({opts.repeat} runs)")


if __name__ == "__main__":
    main()
