"""A box's sure static shapes of one result, made by blocks as a list's merge reads
them (``static_blocks``).

The pool's static slots share one part and each has its own ``Disk`` (one-offer
shapes), three ``Memory`` values (pre-job rank ties) and its own ``KFlops`` (a rank
column for the classes that rank on it). The classes are boxes on ``Disk``: one of
constant ranks, one ranking on ``KFlops`` (a column), one on ``Memory`` (ranks that
read the vector: made with the list, as before). Every cycle runs with the blocks on
and off, with blocks small enough that a list's walk reads some and not others, and
must decide as the plain reference cycle does, with the same evaluations.
"""

from __future__ import annotations

import math

import pytest

from condorlite.core.matching import static_blocks, static_lists
from condorlite.core.matching.candidates import (
    ENTRY_IDX,
    POST,
    PRE,
    PairEval,
    make_entry,
)
from condorlite.core.matching.lazy_runs import LazyRun
from condorlite.core.matching.static_blocks import ShapeOrder
from condorlite.core.model import NO_PREEMPTION
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import ad_text, job_text, run_both

POLICY = Policy(uid_domain="example.org")


def _slot(i: int) -> str:
    attrs = dict(Name=f'"slot{i}@m{i // 4}"', Machine=f'"m{i // 4}"', State='"Unclaimed"',
                 Activity='"Idle"', Cpus=1, Memory=2048 + 1024 * (i % 3),
                 Disk=40000 + 1000 * i, KFlops=900000 + (i * 7919) % 1000,
                 Arch='"X86_64"', OpSys='"LINUX"', Requirements="START",
                 START="TARGET.RequestMemory <= MY.Memory", Rank="0.0",
                 CurrentRank="0.0", SlotWeight="Cpus")
    return ad_text(attrs)



def _jobs() -> list[str]:
    classes = [
        ("TARGET.Disk >= 45000", {}, 12),  # constant ranks: one result
        ("TARGET.Disk >= 52000", {"Rank": "TARGET.KFlops"}, 15),  # a rank column
        ("TARGET.Disk >= 47000", {"Rank": "TARGET.Memory"}, 6),  # ranks reading the vector
        ("TARGET.Disk > 60000", {}, 70),  # read deep: most blocks made
    ]
    return [job_text(c, p, req, **extra) for c, (req, extra, per) in enumerate(classes, start=1)
            for p in range(per)]


def test_blocks_decide_as_the_whole_list(monkeypatch):
    """The cycle with the sure shapes made by blocks decides as the plain reference
    does, and as the cycle that makes every list whole, with the same evaluations;
    some blocks are made, some never; each made block holds the entries of its
    offers that were available, sorted, after its sentinel and after the block
    before it."""
    monkeypatch.setattr(static_lists, "LEAST", 16)
    monkeypatch.setattr(static_blocks, "LEAST", 16)
    monkeypatch.setattr(static_blocks, "BLOCK", 4)
    made: list[tuple[list[LazyRun], PairEval, object]] = []
    blocks = static_blocks.blocks

    def kept(order, shapes, registry, members, pe, column, singles):  # type: ignore[no-untyped-def]
        runs = blocks(order, shapes, registry, members, pe, column, singles)
        made.append((runs, pe, column))
        return runs

    monkeypatch.setattr(static_blocks, "blocks", kept)
    slots, jobs = [_slot(i) for i in range(160)], _jobs()
    fast, _ = run_both(slots, jobs, POLICY)
    assert made and any(column is not None for _, _, column in made)
    runs = [run for found, _, _ in made for run in found]
    assert any(run.made for run in runs) and not all(run.made for run in runs)
    registry = fast.mm.lists._static.registry
    for found, pe, column in made:
        last = None
        for run in found:
            sentinel = run.sentinel
            if not run.made:
                continue
            entries = list(run)
            assert entries == sorted(entries)
            for entry in entries:
                offer = registry[entry[ENTRY_IDX]]
                assert entry == make_entry(offer, offer.seq, pe, NO_PREEMPTION, column)
            if entries:
                assert sentinel < entries[0]
            if last is not None:
                assert last < sentinel
            if entries:
                last = entries[-1]
    with monkeypatch.context() as patch:
        patch.setattr(static_lists, "LATER", False)
        made.clear()
        whole, _ = run_both(slots, jobs, POLICY)
        assert not made
    assert fast.mm.evaluations == whole.mm.evaluations


def test_blocks_taken_again_as_offers_leave(monkeypatch):
    """A class asked again and again as its slots are matched (more jobs than a
    block holds, three submitters) takes its made blocks again without the offers
    that have left, and still decides as the reference does."""
    monkeypatch.setattr(static_lists, "LEAST", 16)
    monkeypatch.setattr(static_blocks, "LEAST", 16)
    monkeypatch.setattr(static_blocks, "BLOCK", 4)
    later = static_lists.StaticLists.later
    handed: list[int] = []

    def counted(self, key, runs):  # type: ignore[no-untyped-def]
        start = len(runs)
        found = later(self, key, runs)
        registry = self.registry
        for run in runs[start:]:
            if type(run) is not LazyRun or run.made:
                assert run and registry[run[0][ENTRY_IDX]].available
                handed.append(len(run))
        return found

    monkeypatch.setattr(static_lists.StaticLists, "later", counted)
    jobs = [job_text(c, p, "TARGET.Disk >= 41000") for c in (1, 2, 3) for p in range(40)]
    run_both([_slot(i) for i in range(160)], jobs, POLICY)
    assert handed


def _offers(pres: list[object], posts: list[float]) -> list:
    class Offer:  # (what ``ShapeOrder`` and ``make_entry`` read of an offer)
        def __init__(self, seq: int, pre: object, post: float) -> None:
            self.seq, self.name, self.version = seq, f"slot{seq % 5}", 0
            self.independent = {POST: post} if pre is None else {PRE: pre, POST: post}

    return [Offer(seq, pre, post) for seq, (pre, post) in enumerate(zip(pres, posts, strict=True))]


def test_the_order_is_the_entries_order():
    """``ShapeOrder.ordered`` puts shapes in the order of their entries, ties of
    pre-job rank and name included; with a column, its values' order within a
    pre-job rank, and no order at all when a value is NaN; shapes whose offer has
    no pre-job rank of its own, or no real post-job rank, are not ordered."""
    pres = [1.0, 2.0, 1.0, 2.0, 1.0, None, 3.0, 1.0]
    posts = [5.0, 5.0, 4.0, 9.0, 5.0, 1.0, 2.0, 5.0]
    registry = _offers(pres, posts)
    members = {10 + i: {i: None} for i in range(len(registry))}
    places = list(range(len(registry)))
    # (the likely order of ``StaticLists._order``: -pre, -post, name, seq)
    places.sort(key=lambda k: (-(pres[k] or 0.0), -posts[k], registry[k].name, k))
    place_of = [0] * len(registry)
    for place, k in enumerate(places):
        place_of[k] = place
    order = ShapeOrder(registry, members, place_of)  # type: ignore[arg-type]
    assert 15 not in order.place  # (no pre-job rank of its own)
    shapes = [shape for shape in members if shape in order.place]
    pe = PairEval(True, 3.0)
    got = order.ordered(list(reversed(shapes)), registry, None)  # type: ignore[arg-type]
    want = sorted(shapes, key=lambda s: make_entry(registry[s - 10], s - 10, pe,
                                                   NO_PREEMPTION))
    assert got == want

    class Column:
        def __init__(self, values: dict[int, float]) -> None:
            self.values = values

        def negated(self) -> dict[int, float]:
            return {}

        def value(self, offer) -> float:  # type: ignore[no-untyped-def]
            return self.values[offer.seq]

    column = Column({k: float((k * 3) % 4) for k in range(len(registry))})
    got = order.ordered(shapes, registry, column)  # type: ignore[arg-type]
    want = sorted(shapes, key=lambda s: make_entry(registry[s - 10], s - 10, pe,
                                                   NO_PREEMPTION, column))  # type: ignore[arg-type]
    assert got == want
    column.values[3] = math.nan
    assert order.ordered(shapes, registry, column) is None  # type: ignore[arg-type]


@pytest.mark.parametrize("least", [16, 10**9])
def test_small_groups_are_made_with_the_list(monkeypatch, least):
    """Groups smaller than ``LEAST`` are made with the list, as before: with it out
    of reach no block is made, and the cycle decides as the reference does."""
    monkeypatch.setattr(static_blocks, "LEAST", least)
    monkeypatch.setattr(static_lists, "LEAST", least)
    made: list[int] = []
    blocks = static_blocks.blocks

    def kept(*args):  # type: ignore[no-untyped-def]
        runs = blocks(*args)
        made.append(len(runs))
        return runs

    monkeypatch.setattr(static_blocks, "blocks", kept)
    run_both([_slot(i) for i in range(160)], _jobs(), POLICY)
    assert bool(made) == (least == 16)
