"""The deliberate differences from HTCondor listed in docs/classad.md, pinned on both sides.

Each test states what classad2 (HTCondor's own library) gives and what condorlite gives,
so it fails if either side changes: a difference that disappears should leave the list.
"""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from condorlite.core.classad import evaluate, parse_ad, parse_ads, parse_expr, symmetric_match
from condorlite.core.classad.errors import ClassAdSyntaxError
from condorlite.core.classad.values import Error, Undefined


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


def test_old_form_text_with_a_bad_line_is_refused(classad2):
    """HTCondor's old writer prints a string holding a newline as it is; reading that
    back, classad2 silently stops at the broken line and keeps the attributes before
    it, condorlite refuses the text (docs/classad.md, Reading)."""
    text = '[ a = 1; b = "x\\ny" ]'
    old = classad2.ClassAd(text).printOld()
    assert old == parse_ad(text).to_old(sort=True) == 'a = 1\nb = "x\ny"\n'
    theirs = list(classad2.parseAds(old, classad2.ParserType.Old))
    assert [dict(ad) for ad in theirs] == [{"a": 1}]
    with pytest.raises(ClassAdSyntaxError):
        list(parse_ads(old, "old"))


SELF_CONTEXT = "[ Rank = countMatches(Rank, { [a = 1], [a = 2] }) ]"


def test_countmatches_of_the_attribute_holding_it(classad2):
    """countMatches/evalInEachContext whose expression is the attribute that holds
    the call recurse len(list) times a level: classad2 crashes (stack overflow, a
    segmentation fault), condorlite stops at its evaluation budget (MAX_STEPS)."""
    code = f"import htcondor2, classad2; classad2.ClassAd({SELF_CONTEXT!r}).eval('Rank')"
    crashed = subprocess.run([sys.executable, "-c", code], capture_output=True, check=False)
    assert crashed.returncode < 0  # killed by a signal
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)
    try:
        start = time.process_time()
        assert parse_ad(SELF_CONTEXT).evaluate("Rank") == 0
        assert time.process_time() - start < 30
    finally:
        sys.setrecursionlimit(limit)


def test_selection_from_a_list_a_function_built(classad2):
    """Selecting an attribute from a list that a function built crashes classad2 (a
    segmentation fault); condorlite selects from each element, as from a written list."""
    text = '[ Rank = splitUserName(""); x = Rank.Disk; y = { "", "" }.Disk ]'
    code = f"import htcondor2, classad2; classad2.ClassAd({text!r}).eval('x')"
    crashed = subprocess.run([sys.executable, "-c", code], capture_output=True, check=False)
    assert crashed.returncode < 0  # killed by a signal
    assert classad2.ClassAd(text).eval("y") == [classad2.Value.Error] * 2
    assert parse_ad(text).evaluate("x") == parse_ad(text).evaluate("y") == [Error, Error]


@pytest.mark.parametrize(
    "text",
    [
        "[ V = { V, 1 }; x = V.l ]",
        "[ V = { W, 1 }; W = V; x = V.l ]",
        "[ R = [ x = 1 ]; x = evalInEachContext(R, { [a = 1], 3 })[0] ]",
    ],
)
def test_classad2_crashes_on_lists_that_hold_themselves(classad2, text):
    """Selecting from a list that holds itself recurses in classad2 until its stack
    overflows, and so does subscripting the list evalInEachContext returns; condorlite
    evaluates lists eagerly and answers (a cycle is undefined)."""
    code = f"import htcondor2, classad2; classad2.ClassAd({text!r}).eval('x')"
    crashed = subprocess.run([sys.executable, "-c", code], capture_output=True, check=False)
    assert crashed.returncode < 0  # killed by a signal
    value = parse_ad(text).evaluate("x")
    if "evalInEachContext" in text:
        assert value == parse_ad("[ x = 1 ]")  # the first element's value: R's record
    else:
        assert value == [Undefined, Error]  # { V }.l: V is a cycle; 1.l is error


def test_a_cycle_is_undefined(classad2):
    """An attribute whose value depends on itself: condorlite's inner reference is
    undefined; HTCondor's answer depends on its evaluation state (cached values), so
    the same ad gives one value alone and another with a target."""
    text = "[ Requirements = false =?= Requirements ]"
    other = "[ Requirements = true ]"
    theirs = classad2.ClassAd(text)
    assert theirs.eval("Requirements") is True
    assert classad2.ExprTree("MY.Requirements").eval(theirs, classad2.ClassAd(other)) is False
    assert theirs.symmetricMatch(classad2.ClassAd(other)) is True
    ours = parse_ad(text)
    assert ours.evaluate("Requirements") is False
    assert ours.evaluate("Requirements", parse_ad(other)) is False
    assert symmetric_match(ours, parse_ad(other)) is False
