"""A box's sure shapes sharing their run per values their ranks read (``box_reads``,
``box_reads.by_reads``).

Static slots of one part differ in ``Disk`` (every slot its own) and take three
``Memory`` values; the classes are boxes on ``Disk`` whose ranks read the vector: the
job's ``Rank = TARGET.Memory``, a Rank reading two numbers, and (second pool) slots
whose ``Rank`` reads the job, which the default pre-job rank gives the dependent
ranks. Every cycle is run with ``BY_READS`` on and off and must decide as the plain
reference does; every pair result the memo hands out must be the one ``passed``
gives at the shape itself; and a Memory column holding ``2048`` and ``2048.0`` (equal
in Python, not to ``isInteger``) is not used as a key (``Part.plain``): with that
guard removed the cycle decides otherwise. Last, ``Part.gone``: a part whose shapes
have all left is asked for no program (with it always False, it is).
"""

from __future__ import annotations

import pytest

from condorlite.core import adeval
from condorlite.core.matching import box_reads, static_lists
from condorlite.core.matching.box_reads import key_of, positions
from condorlite.core.matching.candidates import as_rank
from condorlite.core.matching.carving import ReadPositions
from condorlite.core.matching.match_table import MatchTable
from condorlite.core.matching.static_lists import StaticLists
from condorlite.core.matching.static_parts import Part
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import ad_text, job_text, run_both

POLICY = Policy(uid_domain="example.org")
USERS = ("alice", "bob", "carol")


def _slot(i: int, memory: object = None, **extra: object) -> str:
    attrs = dict(Name=f'"slot{i}@m{i // 4}"', Machine=f'"m{i // 4}"', State='"Unclaimed"',
                 Activity='"Idle"', Cpus=1 + i % 2,
                 Memory=2048 + 1024 * (i % 3) if memory is None else memory,
                 Disk=40000 + 1000 * i, Arch='"X86_64"', OpSys='"LINUX"',
                 Requirements="START", START="TARGET.RequestMemory <= MY.Memory",
                 Rank="0.0", CurrentRank="0.0", SlotWeight="Cpus")
    attrs.update(extra)
    return ad_text(attrs)



CLASSES = [
    ("TARGET.Disk >= 45000", {"Rank": "TARGET.Memory"}),
    ("TARGET.Disk >= 52000 && TARGET.Disk <= 90000", {"Rank": "TARGET.Memory + TARGET.Cpus"}),
    ("TARGET.Disk < 70000", {"Rank": "TARGET.Memory > 3000 ? 5 : TARGET.Cpus"}),
    ("TARGET.Disk >= 41000", {"Rank": "-TARGET.Memory"}),
]


def _jobs(per: int) -> list[str]:
    return [job_text(c, p, req, **extra) for c, (req, extra) in enumerate(CLASSES, start=1)
            for p in range(per)]


def _checked(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Spy on ``by_reads``: every pair result it adds equals ``passed``'s at the
    shape's own vector; its runs (each one ``positions``, the outcome and the
    positions read) are counted into the list returned."""
    runs: list[int] = []
    by_reads, read = box_reads.by_reads, box_reads.positions

    def counting(program, vals):  # type: ignore[no-untyped-def]
        runs.append(1)
        return read(program, vals)

    def checked(part, program, shapes, members, matched):  # type: ignore[no-untyped-def]
        first = len(matched)
        ran = by_reads(part, program, shapes, members, matched)
        for shape, pe in matched[first:]:
            out = program.passed(part.vals[shape], as_rank)
            assert (pe.match, pe.job_rank, pe.dependent) == (True, out[1], out[3])
        return ran

    monkeypatch.setattr(box_reads, "positions", counting)
    monkeypatch.setattr(static_lists, "by_reads", checked)
    return runs


def _cycle_both_ways(monkeypatch, slots, jobs, policy=POLICY) -> tuple[int, list[int]]:
    """Shapes given a pair result by ``by_reads`` and the runs it made, the cycle run
    with ``BY_READS`` on (checked) and off, both against the reference."""
    with monkeypatch.context() as patch:
        patch.setattr(static_lists, "BY_READS", False)
        run_both(slots, jobs, policy)
    with monkeypatch.context() as patch:
        runs = _checked(patch)
        shapes: list[int] = []
        ran = StaticLists._ran

        def counted(self, part, program, found, sure, shared, matched):  # type: ignore[no-untyped-def]
            if sure and shared is None:
                shapes.extend(s for s in found if s in self.members)
            return ran(self, part, program, found, sure, shared, matched)

        patch.setattr(StaticLists, "_ran", counted)
        run_both(slots, jobs, policy)
    return len(shapes), runs


def test_job_ranks_reading_the_vector_run_once_per_values(monkeypatch):
    shapes, runs = _cycle_both_ways(monkeypatch, [_slot(i) for i in range(60)], _jobs(8))
    assert shapes > 4 * sum(runs) > 0  # (three Memory values, two Cpus: a few runs)


def test_boxes_of_one_read_set_are_keyed_at_once_the_others_shape_by_shape(monkeypatch):
    """``_one_read`` keys a box's shapes in C passes where its ranks read one set of
    positions (``Rank = TARGET.Memory``) and hands a box back to ``_each`` where they
    read others at other shapes (the third class's ``ifThenElse`` reads ``Cpus``
    only where ``Memory <= 3000``): both paths are taken, and every result is
    ``passed``'s at the shape (``_checked``)."""
    answers: list[bool] = []
    one_read = box_reads._one_read

    def spying(part, program, at_of, first):  # type: ignore[no-untyped-def]
        found = one_read(part, program, at_of, first)
        answers.append(found is not None)
        return found

    monkeypatch.setattr(box_reads, "_one_read", spying)
    shapes, runs = _cycle_both_ways(monkeypatch, [_slot(i) for i in range(60)], _jobs(8))
    assert shapes > 4 * sum(runs) > 0
    assert True in answers and False in answers


def test_dependent_ranks_of_a_slot_rank_reading_thejob_text(monkeypatch):
    """The slots' Rank reads the job's owner: the default pre-job rank (10000000 *
    My.Rank ... - Memory) then depends on the pair, given the slot's Rank."""
    slots = [_slot(i, Rank=f'TARGET.Owner == "{USERS[i % 3]}@example.org"')
             for i in range(60)]
    shapes, runs = _cycle_both_ways(monkeypatch, slots, _jobs(8))
    assert shapes > 4 * sum(runs) > 0


def _mixed_pool() -> tuple[list[str], list[str]]:
    """Memory 2048 (an integer) and 2048.0 (a real) on alternate slots, a job rank
    that tells them apart (an integer's 1, a real's 2), one Cpus (no other rank does)."""
    slots = [_slot(i, memory="2048" if i % 2 else "2048.0", Cpus=1) for i in range(24)]
    jobs = [job_text(1, p, "TARGET.Disk >= 40000",
                 Rank="isInteger(TARGET.Memory) ? 1 : 2") for p in range(12)]
    return slots, jobs


def test_values_equal_in_python_but_not_in_classads_are_not_one_key(monkeypatch):
    slots, jobs = _mixed_pool()
    run_both(slots, jobs, POLICY)
    monkeypatch.setattr(Part, "plain", lambda self, index: True)
    with pytest.raises(AssertionError):
        run_both(slots, jobs, POLICY)


def test_part_plain():
    part = Part(None, [1, 2, 3], [], {1: (1, 2.5, "a", 0.0), 2: (2, 3.5, "b", 1.0),  # type: ignore[arg-type]
                                      3: (3.0, 4.5, "c", 2.0)})
    assert [part.plain(i) for i in range(4)] == [False, True, True, False]


def test_key_of():
    assert key_of(())((1, 2)) == ()
    assert key_of((1,))((5, 6, 7)) == 6
    assert key_of((0, 2))((5, 6, 7)) == (5, 7)


def test_a_recording_vector_given_the_slot_rank_records_into_one_set():
    """``ReadPositions.given``: the vector with the slot's Rank appended (as ``_ranked``
    gives it to the dependent ranks) reads as the longer tuple and records into the
    same set, so a dependent rank's reads of the vector are keyed too."""
    reads = ReadPositions((10, 20))
    longer = reads.given(30)
    assert (reads[0], longer[1], longer[2], len(longer)) == (10, 20, 30, 3)
    assert longer.seen is reads.seen and reads.seen == {0, 1, 2}


def test_positions_of_a_program_in_the_cycle(monkeypatch):
    """``positions`` of each box the cycle asks: ``passed``'s outcome and the Memory
    position for ``Rank = TARGET.Memory`` (never Disk, which the box's bounds read)."""
    seen: list[tuple[tuple, tuple]] = []
    by_reads = box_reads.by_reads

    def spying(part, program, shapes, members, matched):  # type: ignore[no-untyped-def]
        at = part.vals[shapes[0]]
        out, read = positions(program, at)
        assert out == program.passed(at, as_rank)
        seen.append((read, at))
        return by_reads(part, program, shapes, members, matched)

    monkeypatch.setattr(static_lists, "by_reads", spying)
    run_both([_slot(i) for i in range(60)], [job_text(1, p, "TARGET.Disk >= 45000",
                                                  Rank="TARGET.Memory") for p in range(8)],
             POLICY)
    assert seen
    for read, at in seen:
        assert read is not None and len(read) == 1 and at[read[0]] in (2048, 3072, 4096)


# -- Part.gone ------------------------------------------------------------------------


def test_part_gone():
    part = Part(None, [1, 2, 3], [], {1: (1,), 2: (2,), 3: (3,)})  # type: ignore[arg-type]
    members: dict[int, dict[int, None]] = {1: {10: None}, 2: {20: None}, 3: {30: None}}
    assert not part.gone(members)
    del members[1], members[3]
    assert not part.gone(members) and part._first == 1
    del members[2]
    assert part.gone(members) and part._first == 3


def _owners_asking_aarch64(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """The owners of the classes whose program of the aarch64 part is asked for,
    in a pool where alice's aarch64 class (first in the pie) takes every aarch64
    slot before bob's and carol's X86_64 classes make their lists."""
    asked: set[str] = set()
    program = MatchTable.static_program

    def spying(self, klass, job_ad, offer):  # type: ignore[no-untyped-def]
        if adeval.attr(offer.ad, "Arch").value == "aarch64":
            asked.add(adeval.attr(job_ad, "Owner").value)
        return program(self, klass, job_ad, offer)

    monkeypatch.setattr(MatchTable, "static_program", spying)
    slots = [_slot(i) for i in range(60)] + [_slot(i, Arch='"aarch64"') for i in range(60, 80)]
    jobs = ([job_text(3, p, "TARGET.Disk >= 41000").replace('"X86_64"', '"aarch64"')
             for p in range(30)] + [job_text(c, p, "TARGET.Disk >= 45000")
                                    for c in (1, 2) for p in range(6)])
    run_both(slots, jobs, POLICY)
    return asked


def test_a_part_whose_shapes_all_left_asks_no_program(monkeypatch):
    assert _owners_asking_aarch64(monkeypatch) == {"alice@example.org"}
    monkeypatch.setattr(Part, "gone", lambda self, members: False)
    assert _owners_asking_aarch64(monkeypatch) - {"alice@example.org"}
