#!/usr/bin/env python3
"""Whether two checkouts of condorlite decide the same cycle on the same pools.

For each pool directory (as ``negotiate_real.py`` or ``genpool.py`` write them:
``slots.ads``, ``jobs.ads``, optionally ``pool.toml`` and ``userprio.ads``), each
tree runs ``negotiate --dry-run --json`` in a fresh state of its own (priorities
imported first when the pool has them), and the two documents are compared with
every figure that measures the work rather than the outcome left out (durations,
evaluation counts, slot shapes, timings). Prints one line per pool: SAME or DIFF and
the two evaluation counts; exits 1 when any pool differs (the two documents of the
first difference are written next to the pool as ``same_allocation.a.json`` and
``.b.json``). Usage::

    python benchmarks/same_allocation.py /work/old-checkout . /tmp/real/*-s1000-j10000-*
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

NOW = "1700000000"
#: keys whose values measure the work, not the outcome
_WORK = ("duration", "evaluation", "seconds", "shape", "timing", "walks_cut")
_OPEN = ("import sys; from pathlib import Path; from condorlite.store.db import open_state; "
         "open_state(Path(sys.argv[1]), config_path=Path(sys.argv[2]) if len(sys.argv) > 2 "
         "else None)")


def run(tree: str, pool: Path) -> dict:
    """``negotiate --dry-run --json`` of ``tree`` on ``pool``, in a fresh state."""
    state = tempfile.mkdtemp(prefix="same-allocation-")
    env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()))
    python = [sys.executable, "-m", "condorlite"]
    config = sorted(str(p) for p in pool.glob("*.toml"))
    extra = ["--config", config[0]] if config else []
    # (run outside any checkout: ``-m`` puts the working directory first on the path)
    where = tempfile.gettempdir()
    subprocess.run([sys.executable, "-c", _OPEN, state, *config[:1]], env=env, check=True,
                   cwd=where)
    priorities = pool / "userprio.ads"
    if priorities.exists():
        subprocess.run([*python, "import", str(priorities), "--state-dir", state, "--now", NOW,
                        "--json", *extra], env=env, check=True, stdout=subprocess.DEVNULL,
                       cwd=where)
    out = subprocess.run([*python, "negotiate", "--dry-run", "--json", "--slots",
                          str(pool / "slots.ads"), "--jobs", str(pool / "jobs.ads"),
                          "--state-dir", state, "--now", NOW, *extra],
                         env=env, capture_output=True, text=True, cwd=where)
    return json.loads(out.stdout)


def outcome(doc: object) -> object:
    """The document less every key whose value measures the work."""
    if isinstance(doc, dict):
        return {k: outcome(v) for k, v in doc.items() if not any(w in k for w in _WORK)}
    if isinstance(doc, list):
        return [outcome(v) for v in doc]
    return doc


def evaluations(doc: dict) -> str:
    found = re.search(r'"evaluations": (\d+)', json.dumps(doc))
    return found.group(1) if found else "-"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree_a")
    parser.add_argument("tree_b")
    parser.add_argument("pools", nargs="+", type=Path)
    args = parser.parse_args(argv)
    differ = False
    for pool in args.pools:
        a, b = run(args.tree_a, pool), run(args.tree_b, pool)
        same = outcome(a) == outcome(b)
        print(pool.name, "SAME" if same else "DIFF", evaluations(a), evaluations(b), flush=True)
        if not same and not differ:
            (pool / "same_allocation.a.json").write_text(json.dumps(outcome(a), indent=1))
            (pool / "same_allocation.b.json").write_text(json.dumps(outcome(b), indent=1))
        differ = differ or not same
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
