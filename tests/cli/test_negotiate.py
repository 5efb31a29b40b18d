"""``condorlite negotiate`` end to end: the seeds' examples, repeated cycles, the JSON
contract, --dry-run, determinism, bad input, --explain, real and example ads."""

from __future__ import annotations

import gc
import json
import sqlite3
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from condorlite.cli import app, jsontext
from condorlite.cli.negotiate_claims import LiveClaims
from condorlite.core.model import Claim, Match
from condorlite.store.db import open_state

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
ADS = ROOT / "tests" / "data" / "classad-ads"
DOM = "example.org"
T0 = 1_700_000_000
HOUR = 3600.0
HALFLIFE = 86400.0
runner = CliRunner()


# -- building ad files -------------------------------------------------------------------


def slot_ad(name: str, *, state: str = "Unclaimed", user: str | None = None, cpus: int = 1,
            memory: int = 2048, **extra: object) -> str:
    attrs: dict[str, object] = {
        "Name": f'"{name}"', "Machine": '"m.example.org"', "State": f'"{state}"',
        "Activity": '"Busy"' if user else '"Idle"', "Cpus": cpus, "Memory": memory,
        "Disk": 100000, "Arch": '"X86_64"', "OpSys": '"LINUX"', "START": "true",
        "Requirements": "START", "Rank": "0.0", "CurrentRank": "0.0", "SlotWeight": "Cpus",
    }
    if user:
        attrs.update(RemoteUser=f'"{user}@{DOM}"', RemoteOwner=f'"{user}@{DOM}"')
    attrs.update(extra)
    return "\n".join(f"{k} = {v}" for k, v in attrs.items())


def job_ad(cluster: int, proc: int, owner: str | None, *, status: int = 1,
           memory: int = 1024, **extra: object) -> str:
    attrs: dict[str, object] = {
        "ClusterId": cluster, "ProcId": proc, "JobStatus": status, "JobPrio": 0,
        "QDate": 1000 + cluster, "RequestCpus": 1, "RequestMemory": memory,
        "RequestDisk": 1000,
        "Requirements": '(TARGET.Arch == "X86_64") && (TARGET.Memory >= RequestMemory)',
    }
    if owner:
        attrs.update(Owner=f'"{owner}"', User=f'"{owner}@{DOM}"')
    attrs.update(extra)
    return "\n".join(f"{k} = {v}" for k, v in attrs.items() if v is not None)


def write(path: Path, ads: list[str]) -> Path:
    path.write_text("\n\n".join(ads) + "\n", encoding="utf-8")
    return path


def run(*args: str | Path) -> tuple[int, str]:
    result = runner.invoke(app, [str(a) for a in args])
    return result.exit_code, result.output


def negotiate(state: Path, slots: Path, jobs: Path, now: float, *extra: str) -> dict:
    code, out = run("negotiate", "--slots", slots, "--jobs", jobs, "--state-dir", state,
                    "--now", str(now), "--json", *extra)
    assert code == 0, out
    doc = json.loads(out)
    assert doc["status"] == "ok" and doc["command"] == "negotiate" and doc["errors"] == []
    return doc["data"]


def records(state: Path, now: float) -> dict[str, dict]:
    code, out = run("userprio", "--state-dir", state, "--now", str(now), "--allusers",
                    "--json")
    assert code == 0, out
    return {r["name"]: r for r in json.loads(out)["data"]["records"]}


def db_dump(state: Path) -> list[str]:
    conn = sqlite3.connect(state / "state.db")
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


def by_owner(matches: list[dict]) -> Counter:
    return Counter(m["submitter"].split("@")[0] for m in matches)


def set_prio(state: Path, name: str, factor: float, prio: float, now: float) -> None:
    for cmd, value in (("setfactor", factor), ("setprio", prio)):
        code, out = run(cmd, f"{name}@{DOM}", str(value), "--state-dir", state,
                        "--now", str(now))
        assert code == 0, out


@pytest.fixture
def state(tmp_path: Path) -> Path:
    return tmp_path / "state"


# -- the seeds' examples -------------------------------------------------------------------


def test_slides_pool_gives_new_matches_one_one_two(tmp_path: Path, state: Path) -> None:
    # 8 slots; Alice holds 3, Bob 1 (claimed slot ads); EUP Alice 1000, Bob/Charlie 2000.
    held = {1: "alice", 3: "alice", 5: "alice", 4: "bob"}
    slots = write(tmp_path / "slots.ads", [
        slot_ad(f"slot{i}@m", state="Claimed" if i in held else "Unclaimed",
                user=held.get(i)) for i in range(1, 9)])
    jobs = write(tmp_path / "jobs.ads", [job_ad(c, p, n) for c, n in
                                         ((1, "alice"), (2, "bob"), (3, "charlie"))
                                         for p in range(4)])
    for name, prio in (("alice", 1000), ("bob", 2000), ("charlie", 2000)):
        set_prio(state, name, 1, prio, T0)
    data = negotiate(state, slots, jobs, T0)
    assert by_owner(data["matches"]) == {"alice": 1, "bob": 1, "charlie": 2}
    subs = {s["name"].split("@")[0]: s for s in data["submitters"]}
    assert [s["name"].split("@")[0] for s in data["submitters"]] == ["alice", "bob", "charlie"]
    assert {n: s["limit"] for n, s in subs.items()} == {"alice": 1, "bob": 1, "charlie": 2}
    assert {n: s["share"] for n, s in subs.items()} == {"alice": 0.5, "bob": 0.25,
                                                         "charlie": 0.25}
    assert {n: s["effective_priority"] for n, s in subs.items()} == {
        "alice": 1000, "bob": 2000, "charlie": 2000}
    assert {n: s["usage"] for n, s in subs.items()} == {"alice": 4, "bob": 2, "charlie": 2}
    assert {m["slot"] for m in data["matches"]} == {"slot2@m", "slot6@m", "slot7@m", "slot8@m"}
    assert data["cycle"]["claims_observed"] == 4 and data["cycle"]["claims_live"] == 8
    assert {r["reason"] for r in data["rejections"]} == {"submitter limit exceeded"}
    # a second cycle at the same time, human view: nothing is left to hand out
    code, out = run("negotiate", "--slots", slots, "--jobs", jobs, "--state-dir", state,
                    "--now", str(T0))
    assert code == 0, out
    assert out.startswith("Negotiation cycle at 2023-11-14 22:13:20 UTC (1700000000)\n")
    rows = {line.split()[0]: line.split() for line in out.splitlines()
            if line.startswith(("  alice@", "  bob@", "  charlie@"))}
    # Submitter, EffectivePriority, Share, Limit, Usage, Matched, Jobs matched/idle
    assert rows[f"alice@{DOM}"][1:] == ["1000.00", "50.00%", "0.00", "4", "0", "0/3"]
    # the accountant now charges every slot: 4 observed + 4 new claims
    recs = records(state, T0)
    assert {n.split("@")[0]: r["weighted_resources_used"] for n, r in recs.items()} == {
        "alice": 4, "bob": 2, "charlie": 2}


def test_thirty_slots_eup_500_1000_2000_give_17_8_4(tmp_path: Path, state: Path) -> None:
    slots = write(tmp_path / "slots.ads", [slot_ad(f"slot{i:02d}@m") for i in range(30)])
    jobs = write(tmp_path / "jobs.ads", [job_ad(c, p, n) for c, n in
                                         ((1, "a"), (2, "b"), (3, "c")) for p in range(30)])
    # Default factor 1000: RUP 0.5 / 1 / 2 give EUP 500 / 1000 / 2000.
    for name, prio in (("a", 0.5), ("b", 1.0), ("c", 2.0)):
        set_prio(state, name, 1000, prio, T0)
    data = negotiate(state, slots, jobs, T0)
    first = [m for m in data["matches"] if m["spin"] == 1]
    assert by_owner(first) == {"a": 17, "b": 8, "c": 4}
    # The 30th slot's pie is split into limits below one slot weight (0.14 / 0.57 /
    # 0.29): as in HTCondor, nobody takes it in the later spin; it waits for next cycle.
    assert len(data["matches"]) == 29 and data["cycle"]["pie_spins"] == 2
    assert [s["effective_priority"] for s in data["submitters"]] == [500, 1000, 2000]


# -- repeated cycles ---------------------------------------------------------------------------


def test_repeated_cycles_charge_usage_exactly_and_release_claims(tmp_path: Path,
                                                                 state: Path) -> None:
    slots = write(tmp_path / "slots.ads", [slot_ad(f"slot{i}@m") for i in range(10)])
    jobs = write(tmp_path / "jobs.ads", [job_ad(1, p, "alice") for p in range(10)])
    empty = write(tmp_path / "none.ads", [])
    alice = f"alice@{DOM}"

    first = negotiate(state, slots, jobs, T0)
    assert len(first["matches"]) == 10 and first["cycle"]["claims_live"] == 10
    # An hour later, same files: the jobs hold their claims, nothing is handed out twice.
    second = negotiate(state, slots, jobs, T0 + HOUR)
    assert second["matches"] == [] and second["cycle"]["idle_jobs"] == 0
    assert second["cycle"]["claims_live"] == 10 and second["released"] == []
    rec = records(state, T0 + HOUR)[alice]
    assert rec["accumulated_usage"] == pytest.approx(36000.0)  # 10 core-hours
    assert rec["weighted_accumulated_usage"] == pytest.approx(36000.0)
    beta = 0.5 ** (HOUR / HALFLIFE)
    rup1 = 0.5 * beta + 10 * (1 - beta)
    assert rec["real_priority"] == pytest.approx(rup1, rel=1e-12)
    assert second["submitters"] == []  # no idle job left to negotiate

    # The jobs leave the queue: every claim ends and is charged up to that moment.
    third = negotiate(state, slots, empty, T0 + 2 * HOUR)
    assert len(third["released"]) == 10
    assert {r["reason"] for r in third["released"]} == {"job left the queue"}
    assert third["cycle"]["claims_live"] == 0
    rup2 = rup1 * beta + 10 * (1 - beta)
    rup3 = rup2 * beta
    later = records(state, T0 + 3 * HOUR)[alice]
    assert later["accumulated_usage"] == pytest.approx(72000.0)  # usage stopped at 2 h
    assert later["resources_used"] == 0 and later["weighted_resources_used"] == 0
    assert later["real_priority"] == pytest.approx(rup3, rel=1e-12)
    conn = sqlite3.connect(state / "state.db")
    try:
        assert conn.execute("SELECT count(*) FROM claims").fetchone()[0] == 0
        kinds = [r[0] for r in conn.execute("SELECT kind FROM history ORDER BY id")]
    finally:
        conn.close()
    assert kinds[-3:] == ["negotiation_cycle"] * 3


def test_claims_end_when_jobs_complete_and_slots_leave(tmp_path: Path, state: Path) -> None:
    slots = write(tmp_path / "slots.ads", [slot_ad(f"slot{i}@m") for i in range(3)])
    jobs = write(tmp_path / "jobs.ads", [job_ad(1, p, "alice") for p in range(3)])
    assert len(negotiate(state, slots, jobs, T0)["matches"]) == 3
    done = write(tmp_path / "done.ads", [job_ad(1, 0, "alice", status=4),
                                         job_ad(1, 1, "alice", status=5),
                                         job_ad(1, 2, "alice", status=2)])
    fewer = write(tmp_path / "fewer.ads", [slot_ad(f"slot{i}@m") for i in range(3)
                                           if i != 2])
    data = negotiate(state, fewer, done, T0 + 60)
    reasons = {r["job"]: r["reason"] for r in data["released"]}
    assert reasons == {"1.0": "job is completed", "1.1": "job is held",
                       "1.2": "slot disappeared"}


def test_status_negotiator_reads_the_cycle_row(tmp_path: Path, state: Path) -> None:
    slots = write(tmp_path / "slots.ads", [slot_ad(f"slot{i}@m") for i in range(2)])
    jobs = write(tmp_path / "jobs.ads", [job_ad(1, p, "alice") for p in range(3)])
    data = negotiate(state, slots, jobs, T0)
    code, out = run("status", "--negotiator", "--state-dir", state, "--json")
    assert code == 0, out
    last = json.loads(out)["data"]["negotiator"]["last_cycle"]
    assert last["time"] == T0 and last["kind"] == "negotiation_cycle"
    assert last["data"]["cycle"] == data["cycle"]
    cycle = data["cycle"]
    # The third job is not rejected: alice's turn ends at her limit (the whole pool).
    assert (cycle["matches"], cycle["rejections"], cycle["idle_jobs"]) == (2, 0, 3)
    assert cycle["slots"] == 2 and cycle["active_submitters"] == 1
    for key in ("duration", "matchmaking_duration"):
        assert isinstance(cycle[key], float) and 0 <= cycle[key] < 60


# -- dry run and determinism -------------------------------------------------------------


def test_dry_run_writes_nothing(tmp_path: Path, state: Path) -> None:
    slots = write(tmp_path / "slots.ads", [slot_ad(f"slot{i}@m") for i in range(4)])
    jobs = write(tmp_path / "jobs.ads", [job_ad(1, p, "alice") for p in range(2)])
    more = write(tmp_path / "more.ads", [job_ad(1, p, "alice") for p in range(2)]
                 + [job_ad(2, p, "bob") for p in range(2)])
    negotiate(state, slots, jobs, T0)
    before = db_dump(state)
    data = negotiate(state, slots, more, T0 + HOUR, "--dry-run")
    assert data["cycle"]["dry_run"] is True
    assert by_owner(data["matches"]) == {"bob": 2}
    assert db_dump(state) == before
    code, out = run("negotiate", "--slots", slots, "--jobs", more, "--state-dir", state,
                    "--now", str(T0 + HOUR), "--dry-run")
    assert code == 0 and "(dry run: nothing written)" in out
    assert db_dump(state) == before


def _without_durations(data: dict) -> dict:
    cycle = {k: v for k, v in data["cycle"].items() if "duration" not in k}
    return {**data, "cycle": cycle}


def test_same_inputs_give_the_same_output(tmp_path: Path) -> None:
    args = ("--slots", EXAMPLES / "slots", "--jobs", EXAMPLES / "jobs", "--now", "1760000000")
    docs, texts = [], []
    for i in range(2):
        docs.append(negotiate(tmp_path / f"s{i}", EXAMPLES / "slots", EXAMPLES / "jobs",
                              1760000000))
        code, out = run("negotiate", *args, "--state-dir", tmp_path / f"h{i}")
        assert code == 0, out
        texts.append(out)
    assert _without_durations(docs[0]) == _without_durations(docs[1])
    assert json.dumps(_without_durations(docs[0])) == json.dumps(_without_durations(docs[1]))
    assert texts[0] == texts[1]
    assert "duration" not in texts[0]


# -- bad input ---------------------------------------------------------------------------


def test_malformed_ad_file_exits_65_and_writes_nothing(tmp_path: Path, state: Path) -> None:
    slots = write(tmp_path / "slots.ads", [slot_ad("slot1@m")])
    jobs = write(tmp_path / "jobs.ads", [job_ad(1, 0, "alice"), job_ad(1, 1, "alice")])
    negotiate(state, slots, jobs, T0)
    before = db_dump(state)
    bad = tmp_path / "bad.ads"
    bad.write_text('Name = "slot2@m"\nCpus = 1\nMemory = (2048 +\nState = "Unclaimed"\n')
    code, out = run("negotiate", "--slots", slots, "--slots", bad, "--jobs", jobs,
                    "--state-dir", state, "--now", str(T0 + HOUR), "--json")
    assert code == 65
    doc = json.loads(out)
    assert doc["status"] == "error" and doc["data"] is None
    message = doc["errors"][0]["message"]
    assert message.startswith(f"{bad}:3") or message.startswith(f"{bad}:4"), message
    assert db_dump(state) == before


def test_missing_file_exits_66(tmp_path: Path, state: Path) -> None:
    jobs = write(tmp_path / "jobs.ads", [job_ad(1, 0, "alice")])
    code, out = run("negotiate", "--slots", tmp_path / "nope.ads", "--jobs", jobs,
                    "--state-dir", state, "--now", str(T0))
    assert code == 66
    assert "nope.ads" in out


def test_no_inputs_is_a_usage_error(state: Path) -> None:
    code, out = run("negotiate", "--state-dir", state, "--now", str(T0))
    assert code == 2 and "--slots" in out


def test_job_without_requirements_or_owner_is_reported_and_skipped(tmp_path: Path,
                                                                     state: Path) -> None:
    slots = write(tmp_path / "slots.ads", [slot_ad(f"slot{i}@m") for i in range(3)])
    jobs = write(tmp_path / "jobs.ads", [
        job_ad(1, 0, "alice", Requirements=None),
        job_ad(1, 1, None),
        job_ad(1, 2, "alice"),
        job_ad(1, 2, "alice"),
    ])
    data = negotiate(state, slots, jobs, T0)
    assert [m["job"] for m in data["matches"]] == ["1.2"]
    problems = [(p["kind"], p["ad"], p["problem"]) for p in data["problems"]]
    assert problems[0] == ("job", 1, "job 1.0 has no Requirements")
    assert problems[1] == ("job", 2, "job ad has no Owner (and no AccountingGroup)")
    assert problems[2][:2] == ("job", 4) and "duplicate job 1.2" in problems[2][2]
    assert all(p["source"] == str(jobs) for p in data["problems"])
    assert data["cycle"]["problems"] == 3
    code, out = run("negotiate", "--slots", slots, "--jobs", jobs, "--state-dir", state,
                    "--now", str(T0), "--dry-run")
    assert code == 0 and "Problems: 3 ads skipped" in out


# -- --explain ---------------------------------------------------------------------------


def test_explain_names_the_failing_clause(tmp_path: Path, state: Path) -> None:
    slots = write(tmp_path / "slots.ads", [
        *(slot_ad(f"small{i}@m", memory=2048) for i in range(12)),
        *(slot_ad(f"arm{i}@m", memory=8192, Arch='"aarch64"') for i in range(2)),
        slot_ad("desk@m", memory=8192, START="KeyboardIdle > 900 && LoadAvg < 0.3",
                KeyboardIdle=60, LoadAvg=0.0),
        slot_ad("big@m", memory=8192),
    ])
    jobs = write(tmp_path / "jobs.ads", [job_ad(1, 0, "alice", memory=4096),
                                         job_ad(2, 0, "bob", memory=4096)])
    data = negotiate(state, slots, jobs, T0, "--explain", "2.0")
    ex = data["explain"]
    assert ex["job"] == "2.0" and ex["submitter"] == f"bob@{DOM}" and ex["status"] == "idle"
    assert (ex["slots"], ex["job_requirements_hold"], ex["matching_slots"]) == (16, 2, 1)
    assert ex["failing"] == [
        {"side": "job", "clause": "TARGET.Memory >= RequestMemory", "value": "false",
         "slots": 12},
        {"side": "job", "clause": 'TARGET.Arch == "X86_64"', "value": "false", "slots": 2},
        {"side": "slot", "clause": "START: KeyboardIdle > 900", "value": "false", "slots": 1},
    ]
    # alice (first by name at equal EUP) took big@m; bob's job found nothing left.
    assert ex["outcome"] == "rejected: no match found" and ex["matched_slot"] is None
    assert ex["autocluster"] is not None
    assert ex["submitter_figures"]["effective_priority"] == 500
    code, out = run("negotiate", "--slots", slots, "--jobs", jobs, "--state-dir", state,
                    "--now", str(T0), "--dry-run", "--explain", "1.0")
    assert code == 0, out
    assert "TARGET.Memory >= RequestMemory: false on 12 slots" in out
    assert "outcome: not negotiated: it already holds a claim on big@m" in out


def test_explain_unknown_job_still_runs_the_cycle(tmp_path: Path, state: Path) -> None:
    """The cycle is cron's: a job that left the queue (or a typo) in --explain is answered
    "unknown" with a warning on stderr, and the cycle runs and is recorded, exit 0
    (issue 17, item 9)."""
    slots = write(tmp_path / "slots.ads", [slot_ad("slot1@m")])
    jobs = write(tmp_path / "jobs.ads", [job_ad(1, 0, "alice")])
    done = runner.invoke(app, ["negotiate", "--slots", str(slots), "--jobs", str(jobs),
                               "--state-dir", str(state), "--now", str(T0), "--explain",
                               "9.9", "--json"])
    assert done.exit_code == 0, done.output
    doc = json.loads(done.stdout)
    assert doc["errors"] == []
    assert doc["data"]["explain"] == {"job": "9.9", "status": "unknown",
                                      "message": "no job 9.9 in the job ads"}
    assert len(doc["data"]["matches"]) == 1
    assert "warning: no job 9.9 in the job ads" in done.stderr
    human = runner.invoke(app, ["negotiate", "--slots", str(slots), "--jobs", str(jobs),
                                "--state-dir", str(state), "--now", str(T0 + 60),
                                "--explain", "9.9", "--dry-run"])
    assert human.exit_code == 0
    assert "Job 9.9: unknown (no job 9.9 in the job ads)" in human.stdout
    conn = sqlite3.connect(state / "state.db")
    try:
        assert conn.execute("SELECT count(*) FROM history").fetchone()[0] == 1
    finally:
        conn.close()

# -- real ads and the example pool ---------------------------------------------------------


def test_real_ads_as_slots_and_jobs(state: Path) -> None:
    # tests/data/classad-ads/README (classad2 as oracle): the job of test.old.ad (15.0)
    # matches every real slot but the hand-written job_startd_multimatch one (no Arch:
    # its Requirements are undefined); the synthetic modern job (42.0) matches the 8.2.6
    # static slot and pslot and both synthetic slots, not the 8.2.6 dynamic slots nor the
    # 8.9.12 slots (TARGET.Memory >= RequestMemory is false). Old and JSON formats mixed;
    # the synthetic file holds slots and a job and is given to both options.
    slot_files = ("htc-statusads-small1slot.ads", "derived-partitionable8core.condor_status.json",
                  "htc-cmd_status-af_orig_first_test.ads", "htc-job_startd_multimatch.ad",
                  "synthetic-modern-pslot-dslot-job.ads")
    args = [a for f in slot_files for a in ("--slots", ADS / f)]
    args += ["--jobs", ADS / "derived-pybind-test.condor_q.json", "--jobs",
             ADS / "synthetic-modern-pslot-dslot-job.ads", "--state-dir", state,
             "--now", str(T0), "--json", "--dry-run"]
    open_state(state)  # --dry-run reads a state, never makes one
    explained = {}
    for job in ("15.0", "42.0"):
        code, out = run("negotiate", *args, "--explain", job)
        assert code == 0, out
        data = json.loads(out)["data"]
        explained[job] = data["explain"]
    cycle = data["cycle"]
    assert (cycle["slots"], cycle["idle_jobs"], cycle["active_submitters"]) == (17, 2, 2)
    # claimed: the 8.2.6 static slot, its 4 dynamic slots and the synthetic dynamic slot
    assert cycle["claims_observed"] == 6
    assert [(p["kind"], p["ad"]) for p in data["problems"]] == [
        ("slot", 3), ("job", 1), ("job", 2)]
    assert data["problems"][0]["problem"] == 'a Job ad (MyType "Job"), not a slot ad'
    old, new = explained["15.0"], explained["42.0"]
    assert (old["submitter"], old["matching_slots"]) == (
        "bbockelm@users.opensciencegrid.org", 16)
    assert old["failing"] == [{"side": "job", "clause": 'TARGET.Arch == "X86_64"',
                               "value": "undefined", "slots": 1}]
    assert (new["submitter"], new["matching_slots"]) == ("alice@example.org", 4)
    assert new["failing"][0] == {"side": "job", "clause": "TARGET.Memory >= RequestMemory",
                                 "value": "false", "slots": 12}
    assert {m["job"]: m["reason"] for m in data["matches"]} == {
        "15.0": "no preemption", "42.0": "no preemption"}
    # the modern job is carved out of the 8.2.6 partitionable slot (best PRE_JOB_RANK)
    assert new["matched_slot"] == "slot1@ingwe.cs.wisc.edu"


def test_example_pool(state: Path) -> None:
    data = negotiate(state, EXAMPLES / "slots", EXAMPLES / "jobs", 1760000000,
                     "--config", str(EXAMPLES / "condorlite.toml"), "--explain", "190.3")
    cycle = data["cycle"]
    assert (cycle["slots"], cycle["pool_weight"], cycle["idle_jobs"]) == (34, 356, 54)
    assert cycle["claims_observed"] == 7 and cycle["active_submitters"] == 5
    got = {s["name"].split("@")[0]: (s["matched_jobs"], s["idle_jobs"])
           for s in data["submitters"]}
    # Everyone's jobs fit somewhere except bob's CentOS 7 cluster 190: alice negotiates
    # before bob (equal EUP, name order) and the default NEGOTIATOR_PRE_JOB_RANK steers
    # her one-core jobs to the smallest slots, node01/node02's CentOS 7 cores.
    # carol negotiates first, alone, in group_physics's turn (quota 64, 12 in use). Her
    # group's demand is 12 + 52 requested cores, all allocated; but her jobs land on
    # whole static slots wider than they ask for, so 7 jobs fill the group's 64 and the
    # 8th waits at the group's limit, as in HTCondor (demand is counted in requested
    # cores, usage in slot weights).
    assert got == {"group_physics.carol": (7, 8), "alice": (22, 22), "bob": (6, 11),
                   "dave": (3, 3), "nice-user.dave": (10, 10)}
    assert len(data["matches"]) == 48 and cycle["claims_live"] == 55
    assert data["submitters"][0]["name"] == f"group_physics.carol@{DOM}"
    assert data["submitters"][0]["effective_priority"] == 250  # GROUP_PRIO_FACTOR 500
    assert data["submitters"][0]["share"] == 1.0  # the only submitter of her turn
    assert [(r["job"], r["reason"]) for r in data["rejections"]] == [
        ("210.5", "submitter limit exceeded"), ("190.3", "no match found")]
    physics = next(g for g in data["groups"] if g["name"] == "group_physics")
    assert (physics["requested"], physics["allocated"], physics["usage"],
            physics["usage_after"], physics["matched"]) == (64, 64, 12, 64, 52)
    big = {m["job"]: m["slot"].split("@")[1].split(".")[0] for m in data["matches"]
           if m["job"].startswith("220.")}
    assert set(big.values()) <= {"bigmem01", "bigmem02", "gpu01"} and len(big) == 3
    nice = [m for m in data["matches"] if m["submitter"].startswith("nice-user.")]
    # One slot in spin 1 by the round-up rule (its limit is 7e-6 > 0), the rest in spin 2
    # when everyone else is done and the pie is shared among those still wanting.
    assert Counter(m["spin"] for m in nice) == {1: 1, 2: 9}
    # Partitionable slots are carved: a class spreads over the pslots first (each
    # hands out one piece per pass), then comes back to those with room left, so the
    # nice user's 10 one-core jobs use 8 pslots and the 10th returns to gpu01.
    assert all(m["partitionable"] == m["slot"] for m in nice)
    assert len({m["slot"] for m in nice}) == 8
    assert [m["slot"] for m in nice if m["job"] == "221.9"] == [f"slot1@gpu01.{DOM}"]
    per_pslot = Counter(m["partitionable"] for m in data["matches"] if m["partitionable"])
    assert per_pslot[f"slot1@gpu01.{DOM}"] == 8 and sum(per_pslot.values()) == 31
    assert data["explain"]["failing"][0] == {
        "side": "job", "clause": 'TARGET.OpSysAndVer == "CentOS7"', "value": "false",
        "slots": 13}


def test_tiny_shares_keep_the_document_on_the_fast_encoder(state: Path, monkeypatch) -> None:
    """The example's nice user has a share near 1e-6: every float of the document is
    marked (``jsontext.real``), so orjson writes it; the ``json`` module's encoder (ten
    times slower on a large cycle) is never asked."""
    def refuse(doc):  # type: ignore[no-untyped-def]
        raise AssertionError("the document went to the json module's encoder")
    monkeypatch.setattr(jsontext, "json_text", refuse)
    data = negotiate(state, EXAMPLES / "slots", EXAMPLES / "jobs", 1760000000,
                     "--config", str(EXAMPLES / "condorlite.toml"))
    tiny = [s["share"] for s in data["submitters"] if 0 < s["share"] < 1e-4]
    assert tiny and all(isinstance(x, float) for x in tiny)


def test_jobs_from_stdin_and_a_locked_state(tmp_path: Path, state: Path) -> None:
    slots = write(tmp_path / "slots.ads", [slot_ad("slot1@m")])
    text = job_ad(1, 0, "alice") + "\n"
    result = runner.invoke(app, ["negotiate", "--slots", str(slots), "--jobs", "-",
                                 "--state-dir", str(state), "--now", str(T0), "--json"],
                           input=text)
    assert result.exit_code == 0, result.output
    assert [m["job"] for m in json.loads(result.output)["data"]["matches"]] == ["1.0"]
    code, out = run("negotiate", "--slots", "-", "--jobs", "-", "--state-dir", state,
                    "--now", str(T0))
    assert code == 2
    before = db_dump(state)
    holder = sqlite3.connect(state / "state.db", isolation_level=None)
    try:
        holder.execute("BEGIN IMMEDIATE")
        code, out = run("negotiate", "--slots", slots, "--jobs", slots, "--state-dir", state,
                        "--now", str(T0 + 60), "--lock-timeout", "0.2")
        assert code == 75, out
        # a dry run only reads, so it does not wait for the writer
        code, out = run("negotiate", "--slots", slots, "--jobs", slots, "--state-dir", state,
                        "--now", str(T0 + 60), "--lock-timeout", "0.2", "--dry-run")
        assert code == 0, out
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert db_dump(state) == before


# -- the command's own machinery -----------------------------------------------------------


def test_the_collector_is_left_as_it_was_and_nothing_stays_frozen(tmp_path):
    slots = write(tmp_path / "s.ads", [slot_ad("s1@m"), slot_ad("s2@m", state="Claimed",
                                                                user="bob")])
    jobs = write(tmp_path / "j.ads", [job_ad(1, 0, "alice")])
    args = ["negotiate", "--slots", str(slots), "--jobs", str(jobs), "--state-dir",
            str(tmp_path / "st"), "--now", str(T0), "--json"]
    try:
        for enabled in (True, False):
            (gc.enable if enabled else gc.disable)()
            assert runner.invoke(app, args).exit_code == 0
            assert gc.isenabled() is enabled
            assert gc.get_freeze_count() == 0
    finally:
        gc.enable()


def test_live_claims_counts_what_it_builds():
    def claim(slot: str, user: str, **kw: object) -> Claim:
        return Claim(slot, "9.0", user, 1.0, T0 - HOUR, **kw)

    before = {c.slot: c for c in (claim("a@m", "u@x"), claim("b@m", "v@x"),
                                  claim("c@m", "w@x", preempted_user="z@x"))}
    matches = [
        Match("1.0", "x@x", "b@m", "priority", 1.0, 1, 1, preempting="v@x"),
        Match("2.0", "x@x", "c@m", "priority", 1.0, 1, 1, preempting="w@x"),
        Match("3.0", "x@x", "p@m", "no preemption", 2.0, 1, 1, partitionable="p@m",
              resources=(("Cpus", 2.0),)),
        Match("4.0", "y@x", "d@m", "no preemption", 1.0, 2, 1),
    ]
    live = LiveClaims(before, matches, [before["b@m"], before["c@m"]], float(T0))
    built = live.claims()
    assert live.count() == len(built) == 5
    assert [c.slot for c in built] == ["a@m", "b@m", "c@m", "d@m", "p@m#3.0"]
    by_slot = {c.slot: c for c in built}
    assert by_slot["b@m"].preempted_user == "v@x" and by_slot["b@m"].job == "1.0"
    assert by_slot["c@m"].preempted_user == "z@x"  # still waiting on the first user
    assert by_slot["p@m#3.0"].resources == (("Cpus", 2.0),)
    assert by_slot["p@m#3.0"].partitionable == "p@m"
    assert by_slot["d@m"].start_time == T0 and by_slot["a@m"].start_time == T0 - HOUR
    assert live.claims() is built


def test_summary_leaves_out_the_per_job_lists(tmp_path):
    """``--summary`` (for cron) prints totals, rejection reasons and submitters, no
    match lines; the JSON is the same either way (issue 20)."""
    from pathlib import Path as _Path

    from typer.testing import CliRunner as _Runner

    from condorlite.cli import app as _app

    config = _Path(__file__).resolve().parents[2] / "examples" / "condorlite.toml"
    base = ["negotiate", "--config", str(config), "--now", "1760000000", "--dry-run"]
    for made in ("a", "b"):  # --dry-run reads a state, never makes one
        open_state(tmp_path / made, config_path=config)
    full = _Runner().invoke(_app, [*base, "--state-dir", str(tmp_path / "a")])
    short = _Runner().invoke(_app, [*base, "--state-dir", str(tmp_path / "b"), "--summary"])
    assert full.exit_code == short.exit_code == 0
    assert "Matches (48)" in full.output and "Matches: 48; rejections: 2" in short.output
    assert len(short.output.splitlines()) < len(full.output.splitlines()) - 40
    assert "Submitters (negotiation order)" in short.output
    as_json = [_Runner().invoke(_app, [*base, "--state-dir", str(tmp_path / d), "--json", *x])
               for d, x in (("c", []), ("d", ["--summary"]))]
    assert as_json[0].output.count('"job"') == as_json[1].output.count('"job"')


def test_explain_says_who_holds_the_matching_slots_and_the_advice_works(tmp_path):
    """--explain of a job whose matching slots are all claimed names the holders with
    their EUPs, and the policy it suggests does free slots (checked with --what-if)."""
    import shutil

    root = Path(__file__).resolve().parents[2] / "examples"
    shutil.copytree(root, tmp_path / "ex")
    cfg, sd = str(tmp_path / "ex" / "condorlite.toml"), str(tmp_path / "s")
    invoke = CliRunner().invoke
    assert invoke(app, ["negotiate", "--config", cfg, "--state-dir", sd,
                        "--now", "1760000000"]).exit_code == 0
    assert invoke(app, ["setfactor", "alice@example.org", "100000", "--state-dir", sd,
                        "--now", "1760000060"]).exit_code == 0
    base = ["negotiate", "--config", cfg, "--state-dir", sd, "--now", "1760000120"]
    done = invoke(app, [*base, "--dry-run", "--explain", "190.3", "--json"])
    held = json.loads(done.output)["data"]["explain"]["held"]
    assert held["slots"] == held["matching"] == 18 and held["priority_preemption"] is False
    alice = next(h for h in held["by"] if h["submitter"] == "alice@example.org")
    assert alice["worse"] and alice["slots"] == 13 and alice["effective_priority"] > 50000
    text = invoke(app, [*base, "--dry-run", "--explain", "190.3"]).output
    assert "would let bob@example.org preempt the 13 slot(s) held by worse" in text
    policy = "PREEMPTION_REQUIREMENTS=RemoteUserPrio > SubmitterUserPrio * 1.2"
    diff = json.loads(invoke(app, [*base, "--what-if", policy, "--json"]).output)["data"]
    job = next(j for j in diff["jobs"] if j["job"] == "190.3")
    assert job["after"]["status"] == "matched" and job["after"]["reason"] == "priority"
