#!/usr/bin/env python3
"""Count the instructions of one negotiation cycle under callgrind, for A/B comparisons.

Wall-clock figures on this machine move by up to 2x between its fast and slow phases
(``RESULTS.md``), so a change worth 5 % cannot be told from noise by timing it.
Callgrind counts the instructions the process executes instead: the same for the same
code and inputs whatever else the machine is doing, up to about 1 % between runs
(``PYTHONHASHSEED`` is fixed, but dicts keyed by ``id()`` still follow the addresses).
The addresses move with the length of a tree's path (the same commit at two paths of
different length: 1.5 % apart, RESULTS.md session 19), so compare trees at paths of
equal length (``/tmp/base9`` and ``/tmp/main9``, say).

For each TREE (a checkout of condorlite; default: the one this script is in) a child
``python`` runs under ``valgrind --tool=callgrind --instr-atstart=no``: it reads and
decodes the pool's ``slots.ads`` and ``jobs.ads`` with instrumentation off, switches it
on (``callgrind_control --instr=on``) for the cycle alone, ``Cycle`` set-up, run and
result with the default policy, no accountant records and no claims (with
``--pool-policy``: the pool's ``pool.toml`` and priorities, as ``cycle_cpu.py`` reads
them), and off again.
The trees run one after the other, so they do not share the two cores.

Prints a Markdown table (tree, commit, instructions, ratio to the first tree, matches)
or JSON with ``--json``. A cycle at 10,000 slots x 100,000 jobs takes about two and a
half minutes per tree. Needs valgrind (Debian's ``valgrind`` package).

Instruction ratios overstate what a change buys when the passes it leaves are bound by
memory (session 22: instruction ratios of 0.81-0.90, median time ratios of 0.83-0.93).
``--cache`` runs callgrind's cache and branch simulation too (about twice as slow) with
this machine's caches (AMD EPYC, Zen 4: ``--I1``/``--D1`` 32 KiB 8-way, last level 32 MiB
16-way, 64-byte lines; valgrind misreads the last level here, so they are given) and
adds the misses and an estimate of the cycles, valgrind's own cycle estimate::

    cycles = Ir + 10 * (I1mr + D1mr + D1mw + Bcm + Bim) + 100 * (ILmr + DLmr + DLmw)

(first-level misses and mispredicted branches ~10 cycles each, last-level misses ~100).
It is as repeatable as the instruction count and moves with what the memory costs.
Usage::

    python benchmarks/instructions.py --pool /tmp/bench/s10000-j100000-u100-a500-seed0-old \\
        /tmp/base-checkout .
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: the ``--now`` of the other benchmarks (``genpool.BASE_TIME``), so runs compare
NOW = 1_700_000_000

_CHILD = """\
import gc, os, subprocess, sys
from pathlib import Path
from condorlite.cli.negotiate_inputs import decode
from condorlite.core.negotiation import negotiator
from condorlite.core.policy import Policy
from condorlite.store.adfiles import read_ads
pool, now, own = Path(sys.argv[1]), float(sys.argv[2]), sys.argv[3] == "own"
policy, subs = Policy(), {}
if own:  # the pool's policy and priorities, as ``cycle_cpu.py`` gives them
    sys.path.insert(0, sys.argv[4])
    from cycle_cpu import submitters
    from condorlite.store.config import load_policy
    if (pool / "pool.toml").exists():
        policy = load_policy(pool / "pool.toml")
inputs = decode(read_ads([pool / "slots.ads"]), read_ads([pool / "jobs.ads"]), policy)
if own:
    subs = submitters(pool, inputs.slots, inputs.jobs)
gc.disable()  # as the command does while it negotiates
control = ["callgrind_control", "--instr=on", str(os.getpid())]
subprocess.run(control, check=True, capture_output=True)
cycle = negotiator.Cycle(inputs.slots, inputs.jobs, subs, [], policy, now)
cycle.run()
result = cycle.result()
control[1] = "--instr=off"
subprocess.run(control, check=True, capture_output=True)
print("matches", len(result.matches))
"""

_REFS = re.compile(r"Collected\s*:\s*([0-9,]+)")
_EVENTS = re.compile(r"Events\s*:\s*([A-Za-z0-9 ]+?)\s*$", re.MULTILINE)
_COLLECTED = re.compile(r"Collected\s*:\s*([0-9 ]+?)\s*$", re.MULTILINE)
#: the machine's caches for ``--cache`` (size, associativity, line size; module doc)
CACHES = ("--I1=32768,8,64", "--D1=32768,8,64", "--LL=33554432,16,64")
#: weights of valgrind's cycle estimate (module doc)
_FIRST_LEVEL = ("I1mr", "D1mr", "D1mw", "Bcm", "Bim")
_LAST_LEVEL = ("ILmr", "DLmr", "DLmw")
_MATCHES = re.compile(r"^matches (\d+)$", re.MULTILINE)


@dataclass
class Count:
    tree: str
    commit: str
    instructions: int
    matches: int
    #: with ``--cache``: first-level misses (I1mr + D1mr + D1mw), last-level misses
    #: (ILmr + DLmr + DLmw), mispredicted branches (Bcm + Bim), the cycle estimate
    l1_misses: int | None = None
    ll_misses: int | None = None
    mispredicts: int | None = None
    cycles: int | None = None


def parse_counts(valgrind_log: str, child_out: str) -> tuple[int, int]:
    """(instructions collected, matches) from a child's valgrind log and its output."""
    refs = _REFS.findall(valgrind_log)
    found = _MATCHES.search(child_out)
    if not refs or found is None:
        raise ValueError("no instruction count or match count in the child's output")
    return int(refs[-1].replace(",", "")), int(found.group(1))


def parse_events(valgrind_log: str) -> dict[str, int]:
    """Every event callgrind collected (``Events`` names -> ``Collected`` counts, the
    last summary of the log); empty when the log has none."""
    names = _EVENTS.findall(valgrind_log)
    values = _COLLECTED.findall(valgrind_log)
    if not names or not values:
        return {}
    counts = values[-1].split()
    keys = names[-1].split()
    if len(counts) != len(keys):
        raise ValueError("callgrind's events and collected counts do not line up")
    return dict(zip(keys, map(int, counts), strict=True))


def cache_figures(events: dict[str, int]) -> dict[str, int]:
    """``Count``'s cache fields from ``parse_events`` with the cache and branch
    simulation on (module doc's formula)."""
    missing = [n for n in ("Ir", *_FIRST_LEVEL, *_LAST_LEVEL) if n not in events]
    if missing:
        raise ValueError(f"callgrind collected no {', '.join(missing)} (no cache simulation?)")
    first = sum(events[n] for n in ("I1mr", "D1mr", "D1mw"))
    last = sum(events[n] for n in _LAST_LEVEL)
    branches = events["Bcm"] + events["Bim"]
    return {"l1_misses": first, "ll_misses": last, "mispredicts": branches,
            "cycles": events["Ir"] + 10 * (first + branches) + 100 * last}


def commit_of(tree: Path) -> str:
    """The tree's short commit, with ``+`` when it has changes; ``-`` outside git."""
    def git(*args: str) -> str:
        out = subprocess.run(["git", "-C", str(tree), *args], capture_output=True, text=True)
        return out.stdout.strip() if out.returncode == 0 else ""

    head = git("rev-parse", "--short", "HEAD")
    if not head:
        return "-"
    return head + ("+" if git("status", "--porcelain", "--untracked-files=no") else "")


def count(tree: Path, pool: Path, now: float = NOW, own: bool = False,
          cache: bool = False) -> Count:
    """Run one child under callgrind (see the module doc); ``own``: with the pool's
    policy and priorities (``--pool-policy``); ``cache``: with the cache and branch
    simulation (``--cache``)."""
    simulate = ["--cache-sim=yes", "--branch-sim=yes", *CACHES] if cache else []
    with tempfile.TemporaryDirectory() as work:
        log = Path(work) / "valgrind.log"
        env = dict(os.environ, PYTHONPATH=str(tree), PYTHONHASHSEED="0")
        done = subprocess.run(
            ["valgrind", "--tool=callgrind", "--instr-atstart=no", *simulate,
             f"--log-file={log}",
             f"--callgrind-out-file={Path(work) / 'callgrind.out'}",
             sys.executable, "-c", _CHILD, str(pool), str(now),
             "own" if own else "default", str(HERE)],
            cwd=work, env=env, capture_output=True, text=True)
        text = log.read_text() if log.exists() else ""
        if done.returncode != 0:
            raise RuntimeError(f"{tree}: the child failed ({done.returncode}):\n"
                               f"{done.stderr[-2000:]}{text[-2000:]}")
        instructions, matches = parse_counts(text, done.stdout)
        figures = cache_figures(parse_events(text)) if cache else {}
    return Count(str(tree), commit_of(tree), instructions, matches, **figures)


def ready(script: str, pool: Path) -> bool:
    """Whether valgrind's tools are installed and ``pool`` holds both ad files; says
    what is missing on standard error, as ``script``, when not (this script's and
    ``read_instructions.py``'s preconditions)."""
    for tool in ("valgrind", "callgrind_control"):
        if shutil.which(tool) is None:
            print(f"{script}: {tool} is not installed (Debian: valgrind)", file=sys.stderr)
            return False
    for name in ("slots.ads", "jobs.ads"):
        if not (pool / name).is_file():
            print(f"{script}: {pool / name}: no such file", file=sys.stderr)
            return False
    return True


def table(counts: list[Count]) -> str:
    """The counts as Markdown, ratios to the first tree's; with the cache figures
    when they were measured."""
    cached = bool(counts) and counts[0].cycles is not None
    head = "| tree | commit | instructions | ratio | matches |"
    if cached:
        head += " L1 misses | LL misses | mispredicts | cycles (est.) | ratio |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    first = counts[0] if counts else None
    for c in counts:
        line = (f"| {c.tree} | {c.commit} | {c.instructions:,} | "
                f"{c.instructions / first.instructions:.3f} | {c.matches} |")
        if cached and c.cycles is not None:
            line += (f" {c.l1_misses:,} | {c.ll_misses:,} | {c.mispredicts:,} | "
                     f"{c.cycles:,} | {c.cycles / first.cycles:.3f} |")
        lines.append(line)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("trees", nargs="*", type=Path, default=[HERE.parent],
                        help="condorlite checkouts to measure (default: this one)")
    parser.add_argument("--pool", type=Path, required=True,
                        help="a directory holding slots.ads and jobs.ads (genpool.py)")
    parser.add_argument("--now", type=float, default=NOW)
    parser.add_argument("--pool-policy", action="store_true",
                        help="the pool's pool.toml and userprio.ads, as cycle_cpu.py "
                             "reads them (default: the default policy, no priorities)")
    parser.add_argument("--cache", action="store_true",
                        help="simulate the caches and branches too, and estimate the "
                             "cycles (about twice as slow; module doc)")
    parser.add_argument("--json", action="store_true", help="print JSON instead")
    args = parser.parse_args(argv)
    if not ready("instructions.py", args.pool):
        return 2
    try:
        counts = [count(tree.resolve(), args.pool.resolve(), args.now, args.pool_policy,
                        args.cache)
                  for tree in args.trees]
    except (RuntimeError, ValueError) as exc:
        print(f"instructions.py: {exc}", file=sys.stderr)
        return 1
    print(json.dumps([asdict(c) for c in counts]) if args.json else table(counts))
    return 0


if __name__ == "__main__":
    sys.exit(main())
