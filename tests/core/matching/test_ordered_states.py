"""Carved entries made from each static's offers in pre-job-rank order, as far as a
list's merge reads (``ordered_states``), and only-rank lists that pass over the
statics of offers nobody holds (``carved_lists``).

Each cycle runs with the order on and off (``carved_lists.ORDERED``); both must decide
as the plain reference cycle does, and the order must have done its work (lists made
from it, fewer entries made than offers it held). The order itself is checked against
the offers' current states after every ``sync``, and a list's snapshot must not
change when the order moves on; a tier of states with nothing left of a resource a
class asks for is never handed to its list. ``Candidates.merge_more`` with sources made on
demand is checked against one sort of everything (hypothesis).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core.matching import carved_lists, static_orders, tier_lists
from condorlite.core.matching.candidates import (
    DEPENDENT,
    FLT_MAX,
    POST,
    PRE,
    Candidates,
    PairEval,
)
from condorlite.core.matching.evaluation_count import EvaluationCount
from condorlite.core.matching.match_table import MatchTable
from condorlite.core.matching.ordered_states import OrderedStates
from condorlite.core.matching.static_orders import StaticOrders
from condorlite.core.matching.tier_lists import TierLists, TierMoves
from condorlite.core.model import NO_PREEMPTION, REASON_ORDER, Submitter
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import (
    ad_text,
    pslot_text,
    run_both,
)
from tests.core.matching.test_carved_cells import _jobs, _pslot
from tests.core.negotiation.test_equivalence import _fingerprint

POLICY = Policy(uid_domain="example.org")

#: the module's least order, before the fixture below lowers it for each test
DEFAULT_ORDER_MIN = static_orders.ORDER_MIN


@pytest.fixture(autouse=True)
def _small_statics_ordered(monkeypatch) -> None:
    # (these pools' statics hold a few dozen offers: ordered all the same here)
    monkeypatch.setattr(static_orders, "ORDER_MIN", 1)


class _Made:
    """The ordered sources made in a cycle (``OrderedStates``), kept through ``patch``,
    and every order checked against the offers' states after each ``sync``."""

    def __init__(self, patch) -> None:
        self.sources: list[OrderedStates] = []
        self.syncs = 0
        made = OrderedStates.__init__
        sync = StaticOrders.sync
        kept = self

        def init(source, *args, **kwargs):  # type: ignore[no-untyped-def]
            made(source, *args, **kwargs)
            kept.sources.append(source)

        def checked_sync(orders):  # type: ignore[no-untyped-def]
            sync(orders)
            kept.syncs += 1
            _check_orders(orders)

        patch.setattr(OrderedStates, "__init__", init)
        patch.setattr(StaticOrders, "sync", checked_sync)


def _check_orders(orders: StaticOrders) -> None:
    """Each ordered static's items are its available offers nobody holds, in their
    current states, sorted by (-pre, position); a static split on literal tests
    (``literal_orders``) has its offers by group too."""
    assert orders._moved == []
    for static, tiers in orders._orders.items():
        for tier, items in tiers.items():
            # (each tier's list sorted, its items' states with nothing left there)
            assert items == sorted(items)
            assert all(orders.lists.tier_of(item[3]) == tier for item in items)
            # (each item holds the tier it is placed in: ``sync`` takes it out by it)
            assert all(item[7] == tier for item in items)
            left = orders._shapes.shape_left
            assert all(left[item[3]][pos] <= 0 for item in items for pos in tier)
        order = sorted(item for items in tiers.values() for item in items)
        want = []
        for members in orders._groups.get(static, {}).values():
            for seq in members:
                item = orders._items[seq]
                assert item[1] == seq
                want.append(item)
        assert sorted(want) == order
        by_group = orders._by_group.get(static)
        if by_group is not None:
            split = orders._keyed[static][0]
            assert sorted(seq for members in by_group.values() for seq in members) == sorted(
                item[1] for item in order)
            assert all(split.group(orders._items[seq][5]) == group
                       for group, members in by_group.items() for seq in members)
        keyed = orders._keyed.get(static)
        registry = orders._shapes.registry
        for item in order:
            key, seq, version, shape, post, vals, name, _ = item
            # (a static split on literal tests is keyed by its order's program)
            values = registry[seq].independent
            assert key == (-values[PRE] if keyed is None else keyed[0].key(keyed[1], vals))
            # (what an entry reads of the offer is the item's: ``item_of``)
            assert (version, shape, vals, name) == (
                registry[seq].version, registry[seq].shape, registry[seq].vector.vals,
                registry[seq].name)
            assert post is values.get(POST, DEPENDENT)


def _cycle(slots, jobs, ordered: bool, monkeypatch, subs=None):
    monkeypatch.setattr(carved_lists, "ORDERED", ordered)
    return run_both(slots, jobs, POLICY, subs)


def _ranked_pslot(i: int, kflops: str) -> str:
    """A partitionable slot with its own ``KFlops`` (a rank column's name)."""
    return pslot_text(f"k{i:02d}", 8 + 8 * (i % 2), 16384, 200000 + 977 * i, KFlops=kflops)


def _kflops_jobs(per: int) -> list[str]:
    out = []
    for cluster in range(1, 7):
        attrs = dict(Owner=f'"u{cluster % 3}@example.org"', JobStatus=1, JobPrio=0,
                     QDate=1000 + cluster, RequestCpus=1 + cluster % 2,
                     RequestMemory=1024 * cluster, RequestDisk=1000,
                     Rank="KFlops" if cluster % 2 else "0.0",
                     Requirements="TARGET.Memory >= RequestMemory")
        out.extend(ad_text(dict(ClusterId=cluster, ProcId=proc, **attrs))
                   for proc in range(per))
    return out


def test_ordered_statics_decide_as_the_walk_and_make_fewer_entries(monkeypatch) -> None:
    # (over 64 offers a static: a list's first merge reads 64 entries of each source)
    slots, jobs = [_pslot(i) for i in range(240)], _jobs(3)
    made = _Made(monkeypatch)
    _, result = _cycle(slots, jobs, True, monkeypatch)
    _, walked = _cycle(slots, jobs, False, monkeypatch)
    assert _fingerprint(result) == _fingerprint(walked)
    assert made.sources and made.syncs
    items = sum(len(s.items) for s in made.sources)
    reached = sum(s._at for s in made.sources)
    # (the merge read only part of what the lists were made with)
    assert reached < items


def test_rank_column_of_literals_is_read_in_order(monkeypatch) -> None:
    """Classes ranking by ``KFlops`` (a rank column whose value is the same in every
    state of a slot binding it to a literal) take their statics from the order."""
    slots = [_ranked_pslot(i, str(1000 + 37 * (i % 7))) for i in range(24)]
    made = _Made(monkeypatch)
    _, result = _cycle(slots, _kflops_jobs(10), True, monkeypatch)
    assert any(s._column is not None for s in made.sources)
    # each source's entries are sorted, ties of -pre among them by the column's value
    assert all(s.entries == sorted(s.entries) for s in made.sources)
    assert any(a[0] == b[0] and a[1] != b[1] for s in made.sources
               for a, b in zip(s.entries, s.entries[1:], strict=False))
    _, walked = _cycle(slots, _kflops_jobs(10), False, monkeypatch)
    assert _fingerprint(result) == _fingerprint(walked)


def test_rank_column_that_reads_the_state_is_walked(monkeypatch) -> None:
    """A ``KFlops`` bound to an expression of ``Cpus`` is no literal: the column's
    value may change with the state, so the class's statics are walked."""
    slots = [_ranked_pslot(i, "Cpus * 1000") for i in range(24)]
    made = _Made(monkeypatch)
    _, result = _cycle(slots, _kflops_jobs(10), True, monkeypatch)
    assert made.sources  # (the classes without a column)
    assert all(s._column is None for s in made.sources)
    _, walked = _cycle(slots, _kflops_jobs(10), False, monkeypatch)
    assert _fingerprint(result) == _fingerprint(walked)


def test_a_snapshot_does_not_change_when_the_order_moves_on(monkeypatch) -> None:
    slots, jobs = [_pslot(i) for i in range(30)], _jobs(10)
    snapshots: list[tuple[list, list]] = []
    take = StaticOrders.snapshot

    def kept(orders, static, asking):  # type: ignore[no-untyped-def]
        tiers = take(orders, static, asking)
        if tiers is not None:
            snapshots.extend((items, list(items)) for items in tiers.values())
        return tiers

    monkeypatch.setattr(StaticOrders, "snapshot", kept)
    _cycle(slots, jobs, True, monkeypatch)
    assert snapshots
    assert all(items == copy for items, copy in snapshots)
    # (the orders moved on after some snapshot: the check above had work to do)
    assert len({id(items) for items, _ in snapshots}) > 1


def test_only_rank_lists_pass_over_nobodys_offers(monkeypatch) -> None:
    """A submitter over its limit while some slot is held gets only-rank lists;
    nobody's carved offers are never listed there, so no program is asked for them
    (the same decisions either way)."""
    # (carol's share is less than one job: the round-up rule lets her first job
    # through, and her later rows get only-rank lists while held slots are left)
    slots = [_pslot(i) for i in range(20)] + [_held(i) for i in range(8)]
    jobs = _jobs(20)
    subs = {f"{name}@example.org": Submitter(f"{name}@example.org", eup=eup, usage=0.0)
            for name, eup in (("alice", 500.0), ("bob", 1000.0), ("carol", 1e7),
                              ("old0", 1e6), ("old1", 1e6))}
    seen: list[bool] = []
    #: programs asked for nobody's offers while an only-rank list was made
    asked: list[int] = []
    add = carved_lists.CarvedLists.add
    program = MatchTable.program

    inside: list[bool] = []

    def counted(lists, build):  # type: ignore[no-untyped-def]
        seen.append(build.only_rank)
        inside.append(build.only_rank)
        try:
            return add(lists, build)
        finally:
            inside.pop()

    def watched(table, klass, job_ad, offer):  # type: ignore[no-untyped-def]
        if inside and inside[-1] and offer.vector is not None and offer.holder is None:
            asked.append(offer.seq)
        return program(table, klass, job_ad, offer)

    monkeypatch.setattr(carved_lists.CarvedLists, "add", counted)
    monkeypatch.setattr(MatchTable, "program", watched)
    _, result = _cycle(slots, jobs, True, monkeypatch, subs)
    assert any(seen) and not asked
    _, walked = _cycle(slots, jobs, False, monkeypatch, subs)
    assert _fingerprint(result) == _fingerprint(walked)


def _held(i: int) -> str:
    """A claimed static slot (so a submitter over its limit still gets a list)."""
    return ad_text(dict(
        Name=f'"slot1@old{i}"', Machine=f'"old{i}"', State='"Claimed"',
        Activity='"Busy"', Cpus=2, Memory=4096, Disk=50000, Arch='"X86_64"',
        OpSys='"LINUX"', Start="true", Requirements="START", Rank="0.0",
        CurrentRank="0.0", SlotWeight="Cpus", RemoteUser=f'"old{i % 2}@example.org"',
        RemoteOwner=f'"old{i % 2}"', TotalJobRunTime=100 + i))


class _Lazy:
    """A source made on demand, as ``merge_more`` reads one: its entries are made a
    whole group of equal first key at a time, in key order."""

    def __init__(self, entries: list[tuple]) -> None:
        self._all = sorted(entries)
        self.entries: list[tuple] = []
        self.done = not entries

    def _make_group(self) -> None:
        first = self._all[len(self.entries)][0]
        while len(self.entries) < len(self._all) and self._all[len(self.entries)][0] == first:
            self.entries.append(self._all[len(self.entries)])
        self.done = len(self.entries) == len(self._all)

    def grow(self, count: int, last: float | None = None) -> None:
        while not self.done and len(self.entries) <= count and (
                last is None or self._all[len(self.entries)][0] <= last):
            self._make_group()

    def through(self, key: float) -> None:
        while not self.done and self._all[len(self.entries)][0] <= key:
            self._make_group()


_ENTRY = st.tuples(st.integers(0, 12), st.integers(0, 3), st.integers(0, 10**6))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(_ENTRY, max_size=90), max_size=4),
       st.lists(st.lists(_ENTRY, max_size=200), max_size=3),
       st.integers(1, 8))
def test_merge_with_sources_made_on_demand_is_one_sort(runs, lazies, chunk) -> None:
    every = [e for run in runs for e in run] + [e for lazy in lazies for e in lazy]
    cands = Candidates([], chunk=chunk)
    cands.pending = [[sorted(run), 0] for run in runs if run]
    sources = [_Lazy(lazy) for lazy in lazies]
    cands.pending.extend([s.entries, 0, s] for s in sources)
    cands.lazy_runs = len(sources)
    while cands.pending:
        before = len(cands.entries)
        cands.merge_more()
        # (each merge is the sorted prefix of everything so far)
        assert cands.entries == sorted(every)[:len(cands.entries)]
        assert len(cands.entries) >= before
    assert cands.entries == sorted(every)


def test_a_list_with_lazy_runs_grows_its_chunk_by_a_quarter() -> None:
    # (a lazy run's entries cost their making: its list's merges grow slowly; a list
    # of runs made already doubles)
    eager = Candidates([], chunk=64)
    eager.pending = [[[(float(k),) for k in range(1000)], 0]]
    lazy = Candidates([], chunk=64)
    source = _Lazy([(float(k),) for k in range(1000)])
    lazy.pending = [[source.entries, 0, source]]
    lazy.lazy_runs = 1
    chunks, eager_chunks = [], []
    for _ in range(3):
        lazy.merge_more()
        eager.merge_more()
        chunks.append(lazy.chunk)
        eager_chunks.append(eager.chunk)
    assert chunks == [80, 100, 125]
    assert eager_chunks == [128, 256, 512]
    assert lazy.entries == [(float(k),) for k in range(len(lazy.entries))]
    # (a small chunk still grows)
    small = Candidates([], chunk=1)
    small.pending = [[source.entries, len(lazy.entries), source]]
    small.lazy_runs = 1
    small.merge_more()
    assert small.chunk == 2


_ITEM = st.tuples(st.integers(0, 6), st.integers(0, 4), st.booleans())


@settings(max_examples=150, deadline=None)
@given(st.lists(_ITEM, max_size=120),
       st.lists(st.tuples(st.integers(-6, 0), st.integers(-3, 0), st.integers(0, 9)),
                max_size=60),
       st.integers(1, 8))
def test_an_ordered_source_merges_as_its_entries_sorted(items, run, chunk) -> None:
    """An ``OrderedStates`` of items with ties of -pre, some states not fitting,
    merged beside an eager run: the merged list is the sort of every fitting item's
    entry and the run's, whatever the chunk. An item's post-job rank is its own, or
    the pair's when it reads the job (``DEPENDENT``: a post of 0 here); its name is
    the item's (no registry is given)."""
    order, left, pair_of = [], {}, {}
    for seq, (pre, post, fits) in enumerate(items):
        shape = seq + 1
        left[shape] = (4.0 if fits else 1.0,)
        pair_of[shape] = shape
        order.append((float(-pre), seq, 7, shape, DEPENDENT if post == 0 else float(post),
                      (), f"slot{seq:03d}", ()))
    order.sort()
    boxed = PairEval(True, 2.0, dependent={POST: -0.0})
    source = OrderedStates(order, pair_of, left, [("cpus", 2.0, 0)], boxed,
                           None, {}, EvaluationCount(), None)
    want = sorted([(float(-pre), -2.0, -float(post) if post else 0.0,
                    -REASON_ORDER[NO_PREEMPTION], FLT_MAX,
                    f"slot{seq:03d}", seq, 7, NO_PREEMPTION)
                   for seq, (pre, post, fits) in enumerate(items) if fits]
                  + [tuple(map(float, e)) for e in run])
    cands = Candidates([], chunk=chunk)
    cands.pending = [[sorted(tuple(map(float, e)) for e in run), 0]] if run else []
    cands.pending.append([source.entries, 0, source])
    cands.lazy_runs = 1
    while cands.pending:
        cands.merge_more()
        assert cands.entries == want[:len(cands.entries)]
    assert cands.entries == want


def test_a_static_smaller_than_the_least_order_is_walked(monkeypatch) -> None:
    """With ``ORDER_MIN`` above every static's size no list is made from an order,
    every static is walked for good and the shapes stop logging moves."""
    monkeypatch.setattr(static_orders, "ORDER_MIN", 10**6)
    made = _Made(monkeypatch)
    fast, result = _cycle([_pslot(i) for i in range(40)], _jobs(6), True, monkeypatch)
    assert not made.sources
    assert fast.mm.shapes.moved is None
    _, walked = _cycle([_pslot(i) for i in range(40)], _jobs(6), False, monkeypatch)
    assert _fingerprint(result) == _fingerprint(walked)


def test_a_static_of_a_few_dozen_offers_is_ordered_by_default(monkeypatch) -> None:
    """At the default ``ORDER_MIN`` a static of 40 offers (each slot its own Disk:
    every state its own) is ordered, not walked (the 1k partitionable mix's 44 idle
    desktops cost 10 % more walked), and its lists decide as the walk does."""
    monkeypatch.setattr(static_orders, "ORDER_MIN", DEFAULT_ORDER_MIN)
    slots, jobs = [_pslot(i) for i in range(40)], _jobs(3)
    made = _Made(monkeypatch)
    fast, result = _cycle(slots, jobs, True, monkeypatch)
    assert len(fast.mm.shapes.groups) == 1
    assert made.sources
    _, walked = _cycle(slots, jobs, False, monkeypatch)
    assert _fingerprint(result) == _fingerprint(walked)


def test_tiers_with_nothing_left_of_a_resource_asked_for_are_passed_over(monkeypatch) -> None:
    """Slots carved down to nothing of a resource sit in their own tier, whose items
    a class asking more than nothing of it never reads: each state of such a tier
    holds none of the class's fixed requests (checked), and the cycle decides as the
    walk does."""
    slots, jobs = [_pslot(i) for i in range(10)], _jobs(24)
    passed: list[int] = []
    make = carved_lists.CarvedLists._ordered_sources

    def checked(lists, sources, build, tiers, literal, fixed, asked, boxed, program):  # type: ignore[no-untyped-def]
        static = lists._registry[next(iter(tiers.values()))[0][1]].vector.static
        for tier, items in lists._orders.tiers(static).items():
            if tier in tiers:
                assert not any(amount > 0 and pos in tier for _, amount, pos in fixed)
            elif items:
                passed.append(len(items))
                for item in items:
                    have = lists._shape_left[item[3]]
                    assert any(amount > have[pos] for _, amount, pos in fixed)
        return make(lists, sources, build, tiers, literal, fixed, asked, boxed, program)

    monkeypatch.setattr(carved_lists.CarvedLists, "_ordered_sources", checked)
    _, ordered = _cycle(slots, jobs, True, monkeypatch)
    assert passed
    _, walked = _cycle(slots, jobs, False, monkeypatch)
    assert _fingerprint(ordered) == _fingerprint(walked)


@given(st.lists(st.lists(st.one_of(st.floats(allow_nan=True), st.integers(-3, 3)),
                         max_size=5), max_size=8))
def test_a_tier_is_the_positions_with_nothing_left(lefts) -> None:
    # (``tier_of``'s one ``min`` for states with something left everywhere answers as
    # the rule does: NaN, zero, negative and empty vectors included)
    shape_left = dict(enumerate(tuple(left) for left in lefts))
    lists = TierLists(shape_left)
    for shape, left in shape_left.items():
        want = tuple(pos for pos, have in enumerate(left) if have <= 0)
        assert lists.tier_of(shape) == want
        assert lists.tier_of_left(left) == want
    # (one tuple per pattern of positions at nothing)
    for left in shape_left.values():
        assert lists.tier_of_left(left) is lists.tier_of_left(tuple(left))


@pytest.mark.parametrize("rebuild", [0, 10**9])
def test_sync_moves_items_by_bisects_and_by_one_sort_alike(rebuild, monkeypatch) -> None:
    # (``REBUILD`` 10**9: every touched tier list made anew by one sort; 0: every
    # move a bisect; each order checked against the offers after every ``sync``)
    monkeypatch.setattr(tier_lists, "REBUILD", rebuild)
    added, inserted = [0], [0]
    apply, insort = TierLists.apply, tier_lists.insort

    def counted(lists, static, tiers, tier, moves):  # type: ignore[no-untyped-def]
        added[0] += len(moves.added)
        apply(lists, static, tiers, tier, moves)

    def insort_counted(order, item):  # type: ignore[no-untyped-def]
        inserted[0] += 1
        insort(order, item)

    monkeypatch.setattr(TierLists, "apply", counted)
    monkeypatch.setattr(tier_lists, "insort", insort_counted)
    slots, jobs = [_pslot(i) for i in range(240)], _jobs(3)
    made = _Made(monkeypatch)
    _, result = _cycle(slots, jobs, True, monkeypatch)
    _, walked = _cycle(slots, jobs, False, monkeypatch)
    assert _fingerprint(result) == _fingerprint(walked)
    assert made.syncs and added[0]
    # (by bisects every new item is inserted; by one sort only those of a tier's
    # first list are)
    assert (inserted[0] == added[0]) if rebuild == 0 else (inserted[0] < added[0])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(-3, 3), max_size=40), st.data(), st.booleans(),
       st.sampled_from([0, 6, 10**9]))
def test_a_tier_list_changes_as_one_sort_would_make_it(keys, data, shared, rebuild) -> None:
    # (``TierLists.apply``: either path leaves the kept items and the new ones sorted, and a
    # list a snapshot holds is never changed in place)
    items = sorted((float(key), seq, 0, 0, None, None) for seq, key in enumerate(keys))
    gone = data.draw(st.lists(st.sampled_from(items), unique=True) if items else st.just([]))
    new_keys = data.draw(st.lists(st.integers(-3, 3), max_size=20))
    added = [(float(key), len(keys) + i, 1, 0, None, None) for i, key in enumerate(new_keys)]
    # (an offer that moved within its tier: its old item gone, a new one added)
    added += [(old[0] - 1, old[1], 2, 0, None, None) for old in gone[:2]]
    lists = TierLists({})
    lists.shared = {(7, ())} if shared else set()
    order = list(items)
    tiers = {(): order}
    tier_lists.REBUILD, was = rebuild, tier_lists.REBUILD
    try:
        lists.apply(7, tiers, (), TierMoves(list(gone), list(added)))
    finally:
        tier_lists.REBUILD = was
    assert tiers[()] == sorted([item for item in items if item not in gone] + added)
    if shared:
        assert order == items and tiers[()] is not order
        assert not lists.shared


def _shared_pslot(i: int) -> str:
    """A partitionable slot of three kinds, every slot of a kind in one state (one
    ``Disk``): the slots of a static share their untouched state."""
    cpus, memory = [(8, 16384), (16, 32768), (4, 8192)][i % 3]
    return pslot_text(f"s{i:03d}", cpus, memory, 400000)


def _state_ranked_jobs(per: int, ranks: list[str]) -> list[str]:
    out = []
    for cluster in range(1, 7):
        attrs = dict(Owner=f'"u{cluster % 3}@example.org"', JobStatus=1, JobPrio=0,
                     QDate=1000 + cluster, RequestCpus=1 + cluster % 2,
                     RequestMemory=1024 * cluster, RequestDisk=1000,
                     Rank=ranks[cluster % len(ranks)],
                     Requirements="TARGET.Memory >= RequestMemory")
        out.extend(ad_text(dict(ClusterId=cluster, ProcId=proc, **attrs))
                   for proc in range(per))
    return out


@pytest.mark.parametrize("ranks", [["TARGET.Memory"], ["TARGET.Memory", "0.0"], ["0.0"]])
def test_statics_of_shared_states_are_ordered_for_programs_and_walked_for_boxes(
        ranks, monkeypatch) -> None:
    """A static whose untouched slots share one state is ordered at the first list
    that asks for it with a program run per state (a job Rank reading ``Memory``),
    its shared state's offers each an item; a class whose pair is a box walks it for
    good (``StaticOrders.shared_states``): both decide as the walk and the plain reference."""
    slots = [_shared_pslot(i) for i in range(300)]
    jobs = _state_ranked_jobs(12, ranks)
    made = _Made(monkeypatch)
    walks: list[int] = []
    walk = StaticOrders.walk

    def counted(orders, static):  # type: ignore[no-untyped-def]
        assert static in orders.shared_states
        walks.append(static)
        walk(orders, static)

    monkeypatch.setattr(StaticOrders, "walk", counted)
    _, result = _cycle(slots, jobs, True, monkeypatch)
    assert made.syncs
    # (a state of several offers is several items of one shape in a list's snapshot)
    shared_items = [s for s in made.sources
                    if len({item[3] for item in s.items}) < len(s.items)]
    # (the first class of a box walks every static it asks for good: no program
    # class after it takes an order of shared states)
    assert bool(shared_items) == (ranks == ["TARGET.Memory"])
    assert bool(walks) == ("0.0" in ranks)
    monkeypatch.setattr(static_orders, "SHARED", False)
    _, walked = _cycle(slots, jobs, True, monkeypatch)
    assert _fingerprint(result) == _fingerprint(walked)
