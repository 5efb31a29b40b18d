"""Vector statics whose pre-job rank reads the job only through the slot's own literal
tests (``literal_orders``), kept in order by one set of the tests' values, a class's
other groups (its owner's desktops) made from their own ranks (``ordered_states``).

The cycle cases run with the order on and off (``carved_lists.ORDERED``), both
deciding as the plain reference cycle does; every entry an ordered source makes is
checked against the class's pair result for its state (its first key must be the
-pre-job rank the walk would have put there: a wrong offset or order key fails), and
each source's entries must be sorted. The unit cases check the split itself: the
tests' values per owner, the key of a state against the rank evaluated in full, and
the ranks that read the job otherwise, which have no split.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core import adeval
from condorlite.core.classad import parse_ads
from condorlite.core.classad.ast import AttrRef, Binary, Literal
from condorlite.core.classad.parser import parse_expr
from condorlite.core.classad.values import Error, Undefined
from condorlite.core.matching import carved_lists, static_orders
from condorlite.core.matching.candidates import PRE, as_rank
from condorlite.core.matching.literal_orders import LiteralSplit, split_of, value_of_test
from condorlite.core.matching.literal_states import LiteralStates
from condorlite.core.matching.ordered_states import OrderedStates
from condorlite.core.matching.own_literals import HIDDEN
from condorlite.core.matching.static_orders import StaticOrders
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import run_both
from tests.core.matching.test_ordered_states import _check_orders
from tests.core.matching.test_own_literals import _desktop, _jobs
from tests.core.negotiation.test_equivalence import _fingerprint

POLICY = Policy(uid_domain="example.org")


def _slots(count: int) -> list[str]:
    # (memory varies within a type, so the ranks of one type's desktops differ)
    return [_desktop(i, Memory=8192 + 512 * (i % 7)) for i in range(count)]


class _Checked:
    """Every ordered source made in a cycle; each entry it makes is checked against
    the pair result of its state (its key is the class's -pre-job rank there), and
    the orders after every ``sync`` (``test_ordered_states._check_orders``)."""

    def __init__(self, patch: pytest.MonkeyPatch) -> None:
        self.sources: list[OrderedStates] = []
        self.checked = 0
        self.syncs = 0
        made = OrderedStates.__init__
        kept = self

        def init(source, *args, **kwargs):  # type: ignore[no-untyped-def]
            made(source, *args, **kwargs)
            kept.sources.append(source)

        def checked(source, count, last):  # type: ignore[no-untyped-def]
            before = len(source.entries)
            makes[type(source)](source, count, last)
            shapes = {item[1]: item[3] for item in (*source.items, *getattr(source, "_extra", ()))}
            for entry in source.entries[before:]:
                pair = source._known[source._pair_of[shapes[entry[6]]]]
                want = pair.dependent.get(PRE)
                if want is not None:
                    assert entry[0] == -want
                    kept.checked += 1
            assert source.entries == sorted(source.entries)

        patch.setattr(OrderedStates, "__init__", init)
        makes = {kind: kind._make for kind in (OrderedStates, LiteralStates)}
        patch.setattr(OrderedStates, "_make", checked)
        patch.setattr(LiteralStates, "_make", checked)
        sync = StaticOrders.sync

        def checked_sync(orders):  # type: ignore[no-untyped-def]
            sync(orders)
            kept.syncs += 1
            _check_orders(orders)

        patch.setattr(StaticOrders, "sync", checked_sync)


@pytest.mark.parametrize(("count", "per"), [(48, 6), (80, 12)])
def test_owner_ranked_desktops_are_listed_in_order_with_offsets(monkeypatch, count, per):
    monkeypatch.setattr(static_orders, "ORDER_MIN", 1)
    # (the busy desktops' groups that cannot match a class are otherwise left out of
    # its walk before any order is asked for, ``literal_matches``)
    monkeypatch.setattr(carved_lists, "MATCHES", False)
    slots, jobs = _slots(count), _jobs(per)
    checked = _Checked(monkeypatch)
    _, result = run_both(slots, jobs, POLICY)
    literal = [s for s in checked.sources if type(s) is LiteralStates]
    # (the owners' classes had their own desktops as offsets, made and checked)
    assert literal and any(s._extra for s in literal)
    assert any(s._xat for s in literal)
    assert checked.checked and checked.syncs
    monkeypatch.setattr(carved_lists, "ORDERED", False)
    _, walked = run_both(slots, jobs, POLICY)
    assert _fingerprint(result) == _fingerprint(walked)


def test_with_the_order_too_large_every_static_is_walked(monkeypatch):
    monkeypatch.setattr(static_orders, "ORDER_MIN", 10**6)
    checked = _Checked(monkeypatch)
    fast, result = run_both(_slots(40), _jobs(6), POLICY)
    assert not checked.sources
    assert fast.mm.shapes.moved is None
    monkeypatch.setattr(carved_lists, "ORDERED", False)
    assert _fingerprint(run_both(_slots(40), _jobs(6), POLICY)[1]) == _fingerprint(result)


def _job(owner: str):
    return next(iter(parse_ads(f'Owner = "{owner}@example.org"\nRequestCpus = 1\n'
                               'RequestMemory = 1024\n')))


def _split_offers(pre: str):
    policy = Policy(uid_domain="example.org", negotiator_pre_job_rank=pre)
    fast, _ = run_both(_slots(24), _jobs(4), policy)
    shapes = fast.mm.shapes
    offers = [o for o in fast.offers if o.vector is not None and o.holder is None
              and o.literals and o.available]
    return shapes, offers, parse_expr(pre)


def test_the_split_keys_a_state_as_the_rank_evaluated_in_full():
    shapes, offers, pre = _split_offers(POLICY.negotiator_pre_job_rank)
    assert offers
    for offer in offers:
        split = split_of(offer, pre, shapes.job_defined, shapes.now)
        assert split is not None and len(split.tests) == 1
        owner = adeval.attr(offer.ad, split.tests[0][0].left.name
                            if split.tests[0][0].left.scope == "my"
                            else split.tests[0][0].right.name).value.split("@")[0]
        for user in ("alice", "bob", "erin"):
            job = _job(user)
            sigma = split.sigma(job, offer, {})
            assert sigma == ((user == owner),)
            want = as_rank(adeval.eval_expr(pre, offer.state_ad, job, shapes.now))
            assert split.key(split.rank(sigma), offer.vector.vals) == -want
        # (a job whose Owner is an expression could read the slot: no values, walked)
        computed = next(iter(parse_ads('Owner = strcat("al", "ice@example.org")\n')))
        assert split.sigma(computed, offer, {}) is None


def test_the_values_at_many_offers_at_once_are_each_offers_own():
    # (``sigmas_of``, a test at a time over a shared table, against each offer's
    # values worked out alone with a table of its own; the shared table then holds
    # one value per literal met)
    shapes, offers, pre = _split_offers(POLICY.negotiator_pre_job_rank)
    split = split_of(offers[0], pre, shapes.job_defined, shapes.now)
    assert split is not None and len(offers) > 2
    known: dict = {}
    for user in ("alice", "bob", "erin"):
        job = _job(user)
        bindings = split.bindings(job)
        together = split.sigmas_of(bindings, [split.group(o.vector.vals) for o in offers],
                                   known)
        assert together == [split.sigma_of(bindings, offer, {}) for offer in offers]
        assert any(sigma == (True,) for sigma in together) == (user in ("alice", "bob"))
    literals = {offer.vector.vals[split.tests[0][2]] for offer in offers}
    assert sum(map(len, known.values())) == 3 * len(literals)


@pytest.mark.parametrize("pre", [
    "10000000 * My.Rank + TARGET.RequestCpus - Memory",  # (the job read directly)
    "RequestMemory - Memory",  # (a name only jobs bind)
])
def test_a_rank_that_reads_the_job_otherwise_has_no_split(pre):
    shapes, offers, expr = _split_offers(pre)
    assert offers
    assert all(split_of(o, expr, shapes.job_defined, shapes.now) is None for o in offers)


_VALUES = st.one_of(
    st.text(alphabet="aAbB@.é", max_size=4), st.integers(-2, 2), st.booleans(),
    st.sampled_from([0.0, -0.0, 1.0, 1.5, float("nan"), float("inf")]),
    st.sampled_from([Undefined, Error]))


@settings(max_examples=300, deadline=None)
@given(op=st.sampled_from(["==", "!=", "=?=", "=!=", "is", "isnt"]), left=st.booleans(),
       literal=_VALUES, bound=st.booleans(), value=_VALUES)
def test_a_tests_value_is_its_operator_on_the_two_values(op, left, literal, bound, value):
    # (``value_of_test``, what ``sigmas_of`` writes out, against the test evaluated with
    # a slot ad binding the hidden literal and a job ad binding the name, or not: the
    # same value, type, Undefined and Error included; a NaN only as a NaN)
    hidden = AttrRef(HIDDEN + "0", "my", "MY")
    target = AttrRef("Owner", "target", "TARGET")
    test = Binary(op, hidden, target) if left else Binary(op, target, hidden)
    slot = adeval.with_literals(next(iter(parse_ads("Name = \"slot1\"\n"))),
                                {HIDDEN + "0": literal})
    job = next(iter(parse_ads("Cmd = \"x\"\n")))
    if bound:
        job = adeval.with_literals(job, {"Owner": value})
    binding = adeval.attr(job, "owner")
    assert (binding is None) != bound
    want = adeval.eval_expr(test, slot, job, None)
    got = value_of_test((op, left, "owner"), literal, binding)
    assert type(got) is type(want)
    assert got is want or got == want or (got != got and want != want)


def test_a_groups_literals_are_read_at_each_tests_place():
    # (a split whose tests read two positions, one of them twice: ``sigmas_of`` reads
    # each test's literal off the group, ``group`` of the values, at its place there;
    # every value as the test evaluated with a slot ad and the job's)
    def test(op, pos, name):
        return (Binary(op, AttrRef(f"{HIDDEN}{pos}", "my", "MY"),
                       AttrRef(name, "target", "TARGET")), name.lower(), pos)

    class _Vector:
        vals = ("x", "alice", 4, "bob")

    class _Offer:
        ad = next(iter(parse_ads('Name = "slot1"\n')))
        vector = _Vector()

    tests = [test("==", 3, "Owner"), test("=?=", 1, "Group"), test("!=", 3, "Group")]
    split = LiteralSplit(_Offer(), Literal(0), None, tests, [])
    job = next(iter(parse_ads('Owner = "BOB"\nGroup = "alice"\n')))
    bindings = split.bindings(job)
    rows = [("x", "alice", 4, "bob"), ("x", "carol", 4, "alice"), ("y", "alice", 5, "bob")]
    groups = [split.group(vals) for vals in rows]
    assert groups[0] == ("alice", "bob")
    got = split.sigmas_of(bindings, groups, {})
    for vals, sigma in zip(rows, got, strict=True):
        slot = adeval.with_literals(_Offer.ad, {f"{HIDDEN}{pos}": vals[pos] for pos in (1, 3)})
        assert sigma == tuple(adeval.eval_expr(t, slot, job, None) for t, _, _ in tests)
    assert got == [(True, True, True), (False, False, False), (True, True, True)]
