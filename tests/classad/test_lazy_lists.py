"""A list literal keeps its element expressions (``values.ExprList``), as HTCondor's
does: each element is evaluated when something reads it, in the state of that moment.

What shows it, each checked against classad2 (through the oracle worker):
converting a list to text prints the expressions (``string({1 + 1})`` is
``"{ 1 + 1 }"``); a list that names itself (``a = { a }``) is a list whose element,
read, is the list again (a cycle under eager evaluation); ``=?=`` tells a list a
built-in made (``split``) from a written one (false), while two written lists, or two
made ones, are error. Selecting through a list (``{...}.x``) and the built-ins that
build lists give lists of values, which print as values.

The public entry points hand back plain lists of values (``scope.settle``): there
an element that unfolds into the same literal again is undefined, as a cycle is.
"""

from __future__ import annotations

import pytest

from condorlite.core.classad import reference
from condorlite.core.classad.ad import ClassAd
from condorlite.core.classad.evaluator import evaluate
from condorlite.core.classad.parser import parse_expr
from condorlite.core.classad.values import Error, Undefined

from .gen_exprs import JOB_AD, SLOT_AD
from .test_builtins import canonical, render

PROBES = [
    "string({ 1 + 1 })",
    "string({ RequestMemory, TARGET.Cpus, MY.Owner })",
    'toUpper({ Owner, "x", 1 + 1 })',
    "toLower({ TARGET.Arch })",
    "strcat({ 1 + 1 }, { Memory })",
    'join(",", { 1 + 1, "a", RequestCpus })',
    "string({ { 1 + 1 } })",
    "string({ [x = 1 + 1] })",
    "string({ [x = 1 + 1], [x = RequestCpus] }.x)",
    "{ [x = 1 + 1], [x = RequestCpus] }.x[1]",
    "string([a = { a }].a)",
    "string([a = { a }].a[0])",
    "string([a = { a }].a[0][0])",
    "size([a = { a }].a)",
    "sum([a = { a }].a)",
    "member(1, [a = { a }].a)",
    "isList([a = { a }].a[0])",
    'split("a") =?= { "a" }',
    'split("a") =!= { "a" }',
    'split("a") =?= split("a")',
    "{ 2 } =?= { 2 }",
    "{ 1 + 1 } == { 2 }",
    "string(ifThenElse(true, { RequestCpus + 1 }, 2))",
    "string({ 1 + 1 } ?: 3)",
    "{ RequestMemory * 2 }[0]",
    "string(Tags)",
    "string(TARGET.Tags)",
    "string(Nested)",
    "string({ Nested }[0].b)",
    "size({ 1 / 0, error })",
    "avg({ 1 + 1, 2.5 })",
    "max({ RequestCpus, TARGET.Cpus })",
    "string(evalInEachContext(x, { [x = 1 + 1] }))",
    'anyCompare("==", { 1 + 1 }, 2)',
    'identicalMember("a", { "a" })',
    "string(sum({ 1, 2 }))",
    "string({ })",
    'string(quantize(3, { 1 + 1, 4 }))',
    'listToArgs({ "a", Owner })',
    # Where elements are read: a subscript in the literal's own ad, everything else in
    # the reader's; literals among the elements stay in the literal's ad.
    "sum([RequestCpus = 5; l = { RequestCpus }].l)",
    "[RequestCpus = 5; l = { RequestCpus }].l[0]",
    "member(5, [RequestCpus = 5; l = { RequestCpus }].l)",
    "string(quantize(3, [RequestCpus = 5; l = { RequestCpus }].l))",
    '[Owner = "bob"; l = { Owner }].l[0]',
    'listToArgs([Owner = "bob"; l = { Owner }].l)',
    'regexpMember("bob", [Owner = "bob"; l = { Owner }].l)',
    "string([c = 5; l = { [y = c] }].l.y)",
    "sum([c = 5; l = { [y = c].y }].l)",
    "[RequestCpus = 5; l = { 2, { RequestCpus } }].l[1][0]",
    "sum([RequestCpus = 5; l = { 2, { RequestCpus } }].l[1])",
    "string([Nested = [a = 7]; l = { Nested }].l.a)",
    "string(evalInEachContext(x, [RequestCpus = 5; l = { [x = RequestCpus], Nested }].l))",
    "string(evalInEachContext(a, [Nested = [a = 7]; l = { Nested }].l))",
    # a selection through a list makes a list of the literal's kind, of values
    "{ [a = 1] }.a =?= { 1 }",
    '{ [a = 1] }.a =?= split("a")',
    'evalInEachContext(1, { [a = 1] }) =?= split("a")',
    "string({ [a = 1 + 1], [a = RequestCpus] }.a)",
    "sum({ [a = 1 + 1], [a = 2] }.a)",
    # a list literal's value inside a selection's list has lost its ad (subscripts find
    # nothing); read by a built-in, it is read in the reader's ad
    "{ [a = { b }; b = 3] }.a[0][0]",
    "{ [a = { 1 + 1 }] }.a[0][0]",
    "{ [a = { TARGET.Cpus }] }.a[0][0]",
    "{ [a = { RequestCpus }] }.a[0][0]",
    "string({ [a = { b }; b = 3] }.a)",
    "sum({ [a = { b }; b = 3] }.a[0])",
    "string({ { b } }.a)",
    "{ { 1 }, 2 }.a",
    "{ [a = [b = 1]], [a = [b = 2]] }.a.b",
    # ... and a record there has lost its enclosing ad (names, TARGET.x included)
    "{ [a = [b = x]; x = 5] }.a[0].b",
    "{ [a = [b = x]; x = 5] }.a.b",
    "{ [a = [b = 1]; x = 5] }.a[0].b",
    "{ [a = [b = TARGET.Cpus]] }.a[0].b",
    "evalInEachContext(a, { [a = [b = x]; x = 5] })[0].b",
    "string({ [a = [b = x]; x = 5] }.a)",
    # ... and so has what a record subscript gives (r.x does not copy)
    '[r = [x = { b }; b = 3]; y = r["x"][0]].y',
    "[r = [x = { b }; b = 3]; y = r.x[0]].y",
    '[r = [x = [c = b]; b = 3]; y = r["x"].c].y',
    '[r = [x = { b }; b = 3]; y = sum(r["x"])].y',
    '[r = [x = { x, 1 }]; y = r["x"][0]].y',
]


@pytest.fixture(scope="module")
def ads() -> tuple[ClassAd, ClassAd]:
    return ClassAd(parse_expr(JOB_AD).attrs), ClassAd(parse_expr(SLOT_AD).attrs)  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def theirs() -> dict[str, str]:
    pytest.importorskip("htcondor2")
    from .test_differential import classad2_answers

    answers, crashes = classad2_answers(PROBES, swap=False)
    assert crashes == 0
    return {text: render(answer["value"]) for text, answer in zip(PROBES, answers, strict=True)}


@pytest.mark.parametrize("text", PROBES)
def test_lists_agree_with_classad2(text: str, ads: tuple[ClassAd, ClassAd], theirs) -> None:
    job, slot = ads
    assert render(canonical(text, job, slot)) == theirs[text]


@pytest.mark.parametrize("text", PROBES)
def test_reference_walker_agrees(text: str, ads: tuple[ClassAd, ClassAd]) -> None:
    job, slot = ads
    assert reference.evaluate(text, job, slot, now=0) == evaluate(text, job, slot, now=0)


def test_a_self_naming_list_settles_with_a_cycle() -> None:
    """Handed back, ``a = { a }`` unfolds once: its element is undefined, as a cycle."""
    ad = ClassAd(parse_expr("[a = { a }; c = a[0]; d = string(a[0])]").attrs)  # type: ignore[attr-defined]
    assert ad.evaluate("a") == [Undefined]
    assert ad.evaluate("c") == [Undefined]
    assert ad.evaluate("d") == "{ a }"


def test_selecting_through_a_list_that_holds_itself_is_a_cycle() -> None:
    """``V = { V, 1 }; V.l`` maps ``.l`` over V's elements, one of which is V again:
    classad2 recurses until its stack overflows (docs/classad.md); here the inner
    selection is a cycle, undefined, in both evaluators."""
    text = "[ V = { V, 1 }; W = { X }; X = W ]"
    ad = ClassAd(parse_expr(text).attrs)  # type: ignore[attr-defined]
    for expr in ("V.l", "W.l", "{ [l = 1], V }.l", "size(V)", "string(V.l)"):
        assert reference.evaluate(expr, ad) == evaluate(expr, ad), expr
    assert evaluate("V.l", ad) == [Undefined, Error]
    assert evaluate("W.l", ad) == [Undefined]
    assert evaluate("string(V.l)", ad) == "{ undefined,error }"
