"""The built-in functions, argument by argument, against HTCondor's ClassAd library.

``tests/data/classad/builtins.txt`` holds ``expression => expected`` lines covering
every function of issue 2 with edge arguments (undefined, error, wrong types, empty
strings and lists, negative and huge numbers, reals against integers, name case).
Each is evaluated with MY = ``gen_exprs.JOB_AD`` and TARGET = ``gen_exprs.SLOT_AD``.
The expected values are classad2's answers: the same lines are checked against
condorlite and, when htcondor is installed, against classad2 (in a child process, as
classad2 can crash), so the file cannot drift from the oracle.

Values are printed by ``render``: integers in decimal, reals as Python's ``repr`` of
the double (so ``1.0``, ``-0.0``, ``inf``, ``nan``; never confused with integers),
booleans ``true``/``false``, strings JSON-quoted, ``undefined``, ``error``, lists as
``{ a, b }`` with each element evaluated where HTCondor evaluates it, records as
``[ name; name ]`` (their lower-cased attribute names, sorted).

The deliberate differences from classad2 that concern built-ins are pinned at the end,
each with classad2's answer and condorlite's.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from condorlite.core.classad.ad import ClassAd
from condorlite.core.classad.builtins import REGISTRY
from condorlite.core.classad.errors import ClassAdSyntaxError
from condorlite.core.classad.evaluator import evaluate
from condorlite.core.classad.parser import parse_expr
from condorlite.core.classad.values import Error, Undefined

from .gen_exprs import JOB_AD, SLOT_AD

CORPUS = Path(__file__).resolve().parent.parent / "data" / "classad" / "builtins.txt"


def read_corpus() -> list[tuple[str, str]]:
    """(expression, expected) pairs of the corpus file, in file order."""
    pairs = []
    for line in CORPUS.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        expr, sep, expected = line.partition(" => ")
        assert sep, f"corpus line without ' => ': {line!r}"
        pairs.append((expr, expected))
    return pairs


LINES = read_corpus()


def render(canonical: object) -> str:
    """Print a canonical value (the differential tests' JSON form) as described above."""
    if canonical in ("undefined", "error"):
        return canonical  # type: ignore[return-value]
    kind, value = canonical  # type: ignore[misc]
    if kind == "bool":
        return "true" if value else "false"
    if kind == "int":
        return str(value)
    if kind == "real":
        return "nan" if value == "nan" else repr(float.fromhex(value))
    if kind == "str":
        return json.dumps(value, ensure_ascii=False)
    if kind == "list":
        return "{ " + ", ".join(render(item) for item in value) + " }" if value else "{ }"
    if kind == "ad":
        return "[ " + "; ".join(value) + " ]" if value else "[ ]"
    raise ValueError(f"not a canonical value: {canonical!r}")


def canonical(text: str, my: ClassAd, target: ClassAd) -> object:
    """condorlite's value of ``text`` in the canonical form (lists element-wise via
    ``(text)[i]``, as for classad2)."""
    value = evaluate(text, my, target, now=0)
    if value is Undefined:
        return "undefined"
    if value is Error:
        return "error"
    if isinstance(value, list):
        return ["list", [canonical(f"({text})[{i}]", my, target) for i in range(len(value))]]
    if isinstance(value, ClassAd):
        return ["ad", sorted(k.lower() for k in value)]
    if isinstance(value, float):
        return ["real", "nan" if math.isnan(value) else value.hex()]
    return [type(value).__name__, value]


@pytest.fixture(scope="module")
def ads() -> tuple[ClassAd, ClassAd]:
    job = parse_expr(JOB_AD)
    slot = parse_expr(SLOT_AD)
    return ClassAd(job.attrs), ClassAd(slot.attrs)  # type: ignore[attr-defined]


def test_corpus_covers_every_function_of_the_issue() -> None:
    """Every function the issue names (and every registered one) appears in a line;
    the time and environment functions' lines are ``test_time_builtins.EDGE_CASES``
    and ``CLOCK_CASES`` (their values depend on the zone, which those tests pin)."""
    from .test_time_builtins import CLOCK_CASES, EDGE_CASES

    text = "\n".join([*(expr.lower() for expr, _ in LINES), *EDGE_CASES, *CLOCK_CASES]).lower()
    named = [
        "ifThenElse",
        "isUndefined",
        "isError",
        "isString",
        "isInteger",
        "isReal",
        "isBoolean",
        "isList",
        "isClassAd",
        "int",
        "real",
        "string",
        "bool",
        "floor",
        "ceiling",
        "round",
        "pow",
        "quantize",
        "min",
        "max",
        "sum",
        "avg",
        "strcat",
        "substr",
        "size",
        "toLower",
        "toUpper",
        "strcmp",
        "stricmp",
        "join",
        "split",
        "splitUserName",
        "splitSlotName",
        "regexp",
        "regexps",
        "replace",
        "replaceall",
        "member",
        "identicalMember",
        "anyCompare",
        "allCompare",
        "stringListSize",
        "stringListSum",
        "stringListAvg",
        "stringListMin",
        "stringListMax",
        "stringListMember",
        "stringListIMember",
        "stringListSubsetMatch",
        "stringListISubsetMatch",
        "stringList_regexpMember",
        "stringListsIntersect",
        "versioncmp",
        "versionGT",
        "versionGE",
        "versionLT",
        "versionLE",
        "versionEQ",
        "countMatches",
        "time",
        "interval",
        "unparse",
        "eval",
        "debug",
    ]
    missing = [n for n in [*named, *REGISTRY] if n.lower() + "(" not in text]
    assert not missing, f"functions without a corpus line: {missing}"
    assert len(LINES) >= 800


@pytest.mark.parametrize(("expr", "expected"), LINES, ids=[e for e, _ in LINES])
def test_condorlite_agrees(expr: str, expected: str, ads: tuple[ClassAd, ClassAd]) -> None:
    job, slot = ads
    assert render(canonical(expr, job, slot)) == expected


@pytest.fixture(scope="module")
def oracle_answers() -> dict[str, object]:
    """classad2's canonical answer for every corpus line (None where it crashed)."""
    pytest.importorskip("htcondor2")
    from .test_differential import classad2_answers

    texts = [expr for expr, _ in LINES]
    answers, _crashes = classad2_answers(texts, swap=False)
    return dict(zip(texts, answers, strict=True))


@pytest.mark.parametrize(("expr", "expected"), LINES, ids=[e for e, _ in LINES])
def test_classad2_agrees(expr: str, expected: str, oracle_answers: dict[str, object]) -> None:
    answer = oracle_answers[expr]
    assert answer is not None, "classad2 crashed"
    assert "unparsable" not in answer  # type: ignore[operator]
    assert render(answer["value"]) == expected  # type: ignore[index]


def test_render_keeps_types_apart() -> None:
    assert render(["int", 1]) == "1"
    assert render(["real", (1.0).hex()]) == "1.0"
    assert render(["real", (-0.0).hex()]) == "-0.0"
    assert render(["str", "1"]) == '"1"'
    assert render(["list", [["bool", True], "undefined"]]) == "{ true, undefined }"
    assert render(["ad", []]) == "[ ]"


# --- deliberate differences ------------------------------------------------------------
# Each case: the expression, classad2's answer, condorlite's answer (rendered).

DIFFERENCES = [
    # HTCondor's Deref of countMatches' first argument leaves the evaluation state in
    # the ad where the name was found (nowhere, if it was not): the rest of the
    # enclosing expression is evaluated from there. condorlite applies that to the
    # function's own list argument only.
    ("countMatches(NoSuchAttr, { }) + RequestMemory", "undefined", "2048"),
    ("ifThenElse(countMatches(NoSuchAttr, { }) == 0, RequestMemory, 7)", "undefined", "2048"),
    ("evalInEachContext(a, { [a = 5; b = Nested] }[0].b)", "error", "undefined"),
]

#: Once differences: PCRE-only syntax, now that patterns run on PCRE2 itself; lists,
#: now that a list literal keeps its element expressions (values.ExprList): converted
#: to text it prints them, and =?= tells a function's list from a written one.
AGREED = [
    ("string({ 1 + 1 })", '"{ 1 + 1 }"'),
    ('strcat("", { Memory })', '"{ Memory }"'),
    ('toUpper({ 1 + 1, TARGET.Cpus, "x" })', '"{ 1 + 1,TARGET.CPUS,\\"X\\" }"'),
    ('split("a") =?= { "a" }', "false"),
    ('split("a") =!= { "a" }', "true"),
    ("{ 2 } =?= { 2 }", "error"),
    ('split("a") =?= split("a")', "error"),
    ("sum({ { 1 } })", "error"),
    ('regexp("\\\\p{L}", "a")', "true"),
    ('regexp("\\\\K", "a")', "true"),
    ('regexp("(?|(a)|(b))", "b")', "true"),
    ('regexp("(a+)+$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!")', "error"),
]


@pytest.mark.parametrize(("expr", "answer"), AGREED, ids=[a[0] for a in AGREED])
def test_once_differences(
    expr: str, answer: str, ads: tuple[ClassAd, ClassAd]
) -> None:
    job, slot = ads
    assert render(canonical(expr, job, slot)) == answer


@pytest.mark.parametrize(("expr", "answer"), AGREED, ids=[a[0] for a in AGREED])
def test_once_differences_in_classad2(expr: str, answer: str) -> None:
    pytest.importorskip("htcondor2")
    from .test_differential import classad2_answers

    (theirs,), _ = classad2_answers([expr], swap=False)
    assert theirs is not None and render(theirs["value"]) == answer


@pytest.mark.parametrize(("expr", "theirs", "mine"), DIFFERENCES, ids=[d[0] for d in DIFFERENCES])
def test_documented_difference_condorlite(
    expr: str, theirs: str, mine: str, ads: tuple[ClassAd, ClassAd]
) -> None:
    job, slot = ads
    assert render(canonical(expr, job, slot)) == mine != theirs


@pytest.mark.parametrize(("expr", "theirs", "mine"), DIFFERENCES, ids=[d[0] for d in DIFFERENCES])
def test_documented_difference_classad2(expr: str, theirs: str, mine: str) -> None:
    pytest.importorskip("htcondor2")
    from .test_differential import classad2_answers

    (answer,), _ = classad2_answers([expr], swap=False)
    assert answer is not None and render(answer["value"]) == theirs != mine


def test_string_list_regexp_member_is_spelled_with_an_underscore(
    ads: tuple[ClassAd, ClassAd],
) -> None:
    """HTCondor registers stringList_regexpMember; the name without the underscore is
    an unknown function there, so error here too (the corpus checks classad2)."""
    job, slot = ads
    assert evaluate('stringList_regexpMember("a.*", "abc, def")', job, slot) is True
    assert evaluate('stringListRegexpMember("a.*", "abc, def")', job, slot) is Error
    assert "stringlistregexpmember" not in REGISTRY


def test_time_uses_the_given_now(ads: tuple[ClassAd, ClassAd]) -> None:
    job, slot = ads
    assert evaluate("time()", job, slot, now=1234) == 1234
    assert evaluate("time() - 34", job, slot, now=1234) == 1200


TOTALITY_VALUES = (
    "undefined",
    "error",
    "true",
    "0",
    "-1",
    "9223372036854775807",
    "4294967296",
    "-0.0",
    'real("nan")',
    'real("-inf")',
    "1e308",
    '""',
    '"a, b;c"',
    '"h\\u00e9llo"',
    '"(["',
    "{ }",
    '{ 1, "x", undefined, [ a = 1 ] }',
    "[ a = 1; b = a ]",
    "Tags",
    "Nested",
    "NoSuch",
)


@pytest.mark.parametrize("name", sorted(REGISTRY))
def test_every_builtin_is_total(name: str, ads: tuple[ClassAd, ClassAd]) -> None:
    """Any arguments, any arity from none to one past the maximum: a value, never an
    exception (a seeded sample of the combinations)."""
    import random

    job, slot = ads
    spec = REGISTRY[name]
    rng = random.Random(name)
    top = min(spec.max_arity, 4) + 1
    for arity in range(top + 1):
        for _ in range(60):
            args = ", ".join(rng.choice(TOTALITY_VALUES) for _ in range(arity))
            try:
                value = evaluate(f"{name}({args})", job, slot, now=0)
            except ClassAdSyntaxError as exc:  # absTime("(["): refused when parsed
                assert exc.kind == "bad_time", f"{name}({args})"
                continue
            assert (
                value is Undefined
                or value is Error
                or isinstance(value, (bool, int, float, str, list, ClassAd))
            ), f"{name}({args}) gave {value!r}"
            if not spec.min_arity <= arity <= spec.max_arity:
                assert value is Error, f"{name}({args}): wrong arity must be error"
