"""Slots that differ from an earlier slot only in literal values share its walk and
rank plans (``kind_records``), and end up exactly as a full ``prepare`` leaves them.

Unit: which slots find a record (the same entries where the recorded slot held an
expression; alike absent or a literal, any value, elsewhere), and the give-up rule.
Whole: on a pool whose slots each bind ``Disk`` to a number of their own (the
disk-share row: neither kind of ``first_states`` record ever matches), with claimed
and partitionable slots and owner-ranked desktops, every offer is prepared as a full
``prepare`` prepares it and the cycles decide the same.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from condorlite.core.classad import parse_ad
from condorlite.core.matching import kind_records, literal_ranks
from condorlite.core.matching.expr_numbers import Canon
from condorlite.core.matching.first_ranks import FirstRanks
from condorlite.core.matching.first_states import FirstStates
from condorlite.core.matching.kind_records import KindRecords
from condorlite.core.matching.lazy_ranks import LazyRanks
from condorlite.core.matching.matchmaker import Matchmaker
from condorlite.core.matching.offer_prep import OfferPrep
from condorlite.core.matching.shape_keys import ShapeKeys
from condorlite.core.negotiation import negotiator
from condorlite.core.policy import Policy
from tests.core._pool import decoded_pool
from tests.core.matching.test_init_sharing import NOW, _prepared

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import genpool  # a script directory, not a package

WALK = ((), ("disk", "requirements", "start"), {"post": {"kflops", "slotid"}})
REQUIREMENTS = "Requirements = START && Disk > 0\nStart = true\n"


def _slot(disk: str, kflops: str = "10", extra: str = "") -> object:
    return parse_ad(f"{REQUIREMENTS}Disk = {disk}\nKFlops = {kflops}\nSlotID = 1\n{extra}")


def test_a_slot_differing_only_in_literal_values_finds_the_record():
    records = KindRecords(Canon().key)
    first = _slot("100")
    assert records.find(first, False, "static") is None
    records.keep(first, False, "static", WALK)
    found = records.find(_slot("200", "7.5"), False, "static")
    assert found is not None and found.state.walk is WALK
    # another busy flag or kind of slot: no record
    assert records.find(_slot("200"), True, "static") is None
    assert records.find(_slot("200"), False, "partitionable") is None


def test_a_binding_of_another_kind_misses():
    records = KindRecords(Canon().key)
    records.keep(_slot("100"), False, "static", WALK)
    assert records.find(_slot("TotalDisk / 2"), False, "static") is None  # an expression
    absent = parse_ad(f"{REQUIREMENTS}KFlops = 1\nSlotID = 1")
    assert records.find(absent, False, "static") is None  # Disk absent
    # an expression the recorded slot held must be the same entry (the readers share
    # one entry between the ads holding the same line): another Requirements misses
    other = parse_ad("Requirements = START && Disk > 1\nStart = true\nDisk = 1\n"
                     "KFlops = 1\nSlotID = 1")
    assert records.find(other, False, "static") is None


def test_a_literal_bound_to_an_expression_or_unbound_misses_at_any_split():
    """A slot whose binding of a recorded literal name is an expression or absent,
    or which binds a recorded absent name, finds no record, whichever split is
    tried first."""
    records = KindRecords(Canon().key)
    walk = ((), ("disk", "gpus", "memory", "requirements", "start"), {"post": {"kflops"}})
    records.keep(_slot("100", extra="Memory = 1"), False, "static", walk)
    records.keep(_slot("100", extra="Memory = 1\nGpus = 1"), False, "static", walk)
    assert records.find(_slot("5", extra="Memory = 2"), False, "static") is not None
    assert records.find(_slot("5", extra="Memory = 2\nGpus = 2"), False, "static") is not None
    assert records.find(_slot("5", extra="Memory = Disk"), False, "static") is None
    assert records.find(_slot("5"), False, "static") is None  # Memory unbound
    assert records.find(_slot("5", extra="Memory = 2\nGpus = Disk"), False, "static") is None
    assert records.find(_slot("5", kflops="Disk * 2", extra="Memory = 2"), False,
                        "static") is None


def test_lookups_stop_when_almost_every_slot_misses():
    records = KindRecords(Canon().key)
    for i in range(kind_records.TRIES + 5):
        ad = _slot(f"TotalDisk / {i + 1}")  # an expression of its own: never shared
        assert records.find(ad, False, "static") is None
        records.keep(ad, False, "static", WALK)
    assert records.counts[False] is None
    assert records.find(_slot("1"), False, "static") is None


def test_disk_share_slots_are_prepared_as_a_full_prepare_does(tmp_path, monkeypatch):
    policy = Policy(uid_domain="example.org")
    spec = genpool.PoolSpec(slots=160, jobs=500, submitters=5, autoclusters=14, seed=11,
                            realistic=True, unique=True, disk_share=True,
                            claimed_fraction=0.3, partitionable_fraction=0.3,
                            owner_start_fraction=0.3)
    slots, jobs = decoded_pool(genpool.write_pool(spec, tmp_path), policy, True)
    hits: list[bool] = []
    method = KindRecords.find_read

    def counting(self, ad, busy, kind):
        found = method(self, ad, busy, kind)
        hits.append(found is not None)
        return found

    with monkeypatch.context() as patch:
        patch.setattr(KindRecords, "find_read", counting)
        shared = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
    with monkeypatch.context() as patch:
        patch.setattr(KindRecords, "find_read", lambda self, ad, busy, kind: None)
        patch.setattr(FirstStates, "find", lambda self, ad, busy, kind: None)
        patch.setattr(FirstStates, "find_loose", lambda self, ad, busy, kind: None)
        full = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
    assert sum(hits) > len(hits) // 2, "most slots should share a walk record"
    assert _prepared(shared) == _prepared(full)
    assert shared.mm.evaluations == full.mm.evaluations
    shared.run()
    full.run()
    one, two = shared.result(), full.result()
    assert one.matches and one.matches == two.matches and one.rejections == two.rejections


def test_held_static_slots_of_a_record_work_their_ranks_out_when_read(tmp_path, monkeypatch):
    """A held slot without a vector prepared from a record takes its ranks lazily
    (``lazy_ranks``): many not worked out at set-up, each equal to a full prepare's
    once read; the cycles decide the same (preemption off: most are never read)."""
    policy = Policy(uid_domain="example.org")
    spec = genpool.PoolSpec(slots=120, jobs=400, submitters=4, autoclusters=10, seed=5,
                            realistic=True, unique=True, disk_share=True,
                            claimed_fraction=0.4)
    slots, jobs = decoded_pool(genpool.write_pool(spec, tmp_path), policy, True)
    found: set[int] = set()
    method = KindRecords.find_read

    def noting(self, ad, busy, kind):
        record = method(self, ad, busy, kind)
        if record is not None:
            found.add(id(ad))
        return record

    with monkeypatch.context() as patch:
        patch.setattr(KindRecords, "find_read", noting)
        shared = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
    # (the held slots without a vector prepared from a record, one at a time
    # or in a run: ``OfferPrep.prepare_all``)
    held = [offer for offer in shared.offers if offer.holder is not None
            and offer.vector is None and id(offer.state_ad) in found]
    with monkeypatch.context() as patch:
        patch.setattr(KindRecords, "find_read", lambda self, ad, busy, kind: None)
        patch.setattr(FirstStates, "find", lambda self, ad, busy, kind: None)
        patch.setattr(FirstStates, "find_loose", lambda self, ad, busy, kind: None)
        full = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
    assert len(held) > 10
    assert all(isinstance(offer.independent, LazyRanks) for offer in held)
    # (a rank not yet worked out is held as a marker, not a float)
    values = [v for offer in held for v in dict.values(offer.independent)]
    pending = sum(not isinstance(v, float) for v in values)
    assert pending > len(values) // 3, "ranks are worked out as read, not at set-up"
    assert shared.mm.evaluations < full.mm.evaluations
    shared.run()
    full.run()
    one, two = shared.result(), full.result()
    assert one.matches and one.matches == two.matches and one.rejections == two.rejections
    assert _prepared(shared) == _prepared(full)  # (the ranks read: each as in full)


def _same_partition(made: list[tuple], full: list[tuple]) -> None:
    """``made`` (keys of slots, in order) tell the slots apart exactly as ``full``
    (their ``ShapeKeys.key``) do: equal keys, equal bindings, and the reverse."""
    for i, (a, fa) in enumerate(zip(made, full, strict=True)):
        for b, fb in zip(made[i:], full[i:], strict=True):
            assert (a == b) == (fa == fb), (a, b, fa, fb)


def test_the_key_plan_gives_the_slot_key():
    """A record's pair shape keys (its literals' ``repr`` after the plan's numbers)
    equal ``ShapeKeys.slot_key`` of every slot that finds it, and tell the slots
    apart as ``ShapeKeys.key`` does: ``7``, ``7.0``, ``true`` and ``"7"`` differ, as
    do ``0.0`` and ``-0.0``."""
    keys = ShapeKeys()
    records = KindRecords(keys.canon.key)
    walk = ((), ("disk", "memory", "requirements", "start"), {"post": {"kflops"}})
    first = _slot("100", extra="Memory = 5")
    records.keep(first, False, "static", walk)
    values = ["100", "7", "7.0", "true", '"7"', "-0.0", "0.0", "7.0", "7", "100"]
    extra = ("static", False, ())
    made, full = [], []
    for i, disk in enumerate(values):
        ad = _slot(disk, extra=f"Memory = {i % 3}")
        record = records.find(ad, False, "static")
        assert record is not None
        made.append(records.pair_key(record, ad, extra))
        assert made[-1] == keys.slot_key(ad, walk[1], extra)
        full.append(keys.key(ad, walk[1], extra))
        assert len(made[-1]) == 4 and made[-1][:2] == full[-1][:2]  # (the bound names)
    _same_partition(made, full)
    assert len(set(made)) == len(set(full)) == 9  # (the last slot repeats the first)
    assert keys.slot_key(first, walk[1], extra) == keys.slot_key(
        _slot("100", extra="Memory = 5"), walk[1], extra)


def test_a_slot_key_without_literals_is_the_shape_keys_key():
    keys = ShapeKeys()
    ad = parse_ad("Requirements = START && Disk > 0\nStart = KFlops > 3\nDisk = 1\n")
    for names in (("requirements", "start"), ("absent", "requirements"), ()):
        assert keys.slot_key(ad, names, ("x",)) == keys.key(ad, names, ("x",))


def test_a_names_key_gives_the_slot_key_of_those_names():
    """``names_key`` (a partitionable slot's static and rank program keys from the
    record's plans) equals ``ShapeKeys.slot_key`` of those names for every slot
    that finds the record, and tells them apart as ``ShapeKeys.key`` does."""
    keys = ShapeKeys()
    records = KindRecords(keys.canon.key)
    walk = ((), ("disk", "memory", "requirements", "start"), {"post": {"kflops"}})
    records.keep(_slot("100", extra="Memory = 5"), False, "static", walk)
    names_list = (("disk", "requirements"), ("kflops",), ("memory", "start"), ())
    made: dict[tuple, list] = {names: [] for names in names_list}
    full: dict[tuple, list] = {names: [] for names in names_list}
    for i, disk in enumerate(["100", "7", "7.0", "true", '"7"', "-0.0", "0.0", "7"]):
        ad = _slot(disk, kflops=str(i % 4), extra=f"Memory = {i % 3}")
        record = records.find(ad, False, "static")
        assert record is not None
        for names in names_list:
            extra = ("static", names)
            made[names].append(records.names_key(record, ad, names, extra))
            assert made[names][-1] == keys.slot_key(ad, names, extra)
            full[names].append(keys.key(ad, names, extra))
    for names in names_list:
        _same_partition(made[names], full[names])
    assert len(record.plans) == 4  # (one plan per names, kept on the record)


def _pair_keys(cycle: negotiator.Cycle) -> list[tuple]:
    """Each offer's pair shape key (``OfferShapes.pair_keys``: those of the slots
    told apart without one made too), in offer order."""
    keys = {number: key for key, number in cycle.mm.shapes.pair_keys().items()}
    return [keys.get(offer.pair_shape) for offer in cycle.offers]


def _one_at_a_time(self, offers):
    """``Matchmaker.prepare_all`` as a loop of ``prepare``: no runs."""
    for offer in offers:
        self.prepare(offer)


@pytest.mark.parametrize("tries", [literal_ranks.TRIES, 4])
def test_runs_of_record_slots_are_prepared_as_one_slot_at_a_time(tmp_path, monkeypatch,
                                                                 tries):
    """``OfferPrep.prepare_all``'s runs (the slots that found a record, worked
    out together, their literals taken from the values their lookups read) leave
    every offer as ``prepare`` of one offer at a time does: the same shapes and pair
    shapes in the same numbering, ranks (lazy ones as read), walks and vectors, the
    same evaluations, and the same cycle. Static, held and partitionable slots with
    their own numbers and desktops, preemption by priority on and off; with the
    ranks' memos given up after a few misses (``tries`` 4), ranks given up before a
    record's first slot of a run are worked out over its column (``RunRanks``)."""
    monkeypatch.setattr(literal_ranks, "TRIES", tries)
    spec = genpool.PoolSpec(slots=160, jobs=400, submitters=4, autoclusters=10, seed=3,
                            realistic=True, unique=True, disk_share=True,
                            claimed_fraction=0.35, partitionable_fraction=0.4,
                            owner_start_fraction=0.3)
    pool = genpool.write_pool(spec, tmp_path)
    for requirements in ("false", "RemoteUserPrio > SubmitterUserPrio * 1.2"):
        policy = replace(Policy(uid_domain="example.org"),
                         preemption_requirements=requirements)
        slots, jobs = decoded_pool(pool, policy, True)
        runs: list[int] = []
        done: list[int] = []
        method, columns = OfferPrep._prepare_run, FirstRanks.columns

        def counting(self, run, method=method, runs=runs):
            runs.append(len(run))
            method(self, run)

        def reading(self, plans, rows, literal, columns=columns, done=done):
            read = columns(self, plans, rows, literal)
            done.append(len(rows) if read.done else 0)
            return read

        with monkeypatch.context() as patch:
            patch.setattr(OfferPrep, "_prepare_run", counting)
            patch.setattr(FirstRanks, "columns", reading)
            batched = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
        slots, jobs = decoded_pool(pool, policy, True)
        with monkeypatch.context() as patch:
            patch.setattr(Matchmaker, "prepare_all", _one_at_a_time)
            single = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
        assert sum(runs) > len(batched.offers) // 2, "most slots should be in runs"
        assert max(runs) > 10
        if tries < literal_ranks.TRIES:
            assert sum(done) > 20, "some ranks should be given up and run by columns"
        assert batched.mm.evaluations == single.mm.evaluations
        assert (batched.mm.shapes.pair_count, batched.mm.shapes.shape_count) == (
            single.mm.shapes.pair_count, single.mm.shapes.shape_count)
        # (the keys themselves: where every slot's key is its own, numbers alone
        # would not tell one slot's key given to another)
        assert _pair_keys(batched) == _pair_keys(single)
        batched.run()
        single.run()
        one, two = batched.result(), single.result()
        assert one.matches and one.matches == two.matches
        assert one.rejections == two.rejections
        assert _prepared(batched) == _prepared(single)
        assert batched.mm.evaluations == single.mm.evaluations
