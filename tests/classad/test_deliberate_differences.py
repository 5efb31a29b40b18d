"""The deliberate differences from HTCondor listed in docs/classad.md, pinned on both sides.

Each test states what classad2 (HTCondor's own library) gives and what condorlite gives,
so it fails if either side changes: a difference that disappears should leave the list.
"""

from __future__ import annotations

import pytest

from condorlite.core.classad import parse_ad, parse_expr
from condorlite.core.classad.errors import ClassAdSyntaxError
from condorlite.core.classad.values import Undefined

SELF_LIST = "[a = { a }; b = size(a); c = a[0]; d = string({1 + 1})]"


def test_lists_are_evaluated_eagerly(classad2):
    """A list's elements are evaluated where the list is: an element naming the list
    itself is a cycle (undefined) here, while HTCondor keeps the element unevaluated."""
    theirs = classad2.ClassAd(SELF_LIST)
    ours = parse_ad(SELF_LIST)
    assert theirs.eval("b") == 1 and ours.evaluate("b") == 1
    assert ours.evaluate("c") is Undefined
    assert isinstance(theirs.eval("c"), list)  # HTCondor: the list { a } itself
    assert theirs.eval("d") == "{ 1 + 1 }"
    assert ours.evaluate("d") == "{ 2 }"


def test_dot_dot_five_is_a_syntax_error(classad2):
    """classad2 reads ``..5`` as 0.0; condorlite refuses it."""
    assert classad2.ExprTree("..5").eval() == 0.0
    with pytest.raises(ClassAdSyntaxError):
        parse_expr("..5")
