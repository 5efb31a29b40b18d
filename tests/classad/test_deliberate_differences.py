"""The deliberate differences from HTCondor listed in docs/classad.md, pinned on both sides.

Each test states what classad2 (HTCondor's own library) gives and what condorlite gives,
so it fails if either side changes: a difference that disappears should leave the list.
"""

from __future__ import annotations

import pytest

from condorlite.core.classad import evaluate, parse_ad, parse_expr
from condorlite.core.classad.errors import ClassAdSyntaxError
from condorlite.core.classad.values import Undefined


def test_dot_dot_five_is_a_syntax_error(classad2):
    """classad2 reads ``..5`` as 0.0; condorlite refuses it."""
    assert classad2.ExprTree("..5").eval() == 0.0
    with pytest.raises(ClassAdSyntaxError):
        parse_expr("..5")


def test_target_is_read_even_without_my(classad2):
    """With TARGET given and no MY, classad2 ignores the target; condorlite reads it."""
    theirs = classad2.ExprTree("TARGET.x").eval(None, classad2.ClassAd("[x = 7]"))
    assert theirs == classad2.Value.Undefined
    assert evaluate("TARGET.x", None, parse_ad("[x = 7]")) == 7


def test_parent_at_the_top_of_a_match_is_undefined(classad2):
    """Both give undefined for a plain attribute of the match's parent; condorlite does
    not expose HTCondor's internal match-context ad at all (docs/classad.md)."""
    my, target = "[y = 1]", "[x = 7]"
    theirs = classad2.ExprTree("PARENT.y").eval(classad2.ClassAd(my), classad2.ClassAd(target))
    assert theirs == classad2.Value.Undefined
    assert evaluate("PARENT.y", parse_ad(my), parse_ad(target)) is Undefined
