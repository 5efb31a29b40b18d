"""A held static slot's pair names (``static_programs.StaticNumbers``) are worked out
once per walk, not once per slot: each prepared offer holds a walk tuple of its own,
made of the shared walk's parts (``OfferPrep.prepare``), so the names are kept
under the walk's walked names, one tuple per walk made. Two kinds of claimed desktops
walk differently (one's ``Rank`` names its owner, so the default pre-job rank reads
the job there and the holder joins its pair names; the other's does not): each kind
gets its own names, and the cycle decides as the plain reference does."""

from __future__ import annotations

import pytest

from condorlite.core.matching import slot_vectors, static_programs
from condorlite.core.matching.offer_shapes import OfferShapes
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import ad_text, run_both

UID = "example.org"
HOLDERS = ("old0", "old1", "old2", "old3")
POLICY = Policy(uid_domain=UID,
                preemption_requirements="RemoteUserPrio > SubmitterUserPrio * 1.2")
#: desktops of each kind (each its own Disk: its own pair shape)
EACH = 24


def _desktop(i: int, names_owner: bool) -> str:
    holder = HOLDERS[i % len(HOLDERS)]
    rank = 'TARGET.Owner == "alice"' if names_owner else "0.0"
    kind = "own" if names_owner else "plain"
    return ad_text(dict(
        Name=f'"slot1@{kind}{i}"', Machine=f'"{kind}{i}"', State='"Claimed"',
        Activity='"Busy"', Cpus=4, Memory=8192, Disk=50000 + 1000 * i,
        Arch='"X86_64"', OpSys='"LINUX"', KeyboardIdle=3600,
        Start='(KeyboardIdle > 15 * 60) || (TARGET.Owner == "nobody")',
        Requirements="START", Rank=rank, CurrentRank="0.0", SlotWeight="Cpus",
        RemoteUser=f'"{holder}@{UID}"', RemoteOwner=f'"{holder}"',
        TotalJobRunTime=100 + i))


def _job(proc: int) -> str:
    return ad_text(dict(
        ClusterId=1, ProcId=proc, Owner='"new"', JobStatus=1, JobPrio=0, QDate=1000,
        RequestCpus=1, RequestMemory=1024, RequestDisk=60000,
        Requirements='TARGET.OpSys == "LINUX" && TARGET.Disk >= RequestDisk'))


SLOTS = [_desktop(i, True) for i in range(EACH)] + [_desktop(i, False) for i in range(EACH)]
JOBS = [_job(p) for p in range(6)]


def test_pair_names_once_per_walk_and_each_kind_its_own(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    monkeypatch.setattr(static_programs, "SHARED_LITERALS", 16)
    asked: list[bool] = []
    pair_names = OfferShapes.pair_names

    def counting(self, ad, busy):  # type: ignore[no-untyped-def]
        asked.append(busy)
        return pair_names(self, ad, busy)

    monkeypatch.setattr(OfferShapes, "pair_names", counting)
    fast, result = run_both(SLOTS, JOBS, POLICY)
    numbers = fast.mm.table._numbers
    held = [o for o in fast.offers if o.holder is not None]
    assert len(held) == 2 * EACH
    # every held desktop is in a part: its pair names were worked out
    vectors = {o.name: numbers.of(o) for o in held}
    assert all(v is not None for v in vectors.values())
    # one look per kind of walk (two), not one per slot (48)
    assert 1 <= len(asked) <= 2 and all(asked)
    # the kind whose Rank names its owner leaves its holder free; the other has no
    # holder among its pair names, so no part by holder either
    own = {vectors[o.name].static for o in held if o.name.startswith("slot1@own")}
    plain = {vectors[o.name].static for o in held if o.name.startswith("slot1@plain")}
    assert len(own) == 1 and len(plain) == 1 and own != plain
    assert all(static_programs.HOLDER in vectors[o.name].names
               for o in held if o.name.startswith("slot1@own"))
    assert not any(static_programs.HOLDER in vectors[o.name].names
                   for o in held if o.name.startswith("slot1@plain"))
    assert len(result.matches) == len(JOBS)


def _static(i: int, disk: int) -> str:
    return ad_text(dict(
        Name=f'"slot1@node{i}"', Machine=f'"node{i}"', State='"Unclaimed"',
        Activity='"Idle"', Cpus=4, Memory=8192, Disk=disk, Arch='"X86_64"',
        OpSys='"LINUX"', Start="true", Requirements="START", Rank="0.0",
        SlotWeight="Cpus"))


def test_one_vector_per_pair_shape_each_offer_its_own_numbers(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # 30 slots of one pair shape (one Disk), 30 of one each, 48 claimed desktops
    # (their holders' names in their vectors): a vector is made per pair shape, and
    # every offer's vector holds its own numbers and holder
    monkeypatch.setattr(static_programs, "SHARED_LITERALS", 16)
    made: list[object] = []

    class Counting(slot_vectors.VectorNumbers):
        # (the static offers' maker only: held offers make theirs apart)
        def of(self, ad, literals=()):  # type: ignore[no-untyped-def]
            made.append(ad)
            return slot_vectors.vector_of(ad, self._resource_names, literals)

    monkeypatch.setattr(static_programs, "VectorNumbers", Counting)
    slots = ([_static(i, 90000) for i in range(30)]
             + [_static(100 + i, 70000 + 100 * i) for i in range(30)] + SLOTS)
    fast, result = run_both(slots, JOBS, POLICY)
    numbers = fast.mm.table._numbers
    statics = [o for o in fast.offers if not o.partitionable]
    vectors = {o.seq: numbers.of(o) for o in statics}
    assert all(v is not None for v in vectors.values())
    pair_shapes = {o.pair_shape for o in statics}
    assert len(made) == len(pair_shapes) < len(statics)
    for offer in statics:
        vector = vectors[offer.seq]
        for name in ("cpus", "memory", "disk"):
            assert vector.vals[vector.index[name]] == offer.ad.evaluate(name)
        if static_programs.HOLDER in vector.index:
            assert vector.vals[vector.index[static_programs.HOLDER]] == \
                offer.ad.evaluate("RemoteOwner")
    same = {id(vectors[o.seq]) for o in statics if o.name.startswith("slot1@node")
            and o.ad.evaluate("Disk") == 90000}
    assert len(same) == 1
    assert len(result.matches) == len(JOBS)


def test_numbers_are_vector_of(monkeypatch: pytest.MonkeyPatch) -> None:
    # ``VectorNumbers.of`` (names looked up in sorted order, an index shared per
    # names), as the static offers' and the held offers' vectors are made, makes the
    # vector ``slot_vectors.vector_of`` makes: plain slots, desktops with their
    # holder, slots whose Memory is no number literal (no vector) and slots with a
    # real Disk
    monkeypatch.setattr(static_programs, "SHARED_LITERALS", 16)
    numbers_of = slot_vectors.VectorNumbers.of
    checked: list[bool] = []

    def checking(self, ad, literals=()):  # type: ignore[no-untyped-def]
        found = numbers_of(self, ad, literals)
        want = slot_vectors.vector_of(ad, self._resource_names, literals)
        if want is None:
            assert found is None
        else:
            assert found is not None
            assert (found.names, found.vals, found.index, found.literals) == (
                want.names, want.vals, want.index, want.literals)
            assert [type(v) for v in found.vals] == [type(v) for v in want.vals]
        checked.append(want is None)
        return found

    monkeypatch.setattr(slot_vectors.VectorNumbers, "of", checking)
    slots = ([_static(i, 70000 + 100 * i) for i in range(20)]
             + [_static(100 + i, 80000.5 + i) for i in range(20)]
             + [_static(200 + i, 90000 + i).replace("Memory = 8192", "Memory = 4096 * 2")
                for i in range(20)] + SLOTS)
    assert sum("4096 * 2" in s for s in slots) == 20
    _, result = run_both(slots, JOBS, POLICY)
    assert any(checked) and not all(checked)
    assert len(result.matches) == len(JOBS)


def test_static_vectors_are_small_records_read_by_seq(monkeypatch: pytest.MonkeyPatch) -> None:
    # a static offer's vector is a ``StaticVector``: its numbers and its part, none of
    # a partitionable slot's carving and weight tables; the vectors by ``seq``
    # (``MatchTable.static_vectors``, read by the static parts' grouping) are those
    # ``static_vector`` gives offer by offer
    monkeypatch.setattr(static_programs, "SHARED_LITERALS", 16)
    fast, result = run_both(SLOTS, JOBS, POLICY)
    table = fast.mm.table
    statics = [o for o in fast.offers if not o.partitionable]
    vectors = {o.seq: table.static_vector(o) for o in statics}
    assert vectors and all(type(v) is slot_vectors.StaticVector for v in vectors.values())
    assert not hasattr(next(iter(vectors.values())), "rank_keys")
    assert table.static_vectors() == vectors
    assert len(result.matches) == len(JOBS)
