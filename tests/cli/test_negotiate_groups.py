"""``condorlite negotiate`` with accounting groups, end to end through the CLI:
HTCondor's own group scenarios, the seed's 30-machine example, the JSON ``groups`` list,
the human Groups section and ``--explain`` at quota."""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path

from condorlite.store.db import open_state
from tests.cli.test_negotiate import DOM, job_ad, negotiate, run, slot_ad, write

T0 = 1_700_000_000
MINUTE = 60.0


def config(path: Path, **knobs: object) -> Path:
    """A condorlite.toml from knob=value pairs (tuples become lists)."""
    lines = []
    for key, value in knobs.items():
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, tuple):
            text = "[" + ", ".join(f'"{v}"' for v in value) + "]"
        elif isinstance(value, str):
            text = f'"{value}"'
        else:
            text = repr(value)
        lines.append(f'"{key}" = {text}')  # quoted: group names have dots
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def grouped(state: Path, slots: Path, jobs: Path, now: float, cfg: Path, *extra: str) -> dict:
    return negotiate(state, slots, jobs, now, "--config", str(cfg), *extra)


def by_group(matches: list[dict]) -> Counter:
    """Matches per submitter's group (the name before the last dot of the user)."""
    return Counter(m["submitter"].split("@")[0].rsplit(".", 1)[0] for m in matches)


def group_jobs(spec: list[tuple[str, int, str]]) -> list[str]:
    """Job ads: per (group, count, Requirements) one cluster of ``count`` jobs of
    ``<group>.user``."""
    ads = []
    for cluster, (group, count, req) in enumerate(spec, start=1):
        ads += [job_ad(cluster, p, "user", AccountingGroup=f'"{group}.user"',
                       Requirements=req) for p in range(count)]
    return ads


# -- HTCondor's scenario: two groups of quota 1, autoregroup -----------------------------


def _four_slots(tmp_path: Path, autoregroup: bool) -> tuple[Path, Path, Path]:
    slots = write(tmp_path / "slots.ads", [slot_ad(f"slot{i}@m") for i in range(1, 5)])
    jobs = write(tmp_path / "jobs.ads", group_jobs([("a", 2, "true"), ("b", 2, "true")]))
    cfg = config(tmp_path / "c.toml", UID_DOMAIN=DOM, GROUP_NAMES=("a", "b"),
                 GROUP_QUOTA_a=1.0, GROUP_QUOTA_b=1.0, GROUP_ACCEPT_SURPLUS=False,
                 GROUP_AUTOREGROUP=autoregroup)
    return slots, jobs, cfg


def test_autoregroup_gives_both_groups_their_second_jobs_in_none(tmp_path: Path) -> None:
    slots, jobs, cfg = _four_slots(tmp_path, autoregroup=True)
    data = grouped(tmp_path / "state", slots, jobs, T0, cfg)
    assert by_group(data["matches"]) == {"a": 2, "b": 2}
    first = [(t["group"], t["matched"]) for t in data["group_turns"] if t["round"] == 1]
    # the groups in sort order (both 0/1 in use: name order), each up to its quota of
    # 1, then <none> last with the whole pool, where a and b get their second chance
    assert first == [("a", 1), ("b", 1), ("<none>", 2)]
    none_turn = data["group_turns"][2]
    assert none_turn["limit"] == 4 and none_turn["submitters"] == [
        f"a.user@{DOM}", f"b.user@{DOM}"]
    groups = {g["name"]: g for g in data["groups"]}
    assert groups["<none>"]["effective_quota"] == 4 and groups["a"]["effective_quota"] == 1
    assert groups["a"]["usage_after"] == 2 and groups["b"]["usage_after"] == 2
    assert data["rejections"] == []


def test_without_autoregroup_each_group_stops_at_its_quota(tmp_path: Path) -> None:
    slots, jobs, cfg = _four_slots(tmp_path, autoregroup=False)
    state = tmp_path / "state"
    data = grouped(state, slots, jobs, T0, cfg, "--explain", "1.1")
    assert by_group(data["matches"]) == {"a": 1, "b": 1}
    groups = {g["name"]: g for g in data["groups"]}
    assert groups["a"]["at_quota"] and groups["b"]["at_quota"]
    assert not groups["<none>"]["at_quota"]
    ex = data["explain"]
    assert ex["group"]["name"] == "a" and ex["group"]["capped_by"] == "a"
    assert ex["outcome"].startswith("waiting: its group a is at its quota and does not "
                                    "accept surplus")
    assert ex["detail"].startswith("not reached: its submitter's turns ended")
    # the human output shows the group table and the same explanation
    code, out = run("negotiate", "--slots", slots, "--jobs", jobs, "--state-dir", state,
                    "--config", cfg, "--now", str(T0 + MINUTE), "--explain", "1.1",
                    "--dry-run")
    assert code == 0, out
    assert "Groups (quota, allocation, usage and demand in weighted slots)" in out
    row = next(line for line in out.splitlines() if line.startswith("    a "))
    assert row.split()[:8] == ["a", "1", "1", "no", "2", "1", "1", "->"]
    assert row.rstrip().endswith("at quota")
    assert "  outcome: waiting: its group a is at its quota" in out


# -- HTCondor's scenario: 40 slots, a two-level tree, surplus refused at the top ---------

GROUPS_40 = ("a", "b", "a.a", "a.b", "b.a", "b.b")


def _forty(tmp_path: Path, **extra: object) -> tuple[Path, Path, Path]:
    slots = write(tmp_path / "slots.ads",
                  [slot_ad(f"slot{i}@m", SlotID=i) for i in range(1, 41)])
    jobs = write(tmp_path / "jobs.ads", group_jobs([
        ("a.a", 20, "TARGET.SlotID > 10"), ("a.b", 10, "false"),
        ("b.a", 10, "TARGET.SlotID <= 10"), ("b.b", 10, "TARGET.SlotID <= 10")]))
    knobs: dict[str, object] = dict(
        UID_DOMAIN=DOM, GROUP_NAMES=GROUPS_40, GROUP_ACCEPT_SURPLUS=True,
        GROUP_ACCEPT_SURPLUS_a=False, GROUP_ACCEPT_SURPLUS_b=False,
        **{f"GROUP_QUOTA_DYNAMIC_{g}": 0.5 for g in GROUPS_40})
    knobs.update(extra)
    return slots, jobs, config(tmp_path / "c.toml", **knobs)


def test_forty_slots_reach_20_5_5_cycle_by_cycle_with_round_robin(tmp_path: Path) -> None:
    slots, jobs, cfg = _forty(tmp_path, GROUP_QUOTA_ROUND_ROBIN_RATE=1.0)
    state = tmp_path / "state"
    new, running = [], Counter()
    for cycle in range(7):
        data = grouped(state, slots, jobs, T0 + cycle * MINUTE, cfg)
        got = by_group(data["matches"])
        new.append(dict(got))
        running += got
    # Cycle 1: b.a and b.b alternate one slot per step over the 10 low slots (5 each);
    # a.a, limited by a (20 of the pool, no surplus) through the strict quota measured
    # from the round's start, gains 10, then about half its remaining room per cycle.
    assert new == [{"a.a": 10, "b.a": 5, "b.b": 5}, {"a.a": 5}, {"a.a": 3}, {"a.a": 1},
                   {"a.a": 1}, {}, {}]
    assert running == {"a.a": 20, "b.a": 5, "b.b": 5}
    groups = {g["name"]: g for g in data["groups"]}
    # a.b asks for 10 (its jobs never match) and a refuses surplus: a's subtree has 20
    assert groups["a"]["subtree_quota"] == 20 and groups["a.a"]["effective_quota"] == 10
    assert groups["a.a"]["usage_after"] == 20 and groups["b"]["usage_after"] == 0
    assert (groups["b.a"]["usage_after"], groups["b.b"]["usage_after"]) == (5, 5)
    assert data["cycle"]["claims_live"] == 30 and data["cycle"]["idle_jobs"] == 20


def test_forty_slots_without_round_robin_b_a_takes_the_low_slots_first(tmp_path: Path
                                                                       ) -> None:
    slots, jobs, cfg = _forty(tmp_path)
    data = grouped(tmp_path / "state", slots, jobs, T0, cfg)
    # One step per round: a.a reaches its allocation of 20 at once, and b.a (before b.b
    # by name, both at 0 in use) takes all ten SlotID <= 10 slots in its turn.
    assert by_group(data["matches"]) == {"a.a": 20, "b.a": 10}
    order = [t["group"] for t in data["group_turns"] if t["round"] == 1]
    assert order == ["a.a", "a.b", "b.a", "b.b"]


# -- the seed's example: physics 20 and chemistry 10 of 30 machines -----------------------


def _thirty(tmp_path: Path, surplus: bool) -> tuple[Path, Path, Path]:
    busy = ([slot_ad(f"p{i}@m", state="Claimed", user="group_physics.phys")
             for i in range(15)]
            + [slot_ad(f"c{i}@m", state="Claimed", user="group_chemistry.chem")
               for i in range(5)])
    free = [slot_ad(f"free{i}@m") for i in range(10)]
    slots = write(tmp_path / "slots.ads", busy + free)
    jobs = write(tmp_path / "jobs.ads", [
        *(job_ad(1, p, "phys", AccountingGroup='"group_physics.phys"') for p in range(3)),
        *(job_ad(2, p, "chem", AccountingGroup='"group_chemistry.chem"') for p in range(20)),
    ])
    cfg = config(tmp_path / "c.toml", UID_DOMAIN=DOM,
                 GROUP_NAMES=("group_physics", "group_chemistry"),
                 GROUP_QUOTA_group_physics=20.0, GROUP_QUOTA_group_chemistry=10.0,
                 GROUP_ACCEPT_SURPLUS=surplus)
    return slots, jobs, cfg


def test_seed_thirty_machines_surplus_off_each_group_stops_at_its_quota(tmp_path: Path
                                                                        ) -> None:
    slots, jobs, cfg = _thirty(tmp_path, surplus=False)
    data = grouped(tmp_path / "state", slots, jobs, T0, cfg)
    groups = {g["name"]: g for g in data["groups"]}
    # chemistry uses 5 of 10 (50%), physics 15 of 20 (75%): chemistry goes first
    assert groups["group_chemistry"]["sort_key"] == 0.5
    assert groups["group_physics"]["sort_key"] == 0.75
    assert [t["group"] for t in data["group_turns"]][:2] == ["group_chemistry",
                                                             "group_physics"]
    assert by_group(data["matches"]) == {"group_chemistry": 5, "group_physics": 3}
    assert groups["group_chemistry"]["usage_after"] == 10 and groups["group_chemistry"][
        "at_quota"]
    assert groups["group_physics"]["usage_after"] == 18
    # two machines stay idle while 15 chemistry jobs wait: no surplus
    assert data["cycle"]["claims_live"] == 28


def test_seed_thirty_machines_surplus_on_lends_idle_quota(tmp_path: Path) -> None:
    slots, jobs, cfg = _thirty(tmp_path, surplus=True)
    data = grouped(tmp_path / "state", slots, jobs, T0, cfg)
    groups = {g["name"]: g for g in data["groups"]}
    # physics asks for 18 of its 20: chemistry is allocated the 2 it leaves idle
    assert (groups["group_physics"]["requested"], groups["group_physics"]["allocated"]) == (
        18, 18)
    assert groups["group_chemistry"]["allocated"] == 12
    assert by_group(data["matches"]) == {"group_chemistry": 7, "group_physics": 3}
    assert data["cycle"]["claims_live"] == 30 and not groups["group_chemistry"]["at_quota"]


def test_history_row_carries_demand_and_quotas_view_reads_it(tmp_path: Path) -> None:
    slots, jobs, cfg = _thirty(tmp_path, surplus=False)
    state = tmp_path / "state"
    grouped(state, slots, jobs, T0, cfg)
    code, out = run("userprio", "--state-dir", state, "--config", cfg, "--now",
                    str(T0 + MINUTE), "--quotas", "--json")
    assert code == 0, out
    quotas = json.loads(out)["data"]
    # the demand recorded is the one the cycle started from: chemistry 5 running + 20
    # idle, physics 15 + 3
    assert quotas["requested_source"] == "last_negotiation_cycle"
    asked = {g["name"]: g["requested"] for g in quotas["groups"]}
    assert asked == {"<none>": 0, "group_chemistry": 25, "group_physics": 18}
    conn = sqlite3.connect(state / "state.db")
    try:
        row = conn.execute("SELECT data FROM history WHERE kind = 'negotiation_cycle'"
                           ).fetchone()[0]
    finally:
        conn.close()
    demand = json.loads(row)["demand"]
    assert demand == {f"group_chemistry.chem@{DOM}": 25.0, f"group_physics.phys@{DOM}": 18.0}


# -- a generated grouped pool (the benchmark's shape, small) ------------------------------


def test_generated_fifty_group_tree_negotiates_consistently(tmp_path: Path) -> None:
    from tests.benchmarks._load import load

    genpool = load("genpool")
    tree = genpool.group_tree((2, 4, 5))
    assert len(tree) == 50 and tree[:3] == ("g1", "g2", "g1.s1") and tree[-1] == "g2.s4.t5"
    spec = genpool.PoolSpec(slots=60, jobs=400, submitters=100, autoclusters=20, seed=5,
                            groups=tree)
    files = genpool.write_pool(spec, tmp_path / "pool")
    assert files.config_path is not None
    data = negotiate(tmp_path / "state", files.slots_path, files.jobs_path,
                     genpool.BASE_TIME, "--config", str(files.config_path))
    groups = {g["name"]: g for g in data["groups"]}
    assert len(groups) == 51 and groups["g1.s1.t1"]["depth"] == 3
    # dynamic quotas 1/siblings: the top two share the pool, leaves a fifth of their parent
    pool = data["cycle"]["pool_weight"]
    assert abs(groups["g1"]["subtree_quota"] - pool / 2) < 1e-6
    assert abs(groups["g1.s1.t1"]["subtree_quota"] - pool / 2 / 4 / 5) < 1e-6
    slots = [m["slot"] if m["partitionable"] is None else f"{m['slot']}#{m['job']}"
             for m in data["matches"]]
    assert len(slots) == len(set(slots)) and data["matches"]
    assert sum(g["matched"] for g in data["groups"]) == sum(m["weight"]
                                                            for m in data["matches"])
    steps: dict[tuple[int, int], list[str]] = {}
    for t in data["group_turns"]:
        steps.setdefault((t["round"], t["step"]), []).append(t["group"])
    # <none> (its submitters: none here, groups take everyone) never goes before a group
    assert all("<none>" not in order[:-1] for order in steps.values())
    assert len(steps[(1, 1)]) == len(set(steps[(1, 1)])) >= 40


# -- the example pool: a group that accepts surplus still stops at its turn limit --------


def test_example_pool_explains_a_job_waiting_at_its_groups_turn_limit(tmp_path: Path) -> None:
    examples = Path(__file__).resolve().parents[2] / "examples"
    open_state(tmp_path / "state", config_path=examples / "condorlite.toml")  # a fresh one
    code, out = run("negotiate", "--config", examples / "condorlite.toml", "--state-dir",
                    tmp_path / "state", "--now", "1760000000", "--dry-run", "--explain",
                    "210.5", "--json")
    assert code == 0, out
    data = json.loads(out)["data"]
    ex = data["explain"]
    # group_physics asks for 12 in use + 52 requested cores = 64, its quota; carol's jobs
    # land on slots wider than they ask for, so 7 of them fill the 64
    assert ex["group"]["limit_reached"] and ex["group"]["capped_by"] is None
    assert ex["group"]["last_turn_limit"] == 64
    assert ex["outcome"] == ("waiting: its group group_physics reached its turn limit of 64 "
                             "(allocation 64 from a demand of 64)")
    assert ex["detail"] == "rejected: submitter limit exceeded"
    assert data["cycle"]["rejections"] == len(data["rejections"]) == 2
    assert data["cycle"]["rejection_events"] >= 2


def test_examples_readme_shows_the_real_groups_table(tmp_path: Path) -> None:
    # the README's command: the first cycle, which makes the state
    examples = Path(__file__).resolve().parents[2] / "examples"
    code, out = run("negotiate", "--config", examples / "condorlite.toml", "--state-dir",
                    tmp_path / "state", "--now", "1760000000", "--explain", "210.5")
    assert code == 0, out
    readme = (examples / "README.md").read_text(encoding="utf-8")
    table = out[out.index("Groups ("):].split("\n\n")[0].rstrip("\n")
    assert table.count("\n") == 3 and table in readme
