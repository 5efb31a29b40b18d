"""``ordered_make``: the C loop and the Python one make the same entries of the same
items, stop at the same item, store the same pair results and call ``run`` on the same
states in the same order, whatever the groups, bounds, requests, known pairs, box,
rank column and post-job ranks; errors are raised alike."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core.classad import oldscan
from condorlite.core.matching import (
    carve_amounts,
    carved_states,
    literal_states,
    ordered_make,
    ordered_states,
    static_orders,
)
from condorlite.core.matching.candidates import DEPENDENT, FLT_MAX, NO_MATCH, POST, make_pair
from condorlite.core.model import NO_PREEMPTION
from condorlite.core.negotiation import negotiator
from condorlite.core.policy import Policy
from tests.core._pool import decoded_pool
from tests.core.negotiation.test_equivalence import _fingerprint

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import genpool  # a script directory, not a package

NOW = 1_700_000_000


def ordered_pslot_pool(tmp_path: Path, monkeypatch, seed: int, disk_share: bool) -> tuple:
    """(policy, slots, jobs) of a realistic partitionable pool of 80 slots and 1,200
    jobs (owner literals split the statics, ranks read the resources; each slot's own
    Disk share when ``disk_share``), no preemption, every static ordered (statics this
    small are walked, not ordered, by default: ``ORDER_MIN`` set to 1)."""
    policy = Policy(preemption_requirements="False")
    spec = genpool.PoolSpec(slots=80, jobs=1200, submitters=5, autoclusters=18, seed=seed,
                            realistic=True, unique=True, partitionable_fraction=1.0,
                            owner_start_fraction=0.3, disk_share=disk_share)
    slots, jobs = decoded_pool(genpool.write_pool(spec, tmp_path), policy, True)
    monkeypatch.setattr(static_orders, "ORDER_MIN", 1)
    return policy, slots, jobs

TAIL = (-3, FLT_MAX, NO_PREEMPTION)
#: keys of groups, sorted (a snapshot's -pre: never a NaN, zeros of both signs)
_KEYS = st.lists(st.sampled_from([-5.0, -1.5, -0.0, 0.0, 2.0, 7.25, FLT_MAX]), min_size=0,
                 max_size=14).map(sorted)
_AMOUNT = st.sampled_from([0.0, 1.0, 2.0, 4.0, 8.0, math.nan, math.inf])


def _pair(seed: int):
    """A pair result by ``seed``: no match, or a match with its ranks (a dependent
    post-job rank among them)."""
    if seed % 3 == 0:
        return NO_MATCH
    return make_pair((True, float(seed), 0.0, {POST: seed / 7}, {"Cpus": 1.0}))


@st.composite
def _cases(draw):
    keys = draw(_KEYS)
    shapes = draw(st.integers(1, 5))
    left = {s: tuple(draw(st.lists(_AMOUNT, min_size=3, max_size=3))) for s in range(shapes)}
    pair_of = {s: draw(st.integers(0, 4)) for s in range(shapes)}
    items = []
    for i, key in enumerate(keys):
        shape = draw(st.integers(0, shapes - 1))
        post = draw(st.one_of(st.just(DEPENDENT), st.sampled_from([0.0, -2.5, 3.0])))
        items.append((key, i, draw(st.integers(0, 3)), shape, post, (i, shape),
                      f"slot{i}", ()))
    requests = [(pos, amount) for pos, amount in
                draw(st.lists(st.tuples(st.integers(0, 2), _AMOUNT), max_size=3))]
    known = {p: _pair(draw(st.integers(0, 9))) for p in draw(st.sets(st.integers(0, 4)))}
    boxed = draw(st.one_of(st.none(), st.integers(1, 9).map(_pair)))
    kept = draw(st.one_of(st.none(), st.just({i: (None, i * 1.5) for i in range(len(keys))})))
    at = draw(st.integers(0, len(keys)))
    room = draw(st.one_of(st.none(), st.integers(-1, 6)))
    last = draw(st.one_of(st.none(), st.sampled_from([-1.5, 0.0, 2.0, 100.0])))
    return items, at, room, last, requests, left, pair_of, known, boxed, kept


def _run_with(make, case):
    items, at, room, last, requests, left, pair_of, known, boxed, kept = case
    known = dict(known)
    calls: list[tuple] = []

    def run(vals, key):
        calls.append((vals, key))
        return _pair(vals[0] * 5 + vals[1])

    batch: list[tuple] = [("before",)]
    out = make(items, at, room, last, requests, left, pair_of, known, boxed, kept, run,
               batch, DEPENDENT, POST, TAIL)
    return out, repr(batch), repr(sorted(known.items())), calls


@pytest.mark.skipif(not oldscan.AVAILABLE, reason="the compiled module was not built")
@settings(max_examples=500, deadline=None)
@given(_cases())
def test_compiled_and_python_ordered_make_agree(case) -> None:
    want = _run_with(ordered_make.python_ordered_make, case)
    got = _run_with(ordered_make._compiled, case)
    assert got == want
    (at, evaluations), _, _, calls = want
    assert case[1] <= at <= len(case[0]) and evaluations >= len(calls)


def test_python_ordered_make_by_hand() -> None:
    """Groups stop the loop only at their first item: with room for none, the first
    group is made whole; the state short of a request is passed over; a box's result
    is stored once per pair shape and counted; a pair that does not match makes no
    entry."""
    left = {0: (4.0, 4.0, 4.0), 1: (0.0, 4.0, 4.0)}
    items = [(-2.0, 0, 1, 0, 1.0, (0,), "a", ()), (-2.0, 1, 1, 1, 1.0, (1,), "b", ()),
             (-2.0, 2, 1, 0, DEPENDENT, (2,), "c", ()), (-1.0, 3, 1, 0, 1.0, (3,), "d", ())]
    boxed = make_pair((True, 5.0, 0.0, {POST: 9.0}, {}))
    known: dict = {}
    batch: list[tuple] = []
    at, evaluations = ordered_make.python_ordered_make(
        items, 0, 0, None, [(0, 1.0)], left, {0: 7, 1: 8}, known, boxed, None,
        lambda vals, key: NO_MATCH, batch, DEPENDENT, POST, TAIL)
    assert (at, evaluations) == (3, 1) and known == {7: boxed}
    assert batch == [(-2.0, -5.0, -1.0, *TAIL[:2], "a", 0, 1, NO_PREEMPTION),
                     (-2.0, -5.0, -9.0, *TAIL[:2], "c", 2, 1, NO_PREEMPTION)]
    batch = []
    at, evaluations = ordered_make.python_ordered_make(
        items, 3, None, -1.5, [], left, {0: 7, 1: 8}, {}, None, None,
        lambda vals, key: NO_MATCH, batch, DEPENDENT, POST, TAIL)
    assert (at, evaluations, batch) == (3, 0, [])


@pytest.mark.skipif(not oldscan.AVAILABLE, reason="the compiled module was not built")
def test_compiled_ordered_make_raises_as_python_does() -> None:
    items = [(-2.0, 0, 1, 5, 1.0, (0,), "a", ())]

    def failing(vals, key):
        raise ZeroDivisionError

    for make in (ordered_make.python_ordered_make, ordered_make._compiled):
        with pytest.raises(KeyError):  # (a shape with no amounts left)
            make(items, 0, None, None, [], {}, {5: 1}, {}, None, None, failing, [],
                 DEPENDENT, POST, TAIL)
        with pytest.raises(ZeroDivisionError):  # (the program's run)
            make(items, 0, None, None, [], {5: ()}, {5: 1}, {}, None, None, failing, [],
                 DEPENDENT, POST, TAIL)


@st.composite
def _literal_cases(draw):
    """An ordered case with offsets: ``extra`` items of their own keys (sorted), a
    ``group`` of an item's values and the groups passed over."""
    case = draw(_cases())
    shapes = len(case[5])
    extra = []
    for i, key in enumerate(draw(_KEYS)):
        shape = draw(st.integers(0, shapes - 1))
        extra.append((key, 100 + i, 1, shape, draw(st.sampled_from([DEPENDENT, 1.0])),
                      (100 + i, shape), f"x{i}", ()))
    skip = frozenset(draw(st.sets(st.integers(0, 2))))
    xat = draw(st.integers(0, len(extra)))
    kept = case[9]
    if kept is not None:  # (the offsets' offers have their column values too)
        case = (*case[:9], {**kept, **{item[1]: (None, -0.5) for item in extra}})
    return case, extra, xat, skip


def _run_literal(make, lcase):
    case, extra, xat, skip = lcase
    items, at, room, last, requests, left, pair_of, known, boxed, kept = case
    known = dict(known)
    calls: list[tuple] = []
    groups: list[tuple] = []

    def run(vals, key):
        calls.append((vals, key))
        return _pair(vals[0] * 5 + vals[1])

    def group(vals):
        groups.append(vals)
        return vals[0] % 3

    batch: list[tuple] = []
    out = make(items, at, extra, xat, skip, group, room, last, requests, left, pair_of,
               known, boxed, kept, run, batch, DEPENDENT, POST, TAIL)
    return out, repr(batch), repr(sorted(known.items())), calls, groups


@pytest.mark.skipif(not oldscan.AVAILABLE, reason="the compiled module was not built")
@settings(max_examples=500, deadline=None)
@given(_literal_cases())
def test_compiled_and_python_literal_make_agree(lcase) -> None:
    want = _run_literal(ordered_make.python_literal_make, lcase)
    got = _run_literal(ordered_make._compiled_literal, lcase)
    assert got == want


def test_python_literal_make_merges_and_skips() -> None:
    """An offset's item comes first on equal keys, an item of a skipped group is passed
    over (counted in ``at``), and ``run`` gets the item's key; with no offsets and
    nothing skipped the loop is ``python_ordered_make``'s."""
    left = {0: (4.0,)}
    items = [(-2.0, 0, 1, 0, 1.0, (0,), "a", ()), (-1.0, 1, 1, 0, 1.0, (1,), "b", ())]
    extra = [(-2.0, 9, 1, 0, 1.0, (9,), "x", ())]
    calls = []

    def run(vals, key):
        calls.append(key)
        return make_pair((True, 1.0, 0.0, {}, {}))

    batch: list[tuple] = []
    out = ordered_make.python_literal_make(
        items, 0, extra, 0, frozenset({1}), lambda vals: vals[0], None, None, [], left,
        {0: 5}, {}, None, None, run, batch, DEPENDENT, POST, TAIL)
    assert out == (2, 1, 1) and calls == [-2.0]
    assert [entry[5] for entry in batch] == ["x", "a"]
    batch = []
    out = ordered_make.python_literal_make(
        items, 0, [], 0, frozenset(), lambda vals: 0, None, None, [], left, {0: 5},
        {}, None, None, run, batch, DEPENDENT, POST, TAIL)
    plain: list[tuple] = []
    assert out[:2] == (2, 0) and ordered_make.python_ordered_make(
        items, 0, None, None, [], left, {0: 5}, {}, None, None, run,
        plain, DEPENDENT, POST, TAIL)[0] == 2 and plain == batch


def test_pure_python_is_chosen_at_import() -> None:
    code = ("from condorlite.core.matching import ordered_make as o, carve_amounts as c; "
            "print(o.ordered_make is o.python_ordered_make and "
            "o.literal_make is o.python_literal_make and "
            "c.carve_amounts is c.python_carve_amounts)")
    env = {**os.environ, "CONDORLITE_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "True"


@pytest.mark.skipif(not oldscan.AVAILABLE, reason="the compiled module was not built")
@pytest.mark.parametrize("disk_share", [True, False])
def test_a_cycle_by_the_python_loops_decides_as_by_the_c_ones(monkeypatch, tmp_path,
                                                              disk_share) -> None:
    """The whole cycle on a realistic partitionable pool (owner literals split the
    statics, ranks read the resources; each slot's own Disk share or not; every static
    ordered) decides the same with the Python loops and the Python carve as with the C
    ones, evaluations counted alike."""
    policy, slots, jobs = ordered_pslot_pool(tmp_path, monkeypatch, 5, disk_share)

    def run() -> tuple:
        cycle = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
        cycle.run()
        return _fingerprint(cycle.result()), cycle.mm.counts.evaluations

    compiled = run()
    calls: dict[str, int] = {}

    def counted(name, fn):  # type: ignore[no-untyped-def]
        def call(*args):  # type: ignore[no-untyped-def]
            calls[name] = calls.get(name, 0) + 1
            return fn(*args)
        return call

    monkeypatch.setattr(ordered_states, "ordered_make",
                        counted("ordered", ordered_make.python_ordered_make))
    monkeypatch.setattr(literal_states, "literal_make",
                        counted("literal", ordered_make.python_literal_make))
    monkeypatch.setattr(carved_states, "carve_amounts",
                        counted("carve", carve_amounts.python_carve_amounts))
    assert run() == compiled
    # (each Python version ran: the pool's statics are ordered, some split)
    assert calls.get("ordered") and calls.get("literal") and calls.get("carve")
