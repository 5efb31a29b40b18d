"""A shape's kept run for a new job rank derived from its run of another
(``shape_entries``: the module doc's derived runs, switched by ``DERIVE``).

The unit cases check that a derived run is the run ``make_entries`` would make of the
shape's offers now (sorted), with offers that left dropped, and that a join makes it
afresh; the cycle case runs a pool of identical partitionable slots (shapes of many
offers) and classes of several constant job ranks with derivation on and off, both
deciding as the plain reference does.
"""

from __future__ import annotations

from types import SimpleNamespace

from condorlite.core.matching import shape_entries
from condorlite.core.matching.candidates import POST, PRE, PairEval, make_entries, make_entry
from condorlite.core.matching.shape_entries import ShapeEntries
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
    slots, jobs = [_pslot(i) for i in range(30)], _jobs(6)
    _, result = run_both(slots, jobs, POLICY)
    assert calls  # (the mechanism did its work)
    calls.clear()
    with monkeypatch.context() as patch:
        patch.setattr(shape_entries, "DERIVE", False)
        _, off = run_both(slots, jobs, POLICY)
    assert not calls
    assert _fingerprint(off) == _fingerprint(result)


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
