"""The cycle's set-up shares work between slots without changing any answer.

``literal_ranks``: a job-independent policy rank run as the residual of a slot's
literal bindings equals the full evaluation, whatever the literal values and types.
``first_states``: a slot prepared from the record of an earlier slot holding the same
entries ends up exactly as a full ``prepare`` leaves it.
"""

from __future__ import annotations

import math
import sys
from dataclasses import replace
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core import adeval
from condorlite.core.classad import parse_ad
from condorlite.core.classad.ast import Literal
from condorlite.core.classad.parser import parse_expr
from condorlite.core.matching import carved_states, first_states, literal_ranks, row_maps
from condorlite.core.matching.candidates import as_rank
from condorlite.core.matching.expr_numbers import Canon
from condorlite.core.matching.first_ranks import FirstRanks
from condorlite.core.matching.first_states import FirstStates
from condorlite.core.matching.literal_ranks import LiteralRanks, typed_values
from condorlite.core.matching.row_maps import RowMap
from condorlite.core.negotiation import negotiator
from condorlite.core.policy import DEFAULT_POST_JOB_RANK, DEFAULT_PRE_JOB_RANK, Policy
from tests.core._pool import decoded_pool

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import genpool  # a script directory, not a package

NOW = 1_700_000_000

RANKS = [
    DEFAULT_POST_JOB_RANK,
    DEFAULT_PRE_JOB_RANK,
    "(RemoteUserPrio * 1000000) - ifThenElse(isUndefined(TotalJobRunTime), 0, "
    "TotalJobRunTime)",
    "ifThenElse(isReal(KFlops), 1, 0) * 10 + isBoolean(KFlops) * 100 + 1 / KFlops",
    'strcmp(Arch, "X86_64") * SlotID + size(Arch)',
    "Derived * 2 + SlotID",
]
NAMES = ("SlotID", "KFlops", "Offline", "RemoteOwner", "Cpus", "Memory", "Arch",
         "RemoteUserPrio", "TotalJobRunTime", "Rank")

literals = st.one_of(
    st.integers(-5, 5),
    st.sampled_from([0.0, -0.0, 1.0, 1.5, -2.25, 1e300, float("inf")]),
    st.booleans(),
    st.sampled_from(['"X86_64"', '"arm"', '""']),
    st.just("undefined"),
)


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else "real(\"INF\")"
    return str(value)


def _ad(bindings: dict[str, object], derived: bool):
    lines = ["MyType = \"Machine\""]
    lines += [f"{name} = {_text(value)}" for name, value in bindings.items()]
    if derived:
        lines.append("Derived = SlotID * 3 - Cpus")  # not a literal: a layout number
    return parse_ad("\n".join(lines))


def _reach(ad, expr) -> tuple[str, ...]:
    """Every name the rank can read in ``ad`` (as ``slot_walks.reads_job`` finds)."""
    from condorlite.core.matching.slot_walks import reads_job
    return tuple(sorted(reads_job(ad, expr, frozenset())[1]))


# One memo for every example: residuals made for one ad are reused by later ads of
# the same layout with other literal values, which is what must be exact.
_SHARED = LiteralRanks(Canon().number, NOW, as_rank)


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) ==
                                                math.copysign(1, b))


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(RANKS),
       st.dictionaries(st.sampled_from(NAMES), literals, max_size=len(NAMES)),
       st.booleans())
def test_a_rank_by_its_literal_residual_equals_the_full_evaluation(text, bindings, derived):
    expr = parse_expr(text)
    ad = _ad(bindings, derived)
    names = _reach(ad, expr)
    bound = tuple(adeval.attr(ad, name) for name in names)
    got = _SHARED.value(text, expr, ad, names, bound)
    want = as_rank(adeval.eval_expr(expr, ad, None, NOW))
    assert _same(got, want)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(RANKS), st.sets(st.sampled_from(NAMES)), st.data(), st.booleans())
def test_a_plan_made_in_one_ad_serves_every_ad_of_its_layout(text, names, data, derived):
    """``LiteralRanks.plan`` made in one ad and run (``planned``) in another that
    binds the same names to literals of other values and types gives the full
    evaluation there, and counts as ``value`` does."""
    expr = parse_expr(text)
    # (``real("INF")`` is written as a call, not a literal: another layout)
    plain = literals.filter(lambda value: value != float("inf"))
    ads = [_ad({name: data.draw(plain) for name in sorted(names)}, derived)
           for _ in range(3)]
    reach = _reach(ads[0], expr)
    bound = tuple(adeval.attr(ads[0], name) for name in reach)
    planned = LiteralRanks(Canon().number, NOW, as_rank)
    valued = LiteralRanks(Canon().number, NOW, as_rank)
    plan = planned.plan(text, expr, ads[0], reach, bound)
    assert {n.lower() for n in plan.literals} == {n.lower() for n in names} & set(reach)
    for ad in ads:
        vals = [adeval.attr(ad, name).value for name in plan.literals]
        got = planned.planned(plan, ad, vals)
        assert _same(got, as_rank(adeval.eval_expr(expr, ad, None, NOW)))
        own = tuple(adeval.attr(ad, name) for name in reach)
        assert _same(got, valued.value(text, expr, ad, reach, own))
    assert planned.evaluations == valued.evaluations


def test_a_layouts_memo_given_up_when_every_slot_misses_it(monkeypatch):
    """A layout whose literal values are each slot's own (the post-job rank's
    ``KFlops`` and ``SlotID``) stops being looked up after ``TRIES`` misses with
    fewer than one lookup in ``SHARE`` hitting: its values are still the full
    evaluation's, every one counted, none kept; a layout whose values repeat keeps
    its memo; the plans of one layout share the count (``FirstRanks.values`` and
    ``planned`` alike)."""
    monkeypatch.setattr(literal_ranks, "TRIES", 8)
    expr = parse_expr(DEFAULT_POST_JOB_RANK)
    counts = _Counts()
    ranks = FirstRanks(Canon().number, NOW, counts)
    own = [_ad({"SlotID": i, "KFlops": 1000 + 7 * i, "Offline": False}, False)
           for i in range(40)]
    # (another layout: no Offline)
    shared = [_ad({"SlotID": i % 3, "KFlops": 1000}, False) for i in range(40)]
    for ads in (own, shared):
        reach = _reach(ads[0], expr)
        bound = tuple(adeval.attr(ads[0], name) for name in reach)
        plan = ranks._literal_ranks.plan("post", expr, ads[0], reach, bound)
        again = ranks._literal_ranks.plan("post", expr, ads[1], reach, bound)
        assert again.seen is plan.seen  # (one count per layout)
        before, kept = counts.evaluations, len(ranks._literal_ranks.values)
        for i, ad in enumerate(ads):
            got = (ranks.values({"post": plan}, ad)["post"] if i % 2 else
                   ranks.planned(again, ad))
            assert _same(got, as_rank(adeval.eval_expr(expr, ad, None, NOW)))
        if ads is own:
            assert plan.seen[0] == -1, "given up"
            assert counts.evaluations - before == 40  # (every slot evaluated, counted)
            assert len(ranks._literal_ranks.values) - kept == 8  # (none kept after)
        else:
            assert plan.seen[0] > 0, "kept: its values repeat"
            assert counts.evaluations - before == 3
            assert len(ranks._literal_ranks.values) - kept == 3


class _Counts:
    evaluations = 0


def test_values_are_planned_and_count_as_it_does(monkeypatch):
    """``FirstRanks.values`` (``planned``'s work written inline) gives each rank
    ``planned``'s value, with a residual and without one (``eval`` is evaluated in
    full), before and after a layout's memo is given up, and counts the same
    evaluations, in the cycle's count and in ``LiteralRanks.evaluations`` alike."""
    monkeypatch.setattr(literal_ranks, "TRIES", 4)
    texts = {"post": DEFAULT_POST_JOB_RANK, "pre": DEFAULT_PRE_JOB_RANK,
             "full": 'eval("KFlops + 1") - SlotID'}
    ads = [_ad({"SlotID": i % 7, "KFlops": 1000 + 7 * i, "Cpus": 1 + i % 2,
                "Memory": 512, "Rank": 0.0}, False) for i in range(24)]
    by_values, by_planned = _Counts(), _Counts()
    ranks, again = (FirstRanks(Canon().number, NOW, by_values),
                    FirstRanks(Canon().number, NOW, by_planned))

    def plans_of(first_ranks):
        plans = {}
        for key, text in texts.items():
            expr = parse_expr(text)
            reach = _reach(ads[0], expr)
            bound = tuple(adeval.attr(ads[0], name) for name in reach)
            plans[key] = first_ranks._literal_ranks.plan(key, expr, ads[0], reach, bound)
        return plans

    plans, others = plans_of(ranks), plans_of(again)
    assert plans["full"].program is None and plans["post"].program is not None
    for ad in ads:
        got = ranks.values(plans, ad)
        assert list(got) == list(texts)
        for key, plan in others.items():
            want = again.planned(plan, ad)
            assert _same(got[key], want)
            assert _same(want, as_rank(adeval.eval_expr(plan.expr, ad, None, NOW)))
    assert plans["post"].seen[0] == -1 == others["post"].seen[0], "given up"
    assert by_values.evaluations == by_planned.evaluations
    assert ranks._literal_ranks.evaluations == again._literal_ranks.evaluations
    assert ranks._literal_ranks.evaluations == by_values.evaluations


def test_types_and_the_sign_of_zero_are_part_of_the_key():
    """``1``, ``1.0`` and ``true`` (one Python key) are three ClassAd values, as are
    ``0.0`` and ``-0.0`` (printed apart): each is evaluated on its own."""
    ranks = LiteralRanks(Canon().number, NOW, as_rank)
    text = "isReal(X) * 10 + isBoolean(X) * 100 + size(string(Z))"
    expr = parse_expr(text)
    got = {}
    for x, z in [("1", "1"), ("1.0", "1"), ("true", "1"), ("1", "0.0"), ("1", "-0.0")]:
        ad = parse_ad(f"X = {x}\nZ = {z}")
        names = ("x", "z")
        got[(x, z)] = ranks.value("r", expr, ad, names, tuple(adeval.attr(ad, n) for n in names))
        assert _same(got[(x, z)], as_rank(adeval.eval_expr(expr, ad, None, NOW)))
    assert ranks.evaluations == 5
    assert got[("1", "1")] == 1 and got[("1.0", "1")] == 11 and got[("true", "1")] == 101
    assert got[("1", "0.0")] == 3 and got[("1", "-0.0")] == 4  # "0.0", "-0.0"
    # the same values again: answered from the memo
    ad = parse_ad("X = 1.0\nZ = 1")
    assert ranks.value("r", expr, ad, ("x", "z"), (adeval.attr(ad, "x"),
                                                   adeval.attr(ad, "z"))) == 11
    assert ranks.evaluations == 5


def test_typed_values_tell_apart_what_classad_does():
    assert len({typed_values([v]) for v in (1, 1.0, True, 0.0, -0.0)}) == 5
    assert typed_values([float("nan")]) == typed_values([float("nan")])


def _prepared(cycle: negotiator.Cycle) -> list[tuple]:
    """Everything ``prepare`` leaves in an offer and the matchmaker, per offer."""
    out = []
    for offer in cycle.offers:
        vector = offer.vector
        vec = None if vector is None else (
            vector.names, vector.vals, vector.index, vector.static,
            vector.rank_keys, vector.rank_sig)
        walk = cycle.mm.shapes.walked[id(offer)][2]
        out.append((offer.name, offer.shape, offer.pair_shape, offer.independent, vec, walk,
                    offer.ad_vals))
    return out


def test_first_states_prepare_slots_as_a_full_prepare_does(tmp_path, monkeypatch):
    """A pool read through the interning reader (slots of one machine type share
    entries): offers prepared from records equal offers prepared in full, and the
    cycles decide the same."""
    policy = replace(Policy(uid_domain="example.org"),
                     preemption_requirements="RemoteUserPrio > SubmitterUserPrio * 1.5")
    spec = genpool.PoolSpec(slots=150, jobs=300, submitters=5, autoclusters=10, seed=7,
                            claimed_fraction=0.3)
    slots, jobs = decoded_pool(genpool.write_pool(spec, tmp_path), policy, True)
    hits: dict[str, list[bool]] = {"find": [], "find_loose": []}

    def counting(name):
        method = getattr(FirstStates, name)

        def count(self, ad, busy, kind):
            found = method(self, ad, busy, kind)
            hits[name].append(found is not None)
            return found
        return count

    with monkeypatch.context() as patch:
        patch.setattr(FirstStates, "find", counting("find"))
        patch.setattr(FirstStates, "find_loose", counting("find_loose"))
        shared = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
    with monkeypatch.context() as patch:
        patch.setattr(FirstStates, "find", lambda self, ad, busy, kind: None)
        patch.setattr(FirstStates, "find_loose", lambda self, ad, busy, kind: None)
        full = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
    exact, loose = hits["find"], hits["find_loose"]
    assert sum(exact) > len(exact) // 4, "many slots should share a first state"
    assert not all(exact)
    # held slots with TotalJobRunTime of their own share loose records
    assert sum(loose) > 0 and not all(loose)
    assert _prepared(shared) == _prepared(full)
    assert shared.mm.evaluations == full.mm.evaluations
    # offers prepared from one record carve their own vectors
    vectors = [o.vector for o in shared.offers if o.vector is not None]
    assert len({id(v) for v in vectors}) == len(vectors) > 0
    assert len({id(v.rank_keys) for v in vectors}) == len(vectors)
    shared.run()
    full.run()
    one, two = shared.result(), full.result()
    assert one.matches == two.matches and one.rejections == two.rejections


def test_partitionable_slots_with_numbers_of_their_own_share_loose_records(tmp_path,
                                                                           monkeypatch):
    """Realistic partitionable slots (every slot its own KFlops and SlotID, read by
    the default post-job rank) are prepared from loose records that carry the
    resource vector: each gets the record's vector, static and pair shape and its
    own ranks and rank keys, exactly as a full ``prepare`` gives them, and the cycles
    decide the same."""
    policy = Policy(uid_domain="example.org")
    spec = genpool.PoolSpec(slots=120, jobs=400, submitters=4, autoclusters=12, seed=3,
                            realistic=True, unique=True, partitionable_fraction=1.0)
    slots, jobs = decoded_pool(genpool.write_pool(spec, tmp_path), policy, True)
    hits: list[bool] = []
    method = FirstStates.find_loose

    def counting(self, ad, busy, kind):
        found = method(self, ad, busy, kind)
        hits.append(found is not None and found.vector is not None)
        return found

    with monkeypatch.context() as patch:
        patch.setattr(FirstStates, "find_loose", counting)
        shared = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
    with monkeypatch.context() as patch:
        patch.setattr(FirstStates, "find", lambda self, ad, busy, kind: None)
        patch.setattr(FirstStates, "find_loose", lambda self, ad, busy, kind: None)
        full = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
    assert sum(hits) > len(hits) // 2, "most slots should share a loose record"
    assert _prepared(shared) == _prepared(full)
    assert shared.mm.evaluations == full.mm.evaluations
    vectors = [o.vector for o in shared.offers if o.vector is not None]
    assert len({id(v.rank_keys) for v in vectors}) == len(vectors) > 0
    shared.run()
    full.run()
    one, two = shared.result(), full.result()
    assert one.matches and one.matches == two.matches and one.rejections == two.rejections
    assert shared.mm.evaluations == full.mm.evaluations


def test_a_rank_that_reads_no_resource_is_its_first_value_in_every_state(tmp_path,
                                                                        monkeypatch):
    """The default post-job rank reads a partitionable slot's own KFlops and SlotID,
    none of its resources: it is the slot's constant (``VectorKeys.rank_keys``), not a
    residual per slot, left out of the rank signature, and it equals the residual's
    value in every carved state."""
    policy = Policy(uid_domain="example.org")
    spec = genpool.PoolSpec(slots=80, jobs=600, submitters=4, autoclusters=12, seed=5,
                            realistic=True, unique=True, partitionable_fraction=1.0)
    slots, jobs = decoded_pool(genpool.write_pool(spec, tmp_path), policy, True)
    made: list[str] = []
    original = carved_states.rank_program

    def counting(expr, slot_ad, vector, now):
        made.append(str(expr))
        return original(expr, slot_ad, vector, now)

    monkeypatch.setattr(carved_states, "rank_program", counting)
    cycle = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
    cycle.run()
    vectors = [o for o in cycle.offers if o.vector is not None]
    carved = [o for o in vectors if len(o.stamps) > 0]
    assert len(vectors) > 40 and len(carved) > 10
    post = parse_expr(DEFAULT_POST_JOB_RANK)
    assert str(post) not in made  # no residual made for it
    # keyed by its value: one key per distinct value, not per slot's bindings
    prepared = {repr(o.independent["post"]) for o in vectors}
    assert len({o.vector.rank_keys["post"] for o in vectors}) == len(prepared)
    # the value is the offer's own constant; the rank signature leaves it out, so
    # slots that differ in it alone share one (and their carved states' ranks)
    assert len({o.vector.rank_sig for o in vectors}) * 4 <= len(prepared)
    for offer in carved:
        residual = original(post, offer.ad, offer.vector, NOW)
        assert _same(offer.vector.constants["post"], as_rank(residual(offer.vector.vals)))
        assert _same(offer.independent["post"],
                     as_rank(adeval.eval_expr(post, offer.ad, None, NOW)))


def test_row_map_reads_as_the_dict_of_its_rows():
    ids, values = ["1.0", "1.1", "2.0", "1.1"], [1, 2, 1, 3]
    rows = RowMap(ids, values)
    assert rows == dict(zip(ids, values, strict=True)) == {"1.0": 1, "1.1": 3, "2.0": 1}
    assert len(rows) == 3 and rows["1.1"] == 3 and rows.get("9.9") is None
    assert rows.distinct_rows() == 3  # every row's number counts, a duplicate id's too
    assert RowMap(["a", "b", "c"], [1, 2, 1]).distinct_rows() == 2 == len(
        set(RowMap(["a", "b", "c"], [1, 2, 1]).values()))  # unique ids: the dict's values


def test_turn_rows_by_row_equal_rows_by_id(tmp_path):
    """The cycle's rows (id, autocluster, match class, job) read through the aligned
    lists equal the rows looked up by id, in the same queue order."""
    policy = replace(Policy(uid_domain="example.org"), significant_attributes=("Owner",))
    spec = genpool.PoolSpec(slots=40, jobs=400, submitters=4, autoclusters=12, seed=3)
    slots, jobs = decoded_pool(genpool.write_pool(spec, tmp_path), policy, True)
    cycle = negotiator.Cycle(slots, jobs, {}, [], policy, NOW)
    assert isinstance(cycle.ac.cluster_of, RowMap)
    assert cycle.ac.cluster_of is not cycle.ac.match_class_of  # configured: two lists
    by_row = row_maps._rows_by_row(cycle.ac.cluster_of, cycle.ac.match_class_of, cycle.idle)
    by_id = row_maps._rows_by_id(cycle.ac.cluster_of, cycle.ac.match_class_of, cycle.idle)
    assert by_row is not None
    spans = cycle.ac.blocks.spans()
    for turn in cycle.turns:
        columns = (turn.jobs, turn.ids, turn.clusters, turn.classes)
        assert columns == by_row(spans[turn.info.name]) == by_id(spans[turn.info.name])
    assert len({c for t in cycle.turns for c in t.clusters}) == cycle.ac.count < 12
    # the lists are read only for the very jobs they were made from
    assert row_maps._rows_by_row(cycle.ac.cluster_of, cycle.ac.match_class_of,
                                  list(cycle.idle)) is None


def _loose_record_count(states: FirstStates) -> int:
    return sum(len(records) for _, _, records in states._loose[False])


def test_loose_lookups_stop_when_almost_every_slot_misses():
    """Slots whose walked names hold numbers of their own (``Disk`` = a share of the
    free disk) never match a loose record: after ``TRIES`` misses with fewer than
    one hit in ``LOOSE_SHARE``, ``find_loose`` stops looking and ``keep`` stops
    keeping loose records; slots that do share records keep being looked up."""
    walk = (frozenset(), ("disk", "requirements"), {"post": {"kflops"}})
    lone = FirstStates()
    for i in range(first_states.TRIES + 10):
        ad = parse_ad(f"Requirements = Disk > 0\nDisk = {i}\nKFlops = {i}")
        assert lone.find_loose(ad, False, "static") is None
        lone.keep(ad, False, "static", walk, {}, ("key", i), i, None)
    # (the TRIES-th miss gives up before its slot is kept)
    assert _loose_record_count(lone) == first_states.TRIES - 1
    shared = FirstStates()
    for i in range(first_states.TRIES + 10):
        ad = parse_ad(f"Requirements = Disk > 0\nDisk = {i}\nKFlops = {i}")
        assert shared.find_loose(ad, False, "static") is None
        shared.keep(ad, False, "static", walk, {}, ("key", i), i, None)
        # the same entries again: one slot in LOOSE_SHARE holding a kept record
        found = shared.find_loose(ad, False, "static")
        assert found is not None and found.pair_shape == i
    assert _loose_record_count(shared) == first_states.TRIES + 10


def test_misses_count_only_for_slots_of_kinds_seen_before():
    """A slot no record of any kind serves (``new_kind``: the first of its machine
    type) takes its misses back, so slots of many types interleaved keep being
    looked up; slots of a kind seen before that keep missing (numbers of their own)
    give both lookups up after ``TRIES`` misses, and a hit resets ``find``'s."""
    walk = (frozenset(), ("disk", "requirements"), {"post": {"kflops"}})
    states = FirstStates()
    for i in range(first_states.TRIES * 3):
        # a new Requirements each time: a kind no record holds
        ad = parse_ad(f"Requirements = Disk > {i}\nDisk = 1\nKFlops = 1")
        assert states.find(ad, False, "static") is None
        assert states.find_loose(ad, False, "static") is None
        states.new_kind(ad, False)
        states.keep(ad, False, "static", walk, {}, ("key", i), i, None)
    assert states.tries[False] == 0 and states.loose_counts[False] == [0, 0]
    # the very entries again: the exact record serves it, and keeps being asked
    assert states.find(ad, False, "static").pair_shape == first_states.TRIES * 3 - 1
    requirements = "Requirements = Disk > 0"
    for i in range(first_states.TRIES):
        # one kind, each slot its own Disk: misses that count
        ad = parse_ad(f"{requirements}\nDisk = {i + 1000}\nKFlops = 1")
        assert states.tries[False] == i
        assert states.find(ad, False, "static") is None
        assert states.find_loose(ad, False, "static") is None
    assert states.tries[False] == -1 and states.loose_counts[False] is None
    # a lookup given up takes nothing back
    states.new_kind(ad, False)
    assert states.tries[False] == -1 and states.loose_counts[False] is None
    # both given up: nothing kept would be read, so ``OfferShapes`` asks ``keep`` no
    # more; the other busy flag still looks up and keeps
    assert states.keeping == {False: False, True: True}


def test_keeping_stops_only_once_both_lookups_have_given_up():
    """``FirstStates.keeping`` stays true while either lookup may read a record:
    ``find`` given up alone (the loose lookup still hitting) keeps it true."""
    walk = (frozenset(), ("disk", "requirements"), {"post": {"kflops"}})
    states = FirstStates()
    first = parse_ad("Requirements = Disk > 0\nDisk = 1\nKFlops = 0")
    states.keep(first, True, "static", walk, {}, ("key",), 1, None)
    for i in range(first_states.TRIES):
        # the walked entries shared (the loose record hits), KFlops each slot's own
        ad = adeval.with_entries(first, {"kflops": ("KFlops", Literal(i + 1))})
        assert states.find(ad, True, "static") is None
        assert states.find_loose(ad, True, "static") is not None
    assert states.tries[True] == -1 and states.loose_counts[True] is not None
    assert states.keeping[True]
    lone = parse_ad("Requirements = Disk > 0\nDisk = 2\nKFlops = 0")
    while states.loose_counts[True] is not None:
        assert states.keeping[True]
        assert states.find_loose(lone, True, "static") is None
    assert not states.keeping[True] and states.keeping[False]
