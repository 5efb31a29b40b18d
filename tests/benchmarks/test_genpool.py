"""The pool generator: deterministic, the sizes asked for, ads HTCondor itself parses."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from tests.benchmarks._load import load

genpool = load("genpool")

SPEC = genpool.PoolSpec(slots=120, jobs=900, submitters=6, autoclusters=30, seed=7)


def _shape_key(ad: dict) -> tuple:
    return tuple(ad.get(k) for k in (
        "Requirements", "Rank", "RequestCpus", "RequestMemory", "RequestDisk", "RequestGPUs"))


def _as_dicts(ads) -> list[dict]:
    return [dict(ad) for ad in ads]


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path: Path) -> None:
    a = genpool.write_pool(SPEC, tmp_path / "a")
    b = genpool.write_pool(SPEC, tmp_path / "b")
    c = genpool.write_pool(genpool.PoolSpec(**{**SPEC.__dict__, "seed": 8}), tmp_path / "c")
    assert a.slots_path.read_bytes() == b.slots_path.read_bytes()
    assert a.jobs_path.read_bytes() == b.jobs_path.read_bytes()
    assert a.slots_path.read_bytes() != c.slots_path.read_bytes()
    assert a.jobs_path.read_bytes() != c.jobs_path.read_bytes()


@pytest.mark.parametrize(("slots", "jobs", "submitters", "autoclusters"),
                         [(1, 1, 1, 1), (57, 413, 5, 40), (300, 3000, 100, 500), (10, 0, 3, 0)])
def test_exact_sizes(slots: int, jobs: int, submitters: int, autoclusters: int) -> None:
    spec = genpool.PoolSpec(slots=slots, jobs=jobs, submitters=submitters,
                            autoclusters=autoclusters, seed=1)
    slot_ads = _as_dicts(genpool.generate_slots(spec))
    job_ads = _as_dicts(genpool.generate_jobs(spec))
    assert len(slot_ads) == slots
    assert len(job_ads) == jobs
    assert len({ad["Name"] for ad in slot_ads}) == slots  # names are unique
    assert len({(ad["ClusterId"], ad["ProcId"]) for ad in job_ads}) == jobs
    if jobs >= autoclusters:
        assert len({_shape_key(ad) for ad in job_ads}) == autoclusters
    if jobs >= autoclusters >= submitters:
        assert len({ad["Owner"] for ad in job_ads}) == submitters
    assert all(ad["JobStatus"] == 1 for ad in job_ads)


def test_more_autoclusters_than_the_product_stay_distinct() -> None:
    spec = genpool.PoolSpec(slots=0, jobs=0, submitters=1, autoclusters=6000, seed=3)
    shapes = genpool.job_shapes(spec)
    assert len(shapes) == 6000
    assert len(set(shapes)) == 6000


def test_pool_is_heterogeneous() -> None:
    spec = genpool.PoolSpec(slots=2000, jobs=0, submitters=10, autoclusters=0, seed=2)
    ads = _as_dicts(genpool.generate_slots(spec))
    kinds = Counter(ad["SlotType"] for ad in ads)
    assert set(kinds) == {"Partitionable", "Dynamic", "Static"}
    assert {ad["Arch"] for ad in ads} == {"X86_64", "aarch64"}
    assert {ad["OpSysAndVer"] for ad in ads} == {"AlmaLinux9", "CentOS7", "Ubuntu22"}
    assert any(ad.get("GPUs", 0) > 0 for ad in ads)
    claimed = [ad for ad in ads if ad["State"] == "Claimed"]
    assert 0.05 * len(ads) < len(claimed) < 0.5 * len(ads)
    assert all(ad["RemoteUser"].endswith("@example.org") for ad in claimed)
    assert all(str(ad["Requirements"]) == "START && WithinResourceLimits" for ad in ads)
    # a partitionable slot keeps what its dynamic children did not take
    by_host: dict[str, list[dict]] = {}
    for ad in ads:
        by_host.setdefault(ad["Machine"], []).append(ad)
    for host_ads in by_host.values():
        pslots = [ad for ad in host_ads if ad["SlotType"] == "Partitionable"]
        if pslots:
            used = sum(ad["Cpus"] for ad in host_ads if ad["SlotType"] == "Dynamic")
            assert pslots[0]["Cpus"] + used == pslots[0]["TotalSlotCpus"]


def test_groups_are_handed_out_round_robin() -> None:
    spec = genpool.PoolSpec(slots=0, jobs=200, submitters=4, autoclusters=8, seed=0,
                            groups=("group_physics", "group_chem"))
    groups = {ad["Owner"]: ad.get("AccountingGroup") for ad in
              _as_dicts(genpool.generate_jobs(spec))}
    assert groups == {"u001": "group_physics.u001", "u002": "group_chem.u002",
                      "u003": "group_physics.u003", "u004": "group_chem.u004"}


def test_bad_specs_are_refused() -> None:
    with pytest.raises(ValueError, match="submitters"):
        genpool.PoolSpec(slots=1, jobs=1, submitters=0)
    with pytest.raises(ValueError, match="autoclusters"):
        genpool.PoolSpec(slots=1, jobs=1, autoclusters=0)
    with pytest.raises(ValueError, match="claimed_fraction"):
        genpool.PoolSpec(slots=1, jobs=1, claimed_fraction=2.0)


def test_json_layout_is_condor_status_json(tmp_path: Path) -> None:
    files = genpool.write_pool(SPEC, tmp_path, "json")
    text = files.jobs_path.read_text()
    assert text.startswith("[\n{\n") and text.endswith("}\n]\n")
    assert '"Requirements": "\\/Expr(' in text
    docs = json.loads(text)
    assert len(docs) == SPEC.jobs
    assert docs[0]["Requirements"].startswith("/Expr(")


# -- HTCondor's own parser (classad2) is the oracle ----------------------------------



def _classad2():
    pytest.importorskip("htcondor2")
    return pytest.importorskip("classad2")


def _classad2_old(path: Path) -> list:
    classad2 = _classad2()
    return list(classad2.parseAds(path.read_text(), classad2.ParserType.Old))


def _classad2_json(path: Path) -> list:
    classad2 = _classad2()
    body = path.read_text().strip()[1:-1].strip()
    return [next(iter(classad2.parseAds(part, classad2.ParserType.JSON)))
            for part in body.split("\n,\n")]


def test_classad2_reads_old_and_json_alike(tmp_path: Path) -> None:
    old = genpool.write_pool(SPEC, tmp_path / "old", "old")
    js = genpool.write_pool(SPEC, tmp_path / "json", "json")
    for old_path, json_path, n in ((old.slots_path, js.slots_path, SPEC.slots),
                                   (old.jobs_path, js.jobs_path, SPEC.jobs)):
        old_ads, json_ads = _classad2_old(old_path), _classad2_json(json_path)
        assert len(old_ads) == len(json_ads) == n
        for a, b in zip(old_ads, json_ads, strict=True):
            assert set(a.keys()) == set(b.keys())
            assert str(a.lookup("Requirements")) == str(b.lookup("Requirements"))
    # attribute counts: the old-format parser stops silently at a bad line
    expected = sum(1 for line in old.jobs_path.read_text().splitlines() if line.strip())
    assert sum(len(ad) for ad in _classad2_old(old.jobs_path)) == expected


def test_every_autocluster_matches_some_slot_in_a_mid_sized_pool(tmp_path: Path) -> None:
    spec = genpool.PoolSpec(slots=400, jobs=300, submitters=5, autoclusters=60, seed=11)
    files = genpool.write_pool(spec, tmp_path)
    slots = _classad2_old(files.slots_path)
    firsts = {}
    for job in _classad2_old(files.jobs_path):
        firsts.setdefault(str(job.lookup("Requirements")) + str(job.get("RequestMemory"))
                          + str(job.get("RequestCpus")) + str(job.get("RequestDisk"))
                          + str(job.lookup("Rank")) + str(job.get("RequestGPUs")), job)
    assert len(firsts) == 60
    unmatched = [job for job in firsts.values()
                 if not any(job.symmetricMatch(slot) for slot in slots)]
    assert unmatched == []


def test_cli_writes_both_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = genpool.main(["--slots", "5", "--jobs", "9", "--submitters", "2", "--autoclusters",
                       "3", "--format", "json", "--out", str(tmp_path)])
    assert rc == 0
    assert len(json.loads((tmp_path / "slots.json").read_text())) == 5
    assert len(json.loads((tmp_path / "jobs.json").read_text())) == 9
    assert "9 jobs" in capsys.readouterr().out
