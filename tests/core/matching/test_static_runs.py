"""Static lists made and merged only as far as they are read (``static_runs``).

A ``StaticRun`` makes a group's entries in its offers' order, a part at a time,
passing over offers that have left; a ``StaticMerge`` keeps the sorted prefix of
its runs' entries, however far it is asked to grow. The cycle decides as the plain
one does with runs made on demand and without (``static_lists.LAZY``).
"""

from __future__ import annotations

import random
from types import SimpleNamespace

import pytest

from condorlite.core.matching import static_lists, static_runs
from condorlite.core.matching.candidates import POST, PRE, PairEval, make_entries
from condorlite.core.matching.static_runs import StaticMerge, StaticRun
from condorlite.core.model import NO_PREEMPTION
from tests.core.matching._against_reference import run_both
from tests.core.matching.test_static_parts import POLICY, _job, _slot


def _offers(count: int, seed: int) -> list[SimpleNamespace]:
    """Offers as a list's entries read them: pre job ranks of few values, names."""
    rng = random.Random(seed)
    return [SimpleNamespace(independent={PRE: float(rng.randrange(4)), POST: 0.0},
                            name=f"slot{k:03d}",
                            version=0, available=True, seq=k) for k in range(count)]


def _in_order(offers: list[SimpleNamespace], seqs: list[int]) -> list[int]:
    """``seqs`` in their entries' order (``StaticLists._order``'s key)."""
    return sorted(seqs, key=lambda k: (-offers[k].independent[PRE], offers[k].name, k))


def test_a_static_run_makes_entries_only_as_far_as_asked():
    offers = _offers(200, 1)
    pe = PairEval(True, 2.0)
    seqs = _in_order(offers, list(range(200)))
    for k in seqs[3:40:4]:
        offers[k].available = False  # (left before their turn: no entry)
    run = StaticRun(offers, seqs, pe)  # type: ignore[arg-type]
    alive = [k for k in seqs if offers[k].available]
    whole = make_entries(offers, alive, pe, NO_PREEMPTION)  # type: ignore[arg-type]
    assert whole == sorted(whole)  # (the exact order: what a run relies on)
    run.grow(9)
    assert 10 <= len(run.entries) < 40 and not run.done
    assert run.entries == whole[:len(run.entries)]
    run.grow(len(run.entries) + 30)
    assert run.entries == whole[:len(run.entries)] and len(run.entries) > 40
    run.grow(10_000)
    assert run.done and run.entries == whole


@pytest.mark.parametrize("seed", range(6))
def test_a_static_merge_is_the_sorted_prefix_of_its_runs(seed):
    rng = random.Random(seed)
    offers = _offers(600, seed)
    seqs = list(range(600))
    rng.shuffle(seqs)
    # (sorted runs made at once, and groups made on demand, of one pair each)
    runs, lazy, everything = [], [], []
    for at in range(0, 300, 60):
        pe = PairEval(True, float(rng.randrange(3)))
        run = sorted(make_entries(offers, seqs[at:at + 60], pe, NO_PREEMPTION))  # type: ignore[arg-type]
        runs.append(run)
        everything.extend(run)
    for at in range(300, 600, 100):
        pe = PairEval(True, float(rng.randrange(3)))
        group = _in_order(offers, seqs[at:at + 100])
        lazy.append(StaticRun(offers, group, pe))  # type: ignore[arg-type]
        everything.extend(make_entries(offers, group, pe, NO_PREEMPTION))  # type: ignore[arg-type]
    everything.sort()
    merge = StaticMerge(offers, runs, lazy)  # type: ignore[arg-type]
    count = 0
    while not merge.done:
        count += rng.randrange(1, 40)
        merge.grow(count)
        assert merge.entries == everything[:len(merge.entries)]
        assert len(merge.entries) > count or merge.done
    assert merge.entries == everything
    assert sum(len(run.entries) for run in lazy) == 300


def test_a_static_merge_of_one_run_is_the_run():
    offers = _offers(50, 2)
    run = sorted(make_entries(offers, list(range(50)), PairEval(True), NO_PREEMPTION))  # type: ignore[arg-type]
    merge = StaticMerge(offers, [run], [])  # type: ignore[arg-type]
    assert merge.entries is run and merge.done
    offers[run[0][6]].available = False
    assert merge.start() == 1


@pytest.mark.parametrize("lazy", [True, False])
def test_a_cycle_with_static_runs_made_on_demand_or_not_is_the_plain_one(monkeypatch, lazy):
    """One-offer static shapes (every slot's Disk differs) in groups of one job rank:
    with ``LAZY`` their entries are made as the lists are read, and most of a group
    is never made; the cycle is the reference's either way."""
    monkeypatch.setattr(static_lists, "LAZY", lazy)
    made: list[StaticRun] = []
    init = StaticRun.__init__

    def kept(self, *args):  # type: ignore[no-untyped-def]
        init(self, *args)
        made.append(self)

    monkeypatch.setattr(static_runs.StaticRun, "__init__", kept)
    jobs = [_job(c, p, "TARGET.Disk >= 41000", Rank="3") for c in (1, 2, 3, 4)
            for p in range(2)]
    run_both([_slot(i, PREEMPTION_RANK="0") for i in range(400)], jobs, POLICY)
    if lazy:
        assert made and any(not run.done for run in made)
    else:
        assert not made
