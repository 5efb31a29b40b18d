"""Facts kept on expression nodes (``ast.Expr``'s slots): the compiled closure and
folded value (``cache.py``), and the names a node refers to (``refs.names``)."""

from __future__ import annotations

import copy
import pickle
import sys

import pytest

from condorlite.core.classad import cache
from condorlite.core.classad.ad import ClassAd
from condorlite.core.classad.ast import Expr, Literal
from condorlite.core.classad.compiler import WARM_UP
from condorlite.core.classad.evaluator import evaluate
from condorlite.core.classad.parser import parse_expr
from condorlite.core.classad.refs import names


def test_a_node_keeps_its_closure_and_an_equal_node_has_its_own() -> None:
    one, two = parse_expr("Memory * 2 > Cpus"), parse_expr("Memory * 2 > Cpus")
    assert one == two and one is not two
    fn = cache.compile_expr(one)
    assert cache.compile_expr(one) is fn  # built once
    assert not hasattr(two, "_fn")  # nothing shared through equality
    assert cache.folded(one) is cache.VARIES
    assert cache.folded(parse_expr("(1 + 2) * 3")) == 9


def test_the_slots_are_not_fields() -> None:
    """Equality, hashing, printing and copies ignore what was compiled."""
    node = parse_expr("A + 1 > B")
    plain = parse_expr("A + 1 > B")
    ad = ClassAd({"A": 1, "B": 0})
    assert evaluate(node, ad) is True  # compiles the whole tree
    assert hasattr(node, "_fn") and hasattr(node.left, "_fn")
    assert node == plain and hash(node) == hash(plain) and repr(node) == repr(plain)
    for copied in (pickle.loads(pickle.dumps(node)), copy.deepcopy(node)):
        assert copied == node and not hasattr(copied, "_fn")
        assert evaluate(copied, ad) is True


def test_a_root_is_replaced_by_its_generated_function_on_the_node() -> None:
    """After ``compiler.WARM_UP`` evaluations a root's closure gives way to generated
    code, kept on the node, with the same values."""
    node = parse_expr("Memory >= 2048 && Cpus > 1")
    first = cache.compile_node(node, root=True)
    values = [evaluate(node, ClassAd({"Memory": m, "Cpus": 2})) for m in range(WARM_UP + 5)]
    assert node._fn is not first  # type: ignore[attr-defined]
    assert values == [m >= 2048 for m in range(WARM_UP + 5)]


def test_names_are_worked_out_once_per_node() -> None:
    node = parse_expr("TARGET.Memory > MY.RequestMemory && Foo.bar =?= Baz")
    found = names(node)
    assert found == {"memory", "requestmemory", "foo", "baz"}
    assert names(node) is found
    assert names(None) == frozenset()


def test_a_literal_keeps_no_facts_of_its_own() -> None:
    """A literal's folded value is its value and it names nothing, so it has no slots
    for facts (ads hold millions of unshared literals: 48 bytes each, not 64)."""
    assert Expr.__slots__ == () and Literal.__slots__ == ("value",)
    assert sys.getsizeof(Literal(1)) < sys.getsizeof(parse_expr("A"))
    for value in (7, 2.5, "x", True):
        node = Literal(value)
        assert cache.folded(node) == value and names(node) == frozenset()
        assert cache.compile_expr(node)(None, None) == value
        with pytest.raises(AttributeError):
            object.__setattr__(node, "_fn", None)  # nothing to keep it in
    assert evaluate(parse_expr('ifThenElse(A > 1, "big", 0)'), ClassAd({"A": 2})) == "big"
