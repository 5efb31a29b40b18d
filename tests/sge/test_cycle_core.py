"""The Grid Engine cycle's pure part (``core.sge.usage``, ``core.sge.cycle``): decay,
charges, runs against the input, clearusage, the share-tree rows of the records."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest

from condorlite.core.sge import cycle as C
from condorlite.core.sge import usage as U
from condorlite.core.sge.dispatch import Grant, Started
from condorlite.core.sge.jobs import JFINISHED, JRUNNING, Task
from condorlite.store.sge_cell import read_cell
from tests.sge.recorded import DATA

CELL = DATA / "s7_usage_projects" / "t0_running"


def _cell(jobs=None):
    cell = read_cell(CELL)
    return cell if jobs is None else replace(cell, jobs=tuple(jobs))


def _with_task(cell, number, task):
    jobs = [replace(j, tasks=(task,)) if j.number == number else j for j in cell.jobs]
    return replace(cell, jobs=tuple(jobs))


def test_decay_is_grid_engines_constant_per_minute():
    conf = replace(_cell().sched_conf, halftime=1)
    constants = U.decay_constants(conf)
    assert constants["cpu"] == pytest.approx(1 - math.log(2) / 60)
    rec = U.UsageRecord(U.UsageKey("user", "a"), U.UsageVector(100, 10, 1), usage_time=1000)
    after = U.decayed(rec, constants, 1000 + 3600)
    assert after.usage.cpu == pytest.approx(100 * (1 - math.log(2) / 60) ** 60)
    assert after.usage_time == 4600 and after.long_term == rec.long_term
    # never stamped: nothing decays (usage_time_stamp 0); a clock that went back: nothing
    fresh = replace(rec, usage_time=0)
    assert U.decayed(fresh, constants, 5000).usage == rec.usage
    assert U.decayed(rec, constants, 900) == rec


def test_halflife_decay_list_per_type_zero_and_negative():
    conf = replace(_cell().sched_conf, halftime=0, halflife_decay_list="cpu=-1:mem=60")
    constants = U.decay_constants(conf)
    assert constants == {"cpu": 0.0, "mem": pytest.approx(1 - math.log(2) / 60), "io": 1.0}
    rec = U.UsageRecord(U.UsageKey("user", "a"), U.UsageVector(5, 5, 5), usage_time=10)
    after = U.decayed(rec, constants, 70)
    assert after.usage.cpu == 0.0 and after.usage.io == 5.0
    assert after.usage.mem == pytest.approx(5 * (1 - math.log(2) / 60))


def test_charge_keys_follow_user_and_project_objects():
    assert U.charge_keys("alice", "p1", {"alice"}, {"p1"}) == (
        U.UsageKey("user", "alice", "p1"), U.UsageKey("project", "p1"))
    assert U.charge_keys("alice", None, {"alice"}, {"p1"}) == (U.UsageKey("user", "alice"),)
    assert U.charge_keys("zed", "p9", {"alice"}, {"p1"}) == ()


def test_running_task_charges_its_growth_once():
    cell = _cell()
    first = C.advance(C.SgeState(), cell, cell.now)
    alice = U.UsageKey("user", "alice", "p1")
    charged = {(c.job, c.owner): c.delta.cpu for c in first.charges}
    assert charged and all(v > 0 for v in charged.values())
    again = C.advance(first.state, cell, cell.now + 60)
    assert again.charges == ()  # the same figures: nothing new
    assert again.state.records[alice].usage.cpu == pytest.approx(
        first.state.records[alice].usage.cpu * U.decay_constants(cell.sched_conf)["cpu"])
    assert again.state.records[alice].long_term == first.state.records[alice].long_term


def test_a_finished_task_is_charged_and_its_run_ends():
    cell = _cell()
    job = next(j for j in cell.jobs if any(t.running for t in j.tasks))
    start = C.advance(C.SgeState(), cell, cell.now)
    done = _with_task(cell, job.number, Task(1, JFINISHED, job.tasks[0].start_time,
                                             {"cpu": 500.0, "mem": 1.0, "io": 0.5}))
    after = C.advance(start.state, done, cell.now + 10)
    assert after.state.runs[(job.number, 1)].source == C.FINISHED
    assert [e.reason for e in after.ended if e.job == job.number] == ["finished"]
    delta = next(c.delta for c in after.charges if c.job == job.number)
    assert delta.cpu == pytest.approx(500.0 - start.state.runs[(job.number, 1)].debited.cpu)
    # the same finished task again charges nothing; once it leaves the input it is gone
    twice = C.advance(after.state, done, cell.now + 20)
    assert [c for c in twice.charges if c.job == job.number] == [] and twice.ended == ()
    left = replace(done, jobs=tuple(j for j in done.jobs if j.number != job.number))
    assert (job.number, 1) not in C.advance(twice.state, left, cell.now + 30).state.runs


def test_a_job_gone_from_the_input_ends_and_stops_charging():
    cell = _cell()
    start = C.advance(C.SgeState(), cell, cell.now)
    running = {k[0] for k in start.state.runs}
    gone = replace(cell, jobs=tuple(j for j in cell.jobs if j.number not in running))
    after = C.advance(start.state, gone, cell.now + 60)
    assert after.charges == ()
    assert all(r.source == C.FINISHED for r in after.state.runs.values())
    assert {e.reason for e in after.ended} == {"gone from the input"}


def test_condorlites_own_run_is_overlaid_and_charged_by_wall_clock():
    cell = _cell()
    pending = next(j for j in cell.jobs if all(t.status == 0 for t in j.tasks))
    state = C.record_starts(C.SgeState(last_cycle=cell.now), (Started(
        pending.number, 1, pending.owner, None, 1, (Grant("all.q@vm", "vm", 1),), cell.now,
        60, ()),), {pending.number: pending.project}, cell.now)
    after = C.advance(state, cell, cell.now + 30)
    mine = next(c for c in after.charges if c.job == pending.number)
    assert mine.delta == U.UsageVector(cpu=30.0)
    task = next(j for j in after.cell.jobs if j.number == pending.number).tasks[0]
    assert task.status == JRUNNING and task.start_time == cell.now
    assert any(g.job == pending.number for g in after.cell.running)


def test_clock_behind_charges_and_decays_nothing_and_keeps_the_time():
    cell = _cell()
    first = C.advance(C.SgeState(), cell, cell.now)
    behind = C.advance(first.state, cell, cell.now - 100)
    assert behind.clock_behind == 100 and behind.charges == ()
    assert behind.state.last_cycle == cell.now
    assert behind.state.records == first.state.records


def test_clearusage_keeps_long_term_and_drops_per_project_records():
    k_user, k_in, k_prj = (U.UsageKey("user", "a"), U.UsageKey("user", "a", "p"),
                           U.UsageKey("project", "p"))
    v = U.UsageVector(1, 2, 3)
    records = {k: U.UsageRecord(k, v, v, 50) for k in (k_user, k_in, k_prj)}
    everything, touched = U.cleared(records, ())
    assert set(everything) == {k_user, k_prj} and touched == (k_prj, k_user, k_in)
    assert all(r.usage == U.ZERO and r.long_term == v and r.usage_time == 50
               for r in everything.values())
    only, touched = U.cleared(records, ("p",))
    assert touched == (k_prj,) and only[k_user].usage == v and only[k_prj].usage == U.ZERO


def test_node_rows_map_records_to_the_tree():
    cell = read_cell(DATA / "s7_usage_projects" / "t1_cf5")
    v = U.UsageVector(10, 0, 0)
    keys = (U.UsageKey("user", "alice", "p1"), U.UsageKey("project", "p1"),
            U.UsageKey("user", "carol", "p2"), U.UsageKey("user", "carol"))
    records = {k: U.UsageRecord(k, v, v, 7) for k in keys}
    rows = U.node_rows(cell.share_tree, records, cell.sched_conf, set(cell.projects))
    assert set(rows) == {"/p1", "/p1/alice", "/p2/default/carol"}
    assert rows["/p2/default/carol"].usage_time == 7 and rows["/p1"].cpu == 10


def test_a_changed_halftime_decays_the_interval_with_the_old_one():
    """sgeee.c: when halftime changed since the last run, usage is decayed up to now
    with the old half-life (unless it was 0); the new one applies from then on."""
    cell = _cell()
    fast = replace(cell, sched_conf=replace(cell.sched_conf, halftime=1))
    slow = replace(cell, sched_conf=replace(cell.sched_conf, halftime=168))
    first = C.advance(C.SgeState(), fast, cell.now)
    key = next(iter(first.state.records))
    before = first.state.records[key].usage.cpu
    changed = C.advance(first.state, slow, cell.now + 600)
    assert changed.state.halftime == 168
    assert changed.state.records[key].usage.cpu == pytest.approx(
        before * (1 - math.log(2) / 60) ** 10)
    after = C.advance(changed.state, slow, cell.now + 1200)
    assert after.state.records[key].usage.cpu == pytest.approx(
        changed.state.records[key].usage.cpu * (1 - math.log(2) / (168 * 60)) ** 10)


def test_a_task_that_finishes_while_the_clock_is_behind_is_charged_next_cycle():
    cell = _cell()
    job = next(j for j in cell.jobs if any(t.running for t in j.tasks))
    start = C.advance(C.SgeState(), cell, cell.now)
    done = _with_task(cell, job.number, Task(1, JFINISHED, job.tasks[0].start_time,
                                             {"cpu": 500.0}))
    behind = C.advance(start.state, done, cell.now - 10)
    assert behind.charges == () and behind.state.runs[(job.number, 1)].source == C.INPUT
    later = C.advance(behind.state, done, cell.now + 10)
    assert [c.delta.cpu for c in later.charges if c.job == job.number] == [
        pytest.approx(500.0 - start.state.runs[(job.number, 1)].debited.cpu)]
