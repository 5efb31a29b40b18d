"""``cli.negotiate_inputs.decode``: the job ads a reading pass knows to pass every check
and to decode from their cluster (``ad_convert.PlainJobs``: one key per ad in place of the
screen's and the decoder's) decode as the screen and the decoder give them ad by ad:
the same jobs, in the same places, and the same problems."""

from __future__ import annotations

import itertools

import pytest

from condorlite.cli import negotiate_inputs, run_pass
from condorlite.cli.negotiate_inputs import _decode_kind, decode
from condorlite.core import ad_decoder, ad_screen
from condorlite.core.ad_decoder import AdDecoder, slot_from_ad
from condorlite.core.classad import oldscan
from condorlite.core.classad.ad import table_entry
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
    for module in (negotiate_inputs, run_pass):
        monkeypatch.setattr(module, "job_of_cluster",
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
    # ``_decode_kind``'s own way with runs (the run pass takes them its way, below)
    monkeypatch.setattr(negotiate_inputs, "RUN_PASS", False)
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


def _broken_run_text() -> str:
    """A cluster whose reader run is broken, without a duplicate id, by ProcIds the
    run pass must not take (a real, a string, one past 2**53, a computed one, none)
    and by an absurd request; then the clusters of ``_run_text``, renumbered."""
    procs = ["0", "1", "2", "3.0", "4", '"5"', "6", "9007199254740993", "7",
             "ClusterId + 100", "8", "", "9", "10"]
    ads = [CLUSTER.format(c=4, o="u", m="1e300" if k == 12 else 512)
           + (f"ProcId = {p}\n" if p else "") for k, p in enumerate(procs)]
    return "\n".join(ads) + "\n" + _run_text().replace("ClusterId = ", "ClusterId = 1")


@pytest.mark.parametrize("by_runs", [True, False])
@pytest.mark.parametrize("text", ["broken", "runs", "duplicates"])
def test_the_run_pass_decodes_as_ad_by_ad(tmp_path, by_runs, text, monkeypatch):
    # ``RUN_PASS``: jobs built a reader run at a time and identities checked once at
    # the end give the jobs, places and problems of ``_decode_kind`` without the
    # memo; with a duplicate id the pass gives up and ``_decode_kind`` decodes.
    path = tmp_path / "jobs.ads"
    path.write_text({"broken": _broken_run_text(), "runs": _run_text(),
                     "duplicates": _text(1) + _run_text()}[text])
    policy = Policy(uid_domain="d")
    ads = read_ads([path])
    reference: list = []
    want = _decode_kind("job", ads, AdDecoder(policy).job, "job", reference)
    monkeypatch.setattr(negotiate_inputs, "RUN_PASS", by_runs)
    taken = []
    real_runs = run_pass.run_jobs
    monkeypatch.setattr(run_pass, "run_jobs", lambda cluster, ads, start, *rest: (
        end := real_runs(cluster, ads, start, *rest), taken.append(end - start))[0])
    got = decode([], ads, policy)
    assert [(j.id, j.cluster, j.proc, j.index, j.status, j.submitter, j.prio, j.qdate,
             j.ad) for j in got.jobs] == [
        (j.id, j.cluster, j.proc, j.index, j.status, j.submitter, j.prio, j.qdate, j.ad)
        for j in want]
    assert got.problems == reference
    if text == "broken":
        assert {j.id for j in want} >= {"4.3", "4.9007199254740992", "4.104"}
        assert [p["ad"] for p in reference] == [6, 12, 13, 54]  # "5", none, absurd x2
    if by_runs and text != "duplicates":
        assert max(taken) >= 20  # a run's jobs in one call
    if not by_runs:
        assert not taken


@pytest.mark.parametrize("facts", [True, False])
def test_slots_decode_alike_with_slot_facts(tmp_path, facts, monkeypatch):
    # ``ad_decoder.SLOT_FACTS``: slots that share their kind, state, activity and
    # rank lines but not their own (Name, weight, holder, JobId, Machine), and slots
    # whose fact lines are not literals, decode as ``slot_from_ad`` decodes each.
    texts = []
    for i in range(12):
        state = ['"Claimed"', '"Unclaimed"', 'strcat("Clai", "med")'][i % 3]
        kind = ["", "PartitionableSlot = true\n", 'SlotType = "Dynamic"\n'][i // 3 % 3]
        texts.append(f'MyType = "Machine"\nName = "s{i}@m{i % 5}"\nCpus = {i % 4}\n'
                     f'SlotWeight = Cpus\nState = {state}\nActivity = "Busy"\n'
                     f'RemoteUser = "u{i}@d"\nJobId = "{i}.0"\n'
                     + ("CurrentRank = 2.5\n" if i % 2 else "") + kind
                     + ('Machine = "host"\n' if i % 4 == 1 else ""))
    texts.append('MyType = "Machine"\nState = "Claimed"\n')  # no Name
    texts.append('MyType = "Machine"\nName = "w@m"\nSlotWeight = 2e9\n')
    path = tmp_path / "slots.ads"
    path.write_text("\n".join(texts * 2) + "\n")  # and the duplicates
    policy = Policy(uid_domain="d")
    ads = read_ads([path])
    reference: list = []
    plain = AdDecoder(policy)
    want = _decode_kind("slot", ads, lambda ad, index: slot_from_ad(ad, policy, index),
                        "slot Name", reference)
    monkeypatch.setattr(ad_decoder, "SLOT_FACTS", facts)
    decoder = AdDecoder(policy)
    got = [decoder.slot(loaded.ad, k) for k, loaded in enumerate(ads[:12])]
    assert got == [slot_from_ad(loaded.ad, policy, k) for k, loaded in enumerate(ads[:12])]
    assert [s.remote_user for s in got if s.remote_user] == [
        f"u{i}@d" for i in (0, 2, 6, 8, 9, 11)
    ]
    assert len(decoder._slots) == (8 if facts else 0)  # the literal sets of facts
    assert plain._slots == {}
    decoded = decode(ads, [], policy)
    assert [(s.name, s.index, s.ad) for s in decoded.slots] == [
        (s.name, s.index, s.ad) for s in want]
    assert decoded.slots == want and decoded.problems == reference
    assert [p["ad"] for p in reference][:2] == [13, 14]


@pytest.mark.parametrize("text", ["broken", "runs", "edges"])
def test_the_compiled_run_loop_takes_what_the_python_loop_takes(tmp_path, text, monkeypatch):
    """``_oldscan.run_jobs`` (``run_pass.RUN_JOBS``) appends the Jobs
    ``run_pass.run_jobs``'s Python loop appends, field for field (the ProcId the very
    int object of the ad's Literal), and stops at the same places: at a real, a bool,
    a string, a computed ProcId, one at +-2**53 and past it, none; negative ProcIds
    taken; runs cut by the file's pieces and by an absurd request."""
    if run_pass._compiled_run_jobs is None:
        pytest.skip("the compiled scanner was not built")
    procs = ["0", "1", "-3", "true", "2", "-9007199254740991", "3", "-9007199254740992",
             "4", "9007199254740991", "5", "9007199254740992", "6", "2.5", "7", '"8"', "9",
             "ProcId", "10", ""]
    path = tmp_path / "jobs.ads"
    path.write_text({"broken": _broken_run_text(), "runs": _run_text(),
                     "edges": "\n".join(CLUSTER.format(c=5, o="u", m=512)
                                        + (f"ProcId = {p}\n" if p else "")
                                        for p in procs) + "\n"}[text])
    monkeypatch.setattr(oldscan, "CHUNK", 700)  # (runs cut by the file's pieces)
    ads = read_ads([path])

    def own(ad):  # (the value of the ad's ProcId Literal, as the run loops take it)
        entry = table_entry(ad, "procid")
        return None if entry is None else getattr(entry[1], "value", None)

    real_runs = run_pass.run_jobs

    def outcome(run_loop) -> tuple:
        calls = []

        def counted(cluster, ads, start, *rest):
            end = real_runs(cluster, ads, start, *rest)
            calls.append((start, end))
            return end

        with monkeypatch.context() as m:
            m.setattr(run_pass, "RUN_JOBS", run_loop)
            m.setattr(run_pass, "run_jobs", counted)
            got = decode([], ads, Policy(uid_domain="d"))
        return ([(j.id, j.cluster, j.proc, type(j.proc), j.index, j.status, j.submitter,
                  j.prio, j.qdate, id(j.ad), j.proc is own(j.ad)) for j in got.jobs],
                got.problems, calls)

    compiled = outcome(run_pass._compiled_run_jobs)
    assert compiled == outcome(None)  # (the Python loop)
    assert any(end - start > 1 for start, end in compiled[2])
    taken = {id(ads[k].ad) for start, end in compiled[2] for k in range(start, end)}
    assert taken and all(job[-1] for job in compiled[0] if job[9] in taken)
    if text == "edges":
        assert {job[0] for job in compiled[0]} >= {"5.-3", "5.-9007199254740991", "5.10"}
