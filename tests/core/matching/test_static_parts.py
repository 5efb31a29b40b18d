"""Unheld static shapes by shared static part, sorted by their numbers
(``static_parts``): a class asks only the shapes its part program's bounds leave.

The pool's static slots share two parts (an ``Arch`` each) and differ in ``Disk``
(integers and reals, one class's bound falling on a slot's number exactly, each
comparison on both sides of it) and in ``Memory``. Every case runs the cycle with the
sorted parts and without them (``SORTED`` out of reach: every shape asked, as
before), requires both to decide as the plain reference cycle does and the sorted
parts to spare evaluations; the pool is shown to tell a bound off by one shape apart
(a bisection on the wrong side of equal numbers decides otherwise). ``Part.within``
is checked on its own against every box of random bounds: it never leaves out a
shape the program matches.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core import adeval
from condorlite.core.classad.partial import Constant
from condorlite.core.classad.residuals import bound_test
from condorlite.core.matching import box_ranges, static_blocks, static_lists, static_parts
from condorlite.core.matching.candidates import ENTRY_IDX, POST, PRE, as_rank, make_entries
from condorlite.core.matching.carving import PairProgram
from condorlite.core.matching.static_lists import StaticLists
from condorlite.core.model import NO_PREEMPTION, Submitter
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import ad_text, run_both

POLICY = Policy(uid_domain="example.org")
USERS = ("alice", "bob", "carol")


def _slot(i: int, **extra: object) -> str:
    # Disk 40000 + 1000 i, a real on every fifth slot (50000.0, 60000.0, ...);
    # every sixth slot another Arch (a second part, never matched by X86_64 jobs)
    disk = 40000 + 1000 * i
    attrs = dict(Name=f'"slot{i}@m{i // 4}"', Machine=f'"m{i // 4}"', State='"Unclaimed"',
                 Activity='"Idle"', Cpus=1, Memory=2048 + 1024 * (i % 3),
                 Disk=f"{disk}.0" if i % 5 == 0 else disk,
                 Arch='"aarch64"' if i % 6 == 5 else '"X86_64"', OpSys='"LINUX"',
                 Requirements="START", START="TARGET.RequestMemory <= MY.Memory",
                 Rank="0.0", CurrentRank="0.0", SlotWeight="Cpus")
    attrs.update(extra)
    return ad_text(attrs)


def _job(cluster: int, proc: int, requirements: str, arch: str = "X86_64",
         **extra: object) -> str:
    attrs = dict(ClusterId=cluster, ProcId=proc, Owner=f'"{USERS[cluster % 3]}@example.org"',
                 JobStatus=1, JobPrio=0, QDate=1000 + cluster, RequestCpus=1,
                 RequestMemory=1024, RequestDisk=1000,
                 Requirements=f'TARGET.Arch == "{arch}" && {requirements}')
    attrs.update(extra)
    return ad_text(attrs)


#: each class's bound, most on a slot's number exactly (a bound off by one shape
#: lists one slot more or less)
CLASSES = [
    ("TARGET.Disk >= 50000", {}),  # slot10: 50000.0, a real against an integer
    ("TARGET.Disk > 55000", {}),  # slot15: 55000, left out
    ("TARGET.Disk <= 60000", {}),  # slot20: 60000.0
    ("TARGET.Disk < 47000", {}),  # slot7: 47000, left out
    ("TARGET.Disk == 46000", {}),
    ("TARGET.Disk >= 52000 && TARGET.Disk <= 70000 && TARGET.Memory >= 3072", {}),
    ("TARGET.Disk >= 50500.5", {}),
    ("TARGET.Disk % 3 == 0", {}),  # no box: every shape asked
    ("TARGET.Disk >= 48000", {"Rank": "TARGET.Disk"}),  # a box whose rank varies
    ("TARGET.Disk >= RequestDisk", {"RequestDisk": 61000}),  # the class's own number
    ("TARGET.Disk > RequestDisk", {"RequestDisk": 62000.0}),
    ("TARGET.Memory >= 4096", {}),
    ("TARGET.Disk != 80000", {}),  # a bound that narrows nothing
]


def _jobs(per: int) -> list[str]:
    return [_job(c, p, req, **extra) for c, (req, extra) in enumerate(CLASSES, start=1)
            for p in range(per)]


def _aarch64_jobs(per: int) -> list[str]:
    return [_job(100, p, "TARGET.Disk >= 41000", "aarch64") for p in range(per)]


def _both_ways(monkeypatch: pytest.MonkeyPatch, slots: list[str], jobs: list[str],
               policy: Policy = POLICY, subs: dict[str, Submitter] | None = None
               ) -> tuple[int, int]:
    """The evaluations of the cycle with the sorted parts and without them, each
    required to decide as the reference does."""
    fast, _ = run_both(slots, jobs, policy, subs)
    groups = fast.mm.lists._static._parts.groups()[1]
    assert groups or fast.mm.evaluations == 0  # (the sorted parts were used)
    with monkeypatch.context() as patch:
        patch.setattr(static_parts, "SORTED", 10**9)
        slow, _ = run_both(slots, jobs, policy, subs)
        assert not slow.mm.lists._static._parts.groups()[1]
    return fast.mm.evaluations, slow.mm.evaluations


@pytest.mark.parametrize(("split", "ordered"), [(True, 1), (False, 10**9)])
def test_bounds_on_a_slots_number_decide_as_in_full(monkeypatch, split, ordered):
    """With the shapes a box surely passes taking their ranks alone
    (``Part.split``) and every group of one-offer shapes put in its likely order
    (``StaticLists._order``), and with every shape of a range run and no order."""
    monkeypatch.setattr(static_lists, "SPLIT", split)
    monkeypatch.setattr(static_lists, "ORDERED", ordered)
    on, off = _both_ways(monkeypatch, [_slot(i) for i in range(96)],
                         _jobs(9) + _aarch64_jobs(6))
    assert on < off


def test_held_slots_and_submitter_bindings_among_them(monkeypatch):
    """Held static slots (not in the lists' parts: they are settled by
    ``held_groups``) and PREEMPTION_REQUIREMENTS reading SubmitterUserPrio, so the
    pair results, programs and lists are kept per Submitter* binding."""
    held = [_slot(i, State='"Claimed"', Activity='"Busy"', RemoteUser='"dave@example.org"',
                  RemoteOwner='"dave@example.org"') for i in range(96, 130)]
    subs = {f"{n}@example.org": Submitter(f"{n}@example.org", eup=500.0 * (1 + i), usage=0.0)
            for i, n in enumerate(USERS)}
    subs["dave@example.org"] = Submitter("dave@example.org", eup=50000.0, usage=34.0)
    policy = Policy(uid_domain="example.org",
                    preemption_requirements="RemoteUserPrio > SubmitterUserPrio * 1.2")
    on, off = _both_ways(monkeypatch, [_slot(i) for i in range(96)] + held, _jobs(12),
                         policy, subs)
    assert on < off


def test_parts_are_regrouped_as_their_shapes_leave(monkeypatch):
    """Classes whose first list comes after most slots were matched: the groups
    are made again without the shapes that left, and still decide as in full."""
    regroups = []
    group = static_parts.StaticParts._group

    def counting(self):  # type: ignore[no-untyped-def]
        regroups.append(len(self._members))
        return group(self)

    monkeypatch.setattr(static_parts.StaticParts, "_group", counting)
    # (alice's first classes take most slots before carol's classes are listed)
    jobs = [_job(51, p, "TARGET.Disk >= 40000") for p in range(70)] + _jobs(6)
    subs = {f"{n}@example.org": Submitter(f"{n}@example.org", eup=500.0 * (1 + i), usage=0.0)
            for i, n in enumerate(USERS)}
    run_both([_slot(i) for i in range(96)], jobs, POLICY, subs)
    assert len(regroups) >= 2 and regroups[-1] * 2 < regroups[0]


def _grouping(parts: static_parts.StaticParts) -> tuple:
    """What the last grouping handed out, compared by value."""
    walked, sorted_parts = parts._walked, parts._parts
    return (list(walked), [
        (part.offer.seq, list(part.shapes), dict(part.vals),
         [None if axis is None else (list(axis.keys), list(axis.items)) for axis in part.axes])
        for part in sorted_parts])


def test_the_likely_order_is_that_of_the_likely_keys(monkeypatch):
    """``StaticBlocks.places`` (stable sorts by each item of ``_likely``'s key, the
    last first) places the offers as one sort by the whole key does: a pre-job rank
    of the slot's own (its Disk in steps of 7000), equal on several slots, and a
    post-job rank (its Memory) that orders those."""
    monkeypatch.setattr(static_lists, "ORDERED", 1)
    policy = Policy(uid_domain="example.org",
                    negotiator_pre_job_rank="MY.Disk - (MY.Disk % 7000)",
                    negotiator_post_job_rank="MY.Memory")
    fast, _ = run_both([_slot(i) for i in range(96)], _jobs(3), policy)
    lists = fast.mm.lists._static
    order = lists._blocks.places()
    offers = [fast.mm.shapes.registry[k] for found in lists.members.values() for k in found]
    assert offers and any(o.independent.get(PRE) for o in offers)
    assert len({o.independent.get(PRE) for o in offers}) < len(offers) // 2
    assert len({o.independent.get(POST) for o in offers}) == 3
    assert sorted(offers, key=lambda o: order[o.seq]) == sorted(offers, key=static_blocks._likely)


def test_a_narrowed_grouping_is_the_grouping_made_afresh(monkeypatch):
    """As shapes leave, the groups are the last ones narrowed to the shapes left
    (``StaticParts._narrowed``: no value read or sorted again), which are the groups
    a grouping afresh makes of them: the same shapes to ask one by one in their
    order, the same parts, each with the offer standing for it, its shapes, their
    numbers and its columns in order; and the cycle still decides as in full."""
    compared = []
    group = static_parts.StaticParts._group
    narrowed = static_parts.StaticParts._narrowed
    narrowings = []

    def checking(self):  # type: ignore[no-untyped-def]
        group(self)
        fresh = static_parts.StaticParts(self._registry, self._members, self._vectors)
        group(fresh)  # (afresh: no grouping before it)
        assert _grouping(self) == _grouping(fresh)
        compared.append(len(self._members))

    def counting(self):  # type: ignore[no-untyped-def]
        done = narrowed(self)
        narrowings.append(done)
        return done

    monkeypatch.setattr(static_parts.StaticParts, "_group", checking)
    monkeypatch.setattr(static_parts.StaticParts, "_narrowed", counting)
    # (the regrouping pool above, with a third part: slots of 8 GiB whose Disk is
    # no number until the first of them is matched, a part without a Disk column)
    slots = [_slot(i) for i in range(96)] + [
        _slot(i, Memory=8192, Disk='"unknown"' if i == 96 else 40000 + 1000 * i)
        for i in range(96, 104)]
    jobs = ([_job(51, p, "TARGET.Disk >= 40000") for p in range(70)]
            + [_job(52, 0, "TARGET.Memory >= 8192")] + _jobs(6))
    subs = {f"{n}@example.org": Submitter(f"{n}@example.org", eup=500.0 * (1 + i), usage=0.0)
            for i, n in enumerate(USERS)}
    run_both(slots, jobs, POLICY, subs)
    assert len(compared) >= 2 and any(narrowings)


@pytest.mark.parametrize(("bound", "patched", "instead"), [
    ("TARGET.Disk >= 50000", "bisect_left", "bisect_right"),  # slot10 (50000.0) lost
    ("TARGET.Disk <= 60000", "bisect_right", "bisect_left"),  # slot20 (60000.0) lost
])
def test_the_pool_tells_a_bound_off_by_one_shape_apart(monkeypatch, bound, patched, instead):
    """A bisection on the wrong side of equal numbers leaves out the slot exactly on
    the bound: with more jobs than slots, the cycle no longer decides as the
    reference does."""
    slots, jobs = [_slot(i) for i in range(96)], [_job(1, p, bound) for p in range(100)]
    run_both(slots, jobs, POLICY)
    monkeypatch.setattr(box_ranges, patched, getattr(box_ranges, instead))
    with pytest.raises(AssertionError):
        run_both(slots, jobs, POLICY)


def test_a_never_matching_part_is_never_asked(monkeypatch):
    """The X86_64 classes ask no shape of the aarch64 part, neither by its program
    nor in full: their program of it never matches."""
    asked: list[int] = []
    holder, within = StaticLists._holder, static_parts.Part.within

    def spying(self, key, job_ad, known_pairs, pair, column):  # type: ignore[no-untyped-def]
        def counted(offer):  # type: ignore[no-untyped-def]
            asked.append(offer.shape)
            return pair(offer)
        return holder(self, key, job_ad, known_pairs, counted, column)

    def listed(self, program):  # type: ignore[no-untyped-def]
        shapes = within(self, program)
        asked.extend(shapes)
        return shapes

    monkeypatch.setattr(StaticLists, "_holder", spying)
    monkeypatch.setattr(static_parts.Part, "within", listed)
    fast, _ = run_both([_slot(i) for i in range(96)], _jobs(2), POLICY)
    arches = {o.shape: adeval.attr(o.ad, "Arch").value for o in fast.offers}
    assert asked and all(arches[shape] == "X86_64" for shape in asked)


# -- Part.within on its own -----------------------------------------------------------

_NUMBERS = st.one_of(
    st.integers(-5, 5), st.sampled_from([0.0, -0.0, 2.5, -2.5, 3.0, 2**53, 2**53 + 1,
                                         float(2**53), 2**62, -2**63, math.inf, -math.inf]))
_OPS = st.sampled_from([">=", ">", "<=", "<", "==", "!="])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_NUMBERS, _NUMBERS), min_size=1, max_size=12),
       st.lists(st.tuples(st.integers(0, 1), _OPS, _NUMBERS), max_size=4))
def test_within_never_leaves_out_a_matching_shape(vals, bounds):
    tests = [bound_test(index, op, number) for index, op, number in bounds]
    zero = Constant(0.0)
    program = PairProgram([], tests, zero, zero, [], as_rank, width=2)
    shapes = list(range(len(vals)))
    axes = [box_ranges.column(shapes, [v[i] for v in vals]) for i in range(2)]
    part = static_parts.Part(None, shapes, axes, dict(enumerate(vals)))  # type: ignore[arg-type]
    within = set(part.within(program))
    for shape, shape_vals in enumerate(vals):
        if program.run(shape_vals, as_rank)[0]:
            assert shape in within


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_NUMBERS, _NUMBERS), min_size=1, max_size=12),
       st.lists(st.tuples(st.integers(0, 1), _OPS, _NUMBERS), max_size=4),
       st.booleans())
def test_split_is_sure_of_matching_shapes_only(vals, bounds, ranked):
    """``Part.split``: every shape it is sure of matches, with the outcome ``run``
    gives (``passed``); with those it tries, no matching shape is left out, and
    none is both."""
    tests = [bound_test(index, op, number) for index, op, number in bounds]
    zero = Constant(0.0)
    rank = _first if ranked else zero  # (a rank read per shape, or one outcome)
    program = PairProgram([], tests, rank, zero, [], as_rank, width=2)
    shapes = list(range(len(vals)))
    axes = [box_ranges.column(shapes, [v[i] for v in vals]) for i in range(2)]
    part = static_parts.Part(None, shapes, axes, dict(enumerate(vals)))  # type: ignore[arg-type]
    found = part.split(program) if program.box else None
    if found is None:
        return
    assert not set(found.sure) & set(found.tried)
    for shape in found.sure:
        assert program.run(vals[shape], as_rank) == program.passed(vals[shape], as_rank)
    for shape, shape_vals in enumerate(vals):
        if program.run(shape_vals, as_rank)[0]:
            assert shape in found.sure or shape in found.tried


def _first(vals):  # type: ignore[no-untyped-def]
    """A residual reading the vector's first number (a rank that varies)."""
    return vals[0]


def test_split_tries_shapes_on_a_bound_and_gives_up_on_other_numbers():
    """A shape whose number equals a strict bound's is tried, not sure (``x > c``
    fails there), as is one whose number rounds to a large integer bound's; a bound
    on another number that some shape fails leaves no split."""
    vals = {0: (1, 5), 1: (2, 5), 2: (3, 6), 3: (4, 6)}
    shapes = list(vals)
    axes = [box_ranges.column(shapes, [v[i] for v in vals.values()]) for i in range(2)]
    part = static_parts.Part(None, shapes, axes, vals)  # type: ignore[arg-type]
    zero = Constant(0.0)
    program = PairProgram([], [bound_test(0, ">", 2), bound_test(1, ">", 4)], zero, zero,
                          [], as_rank, width=2)
    assert part.split(program) == box_ranges.Split([2, 3], [1])  # (2 > 2 tried: fails)
    program = PairProgram([], [bound_test(0, "<=", 3)], zero, zero, [], as_rank, width=2)
    assert part.split(program) == box_ranges.Split([0, 1, 2], [])  # (3 <= 3 holds)
    program = PairProgram([], [bound_test(0, ">=", 2**53)], zero, zero, [], as_rank, width=2)
    assert part.split(program) == box_ranges.Split([], [])
    program = PairProgram([], [bound_test(0, ">=", 2), bound_test(1, ">", 5)], zero, zero,
                          [], as_rank, width=2)
    assert part.split(program) is None
    big = {0: (2**53 + 1, 0), 1: (2**53, 0)}  # (both round to 2**53 as reals)
    part = static_parts.Part(None, [0, 1], [box_ranges.column([0, 1], [2**53 + 1, 2**53]),
                                           box_ranges.column([0, 1], [0, 0])], big)  # type: ignore[arg-type]
    program = PairProgram([], [bound_test(0, ">=", 2**53 + 1)], zero, zero, [], as_rank,
                          width=2)
    assert part.split(program) == box_ranges.Split([], [0, 1])  # (only 2**53 + 1 holds)


def test_a_program_that_never_matches_leaves_nothing():
    program = PairProgram([], [Constant(False)], Constant(0.0), Constant(0.0), [], as_rank)
    part = static_parts.Part(None, [1, 2], [box_ranges.column([1, 2], [1, 2])],  # type: ignore[arg-type]
                             {1: (1,), 2: (2,)})
    assert program.never and not part.within(program)
    assert list(part.within(None)) == [1, 2]  # (no program: every shape asked)



def test_a_lists_alive_count_is_its_available_offers(monkeypatch):
    """``StaticLists.entries`` counts a list's available offers by its shapes'
    members dicts (emptied in place as offers leave): at every call the count is the
    number of available offers among the list's entries, and lists are compacted as
    half of them leave."""
    entries = StaticLists.entries
    #: class key -> the list's length after each call
    sizes: dict[tuple, list[int]] = {}

    def checked(self, key, *args, **kwargs):  # type: ignore[no-untyped-def]
        found = entries(self, key, *args, **kwargs)
        holder = self._of_class[key]
        registry = self.registry
        alive = sum(map(len, holder[1]))
        sizes.setdefault(key, []).append(len(holder[0]))
        assert alive == sum(registry[e[ENTRY_IDX]].available for e in holder[0])
        return found

    monkeypatch.setattr(StaticLists, "entries", checked)
    # (one class of three submitters, more jobs than slots: its list is asked again
    # and again as the slots are matched)
    jobs = [_job(c, p, "TARGET.Disk >= 41000") for c in (1, 2, 3) for p in range(50)]
    run_both([_slot(i) for i in range(96)], jobs, POLICY)
    # (a list compacted: its offers more than half gone, it was made again shorter)
    assert any(seen[-1] < seen[0] for seen in sizes.values())


def test_one_offer_entries_are_made_once_per_ranks_and_offer(monkeypatch):
    """A one-offer shape's entry is made once per (ranks' number, offer) and handed
    to every list of those ranks (``StaticLists._singles``), dependent ranks
    included: each list's entries equal ``make_entries``' and later lists take the
    same tuples. The pre-job rank reads the job (dependent ranks), every slot its own
    ``Disk`` (one-offer shapes); classes of two bounds and three ``RequestMemory``
    (three dependent ranks per slot): lists of one rank share entries, lists of
    another make their own (keyed by the job rank alone, they would be wrong)."""
    singles = StaticLists._singles
    made: dict[tuple[int, int], tuple] = {}
    shared = []
    dependent = []

    def checked(self, rank, seqs, pe, column):  # type: ignore[no-untyped-def]
        out = singles(self, rank, seqs, pe, column)
        dependent.append(bool(pe.dependent))
        assert out == make_entries(self.registry, seqs, pe, NO_PREEMPTION, column=column)
        for k, entry in zip(seqs, out, strict=True):
            if (rank, k) in made:
                assert made[rank, k] is entry
                shared.append(k)
            made[rank, k] = entry
        return out

    monkeypatch.setattr(StaticLists, "_singles", checked)
    policy = Policy(uid_domain="example.org",
                    negotiator_pre_job_rank="TARGET.RequestMemory - MY.Memory")
    jobs = [_job(c, p, f"TARGET.Disk >= {41000 + 1000 * (c % 2)}",
                 RequestMemory=1000 + 100 * (c // 2)) for c in (1, 2, 3, 4, 5, 6)
            for p in range(30)]
    run_both([_slot(i) for i in range(96)], jobs, policy)
    assert any(dependent)
    assert shared


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(_NUMBERS | st.sampled_from(["x", math.nan]), _NUMBERS),
                min_size=2, max_size=12),
       st.data())
def test_a_narrowed_part_has_the_columns_made_afresh(vals, data):
    """``Part.narrowed``: each column filtered in its order is the column made of
    the shapes left (ties in the shapes' order, equal reals and integers alike), and
    a column that could not be made (a value no number, a NaN) is made again of the
    values left."""
    shapes = list(range(len(vals)))
    axes = [box_ranges.column(shapes, [v[i] for v in vals]) for i in range(2)]
    part = static_parts.Part(None, shapes, axes, dict(enumerate(vals)))  # type: ignore[arg-type]
    left = data.draw(st.lists(st.sampled_from(shapes), min_size=1, unique=True))
    members = {shape: {shape: None} for shape in sorted(left)}
    kept = [shape for shape in shapes if shape in members]
    narrowed = part.narrowed(kept, None, members)  # type: ignore[arg-type]
    assert narrowed.shapes == kept and narrowed.vals == {s: vals[s] for s in kept}
    if len(kept) < static_parts.SORTED:
        return
    for index in range(2):
        fresh = box_ranges.column(kept, [vals[s][index] for s in kept])
        assert narrowed.axes[index] == fresh
