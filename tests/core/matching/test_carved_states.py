"""``carved_states``: what a match leaves of an offer with a resource vector.

A carved state's job-independent ranks are remembered per (rank signature, the typed
values of the vector positions the rank programs read, ``RankPlan.reads``), so states
that differ only in a resource no rank reads (each slot's own Disk share) share them.
Whatever the policy ranks read, every carved offer's ranks must equal the full
evaluation of each rank on its current ad, in the policy's order, and the cycle's
answer must be the plain cycle's; the constant ranks merge in one step only when
they come last (``RankPlan.tail``).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from condorlite.core import adeval
from condorlite.core.classad.values import Undefined
from condorlite.core.matching import carved_states
from condorlite.core.matching.candidates import as_rank
from condorlite.core.matching.policy_exprs import PolicyExprs
from condorlite.core.matching.slot_vectors import SlotVector, lefts, moves_of, rest_state, typed
from condorlite.core.negotiation import negotiator
from condorlite.core.policy import DEFAULT_POST_JOB_RANK, DEFAULT_PRE_JOB_RANK, Policy
from tests.core._pool import decoded_pool

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import genpool  # a script directory, not a package

NOW = 1_700_000_000

#: (pre, post): the default pair (pre reads Cpus and Memory, post no resource), a
#: pre that reads Disk alone, one that reads every resource, and a constant pre
#: ahead of a post that reads Memory (the constant rank first: no single merge)
POLICIES = [
    (DEFAULT_PRE_JOB_RANK, DEFAULT_POST_JOB_RANK),
    ("Disk / 1000", DEFAULT_POST_JOB_RANK),
    ("Cpus * 1000000 + Memory * 1000 - Disk", "KFlops"),
    ("SlotID", "Memory - Cpus"),
]


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def _pool(tmp_path: Path, policy: Policy):
    spec = genpool.PoolSpec(slots=60, jobs=900, submitters=4, autoclusters=14, seed=3,
                            realistic=True, unique=True, partitionable_fraction=1.0,
                            disk_share=True)
    return decoded_pool(genpool.write_pool(spec, tmp_path), policy, True)


@pytest.mark.parametrize(("pre", "post"), POLICIES)
def test_carved_ranks_are_the_full_evaluation(tmp_path, monkeypatch, pre, post) -> None:
    """Every carved offer's ranks equal their evaluation on its ad, in the policy's
    order; under the default ranks, which read no Disk, carved states share their
    ranks (fewer evaluations than states)."""
    policy = Policy(uid_domain="example.org", negotiator_pre_job_rank=pre,
                    negotiator_post_job_rank=post)
    slots, jobs = _pool(tmp_path, policy)
    runs: list[int] = []
    steps: list[tuple] = []
    original, carve = carved_states.CarvedStates._carved_ranks, carved_states.CarvedStates.carve

    def counting(self, offer, plan, vals):
        runs.append(1)
        return original(self, offer, plan, vals)

    def carving(self, offer, taken):
        # (every carve's state: a step's, a remembered transition's, or an unkeyed
        # step's, ``_unkeyed_step``)
        carve(self, offer, taken)
        steps.append((offer.vector.rank_sig, offer.vector.vals))

    monkeypatch.setattr(carved_states.CarvedStates, "_carved_ranks", counting)
    monkeypatch.setattr(carved_states.CarvedStates, "carve", carving)
    cycle = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
    cycle.run()
    exprs = PolicyExprs.from_policy(policy)
    carved = [o for o in cycle.offers if o.vector is not None and o.stamps]
    assert len(carved) > 20
    for offer in carved:
        assert list(offer.independent) == list(offer.vector.rank_keys)
        for key, expr in exprs.ranks(offer.holder is not None):
            want = as_rank(adeval.eval_expr(expr, offer.ad, None, NOW))
            assert _same(offer.independent[key], want), (offer.name, key)
    if pre == DEFAULT_PRE_JOB_RANK:
        # (no rank reads Disk, every slot's own share: states share their ranks)
        assert len(runs) < len(set(steps))


def test_the_plan_reads_the_positions_the_ranks_reach(tmp_path) -> None:
    """The default pre-job rank reads Cpus and Memory of the vector, not Disk; the
    post-job rank is each slot's constant. A pre that reads Disk reads only it."""
    for pre, names in ((DEFAULT_PRE_JOB_RANK, ["cpus", "memory"]), ("Disk / 1000", ["disk"])):
        policy = Policy(uid_domain="example.org", negotiator_pre_job_rank=pre)
        slots, jobs = _pool(tmp_path / pre[:4], policy)
        cycle = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
        cycle.run()
        carved = cycle.mm.shapes._carved
        assert carved._rank_plans
        for offer in (o for o in cycle.offers if o.vector is not None and o.stamps):
            plan = carved._rank_plans[offer.vector.rank_sig]
            assert [rank for rank, _, _ in plan.ranks] == ["pre"] and plan.tail
            read = plan.reads(offer.vector.names)
            assert (list(read) if isinstance(read, tuple) else [read]) == names


def test_a_plan_of_constants_reads_nothing() -> None:
    plan = carved_states.RankPlan([("pre", None, 1.0)], set(), True)
    assert plan.reads((5, 6)) == ()
    assert carved_states.RankPlan([("pre", None, None)], None, False).reads is None
    two = carved_states.RankPlan([], {2, 0}, True)
    assert two.reads(("a", "b", "c")) == ("a", "c")


def test_a_step_numbers_the_new_state_as_shape_of_does(tmp_path, monkeypatch) -> None:
    """``_step`` numbers a carved state's pair shape and shape itself (no
    ``shape_of`` call) and derives the state's ``shape_left`` from the carved
    state's: every step's outcome is what ``OfferShapes.shape_of`` gives for the new
    state, and its shape's amounts are ``lefts`` of the new values."""
    policy = Policy(uid_domain="example.org")
    slots, jobs = _pool(tmp_path, policy)
    monkeypatch.setattr(carved_states, "NEW_STATES", 10 ** 9)  # (states keyed)
    step = carved_states.CarvedStates._step
    checked: list[int] = []

    def checking(self, offer, vector, taken):
        found = step(self, offer, vector, taken)
        shapes = self._shapes
        _, vals, _, pair_shape, shape, _ = found
        state = typed(vals)
        assert shapes.pair_shapes[("vector", vector.static, state)] == pair_shape
        assert shapes.pair_of_shape[shape] == pair_shape
        assert shapes.shape_left[shape] == lefts(vals)
        holder = offer.holder
        assert shapes.shape_numbers[(pair_shape, holder, None if holder is None
                                     else offer.current_rank)] == shape
        checked.append(shape)
        return found

    monkeypatch.setattr(carved_states.CarvedStates, "_step", checking)
    cycle = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
    cycle.run()
    assert len(set(checked)) > 20


@pytest.mark.parametrize("disk_share", [True, False])
def test_a_step_gives_each_new_number_once_and_keeps_the_known_ones(
        tmp_path, monkeypatch, disk_share) -> None:
    """``_step`` numbers a state by one ``setdefault`` per table: after every step
    the pair shapes and the shapes are each numbered 1..n, every number given once;
    a state already numbered keeps its pair shape, shape and ``shape_left`` (the
    very tuple: not replaced), and a new one gets the next number of each table.
    Transitions given up, so that steps meet states other offers made before (with
    slots of one kind and no disk share of their own, many do)."""
    policy = Policy(uid_domain="example.org")
    spec = genpool.PoolSpec(slots=60, jobs=900, submitters=4, autoclusters=14, seed=3,
                            realistic=True, unique=disk_share,
                            partitionable_fraction=1.0, disk_share=disk_share)
    slots, jobs = decoded_pool(genpool.write_pool(spec, tmp_path), policy, True)
    monkeypatch.setattr(carved_states, "TRIES", 1)
    monkeypatch.setattr(carved_states, "SHARE", 10 ** 9)
    monkeypatch.setattr(carved_states, "NEW_STATES", 10 ** 9)  # (states keyed)
    step = carved_states.CarvedStates._step
    met = {"new": 0, "known": 0}

    def checking(self, offer, vector, taken):
        shapes = self._shapes
        pairs, numbers = dict(shapes.pair_shapes), len(shapes.shape_numbers)
        lefts_before = dict(shapes.shape_left)
        found = step(self, offer, vector, taken)
        _, vals, _, pair_shape, shape, _ = found
        key = ("vector", vector.static, typed(vals))
        if key in pairs:
            met["known"] += 1
            assert pair_shape == pairs[key]
            assert len(shapes.pair_shapes) == len(pairs)
        else:
            met["new"] += 1
            assert pair_shape == len(pairs) + 1 == len(shapes.pair_shapes)
        if shape in lefts_before:
            assert shapes.shape_left[shape] is lefts_before[shape]
            assert len(shapes.shape_numbers) == numbers
        else:
            assert shape == numbers + 1 == len(shapes.shape_numbers)
        for table in (shapes.pair_shapes, shapes.shape_numbers):
            assert sorted(table.values()) == list(range(1, len(table) + 1))
        assert shapes.pair_count == len(shapes.pair_shapes)
        assert shapes.shape_count == len(shapes.shape_numbers)
        assert shapes.pair_of_shape[shape] == pair_shape
        assert shapes.shape_left[shape] == lefts(vals)
        return found

    monkeypatch.setattr(carved_states.CarvedStates, "_step", checking)
    cycle = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
    cycle.run()
    assert cycle.mm.shapes._carved.counts is None
    assert met["new"] > 20
    if not disk_share:
        assert met["known"] > 20


def test_transitions_given_up_decide_as_remembered_ones(tmp_path, monkeypatch) -> None:
    """Once transitions are given up (``TRIES``, ``SHARE``: here after the first
    miss) every carve is its own step, and the cycle decides as one that remembers
    them all, with the same offers' ranks and shapes (this pool's slots each have a
    ``Disk`` share of their own: the defaults give up on it too)."""
    policy = Policy(uid_domain="example.org")
    slots, jobs = _pool(tmp_path, policy)
    monkeypatch.setattr(carved_states, "NEW_STATES", 10 ** 9)  # (states keyed in both)
    monkeypatch.setattr(carved_states, "TRIES", 10 ** 9)  # (never given up)
    kept = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
    kept.run()
    monkeypatch.setattr(carved_states, "TRIES", 1)
    monkeypatch.setattr(carved_states, "SHARE", 10 ** 9)
    given_up = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
    given_up.run()
    assert kept.mm.shapes._carved.counts is not None
    assert given_up.mm.shapes._carved.counts is None
    one, two = kept.result(), given_up.result()
    assert one.matches and one.matches == two.matches and one.rejections == two.rejections
    assert [(o.shape, o.pair_shape, o.independent, o.vector and o.vector.vals)
            for o in kept.offers] == [(o.shape, o.pair_shape, o.independent,
                                      o.vector and o.vector.vals) for o in given_up.offers]


@pytest.mark.parametrize("tries", [10 ** 9, 1])
@pytest.mark.parametrize("disk_share", [True, False])
def test_states_numbered_without_keys_decide_as_keyed_ones(tmp_path, monkeypatch,
                                                           disk_share, tries) -> None:
    """Once states are numbered without their keys (``NEW_STATES``, ``SHARE``: here
    from the first new state) every step gives its state the next pair shape and the
    next shape (``pair_count``, ``shape_count``), each number given once (with the
    keyed ones) and neither table changed, with the state's ``pair_of_shape`` and
    ``shape_left``; and the cycle
    decides as one that keys every state, with the same offers' values and ranks.
    Without a disk share of their own, slots of one kind carve equal states, which
    then have numbers of their own (met more than 10 times): the pair results
    worked out again for them are the same. With transitions remembered (``TRIES``
    never reached) the steps are ``_step``'s; given up from the first, once states
    are numbered without keys too, ``_unkeyed_step``'s, which places the offer
    itself in its new shape (in no box before, joined once)."""
    policy = Policy(uid_domain="example.org")
    spec = genpool.PoolSpec(slots=60, jobs=900, submitters=4, autoclusters=14, seed=3,
                            realistic=True, unique=disk_share,
                            partitionable_fraction=1.0, disk_share=disk_share)
    slots, jobs = decoded_pool(genpool.write_pool(spec, tmp_path), policy, True)
    monkeypatch.setattr(carved_states, "NEW_STATES", 10 ** 9)
    keyed = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
    keyed.run()
    monkeypatch.setattr(carved_states, "NEW_STATES", 1)
    monkeypatch.setattr(carved_states, "SHARE", 10 ** 9)
    monkeypatch.setattr(carved_states, "TRIES", tries)
    carve = carved_states.CarvedStates.carve
    seen: set[tuple] = set()
    met = {"steps": 0, "again": 0, "own": 0}
    #: the numbers given without keys
    loose: dict[str, list[int]] = {"pairs": [], "shapes": []}

    def checking(self, offer, taken):
        shapes, vector = self._shapes, offer.vector
        tables = dict(shapes.pair_shapes), dict(shapes.shape_numbers)
        pairs, numbers = shapes.pair_count, shapes.shape_count
        unkeyed = self.keyed is None
        own = unkeyed and self.counts is None  # (``_unkeyed_step``)
        hits = None if self.counts is None else self.counts[0]
        box, before = offer.box, offer.shape
        carve(self, offer, taken)
        if self.counts is not None and self.counts[0] != hits:
            return  # (a remembered transition: no step)
        vals, pair_shape, shape = vector.vals, offer.pair_shape, offer.shape
        if own:
            met["own"] += 1
            assert shape not in tables[1].values() and offer.seq in box[shape]
            assert before not in box or offer.seq not in box[before]
            assert shapes.joins[shape] == 1
        if unkeyed:
            met["steps"] += 1
            assert pair_shape == pairs + 1 == shapes.pair_count
            assert shape == numbers + 1 == shapes.shape_count
            assert (shapes.pair_shapes, shapes.shape_numbers) == tables
            loose["pairs"].append(pair_shape)
            loose["shapes"].append(shape)
            key = ("vector", vector.static, typed(vals))
            met["again"] += key in seen or key in shapes.pair_shapes
            seen.add(key)
        for table, numbered, count in ((shapes.pair_shapes, loose["pairs"],
                                        shapes.pair_count),
                                       (shapes.shape_numbers, loose["shapes"],
                                        shapes.shape_count)):
            assert sorted([*table.values(), *numbered]) == list(range(1, count + 1))
        assert shapes.pair_of_shape[shape] == pair_shape
        assert shapes.shape_left[shape] == lefts(vals)

    monkeypatch.setattr(carved_states.CarvedStates, "carve", checking)
    unkeyed = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
    unkeyed.run()
    assert keyed.mm.shapes._carved.keyed is not None
    assert unkeyed.mm.shapes._carved.keyed is None
    assert met["steps"] > 20
    assert (met["own"] == met["steps"]) if tries == 1 else not met["own"]
    if not disk_share:
        assert met["again"] > 10
    one, two = keyed.result(), unkeyed.result()
    assert one.matches and one.matches == two.matches and one.rejections == two.rejections
    assert [(o.independent, o.vector and o.vector.vals) for o in keyed.offers] == [
        (o.independent, o.vector and o.vector.vals) for o in unkeyed.offers]


@pytest.mark.parametrize("disk_share", [True, False])
def test_states_are_keyed_until_the_rule_gives_them_up(tmp_path, monkeypatch,
                                                       disk_share) -> None:
    """The rule (``NEW_STATES``, ``SHARE``): every keyed step counts its state as
    known or new, and the states are numbered without their keys from the step
    after the first new state that makes ``NEW_STATES`` new ones with fewer than
    one in ``SHARE`` known, not before (slots of one kind meet each other's states:
    some are known)."""
    policy = Policy(uid_domain="example.org")
    spec = genpool.PoolSpec(slots=60, jobs=900, submitters=4, autoclusters=14, seed=3,
                            realistic=True, unique=disk_share,
                            partitionable_fraction=1.0, disk_share=disk_share)
    slots, jobs = decoded_pool(genpool.write_pool(spec, tmp_path), policy, True)
    monkeypatch.setattr(carved_states, "NEW_STATES", 20)
    step = carved_states.CarvedStates._step
    counts = {"known": 0, "new": 0, "after": 0}

    def checking(self, offer, vector, taken):
        shapes = self._shapes
        keyed = self.keyed  # (the counts, as the step leaves them)
        known = ("vector", vector.static, typed(rest_state(vector.vals, moves_of(
            vector, taken))[0])) in shapes.pair_shapes
        found = step(self, offer, vector, taken)
        if keyed is None:
            counts["after"] += 1
            assert self.keyed is None
            return found
        counts["known" if known else "new"] += 1
        assert keyed == [counts["known"], counts["new"]]
        done = not known and counts["new"] >= 20 and \
            counts["known"] * carved_states.SHARE < counts["new"]
        assert (self.keyed is None) == done
        return found

    monkeypatch.setattr(carved_states.CarvedStates, "_step", checking)
    negotiator.Cycle(slots, jobs, {}, [], policy, NOW).run()
    assert counts["new"] >= 20 and counts["after"] > 20
    if not disk_share:
        assert counts["known"] > 0


def test_a_carve_keeps_each_box_its_shapes_members(tmp_path, monkeypatch) -> None:
    """After every carve the offer's box (its static's shapes) holds each shape's
    members and nothing else: the offer under its new shape, no empty shape, no
    members dict shared by two shapes (a lone offer's dict moves with it to a new
    shape, ``carve``), and the offers of the box's other shapes where they were."""
    policy = Policy(uid_domain="example.org")
    carve = carved_states.CarvedStates.carve
    moved: list[bool] = []

    def checking(self, offer, taken):
        box = offer.box
        before = {shape: dict(members) for shape, members in box.items()}
        lone = len(box[offer.shape]) == 1
        carve(self, offer, taken)
        want: dict[int, dict[int, None]] = {}
        for shape, members in before.items():
            for seq in members:
                if seq != offer.seq:
                    want.setdefault(shape, {})[seq] = None
        want.setdefault(offer.shape, {})[offer.seq] = None
        assert {s: dict(m) for s, m in box.items()} == want
        assert len({id(m) for m in box.values()}) == len(box)
        moved.append(lone and offer.shape not in before)
        return None

    monkeypatch.setattr(carved_states.CarvedStates, "carve", checking)
    for share in (True, False):
        # (a Disk share of each slot's own: every carve a lone move; without it,
        # equal slots share a shape until carved)
        spec = genpool.PoolSpec(slots=60, jobs=900, submitters=4, autoclusters=14, seed=3,
                                realistic=True, unique=True, partitionable_fraction=1.0,
                                disk_share=share)
        slots, jobs = decoded_pool(genpool.write_pool(spec, tmp_path / str(share)), policy,
                                   True)
        negotiator.Cycle(slots, jobs, {}, [], policy, NOW).run()
    assert any(moved) and not all(moved)


_VALUES = st.one_of(st.integers(-10**6, 10**6), st.floats(allow_nan=True, allow_infinity=True),
                    st.sampled_from([0.0, -0.0, 1, 1.0, True, "u046", Undefined]))


@given(st.lists(_VALUES, min_size=3, max_size=3),
       st.dictionaries(st.sampled_from(["Cpus", "Memory", "Disk"]),
                       st.one_of(st.integers(0, 64).map(float),
                                 st.floats(allow_nan=True, allow_infinity=True)), max_size=3))
def test_a_step_leaves_rest_state_and_its_lefts(vals, taken) -> None:
    """``_step`` writes ``slot_vectors.rest_state`` out, reading what a position had
    left from the carved shape's ``shape_left``: the new values (their Python types
    and kinds included) are ``rest_state``'s, and the new shape's amounts are ``lefts``
    of them (a NaN, a string or an infinity minus itself has nothing left)."""
    names = ("cpus", "disk", "memory")
    vector = SlotVector(names, tuple(vals), {n: i for i, n in enumerate(names)})
    want = rest_state(vector.vals, moves_of(vector, taken))
    # (the carved state is shape 1, pair shape 1: the new one is numbered 2)
    shapes = SimpleNamespace(shape_left={1: lefts(vals)}, pair_shapes={"carved": 1},
                             shape_numbers={"carved": 1}, pair_of_shape={1: 1},
                             pair_count=1, shape_count=1,
                             counts=SimpleNamespace(evaluations=0))
    carved = carved_states.CarvedStates(shapes, {})  # type: ignore[arg-type]
    carved._rank_plans[vector.rank_sig] = carved_states.RankPlan([], set(), True)
    offer = SimpleNamespace(shape=1, holder=None, current_rank=0.0)
    _, got, _, pair_shape, shape, _ = carved._step(offer, vector, taken)  # type: ignore[arg-type]
    assert [repr(v) for v in got] == [repr(v) for v in want[0]]
    # (by repr: a NaN left is a new object, equal to no other NaN, so ``want`` and the
    # key the step stored, which holds the step's own values, are compared as text)
    assert [type(v) for v in got] == [type(v) for v in want[0]]
    assert repr(typed(got)) == repr(want)
    assert vector.vals is got and shapes.pair_shapes[("vector", 0, typed(got))] == pair_shape == 2
    assert shape == 2 and shapes.pair_of_shape[2] == 2
    assert [repr(v) for v in shapes.shape_left[shape]] == [repr(v) for v in lefts(got)]


@given(st.lists(_VALUES, min_size=3, max_size=3),
       st.dictionaries(st.sampled_from(["Cpus", "Memory", "Disk"]),
                       st.one_of(st.integers(0, 64).map(float),
                                 st.floats(allow_nan=True, allow_infinity=True)), max_size=3),
       st.sampled_from([{0}, {1, 2}, {0, 1, 2}, set()]))
def test_an_unkeyed_step_is_a_step(vals, taken, read) -> None:
    """``_unkeyed_step`` (transitions and state keys both given up) leaves what
    ``_step`` leaves: the same values (types and kinds included) and ``shape_left``,
    the next pair shape and shape, and the ranks' memo entry ``_step`` made for the
    same state (the memo key is (signature, the values read, their kinds) whether or
    not the kinds are made: ``RankPlan.plain``); the offer is placed in its new shape
    (its one-member dict moved), joined once."""
    names = ("cpus", "disk", "memory")
    carved_vector = SlotVector(names, tuple(vals), {n: i for i, n in enumerate(names)})
    vector = SlotVector(names, tuple(vals), {n: i for i, n in enumerate(names)})
    shapes = SimpleNamespace(shape_left={1: lefts(vals)}, pair_shapes={"carved": 1},
                             shape_numbers={"carved": 1}, pair_of_shape={1: 1},
                             pair_count=1, shape_count=1, joins={}, moved=None,
                             counts=SimpleNamespace(evaluations=0))
    carved = carved_states.CarvedStates(shapes, {})  # type: ignore[arg-type]
    plan = carved_states.RankPlan([], read, True)
    assert plan.plain == (plan.reads((0, 0, 0)) if read else ())
    carved._rank_plans[vector.rank_sig] = plan
    keyed = SimpleNamespace(shape=1, holder=None, current_rank=0.0)
    _, want, ranks, _, _, _ = carved._step(keyed, carved_vector, taken)  # type: ignore[arg-type]
    carved.keyed = carved.counts = None
    box = {1: {7: None}}
    offer = SimpleNamespace(shape=1, seq=7, box=box, holder=None, current_rank=0.0,
                            vector=vector)
    carved._unkeyed_step(offer, vector, taken)  # type: ignore[arg-type]
    got = vector.vals
    assert [repr(v) for v in got] == [repr(v) for v in want]
    assert [type(v) for v in got] == [type(v) for v in want]
    assert offer.pair_shape == 3 and offer.shape == 3 == shapes.shape_count
    assert shapes.pair_of_shape[3] == 3 and shapes.joins == {3: 1} and box == {3: {7: None}}
    assert [repr(v) for v in shapes.shape_left[3]] == [repr(v) for v in lefts(got)]
    read_vals = [got[pos] for pos in read]
    if all(v == v for v in read_vals):  # (a NaN read keys no memo entry twice)
        assert offer.independent is ranks and len(carved._independent_memo) == 1
