"""The optimised cycle decides what the plain reference cycle does on pools that look
like real ones: every real-pool property of ``benchmarks/genpool.py`` switched on at once
(ads of real size, per-slot unique KFlops / Mips / LoadAvg / KeyboardIdle / free disk,
65% of autoclusters ranking on them, owner START and Rank policies on 30% of machines,
each slot's Disk its share of the free disk, 30% claimed with
``PREEMPTION_REQUIREMENTS = RemoteUserPrio > SubmitterUserPrio * 1.2``), in both mixes
of ``benchmarks/negotiate_real.py`` (every machine static, every machine partitionable)
and a half-and-half one, on a few seeds.

The pools are read as the command reads them (``read_ads``), the policy from the pool's
own ``pool.toml`` (``load_policy``), and the submitters' priorities from the pool's
``userprio.ads`` (EUP = ``Priority``; usage = the weight of the slots each one holds).
The comparison is ``test_equivalence``'s: every match, rejection, submitter figure,
preempted claim, autocluster and note.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from condorlite.core.classad import parse_ads
from condorlite.core.model import Submitter
from condorlite.store.config import load_policy
from tests.core._pool import decoded_pool
from tests.core.negotiation.test_equivalence import _both, _fingerprint

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import genpool  # a script directory, not a package

PREEMPTION = "RemoteUserPrio > SubmitterUserPrio * 1.2"
EVERYTHING = dict(realistic=True, unique=True, rank_fraction=0.65, owner_start_fraction=0.3,
                  disk_share=True, claimed_fraction=0.3, preemption_requirements=PREEMPTION)


def _pool(tmp: Path, spec: genpool.PoolSpec):
    files = genpool.write_pool(spec, tmp)
    policy = load_policy(files.config_path)
    slots, jobs = decoded_pool(files, policy, shared=True)
    eup = {ad.evaluate("Name"): ad.evaluate("Priority")
           for ad in parse_ads(files.priorities_path.read_text())}
    usage: dict[str, float] = {}
    for slot in slots:
        if slot.remote_user:
            usage[slot.remote_user] = usage.get(slot.remote_user, 0.0) + slot.weight
    names = {j.submitter for j in jobs} | set(usage)
    subs = {n: Submitter(n, eup=eup[n], usage=usage.get(n, 0.0)) for n in sorted(names)}
    return slots, jobs, subs, policy


#: mix -> (partitionable fraction, slots, jobs): partitionable slots are carved many
#: times, which the reference cycle pays dearly for, so their pools are smaller.
MIXES = {"static": (0.0, 150, 400), "partitionable": (1.0, 60, 250), "half": (0.5, 100, 300)}
CASES = [pytest.param(mix, seed, id=f"{mix}-seed{seed}") for mix in MIXES for seed in (1, 2, 3)]


@pytest.mark.parametrize(("mix", "seed"), CASES)
def test_every_property_on(tmp_path, monkeypatch, mix, seed):
    fraction, n_slots, n_jobs = MIXES[mix]
    spec = genpool.PoolSpec(slots=n_slots, jobs=n_jobs, submitters=8, autoclusters=40,
                            seed=seed, partitionable_fraction=fraction, **EVERYTHING)
    slots, jobs, subs, policy = _pool(tmp_path, spec)
    assert policy.preemption_requirements == PREEMPTION
    fast, plain = _both(monkeypatch, slots, jobs, subs, policy)
    assert fast.matches, "the pool should produce matches"
    reasons = {m.reason for m in fast.matches}
    assert "priority" in reasons, reasons  # PREEMPTION_REQUIREMENTS lets some through
    if mix != "partitionable":
        assert any(s.kind == "static" for s in slots)
    if mix != "static":
        pieces = [m for m in fast.matches if m.partitionable]
        assert len(pieces) > len({m.partitionable for m in pieces}) > 0
    assert _fingerprint(fast) == _fingerprint(plain)
