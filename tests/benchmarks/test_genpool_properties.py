"""The generator's real-pool properties: off by default (same bytes as before they
existed), each doing what it says when on, deterministic, and read by condorlite."""

from __future__ import annotations

import hashlib
from collections import Counter
from pathlib import Path

import pytest

from condorlite.store.config import load_policy
from tests.benchmarks._load import load

genpool = load("genpool")

SPEC = genpool.PoolSpec(slots=120, jobs=900, submitters=6, autoclusters=30, seed=7)
#: sha256 of SPEC's files as the generator wrote them before the properties existed
#: (commit c1c2f03): the defaults must keep every recorded benchmark pool as it was.
GOLDEN = {
    "old": ("c497a6d007b246224a01ebc84a8e9940c413a4342bac3d9a08e416b0a52b4915",
            "c77e4a655de51104fd5c1495e16b9d13f010202d82978ddb3d69e4556944b27b"),
    "json": ("0596016be6411a9483853fd922676e6de76663950c7f1a24f3f47455e45b72b3",
             "2bf95cf238f251145c4dc09249dde20dd31835f744b6996a336d33c275e35e87"),
}
PREEMPTION = "RemoteUserPrio > SubmitterUserPrio * 1.2"
EVERYTHING = dict(realistic=True, unique=True, rank_fraction=0.65, owner_start_fraction=0.3,
                  disk_share=True, claimed_fraction=0.3, preemption_requirements=PREEMPTION)


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _spec(**fields) -> genpool.PoolSpec:
    return genpool.PoolSpec(**{**SPEC.__dict__, "slots": 600, **fields})


def _slots(**fields) -> list[dict]:
    return [dict(ad) for ad in genpool.generate_slots(_spec(**fields))]


@pytest.mark.parametrize("fmt", ["old", "json"])
def test_defaults_write_the_bytes_of_before(tmp_path: Path, fmt: str) -> None:
    files = genpool.write_pool(SPEC, tmp_path, fmt)
    assert (_sha(files.slots_path), _sha(files.jobs_path)) == GOLDEN[fmt]
    assert files.config_path is None and files.priorities_path is None


def test_every_property_is_deterministic(tmp_path: Path) -> None:
    spec = _spec(partitionable_fraction=0.5, **EVERYTHING)
    a = genpool.write_pool(spec, tmp_path / "a")
    b = genpool.write_pool(spec, tmp_path / "b")
    for x, y in ((a.slots_path, b.slots_path), (a.jobs_path, b.jobs_path),
                 (a.config_path, b.config_path), (a.priorities_path, b.priorities_path)):
        assert x.read_bytes() == y.read_bytes()


def test_realistic_ads_have_real_sizes() -> None:
    spec = _spec(realistic=True)
    slots = list(genpool.generate_slots(spec))
    jobs = list(genpool.generate_jobs(genpool.PoolSpec(**{**spec.__dict__, "jobs": 300})))
    sizes = [len(genpool._old_value(v)) + len(n) + 4 for ad in slots for n, v in ad]
    assert 150 <= sum(map(len, slots)) / len(slots) <= 170
    assert 2_000 <= sum(sizes) / len(slots) <= 5_500
    assert 80 <= sum(map(len, jobs)) / len(jobs) <= 90
    # sorted by name as -long prints, per-job values unique
    assert all([n.lower() for n, _ in ad] == sorted(n.lower() for n, _ in ad) for ad in slots)
    assert len({dict(ad)["Args"] for ad in jobs}) == len(jobs)
    # what matchmaking reads is the generator's own: the plain pool's expressions
    plain = _slots()
    for ad, base in zip(slots, plain, strict=True):
        for name in ("Requirements", "Start", "WithinResourceLimits", "Rank", "Cpus",
                     "Memory", "Disk", "KFlops"):
            assert dict(ad)[name] == base[name]


def test_unique_numbers_differ_slot_by_slot() -> None:
    ads = _slots(unique=True)
    for name in ("KFlops", "Mips", "LoadAvg", "KeyboardIdle", "EnteredCurrentState"):
        assert len({ad[name] for ad in ads}) > 0.9 * len(ads), name
    machines = {ad["Machine"]: ad["TotalDisk"] for ad in ads}
    assert len(set(machines.values())) == len(machines)
    assert len({ad["Disk"] for ad in ads}) < 0.2 * len(ads)  # Disk is disk_share's


def test_rank_fraction_is_exact_and_the_rest_is_neutral() -> None:
    shapes = genpool.job_shapes(genpool.PoolSpec(slots=0, jobs=0, autoclusters=300,
                                                 rank_fraction=0.65))
    unique = {genpool.rank_text(a, q) for a in genpool.UNIQUE_RANKS for q in (True, False)}
    assert sum(s.rank in unique for s in shapes) == 195
    assert {s.rank for s in shapes} - unique == set(genpool.NEUTRAL_RANKS)
    assert len(set(shapes)) == 300
    kflops = genpool.job_shapes(genpool.PoolSpec(slots=0, jobs=0, autoclusters=300,
                                                 rank_fraction=0.05, rank_on=("KFlops",)))
    assert Counter(s.rank for s in kflops if "KFlops" in s.rank).total() == 15


def test_partitionable_fraction() -> None:
    assert "Partitionable" not in {ad["SlotType"] for ad in _slots(partitionable_fraction=0.0)}
    kinds = {ad["SlotType"] for ad in _slots(partitionable_fraction=1.0)}
    assert kinds == {"Partitionable", "Dynamic"}


def test_owner_start_reads_keyboard_and_queue_owners() -> None:
    ads = _slots(owner_start_fraction=0.3)
    owners = set(genpool.submitter_names(SPEC))
    policy = [ad for ad in ads if "MachineOwner" in ad]
    machines = {ad["Machine"] for ad in ads}
    assert 0.2 < len({ad["Machine"] for ad in policy}) / len(machines) < 0.4
    for ad in policy:
        assert ad["MachineOwner"] in owners
        assert str(ad["Start"]) == genpool.OWNER_START.format(owner=ad["MachineOwner"])
        assert "KeyboardIdle" in ad
    assert any(ad["KeyboardIdle"] < 900 for ad in policy)
    assert any(ad["KeyboardIdle"] > 900 for ad in policy)


def test_disk_share_differs_slot_by_slot() -> None:
    ads = _slots(disk_share=True)
    assert len({ad["Disk"] for ad in ads}) > 0.9 * len(ads)
    for ad, base in zip(ads, _slots(), strict=True):
        assert 0.98 * base["Disk"] <= ad["Disk"] <= base["Disk"]


def test_preemption_config_and_priorities(tmp_path: Path) -> None:
    spec = _spec(claimed_fraction=0.3, preemption_requirements=PREEMPTION,
                 groups=("g1", "g2"))
    files = genpool.write_pool(spec, tmp_path)
    assert files.config_path.name == "pool.toml"
    policy = load_policy(files.config_path)
    assert policy.preemption_requirements == PREEMPTION
    assert policy.group_names == ("g1", "g2")
    text = files.priorities_path.read_text()
    assert text.count("Name = ") == spec.submitters and '"g2.u002@example.org"' in text
