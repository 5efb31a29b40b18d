"""A split static's groups by equality of their literal with the job's binding
(``equal_literals``): the groups a class's value matches and the two sigmas give
every group the value its test gives there.

The property case draws the groups' string literals (case, accents and escaped bytes
that fold or encode alike) and the job's value (strings of the same alphabet, other
types, undefined and error) for each of the six hoisted comparisons, on either side,
and checks each group's value from ``classes`` against ``value_of_test`` at that
group (itself checked against the evaluator, ``test_literal_orders``). The cycle cases
(``test_literal_matches``, ``test_literal_orders``) decide through the index as the
plain reference cycle does.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core.classad.ast import AttrRef, Binary, Literal
from condorlite.core.classad.values import Error, Undefined
from condorlite.core.matching.equal_literals import classes, equal_groups
from condorlite.core.matching.literal_orders import exact, value_of_test
from condorlite.core.matching.own_literals import HIDDEN

#: strings that fold alike (``A``/``a``), differ only past ASCII (``é``/``É``: strcasecmp
#: folds A-Z only), or are one UTF-8 character's bytes held as escaped bytes
_STRINGS = st.lists(st.sampled_from(["a", "A", "é", "É", "\udcc3\udca9", "\udcc3", "b"]),
                    max_size=2).map("".join)

_JOB_VALUES = st.one_of(
    _STRINGS, st.integers(-1, 1), st.booleans(), st.sampled_from([0.0, 1.5, float("nan")]),
    st.sampled_from([Undefined, Error]))


def _tests(op: str, left: bool) -> list:
    hidden = AttrRef(HIDDEN + "0", "my", "MY")
    target = AttrRef("Owner", "target", "TARGET")
    test = Binary(op, hidden, target) if left else Binary(op, target, hidden)
    return [(test, "owner", 0)]


@settings(max_examples=400, deadline=None)
@given(op=st.sampled_from(["==", "!=", "=?=", "=!=", "is", "isnt"]), left=st.booleans(),
       literals=st.lists(_STRINGS, min_size=0, max_size=8, unique=True),
       bound=st.booleans(), data=st.data())
def test_each_group_gets_its_tests_value(op, left, literals, bound, data):
    # (the job's value mostly one of the literals, its case swapped or not, or one of
    # the escaped bytes spelled as their character: the values that match some groups)
    near = [*literals, *(text.swapcase() for text in literals),
            *(text.replace("\udcc3\udca9", "é") for text in literals)]
    value = data.draw(st.one_of(st.sampled_from(near), _JOB_VALUES) if near
                      else _JOB_VALUES)
    form = (op, left, "owner")
    binding = Literal(value) if bound else None

    def sigmas_of(bindings, groups, known):  # (``LiteralSplit.sigmas_of`` of one test)
        return [(value_of_test(form, group, bindings[0]),) for group in groups]

    equal = equal_groups(_tests(op, left), literals)
    assert equal is not None
    found = classes(sigmas_of, equal, (binding,), {})
    matched = set(found.matched)
    assert found.matched == sorted(matched)
    assert (found.matched_sigma is None) == (not matched)
    assert (found.other_sigma is None) == (len(matched) == len(literals))
    for at, literal in enumerate(literals):
        sigma = found.matched_sigma if at in matched else found.other_sigma
        assert exact(sigma) == exact((value_of_test(form, literal, binding),))  # type: ignore[arg-type]


def test_no_index_for_several_tests_or_a_literal_that_is_no_string():
    one = _tests("==", False)
    assert equal_groups(one + one, ["alice"]) is None
    assert equal_groups(one, ["alice", 3]) is None
    assert equal_groups(_tests("<", False), ["alice"]) is None
    equal = equal_groups(one, ["alice", "Alice", "bob"])
    assert equal is not None
    assert equal.by_key[equal.key("ALICE")] == [0, 1]


def test_the_groups_not_matched_are_read_once():
    # (the sigmas are asked at two groups at most, whatever the static's size)
    asked: list[list] = []

    def sigmas_of(bindings, groups, known):
        asked.append(list(groups))
        return [(group == bindings[0].value,) for group in groups]

    literals = [f"user{i}" for i in range(50)]
    equal = equal_groups(_tests("=?=", False), literals)
    found = classes(sigmas_of, equal, (Literal("user7"),), {})  # type: ignore[arg-type]
    assert found.matched == [7]
    assert found.matched_sigma == (True,)
    assert found.other_sigma == (False,)
    assert asked == [["user7", "user0"]]


def test_case_and_escaped_bytes_fold_as_each_operator_compares():
    # (``==`` folds A-Z and compares a non-ASCII string's bytes: an escaped byte pair
    # equals the character it encodes; ``=?=`` compares the strings as they are)
    literals = ["\udcc3\udca9", "A", "b"]
    for op, value, want in (("==", "é", [0]), ("!=", "a", [1]), ("=?=", "é", []),
                            ("is", "A", [1]), ("==", 3, []), ("isnt", "a", [])):
        form = (op, False, "owner")

        def sigmas_of(bindings, groups, known, form=form):
            return [(value_of_test(form, group, bindings[0]),) for group in groups]

        equal = equal_groups(_tests(op, False), literals)
        found = classes(sigmas_of, equal, (Literal(value),), {})  # type: ignore[arg-type]
        assert found.matched == want
        for at, literal in enumerate(literals):
            sigma = found.matched_sigma if at in want else found.other_sigma
            assert sigma == (value_of_test(form, literal, Literal(value)),)
