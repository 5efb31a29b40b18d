"""``box_passes``: whether a held static slot passes a box is kept per box and the
slot's numbers and shared by every class whose program of a part is an equal box,
whatever its ranks. Checked against the plain reference cycle with the tables used
(classes of equal requests, other ranks, ranks that read the slot; slots of other
pair shapes with equal numbers), the key checked to tell boxes apart, and shown to
matter: a key blind to the bounds, or tables blind to the numbers, decide otherwise.
The tables are checked with no group walked apart as surely passing its box
(``held_walks.SURE_BOXES`` off); with it on, a box its type's verdict implies
(``implied_by``) passes untested where every bound of the verdict surely holds:
checked against the reference too, and an implication blind to the bounds decides
otherwise."""

from __future__ import annotations

import pytest

from condorlite.core.classad.residuals import bound_test
from condorlite.core.matching import box_passes, held_types, held_walks
from condorlite.core.matching.box_passes import box_key, implied_by
from condorlite.core.matching.candidates import as_rank
from condorlite.core.matching.carving import PairProgram
from condorlite.core.policy import Policy
from tests.core._pool import UID
from tests.core.matching._against_reference import run_both


def _held(n: int) -> str:
    # Claimed static slots of one machine type, each its own Disk (its own pair
    # shape, one shared static part), held by two old submitters.
    return "\n".join([
        f'Name = "slot{n}@m1"', 'Machine = "m1"', 'State = "Claimed"', 'Activity = "Busy"',
        "Cpus = 1", f"Memory = {2048 * (1 + n % 2)}", f"Disk = {1000 * (n + 1)}",
        'Arch = "X86_64"',
        'OpSys = "LINUX"', "Requirements = START", "START = true", "Rank = 0",
        "CurrentRank = 0", "SlotWeight = Cpus", f'RemoteUser = "old{n % 2}@{UID}"',
        f'RemoteOwner = "old{n % 2}"', "TotalJobRunTime = 100", ""])


def _job(cluster: int, proc: int, disk: int, memory: int, rank: int) -> str:
    return "\n".join([
        f"ClusterId = {cluster}", f"ProcId = {proc}", 'Owner = "new"', "JobStatus = 1",
        "JobPrio = 0", f"QDate = {1000 + cluster}", "RequestCpus = 1",
        "RequestMemory = 1024", f"RequestDisk = {disk}", f"Rank = {rank}",
        ('Requirements = TARGET.OpSys == "LINUX" && TARGET.Disk >= RequestDisk && '
         f"TARGET.Memory >= {memory}"), ""])


SLOTS = [_held(n) for n in range(20)]
# Class 1 asks for little (every slot): one box. Classes 2-4 ask alike (Disk >= 6000
# and Memory >= 3000: the 8 odd slots from 5), each of its own constant Rank: another
# box, and more jobs than its slots. A walk tries the groups within the box's narrowest
# bound (``box_ranges``): class 2's are the odd slots, 1 and 3 among them, which fail
# its box and pass class 1's.
JOBS = ([_job(1, 0, 500, 0, 1)]
        + [_job(2, p, 6000, 3000, 2) for p in range(4)]
        + [_job(3, p, 6000, 3000, 3) for p in range(4)]
        + [_job(4, p, 6000, 3000, 4) for p in range(4)])
POLICY = Policy(uid_domain=UID,
                preemption_requirements="RemoteUserPrio > SubmitterUserPrio * 1.2")


def _box(bounds: list, fixed: list | None = None, rank: float = 0.0) -> PairProgram:
    program = PairProgram([], [], rank, 0.0, [], as_rank, width=3)  # type: ignore[arg-type]
    program.box, program.bounds = True, bounds
    program.fixed = fixed or []
    program.result = (True, rank, 0.0, {}, {})
    return program


def test_box_key_tells_boxes_apart() -> None:
    one = _box([bound_test(1, ">=", 4000)])
    assert box_key(one) == box_key(_box([bound_test(1, ">=", 4000)], rank=5.0))
    assert box_key(one) != box_key(_box([bound_test(1, ">=", 4001)]))
    assert box_key(one) != box_key(_box([bound_test(1, ">", 4000)]))
    assert box_key(one) != box_key(_box([bound_test(2, ">=", 4000)]))
    assert box_key(one) != box_key(_box([bound_test(1, ">=", 4000.0)]))  # (its type)
    assert box_key(one) != box_key(_box([bound_test(1, ">=", 4000)], [("Cpus", 1.0, 0)]))
    ranked = _box([bound_test(1, ">=", 4000)])
    ranked.result = None  # (ranks that read the slot: no one outcome, the same box)
    assert box_key(ranked) == box_key(one)
    assert box_key(_box([lambda vals: True])) is None  # (a bound without its atom)
    never = _box([bound_test(1, ">=", 4000)])
    never.never = True
    assert box_key(never) is None
    plain = _box([bound_test(1, ">=", 4000)])
    plain.box = False  # (tests run as they are: no box)
    assert box_key(plain) is None


@pytest.fixture
def tables_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every group by its box's table (none walked apart as surely passing)."""
    monkeypatch.setattr(held_walks, "SURE_BOXES", False)


@pytest.mark.usefixtures("tables_alone")
def test_box_passes_decide_as_the_reference_on_and_off(monkeypatch) -> None:
    fast, on = run_both(SLOTS, JOBS, POLICY)
    tables = fast.mm.lists._walks._boxes._tables
    # (two boxes: Disk >= 500, and Disk >= 6000 && Memory >= 3000 shared by classes
    # 2-4; each slot run once per box at most)
    assert len(tables) == 2
    assert all(len(table) <= len(SLOTS) for table in tables.values())
    monkeypatch.setattr(box_passes, "box_key", lambda program: None)  # (off: each runs)
    off_cycle, off = run_both(SLOTS, JOBS, POLICY)
    assert not off_cycle.mm.lists._walks._boxes._tables
    assert sorted(map(str, off.matches)) == sorted(map(str, on.matches))
    assert fast.mm.evaluations < off_cycle.mm.evaluations


@pytest.mark.usefixtures("tables_alone")
def test_a_key_blind_to_the_bounds_decides_otherwise(monkeypatch) -> None:
    # Every box one key: a class takes another's passes, whatever its bounds.
    monkeypatch.setattr(box_passes, "box_key",
                        lambda program: () if program.result is not None else None)
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, POLICY)


def _twin(n: int, owner: int) -> str:
    # A claimed slot of one machine type whose numbers (Cpus, Disk, Memory) repeat:
    # slots of distinct pair shapes (each its own holder, or its own KFlops, which a
    # job's Rank reads) with equal numbers.
    return "\n".join([
        f'Name = "slot{n}@m1"', 'Machine = "m1"', 'State = "Claimed"', 'Activity = "Busy"',
        "Cpus = 1", f"Memory = {2048 * (1 + n // 4 % 2)}", f"Disk = {1000 * (1 + n % 4)}",
        f"KFlops = {1000 + n // 3}", 'Arch = "X86_64"', 'OpSys = "LINUX"',
        "Requirements = START", "START = true", "Rank = 0", "CurrentRank = 0",
        "SlotWeight = Cpus", f'RemoteUser = "old{owner}@{UID}"',
        f'RemoteOwner = "old{owner}"', "TotalJobRunTime = 100", ""])


def _ranked_job(cluster: int, proc: int, disk: int, memory: int, rank: str) -> str:
    return _job(cluster, proc, disk, memory, 0).replace("Rank = 0", f"Rank = {rank}")


TWINS = [_twin(n, n % 5) for n in range(40)]
# Equal requests, ranks that read the slot (its Memory, its Disk) or none: one box,
# ranked boxes among them, and more jobs than the slots that pass it.
RANKED_JOBS = ([_ranked_job(1, p, 2500, 3000, "TARGET.Memory") for p in range(3)]
               + [_ranked_job(2, p, 2500, 3000, "TARGET.Disk") for p in range(3)]
               + [_ranked_job(3, p, 2500, 3000, "TARGET.Disk + TARGET.Memory")
                  for p in range(3)]
               + [_ranked_job(4, p, 2500, 3000, "1") for p in range(3)]
               + [_ranked_job(5, p, 500, 0, "TARGET.KFlops") for p in range(2)])


@pytest.mark.usefixtures("tables_alone")
def test_ranked_boxes_share_the_passes_by_numbers(monkeypatch) -> None:
    # Boxes whose ranks read the slot share the table of passes with the box of
    # constant ranks, and slots of equal numbers one entry: those that pass run
    # their ranks alone (``PairProgram.passed``). As the reference, with fewer runs
    # than with no table.
    passed: list[int] = []
    plain = PairProgram.passed

    def counting(self, vals, as_rank, defer=False):  # type: ignore[no-untyped-def]
        passed.append(1)
        return plain(self, vals, as_rank, defer)

    with monkeypatch.context() as patch:
        patch.setattr(PairProgram, "passed", counting)
        fast, on = run_both(TWINS, RANKED_JOBS, POLICY)
    tables = fast.mm.lists._walks._boxes._tables
    # (two boxes: Disk >= 2500 && Memory >= 3000, shared by classes 1-4, and
    # Disk >= 500; 8 distinct numbers of 40 slots, each its own pair shape)
    assert len(tables) == 2
    assert all(len(table) <= 8 for table in tables.values())
    assert passed
    monkeypatch.setattr(box_passes, "box_key", lambda program: None)  # (off: each runs)
    off_cycle, off = run_both(TWINS, RANKED_JOBS, POLICY)
    assert sorted(map(str, off.matches)) == sorted(map(str, on.matches))
    assert fast.mm.evaluations < off_cycle.mm.evaluations


@pytest.mark.usefixtures("tables_alone")
def test_passes_kept_blind_to_the_numbers_decide_otherwise(monkeypatch) -> None:
    # Every slot's numbers one entry: a slot takes another's pass, whatever its Disk.
    monkeypatch.setattr(box_passes.BoxPasses, "numbers", lambda self, vals: 0)
    with pytest.raises(AssertionError):
        run_both(TWINS, RANKED_JOBS, POLICY)


NAMES = ("cpus", "disk", "memory")


def test_implied_by_reads_each_bound_by_name_operator_and_operand() -> None:
    verdict = _box([bound_test(1, ">=", 4000), bound_test(2, ">=", 1024)])
    assert implied_by(_box([bound_test(1, ">=", 4000)]), NAMES, verdict, NAMES)
    assert implied_by(_box([bound_test(2, ">=", 1024), bound_test(1, ">=", 4000)]),
                      NAMES, verdict, NAMES)
    assert implied_by(_box([]), NAMES, verdict, NAMES)  # (no bound: every slot passes)
    # (the same position of another vector's names: the name decides)
    assert implied_by(_box([bound_test(0, ">=", 4000)]), ("disk", "memory"), verdict, NAMES)
    assert not implied_by(_box([bound_test(0, ">=", 4000)]), NAMES, verdict, NAMES)
    assert not implied_by(_box([bound_test(1, ">=", 4001)]), NAMES, verdict, NAMES)
    assert not implied_by(_box([bound_test(1, ">", 4000)]), NAMES, verdict, NAMES)
    assert not implied_by(_box([bound_test(1, ">=", 4000.0)]), NAMES, verdict, NAMES)
    assert not implied_by(_box([bound_test(1, ">=", 4000), bound_test(1, "<=", 9000)]),
                          NAMES, verdict, NAMES)  # (a bound the verdict does not state)
    assert not implied_by(_box([bound_test(1, ">=", 4000)], [("Cpus", 1.0, 0)]),
                          NAMES, verdict, NAMES)  # (a fit to test)
    assert not implied_by(_box([lambda vals: True]), NAMES, verdict, NAMES)  # (no atom)
    never = _box([bound_test(1, ">=", 4000)])
    never.never = True
    assert not implied_by(never, NAMES, verdict, NAMES)
    plain = _box([bound_test(1, ">=", 4000)])
    plain.box = False
    assert not implied_by(plain, NAMES, verdict, NAMES)
    # (a bound on one of the part's own literals, after its amounts, is none)
    literal = _box([bound_test(2, ">=", 1024)])
    literal.literals = 1
    assert not implied_by(literal, NAMES, verdict, NAMES)


def _sure(n: int, start: str) -> str:
    # Claimed static slots of one machine type and one Memory, each its own Disk
    # (its own pair shape, one shared static part), held by two old submitters.
    return _held(n).replace("Memory = 4096", "Memory = 2048").replace(
        "START = true", f"START = {start}")


def _sure_job(cluster: int, proc: int, disk: int, rank: str) -> str:
    return _job(cluster, proc, disk, 0, 0).replace("Rank = 0", f"Rank = {rank}").replace(
        " && TARGET.Memory >= 0", "")


# Classes of one bound (Disk >= RequestDisk), constant ranks or ranks that read the
# slot, and more jobs than the slots that pass.
SURE_JOBS = ([_sure_job(1, p, 6000, "1") for p in range(6)]
             + [_sure_job(2, p, 9000, "TARGET.Disk") for p in range(6)]
             + [_sure_job(3, p, 12000, "2") for p in range(4)])


def _runs(patch: pytest.MonkeyPatch) -> list[int]:
    """A list to which each run of a box program adds one."""
    runs: list[int] = []
    plain = PairProgram.run

    def counting(self, vals, as_rank, defer=False):  # type: ignore[no-untyped-def]
        if self.box and self.width == 3:  # (a part's box, not a one-test verdict)
            runs.append(1)
        return plain(self, vals, as_rank, defer)

    patch.setattr(PairProgram, "run", counting)
    return runs


def test_boxes_the_verdict_implies_pass_untested(monkeypatch) -> None:
    # START = true: each class's box is its verdict's one bound, so no group walked
    # apart as surely passing runs its box or asks a table: as the reference, and as
    # with every group by its table, with fewer evaluations (a box of constant ranks
    # passed untested is no run).
    slots = [_sure(n, "true") for n in range(20)]
    with monkeypatch.context() as patch:
        runs = _runs(patch)
        fast, on = run_both(slots, SURE_JOBS, POLICY)
    assert not runs
    assert not any(fast.mm.lists._walks._boxes._tables.values())
    with monkeypatch.context() as patch:
        patch.setattr(held_walks, "SURE_BOXES", False)
        runs = _runs(patch)
        off_cycle, off = run_both(slots, SURE_JOBS, POLICY)
    assert runs
    assert sorted(map(str, off.matches)) == sorted(map(str, on.matches))
    assert fast.mm.evaluations < off_cycle.mm.evaluations


def test_a_box_with_a_bound_of_the_slots_own_runs(monkeypatch) -> None:
    # START = Disk <= 15000: each box holds a bound its verdict does not, so every
    # group runs it (or asks its table), and the slots over 15,000 fail it.
    slots = [_sure(n, "Disk <= 15000") for n in range(20)]
    with monkeypatch.context() as patch:
        runs = _runs(patch)
        run_both(slots, SURE_JOBS, POLICY)
    assert runs


def test_an_implication_blind_to_the_bounds_decides_otherwise(monkeypatch) -> None:
    # Every box taken as implied: the slots over 15,000 pass a box they fail.
    monkeypatch.setattr(held_types, "implied_by", lambda *args: True)
    with pytest.raises(AssertionError):
        run_both([_sure(n, "Disk <= 15000") for n in range(20)], SURE_JOBS, POLICY)
