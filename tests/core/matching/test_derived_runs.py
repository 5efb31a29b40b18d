"""A shape's kept run for a new job rank derived from its run of another
(``shape_entries``: the module doc's derived runs, switched by ``DERIVE``), and a
derived run of offers nobody holds made only when a list's merge reaches it
(``DeferredRun``, ``DeferredRuns``, switched by ``DEFER``).

The unit cases check that a derived run is the run ``make_entries`` would make of the
shape's offers now (sorted), with offers that left dropped, and that a join makes it
afresh; the cycle case runs a pool of identical partitionable slots (shapes of many
offers) and classes of several constant job ranks with derivation on and off, both
deciding as the plain reference does.
"""

from __future__ import annotations

import random
from types import SimpleNamespace

from condorlite.core.matching import shape_entries
from condorlite.core.matching.candidates import (
    POST,
    PRE,
    Candidates,
    PairEval,
    make_entries,
    make_entry,
)
from condorlite.core.matching.shape_entries import (
    DeferredRun,
    DeferredRuns,
    ShapeEntries,
    pending_runs,
)
from condorlite.core.model import NO_PREEMPTION
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import (
    pslot_text,
    run_both,
)
from tests.core.negotiation.test_equivalence import _fingerprint

SHAPE = 7


def _offer(i: int) -> SimpleNamespace:
    # (post varies per offer and pre ties between pairs: the order reads the name too)
    return SimpleNamespace(name=f"slot1@m{(i * 7) % 10:02d}", seq=i, version=i,
                           independent={"pre": float(i // 2), "post": float(i % 3)})


def _entries(calls: list[int], monkeypatch) -> tuple[ShapeEntries, list, dict]:
    registry = [_offer(i) for i in range(10)]
    shapes = SimpleNamespace(registry=registry, joins={SHAPE: 1})
    derived = shape_entries._derived

    def counting(*args):  # type: ignore[no-untyped-def]
        calls.append(1)
        return derived(*args)

    monkeypatch.setattr(shape_entries, "_derived", counting)
    # (the derivation itself: a deferred run is ``test_a_deferred_run_...``'s)
    monkeypatch.setattr(shape_entries, "DEFER", False)
    return ShapeEntries(shapes, None, None), registry, shapes.joins  # type: ignore[arg-type]


def _kept(entries: ShapeEntries, members: dict, job_rank: float) -> list[tuple]:
    pe = PairEval(True, job_rank, 0.0, {})
    return entries.kept(SHAPE, members, pe, NO_PREEMPTION,
                        (job_rank, tuple(pe.dependent.items()), NO_PREEMPTION), None)


def _made(registry: list, members: dict, job_rank: float) -> list[tuple]:
    out = make_entries(registry, members, PairEval(True, job_rank, 0.0, {}), NO_PREEMPTION)
    out.sort()
    return out


def test_a_new_job_rank_takes_the_other_runs_order(monkeypatch):
    calls: list[int] = []
    entries, registry, _ = _entries(calls, monkeypatch)
    members = dict.fromkeys(range(10))
    assert _kept(entries, members, 1.0) == _made(registry, members, 1.0)
    assert not calls
    assert _kept(entries, members, 5.0) == _made(registry, members, 5.0)
    assert calls == [1]


def test_offers_that_left_are_dropped_and_a_join_makes_it_again(monkeypatch):
    calls: list[int] = []
    entries, registry, joins = _entries(calls, monkeypatch)
    members = dict.fromkeys(range(10))
    _kept(entries, members, 1.0)
    for seq in (2, 5, 6):
        del members[seq]  # (carved away: left the shape)
    assert _kept(entries, members, 2.0) == _made(registry, members, 2.0)
    assert calls == [1]
    # an offer enters the shape (a new state or version): made from the offers now
    members[5] = None
    registry[5].version = 99
    joins[SHAPE] += 1
    assert _kept(entries, members, 3.0) == _made(registry, members, 3.0)
    assert calls == [1]


POLICY = Policy(uid_domain="example.org")


def _pslot(i: int) -> str:
    # (three kinds of slot, identical within a kind: their states are shapes of many)
    cpus, memory = [(8, 16384), (16, 32768), (4, 8192)][i % 3]
    return pslot_text(f"m{i:02d}", cpus, memory, 200000)


def _jobs(per: int) -> list[str]:
    out = []
    for cluster in range(1, 10):
        attrs = dict(Owner=f'"{("alice", "bob", "carol")[cluster % 3]}@example.org"',
                     JobStatus=1, JobPrio=0, QDate=1000 + cluster, RequestCpus=1,
                     RequestMemory=1024, RequestDisk=1000 * cluster,
                     Rank=f"{cluster % 4}.5", Requirements="TARGET.Memory >= RequestMemory")
        out.extend("\n".join(f"{k} = {v}" for k, v in dict(
            ClusterId=cluster, ProcId=proc, **attrs).items()) + "\n" for proc in range(per))
    return out


def test_derived_runs_decide_as_the_reference(monkeypatch):
    calls: list[int] = []
    derived = shape_entries._derived

    def counting(*args):  # type: ignore[no-untyped-def]
        calls.append(1)
        return derived(*args)

    monkeypatch.setattr(shape_entries, "_derived", counting)
    deferred: list[int] = []
    init = DeferredRun.__init__

    def deferring(self, *args):  # type: ignore[no-untyped-def]
        deferred.append(1)
        init(self, *args)

    monkeypatch.setattr(DeferredRun, "__init__", deferring)
    monkeypatch.setattr(shape_entries, "DEFER_LEAST", 1)
    slots, jobs = [_pslot(i) for i in range(30)], _jobs(6)
    _, result = run_both(slots, jobs, POLICY)
    assert deferred  # (the mechanism did its work)
    with monkeypatch.context() as patch:
        patch.setattr(shape_entries, "DEFER", False)
        _, eager = run_both(slots, jobs, POLICY)
    assert calls
    calls.clear()
    deferred.clear()
    with monkeypatch.context() as patch:
        patch.setattr(shape_entries, "DERIVE", False)
        _, off = run_both(slots, jobs, POLICY)
    assert not calls and not deferred
    assert _fingerprint(off) == _fingerprint(result) == _fingerprint(eager)


class _Column:
    """A rank column's ``value`` (``rank_columns.RankColumn``): one job rank per offer,
    an even offer's kept for every version (and so in ``negated``), an odd one's for
    its version."""

    def __init__(self, scale: float) -> None:
        self.scale = scale
        self.asked = 0
        #: offer seq -> (version, or None for every version; value), as
        #: ``RankColumn.kept`` gives them
        self._kept: dict[int, tuple[int | None, float]] = {}
        #: offer seq -> minus its value kept for every version (``RankColumn.negated``)
        self._negated: dict[int, float] = {}

    def value(self, offer) -> float:  # type: ignore[no-untyped-def]
        self.asked += 1
        found = float((offer.version * 37) % 11) * self.scale
        self.keep(offer.seq, None if offer.seq % 2 == 0 else offer.version, found)
        return found

    def keep(self, seq: int, version: int | None, value: float) -> None:
        """Keep a value as ``RankColumn`` does (the row of negated values with it)."""
        self._kept[seq] = (version, value)
        if version is None:
            self._negated[seq] = -value
        else:
            self._negated.pop(seq, None)

    def kept(self) -> dict[int, tuple[int | None, float]]:
        return self._kept

    def negated(self) -> dict[int, float]:
        return self._negated


def _column_kept(entries: ShapeEntries, members: dict, column: _Column) -> list[tuple]:
    pe = PairEval(True, 0.0, 0.0, {})
    return entries.kept(SHAPE, members, pe, NO_PREEMPTION,
                        (column, tuple(pe.dependent.items()), NO_PREEMPTION), column)


def _column_made(registry: list, members: dict, column: _Column) -> list[tuple]:
    pe = PairEval(True, 0.0, 0.0, {})
    out = [make_entry(registry[k], k, pe, NO_PREEMPTION, column=column)  # type: ignore[arg-type]
           for k in members]
    out.sort()
    return out


def test_a_column_run_is_derived_from_a_job_ranks_or_another_columns(monkeypatch):
    """A rank column's run takes everything but the job rank from the shape's run
    of a pair's job rank, or of another column, while the joins are the same: equal
    to the run made of the offers now, sorted by the column's values; a pair's job
    rank's run takes a column's when there is no other."""
    made: list[int] = []
    entries, registry, joins = _entries([], monkeypatch)
    counting = shape_entries.make_entries

    def making(*args, **kwargs):  # type: ignore[no-untyped-def]
        made.append(1)
        return counting(*args, **kwargs)

    monkeypatch.setattr(shape_entries, "make_entries", making)
    members = dict.fromkeys(range(10))
    first = _Column(1.0)
    assert _column_kept(entries, members, first) == _column_made(registry, members, first)
    assert made == [1]  # (nothing to derive from)
    del members[4]  # (carved away)
    second = _Column(-2.0)
    assert _column_kept(entries, members, second) == _column_made(registry, members, second)
    # a pair's job rank: derived from the column's run, sorted again
    assert _kept(entries, members, 3.0) == _made(registry, members, 3.0)
    third = _Column(0.5)
    assert _column_kept(entries, members, third) == _column_made(registry, members, third)
    assert made == [1]
    # a join: made afresh
    members[4] = None
    joins[SHAPE] += 1
    fourth = _Column(3.0)
    assert _column_kept(entries, members, fourth) == _column_made(registry, members, fourth)
    assert made == [1, 1]


def test_a_derived_column_run_reads_the_columns_negated_row():
    """A column's derived run takes an offer's rank from the column's row of negated
    values (``RankColumn.negated``: those kept for every version) and asks ``value``
    of any other (one kept for a version alone, even the entry's); the carved-away
    offers' entries dropped first; each entry equal to its offer's entry made with
    the column's value."""
    registry = [_offer(i) for i in range(10)]
    members = dict.fromkeys(range(10))
    run = make_entries(registry, members, PairEval(True, 0.0, 0.0, {}), NO_PREEMPTION)
    column = _Column(2.0)
    for offer in registry:
        column.value(offer)
    column.keep(4, None, 7.0)  # (for every version: read as it is)
    column.keep(3, 2, 99.0)  # (for another version than the entry's: not read)
    del members[6]  # (carved away: its entry dropped, its rank not asked)
    column.asked = 0
    derived = shape_entries._column_derived(run, column, registry, members)
    assert column.asked == 5  # (the odd offers', kept per version)
    assert [e[6] for e in derived] == [e[6] for e in run if e[6] != 6]
    for entry in derived:
        offer = registry[entry[6]]
        rank = 7.0 if offer.seq == 4 else float((offer.version * 37) % 11) * 2.0
        assert entry == make_entries(registry, {offer.seq: None},
                                     PairEval(True, rank, 0.0, {}), NO_PREEMPTION)[0]


def test_a_column_run_made_of_the_offers_reads_the_negated_row():
    """A column's run with nothing to derive it from (``make_entries`` with the
    column) reads the values in the row of negated values without ``value`` and asks
    any other; ranks of a pair's dependent dict read where an offer has none; each
    entry is its offer's ``make_entry``."""
    registry = [_offer(i) for i in range(8)]
    for offer in registry[:4]:
        offer.independent = {PRE: 2.0}  # (POST read from the pair's dependent ranks)
    members = dict.fromkeys(range(8))
    pe = PairEval(True, 0.0, 0.0, {PRE: 1.0, POST: 3.0})
    column = _Column(1.5)
    for offer in registry[:5]:
        column.value(offer)
    column.asked = 0
    made = make_entries(registry, members, pe, NO_PREEMPTION,
                        column=column)  # type: ignore[arg-type]
    # (offers 1 and 3 are kept per version, 5-7 not at all)
    assert column.asked == 5
    assert made == [make_entry(registry[k], k, pe, NO_PREEMPTION,
                               column=column)  # type: ignore[arg-type]
                    for k in members]


def test_a_deferred_run_holds_what_the_derived_run_made_then_would(monkeypatch):
    """With ``DEFER``, a new job rank's (or column's) run derived from the shape's
    run is a ``DeferredRun``: made later, it is the run derived when it was handed
    out, whatever the shape's offers do meanwhile (an offer carved away since keeps
    its entry: the scan evaluates it again); a column's run is deferred only when
    the column's row holds every offer's rank."""
    monkeypatch.setattr(shape_entries, "DEFER", True)
    monkeypatch.setattr(shape_entries, "DEFER_LEAST", 1)
    registry = [_offer(i) for i in range(10)]
    shapes = SimpleNamespace(registry=registry, joins={SHAPE: 1})
    entries = ShapeEntries(shapes, None, None)  # type: ignore[arg-type]
    members = dict.fromkeys(range(10))
    assert _kept(entries, members, 1.0) == _made(registry, members, 1.0)  # (made)
    del members[3]  # (carved away before the next list)
    run = _kept(entries, members, 2.0)
    assert type(run) is DeferredRun and run.made is None and len(run) == 9
    expected = _made(registry, members, 2.0)
    assert _kept(entries, members, 2.0) is run  # (kept: the next list of the rank)
    for seq in (5, 8):
        del members[seq]  # (carved away after it was handed out)
        registry[seq].version += 100
    assert run.entries() == expected and run.entries() is run.made
    # once made, its entries are kept in its place, and the next job rank's run is
    # derived from them (they are the shape's offers': no copy of the members)
    assert _kept(entries, members, 2.0) is run.made
    again = _kept(entries, dict.fromkeys(k for k in range(10) if k != 3), 4.0)
    assert type(again) is DeferredRun and again._snap is None
    assert again.entries() == [(e[0], -4.0, *e[2:]) for e in run.made]
    # a column whose row holds every offer: deferred, sorted by the column's values
    column = _Column(1.0)
    ranks = {offer.seq: float((offer.seq * 5) % 7) for offer in registry}
    for seq, rank in ranks.items():
        column.keep(seq, None, rank)
    column_run = _column_kept(entries, members, column)
    assert type(column_run) is DeferredRun
    # (each entry its offer's, with the column's value as the job rank)
    expected = sorted(make_entries(registry, {k: None}, PairEval(True, ranks[k], 0.0, {}),
                                   NO_PREEMPTION)[0] for k in members)
    del members[0]
    assert column_run.entries() == expected
    assert column.asked == 0  # (every rank read from the row)
    # one offer's rank kept for its version alone: made now, as before
    other = _Column(2.0)
    for offer in registry:
        other.value(offer)
    assert _column_kept(entries, members, other) == _column_made(registry, members, other)


def _run(rng: random.Random, start: int) -> list[tuple]:
    """A sorted run of entries, some with first keys of their own (a run need not
    share one), heads drawn from a few values (runs may tie on them)."""
    head = float(rng.choice((1, 2, 3, 5, 8)))
    run = [(head + (rng.random() < 0.2) * rng.randint(1, 6), rng.random(), 0.0, 0, 0.0,
            f"s{start + k}", start + k, 1, NO_PREEMPTION) for k in range(rng.randint(1, 9))]
    run.sort()
    return run


def test_deferred_runs_merge_into_the_sorted_whole():
    """A list's deferred runs as one source (``DeferredRuns``) merged by
    ``Candidates.merge_more`` with plain runs: the merged entries are the sorted
    whole, at every step a sorted prefix of it, and a run is made only when the
    merge's share or bound reaches its head (some left unmade by a first merge)."""
    unmade = 0
    for seed in range(40):
        rng = random.Random(seed)
        runs, at = [], 0
        for _ in range(rng.randint(1, 12)):
            runs.append(_run(rng, at))
            at += 100
        deferred = []
        for run in runs[: len(runs) // 2 + 1]:
            lazy = DeferredRun(run, 0.0, None, dict.fromkeys(e[6] for e in run))
            # (a job rank's derived run: the source's entries with the rank replaced)
            deferred.append(lazy)
        whole = sorted((*e[:1], 0.0, *e[2:]) for r in runs[: len(runs) // 2 + 1]
                       for e in r)
        plain = runs[len(runs) // 2 + 1:]
        whole = sorted(whole + [e for r in plain for e in r])
        kept: list = [*plain, *deferred]
        rng.shuffle(kept)
        out = Candidates([])
        out.pending, source = pending_runs(kept, [])
        assert source is not None
        out.pending.append([source.entries, 0, source])
        out.lazy_runs = 1
        out.chunk = rng.choice((1, 2, 4, 64))
        out.merge_more()
        assert out.entries == whole[: len(out.entries)]
        unmade += sum(lazy.made is None for lazy in deferred)
        while out.pending:
            out.merge_more()
            assert out.entries == whole[: len(out.entries)]
        assert out.entries == whole
        assert all(lazy.made is not None for lazy in deferred)
    assert unmade  # (some first merges left deferred runs unmade)


def test_pending_runs_hand_a_made_deferred_run_as_a_run():
    """``pending_runs``: a deferred run already made (by another list) is pending as
    a run; the unmade ones form the list's one source; empty runs are left out."""
    first = _run(random.Random(1), 0)
    second = _run(random.Random(2), 100)
    made = DeferredRun(first, 0.0, None, dict.fromkeys(e[6] for e in first))
    made.entries()
    unmade = DeferredRun(second, 0.0, None, dict.fromkeys(e[6] for e in second))
    pending, source = pending_runs([made, [], unmade, second], [second[0]])
    # (in any order: the merge sorts what it takes)
    assert sorted(item[0] for item in pending) == sorted([made.made, second, [second[0]]])
    assert all(item[1] == 0 for item in pending)
    assert isinstance(source, DeferredRuns) and not source.done and not source.entries
    assert pending_runs([first], [])[1] is None


def test_a_short_derived_run_is_made_at_once(monkeypatch):
    """A derived run of fewer than ``DEFER_LEAST`` offers is made when handed out:
    a ``DeferredRun``'s upkeep costs more than such a run's making saves."""
    monkeypatch.setattr(shape_entries, "DEFER", True)
    monkeypatch.setattr(shape_entries, "DEFER_LEAST", 6)
    registry = [_offer(i) for i in range(10)]
    shapes = SimpleNamespace(registry=registry, joins={SHAPE: 1})
    entries = ShapeEntries(shapes, None, None)  # type: ignore[arg-type]
    members = dict.fromkeys(range(5))
    _kept(entries, members, 1.0)
    run = _kept(entries, members, 2.0)
    assert type(run) is list and run == _made(registry, members, 2.0)
