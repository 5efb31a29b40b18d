"""The evaluator: scoping rules, cycles, time(), and the fast evaluator against the
reference tree walker (and the reference against classad2).

The fast evaluator (``evaluator.py`` + ``scope.py`` + ``cache.py`` + ``compiler.py`` +
``codegen.py``) must give the reference walker's value for every expression; both are
run on the differential corpus (every generated expression, MY = job and MY = slot)
and on every fixture pair.
"""

from __future__ import annotations

import json
import math

import pytest

from condorlite.core.classad import reference
from condorlite.core.classad.ad import ClassAd
from condorlite.core.classad.evaluator import (
    evaluate,
    evaluate_attribute,
    requirements_hold,
    symmetric_match,
)
from condorlite.core.classad.parser import parse_expr
from condorlite.core.classad.scope import MAX_DEPTH, settle
from condorlite.core.classad.timevalues import time_text
from condorlite.core.classad.values import AbsTime, Error, ExprList, RelTime, Undefined

from .gen_exprs import JOB_AD, SLOT_AD, generate


def ad(text: str) -> ClassAd:
    return ClassAd(parse_expr(text).attrs)


def canonical(value: object) -> object:
    """A comparable form: reals bit for bit (NaN equal to NaN), records by content;
    a list literal's value (a residual's) by its elements' values."""
    if type(value) is ExprList:
        value = settle(value)
    if isinstance(value, float):
        return ("real", "nan" if math.isnan(value) else value.hex())
    if isinstance(value, list):
        return ("list", [canonical(v) for v in value])
    if isinstance(value, ClassAd):
        return ("ad", str(value))
    return (type(value).__name__, value)


# --- scoping -------------------------------------------------------------------------

JOB = (
    "[ a = 1; me = MY.a; b = TARGET.c; unq = c; loop1 = loop2; loop2 = loop1 + 1; "
    "selfloop = selfloop; x = y; y = 10; n = [ a = 2; up = PARENT.a; own = a; far = c ] ]"
)
SLOT = "[ c = 3; a = 100; y = 20; x2 = TARGET.x; back = TARGET.b ]"


@pytest.fixture()
def pair() -> tuple[ClassAd, ClassAd]:
    return ad(JOB), ad(SLOT)


@pytest.mark.parametrize("impl", [evaluate, reference.evaluate], ids=["fast", "reference"])
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("a", 1),  # MY first
        ("MY.a", 1),
        ("TARGET.a", 100),
        ("c", 3),  # not in MY: TARGET
        ("me", 1),
        ("b", 3),
        ("unq", 3),
        ("TARGET.x2", 10),  # x is evaluated in the job, where y is 10
        ("TARGET.back", 3),  # slot's TARGET.b is the job's b, which reads the slot's c
        ("n.up", 1),  # PARENT of the nested ad is the job
        ("n.own", 2),  # nested ad first
        ("n.far", Undefined),  # a nested ad does not fall back to TARGET
        ("nope", Undefined),
        ("TARGET.nope", Undefined),
        ("loop1", Undefined),  # cycle: loop2 sees loop1 in progress
        ("loop2", Undefined),
        ("selfloop", Undefined),
        ("PARENT.a", Undefined),  # above a top-level ad: the match scaffolding
        (".a", Undefined),  # absolute: the match root holds no user attribute
    ],
)
def test_scoping_in_a_match(pair, impl, text, expected) -> None:
    job, slot = pair
    assert impl(text, job, slot) == expected


def test_expression_found_by_lookup_is_evaluated_where_it_lives(pair) -> None:
    job, slot = pair
    # slot.x2 = TARGET.x; job.x = y; y is 10 in the job, 20 in the slot.
    assert evaluate("x2", slot, job) == 10
    assert evaluate_attribute(slot, "x2", job) == 10
    assert evaluate("TARGET.x", slot, job) == 10


def test_target_outside_a_match_is_undefined(pair) -> None:
    job, _ = pair
    assert evaluate("TARGET.a", job) is Undefined
    assert evaluate("c", job) is Undefined
    assert evaluate(".a", job) == 1  # without a match the root is the ad itself


def test_an_attribute_named_like_a_scope_word_wins(pair) -> None:
    job, slot = pair
    job["target"] = parse_expr("[ c = 7 ]")
    job["my"] = parse_expr("[ a = 8 ]")
    assert evaluate("TARGET.c", job, slot) == 7
    assert evaluate("MY.a", job, slot) == 8
    assert reference.evaluate("TARGET.c", job, slot) == 7


def test_cycle_through_both_ads_is_undefined() -> None:
    job, slot = ad("[ p = TARGET.q ]"), ad("[ q = TARGET.p ]")
    assert evaluate("p", job, slot) is Undefined
    assert evaluate("p + 1", job, slot) is Undefined


def test_depth_limit_gives_error() -> None:
    chain = ClassAd({f"a{i}": parse_expr(f"a{i + 1}") for i in range(MAX_DEPTH + 5)})
    chain[f"a{MAX_DEPTH + 5}"] = 1
    assert evaluate("a0", chain) is Error
    assert reference.evaluate("a0", chain) is Error
    assert evaluate(f"a{MAX_DEPTH}", chain) == 1


def test_time_and_current_time_use_now() -> None:
    empty = ClassAd()
    assert evaluate("time()", empty, now=1_700_000_000) == 1_700_000_000
    assert evaluate("CurrentTime - 10", empty, now=100) == 90
    assert evaluate("CurrentTime", ad("[ CurrentTime = 5 ]"), now=100) == 5
    assert isinstance(evaluate("time()", empty), int)


def test_folded_constants_are_fresh_values_for_lists() -> None:
    job = ad('[ l = { 1, 2 }; k = -(3 * 4); s = "A" + 1 ]')
    first = evaluate("l", job)
    first.append(3)
    assert evaluate("l", job) == [1, 2]
    assert evaluate("k", job) == -12
    assert evaluate("s", job) is Error


def test_mutating_an_ad_changes_the_answer(pair) -> None:
    job, slot = pair
    slot["Requirements"] = parse_expr("TARGET.a == 1")
    job["Requirements"] = parse_expr("TARGET.c == 3")
    assert symmetric_match(job, slot)
    slot["c"] = 4
    assert not symmetric_match(job, slot)
    del job["Requirements"]
    assert not requirements_hold(job, slot)


def test_symmetric_match_does_not_confuse_records_built_during_it() -> None:
    # Each record lives only during its own lookup; a reused id must not bring back
    # the value computed in the previous one.
    job = ad("[ Requirements = [ v = 1 ].v == 1 && [ v = 2 ].v == 2 && TARGET.w == 3 ]")
    slot = ad("[ Requirements = [ v = 3 ].v == TARGET.k; w = 3 ]")
    job["k"] = 3
    for _ in range(3):  # closures, then generated code
        assert symmetric_match(job, slot) is True
        assert symmetric_match(slot, job) is True


def test_symmetric_match_after_a_cycle_in_the_first_ad() -> None:
    job = ad("[ Requirements = Loop =?= undefined; Loop = Loop2; Loop2 = Loop ]")
    slot = ad("[ Requirements = TARGET.Requirements ]")
    for _ in range(5):
        assert symmetric_match(job, slot) is True
        assert symmetric_match(slot, job) is True
        assert reference.symmetric_match(job, slot) is True


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("true", True),
        ("1", True),
        ("0.5", True),
        ("0", False),
        ('"yes"', False),
        ("undefined", False),
        ("error", False),
        ("{ 1 }", False),
    ],
)
def test_requirements_hold_coercion(text, expected) -> None:
    job = ad(f"[ Requirements = {text} ]")
    assert requirements_hold(job, ClassAd()) is expected
    assert reference.requirements_hold(job, ClassAd()) is expected


# --- fast against reference ----------------------------------------------------------


@pytest.mark.parametrize("swap", [False, True], ids=["my=job", "my=slot"])
def test_fast_agrees_with_reference_on_the_corpus(swap: bool) -> None:
    job, slot = ad(JOB_AD), ad(SLOT_AD)
    my, target = (slot, job) if swap else (job, slot)
    texts = generate(20240 + swap, 2500)
    differ = []
    for text in texts:
        fast = canonical(evaluate(text, my, target, now=1000))
        slow = canonical(reference.evaluate(text, my, target, now=1000))
        if fast != slow:
            differ.append(f"{text}\n  fast: {fast}\n  reference: {slow}")
    assert not differ, f"{len(differ)} disagreements:\n" + "\n".join(differ[:10])


@pytest.mark.parametrize("swap", [False, True], ids=["my=job", "my=slot"])
def test_generated_code_agrees_with_reference_on_the_corpus(monkeypatch, swap: bool) -> None:
    """Every corpus expression compiled to one generated function (no warm-up) and
    evaluated twice: the first run generates, the second runs the generated code."""
    from condorlite.core.classad import compiler

    monkeypatch.setattr(compiler, "WARM_UP", 1)
    job, slot = ad(JOB_AD), ad(SLOT_AD)
    my, target = (slot, job) if swap else (job, slot)
    differ = []
    for text in generate(777 + swap, 1500):
        expr = parse_expr(text)
        first = canonical(evaluate(expr, my, target, now=1000))
        second = canonical(evaluate(expr, my, target, now=1000))
        slow = canonical(reference.evaluate(expr, my, target, now=1000))
        if not first == second == slow:
            differ.append(f"{text}\n  closures: {first}\n  generated: {second}\n  ref: {slow}")
    assert not differ, f"{len(differ)} disagreements:\n" + "\n".join(differ[:10])


def test_requirements_get_generated_code() -> None:
    from condorlite.core.classad import codegen
    from condorlite.core.classad.cache import compile_expr
    from condorlite.core.classad.scope import Env

    req = parse_expr('TARGET.Memory >= RequestMemory && TARGET.Arch == "X86_64" || MY.x')
    fn = codegen.generate(req, compile_expr(req))
    assert fn is not None
    job = ad("[ RequestMemory = 10; x = false ]")
    slot = ad('[ Memory = 20; Arch = "x86_64" ]')
    assert fn(job, Env(job, slot, None)) is True
    slot["Memory"] = 5
    assert fn(job, Env(job, slot, None)) is False
    # No TARGET: (undefined && undefined) || false is undefined.
    assert fn(job, Env(job, None, None)) is Undefined
    assert reference.evaluate(req, job) is Undefined
    assert codegen.generate(parse_expr("a"), compile_expr(parse_expr("a"))) is not None
    assert codegen.generate(parse_expr("1 + 2"), compile_expr(parse_expr("1 + 2"))) is None


def test_fast_agrees_with_reference_on_every_fixture_pair(monkeypatch) -> None:
    """Real ads: closures on the first evaluations, generated code after (WARM_UP 2)."""
    from condorlite.core.classad import compiler

    from .test_differential import OLD_FORMAT_FILES, old_ads

    monkeypatch.setattr(compiler, "WARM_UP", 2)

    ads = [a for name in OLD_FORMAT_FILES for a, _ in old_ads(name)]
    for a in ads:
        for b in ads:
            assert symmetric_match(a, b) == reference.symmetric_match(a, b)
            for name in a:
                assert canonical(evaluate_attribute(a, name, b, now=7)) == canonical(
                    reference.evaluate_attribute(a, name, b, now=7)
                ), name


def test_reference_agrees_with_classad2_on_the_corpus() -> None:
    pytest.importorskip("htcondor2")
    from .test_differential import classad2_answers

    job, slot = ad(JOB_AD), ad(SLOT_AD)
    texts = generate(20240, 1000)
    answers, _ = classad2_answers(texts, False)
    checked = 0
    for text, answer in zip(texts, answers, strict=True):
        if answer is None or "unparsable" in answer:
            continue
        got = json.loads(json.dumps(_as_worker(text, job, slot)))
        assert got == answer["value"], text
        checked += 1
    assert checked > 900


def _as_worker(text: str, my, target) -> object:
    """The reference's value in the oracle worker's JSON form (as test_differential)."""
    value = reference.evaluate(text, my, target)
    if value is Undefined:
        return "undefined"
    if value is Error:
        return "error"
    if isinstance(value, list):
        return ["list", [_as_worker(f"({text})[{i}]", my, target) for i in range(len(value))]]
    if isinstance(value, ClassAd):
        return ["ad", sorted(k.lower() for k in value)]
    if type(value) is AbsTime:
        return ["abstime", time_text(value)]
    if type(value) is RelTime:
        return ["reltime", "nan" if math.isnan(value) else float(value).hex()]
    if isinstance(value, float):
        return ["real", "nan" if math.isnan(value) else value.hex()]
    return [type(value).__name__, value]


def test_folding_a_long_chain_looks_at_each_node_once(monkeypatch) -> None:
    """Deciding which nodes fold is linear in the tree: a chain ``1 + 1 + ...`` (a job
    ad's long Requirements) asks ``constant`` about each node a bounded number of times;
    a whole-subtree walk at every node asked it n^2/2 times (4 s at 3,000 terms). 150
    terms stay inside the test process's default recursion limit."""
    from condorlite.core.classad import compiler, parse_expr
    from condorlite.core.classad.ad import ClassAd as _Ad
    from condorlite.core.classad.evaluator import evaluate as _evaluate

    calls = 0
    real = compiler.constant

    def counting(node):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        return real(node)

    monkeypatch.setattr(compiler, "constant", counting)
    expr = parse_expr(" + ".join(["1"] * 150))
    assert _evaluate(expr, _Ad()) == 150
    assert calls <= 2 * 300  # 299 nodes; the walk at every node made it 22,499
