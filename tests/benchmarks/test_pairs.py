"""Sampling a generated pool's own ads and the symmetric-match cross-check (pairs.py)."""

from __future__ import annotations

import re

import pytest

from tests.benchmarks._load import load

genpool = load("genpool")
pairs = load("pairs")

SPEC = genpool.PoolSpec(slots=120, jobs=400, submitters=4, autoclusters=30, seed=3)


@pytest.fixture(scope="module")
def pool(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("pairs-pool")
    return {fmt: genpool.write_pool(SPEC, root / fmt, fmt) for fmt in ("old", "json")}


def _attr(text: str, name: str) -> str:
    found = re.search(rf'^\s*"?{name}"?\s*[=:]\s*(.*?),?$', text, re.M)
    assert found is not None, (name, text)
    return found.group(1)


@pytest.mark.parametrize("fmt", ["old", "json"])
def test_ads_are_streamed_whole_across_block_boundaries(pool: dict, fmt: str) -> None:
    files = pool[fmt]
    whole = list(pairs.ad_texts(files.jobs_path, fmt))
    assert len(whole) == SPEC.jobs
    assert list(pairs.ad_texts(files.jobs_path, fmt, block=7)) == whole  # tiny blocks
    assert len(list(pairs.ad_texts(files.slots_path, fmt, block=4096))) == SPEC.slots
    assert all(t.startswith("MyType" if fmt == "old" else "{") for t in whole)
    assert all(t.endswith('"\n' if fmt == "old" else "}\n") for t in whole)


def test_the_job_sample_has_distinct_autoclusters_in_file_order(pool: dict) -> None:
    files = pool["old"]
    jobs = pairs.sample_jobs(files.jobs_path, "old", 12, seed=0)
    assert len(jobs) == 12
    shapes = {tuple(_attr(t, a) for a in ("Requirements", "Rank", "RequestCpus",
                                           "RequestMemory", "RequestDisk")) for t in jobs}
    assert len(shapes) == 12
    ids = [int(_attr(t, "ClusterId")) for t in jobs]
    assert ids == sorted(ids)
    # every autocluster is a candidate: asking for more than exist gives all of them
    assert len(pairs.sample_jobs(files.jobs_path, "old", 1000, seed=0)) == SPEC.autoclusters
    # seeded: same seed same sample, another seed another sample
    assert pairs.sample_jobs(files.jobs_path, "old", 12, seed=0) == jobs
    assert pairs.sample_jobs(files.jobs_path, "old", 12, seed=1) != jobs


def test_both_formats_sample_the_same_ads(pool: dict) -> None:
    def ids(fmt: str, kind: str) -> list[str]:
        files = pool[fmt]
        if kind == "jobs":
            texts = pairs.sample_jobs(files.jobs_path, fmt, 10, seed=5)
            return [_attr(t, "GlobalJobId") for t in texts]
        texts = pairs.sample_slots(files.slots_path, fmt, 15, seed=6)
        return [_attr(t, "Name") for t in texts]

    for kind in ("jobs", "slots"):
        assert ids("old", kind) == ids("json", kind)


def test_the_slot_sample_covers_every_kind(pool: dict) -> None:
    files = pool["old"]
    every = {pairs.slot_kind(t) for t in pairs.ad_texts(files.slots_path, "old")}
    slots = pairs.sample_slots(files.slots_path, "old", 30, seed=1)
    kinds = [pairs.slot_kind(t) for t in slots]
    assert len(slots) == 30 and len(set(slots)) == 30
    assert len(every) <= 30 and set(kinds) == every
    assert {k[1] for k in kinds} >= {"Static", "Partitionable"}
    # round-robin: the first len(every) slots are one of each kind, in sorted order
    assert kinds[:len(every)] == sorted(every)
    assert pairs.slot_kind('Machine = "gpu-e00012.example.org"\nSlotType = "Static"\n'
                           'State = "Claimed"\n') == ("gpu-e", "Static", "Claimed")


def test_the_libraries_agree_on_the_sampled_pairs(pool: dict) -> None:
    pytest.importorskip("htcondor2")
    files = pool["json"]
    jobs = pairs.sample_jobs(files.jobs_path, "json", 5, seed=0)
    slots = pairs.sample_slots(files.slots_path, "json", 8, seed=1)
    row = pairs.measure_pairs(jobs, slots, "json", repeat=2, warm=20)
    assert row.ok and row.pairs == 40 and row.disagreements == 0 and row.examples == []
    assert 0 < row.matching < 40
    assert row.condorlite_per_s > 0 and row.classad2_per_s > 0


def test_a_wrong_answer_is_counted_and_quoted(pool: dict) -> None:
    pytest.importorskip("htcondor2")
    from condorlite.core.classad import symmetric_match

    files = pool["old"]
    jobs = pairs.sample_jobs(files.jobs_path, "old", 3, seed=0)
    slots = pairs.sample_slots(files.slots_path, "old", 4, seed=1)
    calls = {"n": 0}

    def wrong_once_compiled(job, slot) -> bool:
        # right until the last pass, then wrong on the first pair only: the check
        # after the timing (the compiled path) must catch it
        calls["n"] += 1
        answer = symmetric_match(job, slot)
        return (not answer) if calls["n"] == calls_before_last + 1 else answer

    # passes: 1 (tree) + ceil(warm/3) warm-up + 1 per timed round + 1 (compiled)
    calls_before_last = 12 * (1 + 1 + 2)
    row = pairs.measure_pairs(jobs, slots, "old", repeat=2, warm=3, ours=wrong_once_compiled)
    assert calls["n"] == calls_before_last + 12
    assert row.disagreements == 1 and not row.ok
    assert len(row.examples) == 1
    example = row.examples[0]
    assert example.startswith(_attr(jobs[0], "GlobalJobId").strip('"') + " x "
                              + _attr(slots[0], "Name").strip('"'))
    assert "(compiled)" in example


def test_bad_samples_fail_instead_of_crashing() -> None:
    pytest.importorskip("htcondor2")
    empty = pairs.measure_pairs([], ['Name = "x"\n'], "old")
    assert not empty.ok and "no pairs" in empty.note
    broken = pairs.measure_pairs(["Requirements = (\n"], ['Name = "x"\n'], "old")
    assert not broken.ok and "does not parse" in broken.note
