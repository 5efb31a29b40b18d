#!/usr/bin/env python3
"""CPU seconds of one negotiation cycle alone, in process, on a pool directory.

Reads and decodes the pool (``slots.ads``, ``jobs.ads``) as the command does, takes
the pool's own policy (``pool.toml``) and priorities (``userprio.ads``: EUP =
``Priority``, usage = the weight of the slots each user holds), as
``negotiate_real.py`` gives them to the command, then times ``negotiator.Cycle``
set-up, run and result with ``time.process_time`` (the garbage collector off, as the
command has it while it negotiates). Prints ``cpu S matches N evaluations E``; with
``--profile``, the 30 functions of most own time too. Run the same pool with two
checkouts one after the other (``PYTHONPATH=<tree>``) for an A/B that leaves reading
out::

    PYTHONPATH=/tmp/base python benchmarks/cycle_cpu.py /tmp/real/rank-65-s1000-j10000-a300-seed0
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import pstats
import sys
import time
from pathlib import Path

from condorlite.cli.negotiate_inputs import Inputs, decode
from condorlite.core.classad import parse_ads
from condorlite.core.model import Submitter
from condorlite.core.negotiation import negotiator
from condorlite.core.policy import Policy
from condorlite.store.adfiles import read_ads
from condorlite.store.config import load_policy

#: the ``--now`` of the other benchmarks (``genpool.BASE_TIME``)
NOW = 1_700_000_000.0


def submitters(pool: Path, slots: list, jobs: list) -> dict[str, Submitter]:
    """The pool's submitters as ``negotiate_real.py`` imports them (none: empty)."""
    path = pool / "userprio.ads"
    if not path.exists():
        return {}
    eup = {ad.evaluate("Name"): ad.evaluate("Priority") for ad in parse_ads(path.read_text())}
    usage: dict[str, float] = {}
    for slot in slots:
        if slot.remote_user:
            usage[slot.remote_user] = usage.get(slot.remote_user, 0.0) + slot.weight
    names = {j.submitter for j in jobs} | set(usage)
    return {n: Submitter(n, eup=eup.get(n, 500.0), usage=usage.get(n, 0.0)) for n in sorted(names)}


def load_pool(pool: Path) -> tuple[Policy, Inputs]:
    """The pool's policy (``pool.toml``, else the default) and its slots and jobs
    read and decoded as the command does (shared by ``closed_cpu.py``)."""
    config = pool / "pool.toml"
    policy = load_policy(config) if config.exists() else Policy()
    inputs = decode(read_ads([pool / "slots.ads"]), read_ads([pool / "jobs.ads"]), policy)
    return policy, inputs


def run_cycle(pool: Path) -> negotiator.Cycle:
    """One cycle of ``pool`` run as ``main`` runs it (collector off), for the counting
    tools (``held_entry_reads.py``, ``held_lazy_count.py``) that wrap engine methods
    before calling it; the cycle is returned for its result and offers."""
    policy, inputs = load_pool(pool)
    subs = submitters(pool, inputs.slots, inputs.jobs)
    gc.disable()
    cycle = negotiator.Cycle(inputs.slots, inputs.jobs, subs, [], policy, NOW)
    cycle.run()
    return cycle


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pool", type=Path)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    pool = args.pool
    policy, inputs = load_pool(pool)
    subs = submitters(pool, inputs.slots, inputs.jobs)
    gc.disable()
    profile = cProfile.Profile() if args.profile else None
    start = time.process_time()
    if profile is not None:
        profile.enable()
    cycle = negotiator.Cycle(inputs.slots, inputs.jobs, subs, [], policy, NOW)
    cycle.run()
    result = cycle.result()
    if profile is not None:
        profile.disable()
    print(f"cpu {time.process_time() - start:.3f} matches {len(result.matches)} "
          f"evaluations {cycle.mm.evaluations}", flush=True)
    if profile is not None:
        pstats.Stats(profile).sort_stats("tottime").print_stats(30)
    return 0


if __name__ == "__main__":
    sys.exit(main())
