"""``held_walks`` and ``held_verdicts``: with priority preemption on, a class's
matching held groups are
found once per class key, and groups the job's ``Requirements`` rule out (another
``OpSys`` or ``Arch``, whatever the slot's own ``Disk``; a ``Disk`` too small, by the
residual at the slot's numbers) are told apart once per class and machine type,
without a pair evaluation. Checked against the plain reference
cycle with the mechanism on and off, and shown to matter: broken, it decides otherwise."""

from __future__ import annotations

from typing import NamedTuple

import pytest

from condorlite.core.matching import box_ranges, held_verdicts, held_walks
from condorlite.core.matching.candidates import as_rank
from condorlite.core.matching.carving import PairProgram
from condorlite.core.matching.held_lists import HeldLists
from condorlite.core.matching.held_types import HeldSlot
from condorlite.core.matching.held_verdicts import HeldVerdicts
from condorlite.core.matching.held_walks import HeldWalks, PartPairs
from condorlite.core.matching.pair_programs import ResidualPrograms
from condorlite.core.matching.program_shapes import ProgramShape
from condorlite.core.matching.slot_vectors import VectorNumbers
from condorlite.core.policy import Policy
from tests.core._pool import UID
from tests.core.matching._against_reference import run_both

#: (machine, OpSys, Arch) of the three machine types
MACHINES = [("m1", "LINUX", "X86_64"), ("m2", "WINDOWS", "X86_64"), ("m3", "LINUX", "aarch64")]


def _held(machine: str, opsys: str, arch: str, n: int) -> str:
    # Claimed dynamic slots: each its own Disk (its own pair shape, the jobs reading
    # TARGET.Disk by a bound), held by two old submitters.
    return "\n".join([
        f'Name = "slot1_{n}@{machine}"', f'Machine = "{machine}"', "SlotID = 1",
        f"SlotID_{n} = 1", 'SlotType = "Dynamic"', "DynamicSlot = true",
        'State = "Claimed"', 'Activity = "Busy"', "Cpus = 1", "Memory = 2048",
        f"Disk = {1000 * (n + 1)}", f'Arch = "{arch}"', f'OpSys = "{opsys}"',
        "Requirements = START", "START = true", "Rank = 0", "CurrentRank = 0",
        "SlotWeight = Cpus", f'RemoteUser = "old{n % 2}@{UID}"',
        f'RemoteOwner = "old{n % 2}"', f"TotalJobRunTime = {100 + n}", ""])


def _job(cluster: int, proc: int, opsys: str, arch: str, disk: int) -> str:
    return "\n".join([
        f"ClusterId = {cluster}", f"ProcId = {proc}", 'Owner = "new"', "JobStatus = 1",
        "JobPrio = 0", f"QDate = {1000 + cluster}", "RequestCpus = 1",
        "RequestMemory = 1024", f"RequestDisk = {disk}",
        f'Requirements = TARGET.OpSys == "{opsys}" && TARGET.Arch == "{arch}" && '
        "TARGET.Disk >= RequestDisk", ""])


SLOTS = [_held(m, o, a, n) for m, o, a in MACHINES for n in range(6)]
# Three classes: Linux x86 jobs wanting 4,000 of disk (slots 3-5 of m1 fit, slot 3's
# Disk on the bound itself), Windows jobs wanting 6,000 (slot 5 of m2, on the bound),
# Linux aarch64 jobs wanting 500 (all of m3).
JOBS = ([_job(1, p, "LINUX", "X86_64", 4000) for p in range(4)]
        + [_job(2, p, "WINDOWS", "X86_64", 6000) for p in range(2)]
        + [_job(3, p, "LINUX", "aarch64", 500) for p in range(3)])
#: the new submitter (EUP 500, ``run_both``) preempts the old ones (1,000 and 1,500)
POLICY = Policy(uid_domain=UID,
                preemption_requirements="RemoteUserPrio > SubmitterUserPrio * 1.2")


def _mechanism_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every list walks every held group and evaluates every pair, as before."""
    matching = HeldWalks.matching

    def walk_all(self, *args):  # type: ignore[no-untyped-def]
        self._kept.clear()
        return matching(self, *args)

    monkeypatch.setattr(HeldWalks, "matching", walk_all)
    monkeypatch.setattr(HeldVerdicts, "verdict", lambda self, *args: (None, ()))


def _preempted(result) -> list[tuple[str, str]]:
    return sorted((m.job, m.slot, m.reason) for m in result.matches)


def test_held_walks_decide_as_the_reference_on_and_off(monkeypatch) -> None:
    fast, on = run_both(SLOTS, JOBS, POLICY)
    walks = fast.mm.lists._walks._verdicts
    held = [o for o in fast.offers if o.holder is not None]
    assert len({o.pair_shape for o in held}) == 18  # (each its own Disk)
    # One verdict per class and machine type, not one evaluation per slot; the
    # Windows class reads OpSys alone on both Linux types: one verdict for the two.
    assert sum(len(v) for by in walks._verdicts.values() for v in by.values()) == 8
    # 4 + 1 + 3 jobs find a slot: those of m1 by Disk 3-5, m2's slot 5, m3's three
    assert len(on.matches) == 7
    with monkeypatch.context() as patch:
        _mechanism_off(patch)
        off_cycle, off = run_both(SLOTS, JOBS, POLICY)
    assert _preempted(off) == _preempted(on)
    assert not off_cycle.mm.lists._walks._verdicts._verdicts  # (off: no verdict asked)
    assert fast.mm.evaluations < off_cycle.mm.evaluations


def test_a_verdict_blind_to_the_slots_bindings_decides_otherwise(monkeypatch) -> None:
    # Every slot's numbers one tuple: the first machine type's verdict stands for all.
    monkeypatch.setattr(HeldVerdicts, "_numbers_of", lambda self, names, offer: ())
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, POLICY)


def test_kept_walks_shared_between_classes_decide_otherwise(monkeypatch) -> None:
    # One kept walk for every class key: the first class's matching groups for all.
    matching = HeldWalks.matching
    monkeypatch.setattr(HeldWalks, "matching",
                        lambda self, klass, *args: matching(self, (0, ()), *args))
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, POLICY)


def test_residuals_read_at_other_numbers_decide_otherwise(monkeypatch) -> None:
    # A residual that fails at every slot's numbers: the slots that fit are passed over
    # (where the residual is run: not on the groups on which every bound of it surely
    # holds, walked apart, ``held_walks.SURE_BOXES``).
    monkeypatch.setattr(held_walks, "SURE_BOXES", False)

    class Failing(PairProgram):
        def run(self, vals, as_rank):  # type: ignore[no-untyped-def]
            return (False,)

    def failing(self, test, width, literals, params):  # type: ignore[no-untyped-def]
        # (the verdict's one-test program, ``pair_programs.ResidualPrograms``, made failing)
        shape = ProgramShape([], [test], held_verdicts._ZERO, [], as_rank, width, literals)
        return Failing.of(shape, held_verdicts._ZERO, params)

    monkeypatch.setattr(ResidualPrograms, "program", failing)
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, POLICY)


def test_the_groups_within_a_bound_found_by_bisection(monkeypatch) -> None:
    # The classes walked once the types are known (the first one is walked group by
    # group) find their groups by bisection: ``TARGET.Disk >= 6000`` takes slot 5 of
    # m2 (Disk 6,000) in; bisected from the right, the bound would leave it out, and
    # the reference disagrees.
    fast, _ = run_both(SLOTS, JOBS, POLICY)
    columns = [t.columns for t in fast.mm.lists._walks._verdicts._types[3]]
    assert any(c for c in columns)  # (the columns were used)
    monkeypatch.setattr(box_ranges, "bisect_left", box_ranges.bisect_right)
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, POLICY)


#: one machine type of 12 held slots: two jobs, then six of another class, that fit
#: any of them, then three of a third class that need a Disk of 2,000 (slots 1 to 11)
COMPACT_SLOTS = [_held("m1", "LINUX", "X86_64", n) for n in range(12)]
COMPACT_JOBS = ([_job(1, p, "LINUX", "X86_64", 500) for p in range(2)]
                + [_job(2, p, "LINUX", "X86_64", 600) for p in range(6)]
                + [_job(3, p, "LINUX", "X86_64", 2000) for p in range(3)])


def _compact_walks(fast) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    walks = fast.mm.lists._walks._verdicts
    return walks._removed, sum(len(t.slots) for t in walks._types[3])


def test_emptied_groups_left_out_of_the_types_decide_as_the_reference() -> None:
    # The types are made again for the second class (the first class's verdict read
    # new names), of the 10 groups left; the third class is walked after the second
    # class's six preemptions: more than half of them have emptied, and are left
    # out (the types are not made again: nothing was added, no new name read).
    compactions = []
    compact = HeldVerdicts._compact

    def counting(self, types):  # type: ignore[no-untyped-def]
        before = self._removed
        compact(self, types)
        compactions.extend([self._slots] if self._removed != before else [])

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(HeldVerdicts, "_compact", counting)
        fast, result = run_both(COMPACT_SLOTS, COMPACT_JOBS, POLICY)
    assert compactions == [4]
    removed, kept = _compact_walks(fast)
    assert removed == 8 and kept == 4  # (as of the third class's walk)
    assert len(result.matches) == 11


def test_groups_left_out_while_they_hold_offers_decide_otherwise(monkeypatch) -> None:
    # A compaction that also leaves out groups that still hold offers: the second
    # class misses slots it could preempt.
    def keep_one(self, types):  # type: ignore[no-untyped-def]
        held = self._held
        removed = held.epoch - held.added
        if 2 * (removed - self._removed) <= self._slots:
            return
        for held_type in types:
            held_type.slots[:] = [s for s in held_type.slots if s.group.total][:1]
            held_type.columns.clear()
        self._removed, self._slots = removed, len(types)

    monkeypatch.setattr(HeldVerdicts, "_compact", keep_one)
    with pytest.raises(AssertionError):
        run_both(COMPACT_SLOTS, COMPACT_JOBS, POLICY)


#: Linux x86 classes that differ only in their literal RequestDisk
DISKS = (4000, 2500, 5500)
JOBS_OF_DISKS = [_job(c, p, "LINUX", "X86_64", disk)
                 for c, disk in enumerate(DISKS, start=1) for p in range(2)]


def _verdicts(walks: HeldWalks) -> int:
    return sum(len(v) for by in walks._verdicts._verdicts.values() for v in by.values())


def test_classes_of_other_requests_share_the_verdicts() -> None:
    """The job's literal requests are left free in a verdict (as in pair programs):
    classes that differ only in their RequestDisk ask as many verdicts as one of
    them, and each runs the residual at its own amount."""
    fast, _ = run_both(SLOTS, JOBS_OF_DISKS, POLICY)
    one, _ = run_both(SLOTS, JOBS_OF_DISKS[:2], POLICY)
    walks = fast.mm.lists._walks
    assert _verdicts(walks) == _verdicts(one.mm.lists._walks)
    assert {values[1] for _, values, _ in walks._verdicts._tests} == set(DISKS)


def test_a_verdict_run_at_another_class_s_requests_decides_otherwise(monkeypatch) -> None:
    # Each residual run at the amounts of the first class that asked it: the
    # 2,500 class's residual bounds Disk at 4,000 and passes over the slots between.
    real = HeldVerdicts._test_of
    first: dict[int, tuple] = {}

    def at_first(self, found, vector, values):  # type: ignore[no-untyped-def]
        return real(self, found, vector, first.setdefault(id(found), values))

    monkeypatch.setattr(HeldVerdicts, "_test_of", at_first)
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS_OF_DISKS, POLICY)


def test_types_split_as_made_in_full(monkeypatch) -> None:
    # The union grows when the first class's verdicts read OpSys and Arch: the types
    # are the old ones split (``_split``), as ``_made`` would make them, in its order.
    split = HeldVerdicts._split
    checked = []

    def both(self, gained):  # type: ignore[no-untyped-def]
        got = [[slot.pair_shape for slot in t.slots] for t in split(self, gained)]
        every = self._all
        want = [[slot.pair_shape for slot in t.slots]
                for t in self._made(tuple(sorted(self._union)))]
        self._all = every
        assert got == want
        checked.append(len(got))
        return split(self, gained)

    monkeypatch.setattr(HeldVerdicts, "_split", both)
    run_both(SLOTS, JOBS, POLICY)
    assert checked and max(checked) == 3  # (the three machine types)


def test_types_split_blind_to_the_names_gained_decide_otherwise(monkeypatch) -> None:
    # The old types kept whole: one verdict of a machine type stands for the others.
    monkeypatch.setattr(HeldVerdicts, "_split", lambda self, gained: self._made(()))
    with pytest.raises(AssertionError):
        run_both(SLOTS, JOBS, POLICY)


def _part_slot(machine: str, arch: str, n: int) -> str:
    # Claimed static slots of two machine types (two shared static parts), each its
    # own Disk (its own pair shape), held by two old submitters.
    return "\n".join([
        f'Name = "slot{n}@{machine}"', f'Machine = "{machine}"', 'State = "Claimed"',
        'Activity = "Busy"', "Cpus = 1", "Memory = 2048", f"Disk = {1000 * (n + 1)}",
        f'Arch = "{arch}"', 'OpSys = "LINUX"', "Requirements = START", "START = true",
        "Rank = 0", "CurrentRank = 0", "SlotWeight = Cpus",
        f'RemoteUser = "old{n % 2}@{UID}"', f'RemoteOwner = "old{n % 2}"',
        "TotalJobRunTime = 100", ""])


def _part_job(proc: int) -> str:
    # One class whose box differs by part: Disk >= 14,000 on x86 (5 slots), >= 4,000
    # on aarch64 (15 slots).
    return "\n".join([
        "ClusterId = 1", f"ProcId = {proc}", 'Owner = "new"', "JobStatus = 1", "JobPrio = 0",
        "QDate = 1000", "RequestCpus = 1", "RequestMemory = 1024", "RequestDisk = 1",
        'Requirements = TARGET.Disk >= (TARGET.Arch == "X86_64" ? 14000 : 4000)', ""])


PART_SLOTS = [_part_slot(m, a, n) for m, a in (("m1", "X86_64"), ("m2", "aarch64"))
              for n in range(18)]
PART_JOBS = [_part_job(p) for p in range(8)]


def test_a_part_s_box_taken_once_decides_as_the_reference(monkeypatch) -> None:
    # Each part's box of constant ranks is taken per group in one look-up once its
    # table and result are known (``PartPairs.boxes``); kept from nothing, every
    # group goes the whole way: the same matches and evaluations.
    seen: list[int] = []
    pairs_of = HeldWalks._pairs_of

    def counting(self, klass, job_ad, signature, known, unknown, verdict, parts, out,  # type: ignore[no-untyped-def]
                 sure):
        pairs_of(self, klass, job_ad, signature, known, unknown, verdict, parts, out, sure)
        seen.append(len(parts.boxes))

    # (the boxes' look-ups alone: no group walked apart as surely passing its box)
    monkeypatch.setattr(held_walks, "SURE_BOXES", False)
    with monkeypatch.context() as patch:
        patch.setattr(HeldWalks, "_pairs_of", counting)
        fast, on = run_both(PART_SLOTS, PART_JOBS, POLICY)
    assert max(seen) == 2  # (both parts' boxes)
    assert len(on.matches) == 8

    class Unkept(dict):
        def __setitem__(self, key, value) -> None:  # type: ignore[no-untyped-def]
            pass

    init = PartPairs.__init__

    def unkept(self, *args) -> None:  # type: ignore[no-untyped-def]
        init(self, *args)
        self.boxes = Unkept()

    monkeypatch.setattr(PartPairs, "__init__", unkept)
    slow, off = run_both(PART_SLOTS, PART_JOBS, POLICY)
    assert sorted(map(str, off.matches)) == sorted(map(str, on.matches))
    assert slow.mm.evaluations == fast.mm.evaluations


def test_a_box_of_another_part_decides_otherwise(monkeypatch) -> None:
    # The boxes kept blind to the part: the first part's box stands for the other's.
    monkeypatch.setattr(held_walks, "SURE_BOXES", False)
    class Blind(dict):
        def get(self, key, default=None):  # type: ignore[no-untyped-def]
            return next(iter(self.values()), default)

    init = PartPairs.__init__

    def blind(self, *args) -> None:  # type: ignore[no-untyped-def]
        init(self, *args)
        self.boxes = Blind()

    monkeypatch.setattr(PartPairs, "__init__", blind)
    with pytest.raises(AssertionError):
        run_both(PART_SLOTS, PART_JOBS, POLICY)


def test_allowed_seqs_listed_once_per_run_of_a_pair_result(monkeypatch) -> None:
    # The allowed groups of one part share its box's pair result: their seqs are
    # listed under its key once per run of them (``HeldLists._listed``), each later
    # group's added to that key's seqs. Lost after the first group of a run, the
    # list misses slots it could preempt, and the cycle decides otherwise.
    calls: list[int] = []
    listed = HeldLists._listed

    def counting(into, pe, column, seqs):  # type: ignore[no-untyped-def]
        calls.append(len(seqs))
        return listed(into, pe, column, seqs)

    allowed: list[int] = []
    settle = HeldLists._settle_allowed

    def settling(self, groups, column, into):  # type: ignore[no-untyped-def]
        allowed.append(len(groups))
        return settle(self, groups, column, into)

    with monkeypatch.context() as patch:
        patch.setattr(HeldLists, "_listed", staticmethod(counting))
        patch.setattr(HeldLists, "_settle_allowed", settling)
        run_both(PART_SLOTS, PART_JOBS, POLICY)
    assert 0 < len(calls) < sum(allowed)  # (runs of several groups)
    monkeypatch.setattr(HeldLists, "_listed", staticmethod(
        lambda into, pe, column, seqs: [*listed(into, pe, column, seqs)]))
    with pytest.raises(AssertionError):
        run_both(PART_SLOTS, PART_JOBS, POLICY)


def _twin_slot(machine: str, arch: str, n: int, twin: str) -> str:
    # Two slots of one Disk on a machine: one pair shape, a group of two offers.
    return _part_slot(machine, arch, n).replace(f'Name = "slot{n}@', f'Name = "slot{n}{twin}@')


TWIN_SLOTS = [_twin_slot(m, a, n, t) for m, a in (("m1", "X86_64"), ("m2", "aarch64"))
              for n in range(18) for t in "ab"]
TWIN_JOBS = [_part_job(p) for p in range(30)]


def test_groups_of_one_offer_settled_by_it_decide_as_the_reference(monkeypatch) -> None:
    # Groups of one offer are settled by that offer alone (``HeldSlot.one``), groups
    # of two shape by shape; taken for a group of one, a group of two lists only its
    # first offer, and the cycle decides otherwise.
    fast, _ = run_both(PART_SLOTS, PART_JOBS, POLICY)
    slots = [s for t in fast.mm.lists._walks._verdicts._types[3] for s in t.slots]
    assert slots and all(s.one == s.first.seq for s in slots)
    twins, _ = run_both(TWIN_SLOTS, TWIN_JOBS, POLICY)
    slots = [s for t in twins.mm.lists._walks._verdicts._types[3] for s in t.slots]
    assert slots and all(s.one is None for s in slots)
    init = HeldSlot.__init__

    def first_alone(self, *args) -> None:  # type: ignore[no-untyped-def]
        init(self, *args)
        self.one = self.first.seq

    monkeypatch.setattr(HeldSlot, "__init__", first_alone)
    with pytest.raises(AssertionError):
        run_both(TWIN_SLOTS, TWIN_JOBS, POLICY)


def test_held_vectors_taken_from_the_static_parts_as_the_ad_gives_them(monkeypatch) -> None:
    # The held offers of the two shared static parts take their vector from
    # ``StaticNumbers``' (no own literal: that vector itself), none worked out again
    # from its ad: each the names and numbers ``VectorNumbers`` gives of its ad (with
    # own literals: ``test_held_desktops``).
    run = held_vectors_run(monkeypatch, PART_SLOTS, PART_JOBS, POLICY)
    vectors = run.verdicts._vectors
    assert len(vectors) == 36 and set(vectors) <= set(run.statics)
    assert all(vector is run.statics[seq] for seq, vector in vectors.items())
    assert_held_vectors_as_their_ads_give(run)


class HeldVectorRun(NamedTuple):
    """``held_vectors_run``'s: the optimised run, its held verdicts, the static
    parts' vectors (``MatchTable.static_vectors``) and every ``VectorNumbers`` that
    worked a vector out of an ad during the run."""

    fast: object
    verdicts: HeldVerdicts
    statics: dict
    worked: list


#: ``VectorNumbers.of`` itself (the runs below count its calls)
_VECTOR_OF = VectorNumbers.of


def held_vectors_run(monkeypatch, slots, jobs, policy) -> HeldVectorRun:  # type: ignore[no-untyped-def]
    """A cycle run both ways (``run_both``) with each ``VectorNumbers`` that works a
    vector out of an ad recorded."""
    worked: list[VectorNumbers] = []

    def counting(self, ad, literals=()):  # type: ignore[no-untyped-def]
        worked.append(self)
        return _VECTOR_OF(self, ad, literals)

    monkeypatch.setattr(VectorNumbers, "of", counting)
    fast, _ = run_both(slots, jobs, policy)
    return HeldVectorRun(fast, fast.mm.lists._walks._verdicts,
                         fast.mm.table.static_vectors(), worked)


def assert_held_vectors_as_their_ads_give(run: HeldVectorRun) -> None:
    """No held vector worked out by the verdicts' own ``VectorNumbers``, and each
    the names, numbers and index ``VectorNumbers`` gives of its offer's ad, with no
    own literal."""
    assert run.verdicts._vector_numbers not in run.worked
    fresh = VectorNumbers(run.fast.mm.resource_names)  # type: ignore[attr-defined]
    registry = run.fast.mm.shapes.registry  # type: ignore[attr-defined]
    for seq, vector in run.verdicts._vectors.items():
        expected = _VECTOR_OF(fresh, registry[seq].ad)
        assert vector is not None and expected is not None
        assert (vector.names, vector.vals, vector.index, vector.literals) == (
            expected.names, expected.vals, expected.index, 0)


def test_compacted_columns_filtered_as_made_afresh(monkeypatch) -> None:
    # A compaction keeps each column made before, less its emptied groups, in its
    # order: the column made afresh of the groups left (and the same matches).
    filtered: list[int] = []
    compact = HeldVerdicts._compact

    def checking(self, types):  # type: ignore[no-untyped-def]
        before = {id(t): dict(t.columns) for t in types}
        compact(self, types)
        for held_type in types:
            for index, found in held_type.columns.items():
                assert found is not None
                made = box_ranges.column(held_type.slots,
                                         [slot.vals[index] for slot in held_type.slots])
                assert found == made
                if found is not before[id(held_type)].get(index):
                    filtered.append(index)

    monkeypatch.setattr(HeldVerdicts, "_compact", checking)
    run_both(COMPACT_SLOTS, COMPACT_JOBS, POLICY)
    assert filtered
