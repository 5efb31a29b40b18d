"""``cli.negotiate_inputs.decode``: the job ads a reading pass knows to pass every check
and to decode from their cluster (``_PlainJobs``: one key per ad in place of the
screen's and the decoder's) decode as the screen and the decoder give them ad by ad:
the same jobs, in the same places, and the same problems."""

from __future__ import annotations

import itertools

import pytest

from condorlite.cli import negotiate_inputs
from condorlite.cli.negotiate_inputs import _decode_kind, decode
from condorlite.core import ad_screen
from condorlite.core.ad_decoder import AdDecoder
from condorlite.core.classad import oldscan
from condorlite.core.policy import Policy
from condorlite.store.adfiles import read_ads
from tests.core.test_ad_screen import JOBS, _slot_texts

#: A cluster's lines; the ads below vary its ProcId and one other line at a time.
CLUSTER = ('ClusterId = {c}\nOwner = "{o}"\nRequirements = TARGET.Memory > RequestMemory'
           '\nRequestMemory = {m}\nQDate = 7\n')

#: ProcId lines: literal integers (the fast way), and what sends an ad the long way.
PROCS = ["ProcId = 0", "ProcId = 1", "ProcId = 1", "ProcId = 2.0", "ProcId = ClusterId",
         'ProcId = "3"', "ProcId = 9007199254740993", ""]


def _text(seed: int) -> str:
    ads = []
    for k, proc in enumerate(itertools.islice(itertools.cycle(PROCS), seed, seed + 40)):
        cluster = CLUSTER.format(c=1 + (k // 13) % 2, o="u" if k % 11 else "", m=(
            "1e300" if k % 17 == 5 else 512))
        extra = 'MyType = "Machine"\n' if k % 19 == 7 else ""
        ads.append(cluster + extra + (proc + "\n" if proc else ""))
    # the screen's fixtures among them: foreign, absurd and runaway ads
    ads[10:10] = [j.format(c=3 + i) for i, j in enumerate(JOBS)]
    return "\n".join(ads) + "\n"


@pytest.mark.parametrize("seed", range(0, 8, 3))
def test_jobs_known_plain_decode_as_screened_one_by_one(tmp_path, seed, monkeypatch):
    path = tmp_path / "jobs.ads"
    path.write_text(_text(seed) * 2)
    policy = Policy(uid_domain="d")
    ads = read_ads([path])
    reference: list = []
    want = _decode_kind("job", ads, AdDecoder(policy).job, "job", reference)
    calls = []
    fast = negotiate_inputs.job_of_cluster
    monkeypatch.setattr(negotiate_inputs, "job_of_cluster",
                        lambda *args: calls.append(1) or fast(*args))
    got = decode([], ads, policy)
    assert calls  # the memo was used
    assert [(j.id, j.index, j.submitter, j.ad) for j in got.jobs] == [
        (j.id, j.index, j.submitter, j.ad) for j in want]
    assert got.problems == reference
    assert reference  # the pool has problems of every kind
    assert {p["problem"].split(" ")[0] for p in reference} >= {"duplicate", "a"}


def _run_text() -> str:
    """Three reader runs: a cluster whose jobs differ in ProcId alone (its mark holds
    none of the memo's names); a cluster whose first two jobs differ in RequestMemory
    too (a name of the memo's key: in the mark), with an absurd RequestMemory further
    on; and a cluster whose Requirements changes after two jobs (a new run)."""
    ads = [CLUSTER.format(c=1, o="u", m=512) + f"ProcId = {p}\n" for p in range(30)]
    ads += [CLUSTER.format(c=2, o="u", m=("1e300" if p == 9 else 512 + p % 2))
            + f"ProcId = {p}\n" for p in range(20)]
    ads += [CLUSTER.format(c=3, o="u", m=512).replace(
        "RequestMemory\n", "RequestMemory + 1\n" if p > 1
        else "RequestMemory\n") + f"ProcId = {p}\n" for p in range(10)]
    return "\n".join(ads) + "\n"


@pytest.mark.parametrize("runs", [True, False])
def test_jobs_of_one_reader_run_take_the_runs_hit(tmp_path, runs, monkeypatch):
    path = tmp_path / "jobs.ads"
    path.write_text(_run_text())
    policy = Policy(uid_domain="d")
    ads = read_ads([path])
    reference: list = []
    want = _decode_kind("job", ads, AdDecoder(policy).job, "job", reference)
    keys = []
    real_key = negotiate_inputs.entry_key
    monkeypatch.setattr(negotiate_inputs, "_RUNS", runs)
    monkeypatch.setattr(negotiate_inputs, "entry_key",
                        lambda *args: keys.append(1) or real_key(*args))
    got = decode([], ads, policy)
    assert [(j.id, j.index, j.submitter, j.ad) for j in got.jobs] == [
        (j.id, j.index, j.submitter, j.ad) for j in want]
    assert got.problems == reference
    assert [p["ad"] for p in reference] == [40]  # the absurd RequestMemory
    if runs and oldscan.enabled():
        # the first cluster's 30 jobs are one run: a key for its first plain job
        assert len(keys) < len(ads) - 20
    elif not runs:
        assert len(keys) >= len(ads) - 10


@pytest.mark.parametrize("shared", [True, False])
def test_slots_decode_alike_with_shared_leaves(tmp_path, shared, monkeypatch):
    # Slots whose own numbers change their verdicts (``ad_screen.SHARED_LEAVES``):
    # the same slots and problems as the screen without shared leaves gives.
    path = tmp_path / "slots.ads"
    texts = _slot_texts()
    path.write_text("\n".join(texts + texts[:3]) + "\n")  # and three duplicates
    policy = Policy(uid_domain="d")
    ads = read_ads([path])
    monkeypatch.setattr(ad_screen, "SHARED_LEAVES", False)
    want = decode(ads, [], policy)
    monkeypatch.setattr(ad_screen, "SHARED_LEAVES", shared)
    got = decode(ads, [], policy)
    assert [(s.name, s.index, s.kind, s.ad) for s in got.slots] == [
        (s.name, s.index, s.kind, s.ad) for s in want.slots]
    assert got.problems == want.problems
    kinds = {p["problem"].split(" ")[0] for p in want.problems}
    assert {"duplicate", "a", "Start", "regexp(...)"} <= kinds
