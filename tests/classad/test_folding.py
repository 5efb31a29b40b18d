"""``folding.fold_own`` against full evaluation.

Every expression of the generated corpus is folded in the slot ad (MY = slot) and
evaluated, folded and not, against several job ads (each differing in what the corpus
reads of TARGET) and two ``now``s: the values must be equal (reals bit for bit). The
folded expression is also put in the slot as an attribute and read from the job side
(``TARGET.Probe``), where it is evaluated in the slot again. The test also checks that
folding changes a good part of the corpus, so a folder that changes nothing cannot
pass, and that names in ``keep`` are never folded.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

import pytest

from condorlite.core.classad import folding
from condorlite.core.classad.ad import ClassAd
from condorlite.core.classad.ast import AttrRef, Binary, Expr, Literal, Paren
from condorlite.core.classad.cache import folded
from condorlite.core.classad.evaluator import evaluate
from condorlite.core.classad.folding import FoldMemo, fold_own
from condorlite.core.classad.parser import parse_expr
from condorlite.core.classad.printer import unparse

from .gen_exprs import JOB_AD, SLOT_AD, generate
from .test_evaluator import ad, canonical

NOWS = (1700000000, 1800000000)


def _jobs() -> list[ClassAd]:
    base = ad(JOB_AD)
    other = base.copy()
    other["Owner"] = "bob"
    other["RequestMemory"] = 9000
    other["ImageSize"] = -2
    bare = ClassAd()
    odd = base.copy()
    odd["RequestMemory"] = "lots"
    odd["Owner"] = True
    return [base, other, bare, odd]


def _agree(texts: list[str], keep: frozenset[str]) -> int:
    slot, jobs = ad(SLOT_AD), _jobs()
    changed = 0
    for text in texts:
        node = parse_expr(text)
        out = fold_own(node, slot, keep)
        if out is not node:
            changed += 1
        placed = slot.copy()
        placed["Probe"] = out
        original = slot.copy()
        original["Probe"] = node
        for job in jobs:
            for now in NOWS:
                want = canonical(evaluate(node, slot, job, now=now))
                assert canonical(evaluate(out, slot, job, now=now)) == want, (text, unparse(out))
                # read from the job's side: evaluated in the slot all the same
                got = evaluate(parse_expr("TARGET.Probe"), job, placed, now=now)
                assert canonical(got) == canonical(
                    evaluate(parse_expr("TARGET.Probe"), job, original, now=now)), text
    return changed


@pytest.mark.parametrize("keep", [frozenset(), frozenset({"memory", "cpus", "disk"})],
                         ids=["nothing-kept", "resources-kept"])
def test_folded_corpus_agrees_with_full_evaluation(keep: frozenset[str]) -> None:
    texts = generate(seed=23, count=1500)
    changed = _agree(texts, keep)
    assert changed >= 0.2 * len(texts), changed


#: Slot variants whose literals differ only where a memo key could go wrong: the sign
#: of a zero, an integer against a boolean and a real, a string's case, undefined.
_VARIANTS = (
    {}, {"LoadAvg": -0.0}, {"LoadAvg": 0.0}, {"LoadAvg": 0}, {"LoadAvg": False},
    {"Memory": 0}, {"Memory": True}, {"Memory": -0.0}, {"Memory": 1.0},
    {"Arch": "x86_64"}, {"Arch": ""}, {"Cpus": float("nan")}, {"Cpus": -1},
)


def test_a_memo_shared_by_many_slots_folds_as_a_fresh_one() -> None:
    """The memo (``FoldMemo``) is shared by every slot of a cycle: folding with it
    must give what folding without one gives, on slots whose literals differ only in
    a zero's sign, a number's type, a string's case; and the values still agree."""
    texts = [
        *generate(seed=29, count=400), "1 / LoadAvg", "LoadAvg || TARGET.x",
        "LoadAvg && TARGET.x", "-Memory / 1",
        "Memory || TARGET.x", "Arch == \"X86_64\" || TARGET.x", "1 / Memory",
        "Cpus > 2 || TARGET.x", "Cpus && TARGET.x", "Arch =?= \"X86_64\" && TARGET.x"]
    nodes = [parse_expr(text) for text in texts]
    memo, job = FoldMemo(), ad(JOB_AD)
    differ = set()
    for changes in _VARIANTS:
        slot = ad(SLOT_AD)
        for name, value in changes.items():
            slot[name] = value
        for text, node in zip(texts, nodes, strict=True):
            shared = fold_own(node, slot, frozenset(), memo)
            fresh = fold_own(node, slot)
            assert unparse(shared) == unparse(fresh), (changes, text)
            assert canonical(evaluate(shared, slot, job, now=NOWS[0])) == canonical(
                evaluate(node, slot, job, now=NOWS[0])), (changes, text)
            differ.add((text, unparse(fresh)))
    assert memo.constant and memo.decided
    # the variants do fold differently (else the keys would never be tested)
    assert len(differ) > len(texts) + 25, len(differ)


def _refs(node: object) -> set[str]:
    out: set[str] = set()
    stack = [node]
    while stack:
        n = stack.pop()
        if type(n) is AttrRef:
            out.add(n.name.lower())
        for field in getattr(n, "__dataclass_fields__", ()):
            value = getattr(n, field)
            if isinstance(value, tuple):
                stack.extend(value)
            elif hasattr(value, "__dataclass_fields__"):
                stack.append(value)
    return out


def test_kept_names_stay_references() -> None:
    slot = ad(SLOT_AD)
    node = parse_expr("Memory > 1024 && Cpus >= 2 && LoadAvg < 1")
    out = fold_own(node, slot, frozenset({"memory", "cpus"}))
    assert _refs(out) == {"memory", "cpus"}
    assert unparse(out) == "Memory > 1024 && Cpus >= 2 && true"


@pytest.mark.parametrize(("text", "folded"), [
    # an idle desktop: the owner test no longer matters
    ('(KeyboardIdle > 15 * 60) || (TARGET.Owner == "u043")', "true"),
    # a busy one: false || x is not x (false || "a" is error), so it is kept
    ('(KeyboardIdle > 60 * 60) || (TARGET.Owner == "u043")',
     'false || (TARGET.Owner == "u043")'),
    ("LoadAvg > 1 || TARGET.Owner", "false || TARGET.Owner"),  # "alice": error, kept
    ("KeyboardIdle > 15 * 60 && LoadAvg < 0.3", "true"),
    # x && false is not false (error && false is error)
    ("TARGET.Owner == \"a\" && LoadAvg > 1", 'TARGET.Owner == "a" && false'),
    ("MY.LoadAvg * 4", "1.000000000000000E+00"),
    # TARGET's names, calls, conditionals and records keep their shape
    ("TARGET.LoadAvg < 1", "TARGET.LoadAvg < 1"),
    ("time() - KeyboardIdle", "time() - 2000"),
    ("LoadAvg > 1 ? TARGET.x : KeyboardIdle", "false ? TARGET.x : 2000"),
    ("[LoadAvg = 9; y = LoadAvg].y", "[ LoadAvg = 9; y = LoadAvg ].y"),
    # a name the slot does not bind resolves to TARGET: kept
    ("Owner == \"u043\"", 'Owner == "u043"'),
])
def test_the_startd_shapes_fold_as_expected(text: str, folded: str) -> None:
    slot = ad(SLOT_AD)
    slot["KeyboardIdle"] = 2000
    out = fold_own(parse_expr(text), slot)
    assert unparse(out) == folded
    job = ad(JOB_AD)
    assert canonical(evaluate(out, slot, job, now=NOWS[0])) == canonical(
        evaluate(parse_expr(text), slot, job, now=NOWS[0]))


def test_nothing_to_fold_gives_the_node_itself() -> None:
    slot = ad(SLOT_AD)
    node = parse_expr('TARGET.RequestMemory <= TARGET.Owner && isUndefined(TARGET.x)')
    assert fold_own(node, slot) is node


def test_a_deep_expression_is_left_as_it_is() -> None:
    slot = ad(SLOT_AD)
    node: Expr = AttrRef("LoadAvg")
    for _ in range(400):  # (deeper than the parser reads: built here)
        node = Paren(node)
    assert fold_own(node, slot) is node


def test_a_nested_ad_is_left_as_it_is() -> None:
    outer = ad("[inner = [LoadAvg = 1]; LoadAvg = 5]")
    inner = evaluate(parse_expr("inner"), outer)
    node = parse_expr("LoadAvg + 1")
    assert fold_own(node, inner) is node
    assert type(fold_own(node, outer)) is Literal


@pytest.mark.parametrize("op", ["<", "<=", ">", ">=", "==", "!=", "=?=", "+"])
def test_a_comparison_of_two_integers_folds_as_the_evaluator_folds_it(op):
    """``_constant`` compares two integers itself (no compiled closure per desktop's
    ``KeyboardIdle``): its literal is the evaluator's value, on each side of the
    bound too; other operators and operand types go the evaluator's way."""
    values = [-2 ** 63 - 1, -2 ** 63, -5, 0, 1, 899, 900, 901, 2 ** 63 - 1, 2 ** 63]
    others = [True, 900.0, "900"]
    for left in values + others:
        for right in values + others:
            node = Binary(op, Literal(left), Literal(right))
            out = folding._constant(node)
            value = folded(node)
            assert type(out) is Literal
            assert type(out.value) is type(value) and out.value == value


_D = folding.Decision


@pytest.mark.parametrize(("text", "want"), [
    ("(KeyboardIdle > 15 * 60) || (TARGET.Owner == \"alice\")",
     {"keyboardidle": (_D(">", 900, True),)}),
    ("KeyboardIdle > 900 && 60 <= MY.KeyboardIdle && LoadAvg < 0.5",
     {"keyboardidle": (_D(">", 900, True), _D("<=", 60, False))}),
    ("ifThenElse(KeyboardIdle != -3, Memory >= 1024, false)",
     {"keyboardidle": (_D("!=", -3, True),), "memory": (_D(">=", 1024, True),)}),
    ("KeyboardIdle > 900 || KeyboardIdle", {}),          # read alone too
    ("(KeyboardIdle) > 900", {}),                        # in parentheses
    ("KeyboardIdle > Memory", {}),                       # against a name
    ("KeyboardIdle > TARGET.ImageSize", {}),
    ("KeyboardIdle + 1 > 900", {}),
    ("KeyboardIdle > 900.0", {}),                        # against a real
    ("KeyboardIdle =?= 900", {}),                        # not a comparison taken
    ("[a = KeyboardIdle].a > 1 && Memory < 5", {"memory": (_D("<", 5, True),)}),
])
def test_decisions_are_the_names_only_compared_with_integers(text, want) -> None:
    assert folding.decisions(parse_expr(text), frozenset({"cpus"})) == want


def test_a_fold_is_a_function_of_what_the_decisions_give() -> None:
    """For each expression, the slots binding ``KeyboardIdle`` (and ``Memory``) to
    integers that its ``decisions`` give the same ``outcomes`` fold to equal
    expressions (the integers appear nowhere in them), and ``outcomes`` is what the
    evaluator gives for each comparison; other bindings have no outcomes."""
    texts = ["(KeyboardIdle > 15 * 60) || (TARGET.Owner == \"alice\")",
             "KeyboardIdle > 900 && 60 <= MY.KeyboardIdle && TARGET.x",
             "ifThenElse(KeyboardIdle != -3, Memory >= 1024, TARGET.y) + Memory",
             "Memory >= 1024 && KeyboardIdle < 9223372036854775807"]
    values = [-2 ** 63 + 1, -3, 0, 59, 60, 61, 899, 900, 901, 1023, 1024, 2 ** 63 - 1]
    for text in texts:
        node = parse_expr(text)
        tests = folding.decisions(node)
        assert "keyboardidle" in tests
        seen: dict[tuple, str] = {}
        for idle in values:
            for memory in (1023, 1024):
                slot = ad(f"[KeyboardIdle = {idle}; Memory = {memory}]")
                key = tuple(
                    folding.outcomes(tests[name], slot.lookup(name).value)  # type: ignore[union-attr]
                    if name in tests else slot.lookup(name).value  # type: ignore[union-attr]
                    for name in ("keyboardidle", "memory"))
                for name, found in tests.items():
                    value = slot.lookup(name).value  # type: ignore[union-attr]
                    for test, outcome in zip(found, folding.outcomes(found, value) or (),
                                             strict=True):
                        left, right = (value, test.constant) if test.name_left else (
                            test.constant, value)
                        assert evaluate(Binary(test.op, Literal(left), Literal(right))) is outcome
                out = unparse(fold_own(node, slot))
                assert "KeyboardIdle" not in out
                assert seen.setdefault(key, out) == out, (text, idle, memory)
        assert len(seen) < len(values) * 2
    for value in (True, 900.0, "900", 2 ** 63, -2 ** 63):
        assert folding.outcomes((_D(">", 900, True),), value) is None


@pytest.mark.parametrize("constants", [
    (900,), (60, 900), (60, 61, 62), (-3, 0, 1024), (900, 900),
    (-2 ** 63 + 1, 2 ** 63 - 1), (-2 ** 63 + 2, 0, 2 ** 63 - 2),
])
def test_regions_give_the_outcomes_of_every_integer(constants) -> None:
    """``regions``: for every integer on both sides of and at each constant (and
    the ends of 64 bits), the region's outcomes are ``outcomes``, for tests of
    every operator with the name on either side; a region no integer lies in has
    none."""
    ops = ("<", "<=", ">", ">=", "==", "!=")
    tests = tuple(_D(ops[i % len(ops)], constant, i % 4 < 2)
                  for i, constant in enumerate(constants * len(ops)))
    found = folding.regions(tests)
    assert found.cuts == tuple(sorted(set(constants)))
    assert len(found.outcomes) == 2 * len(found.cuts) + 1
    values = {-2 ** 63 + 1, 2 ** 63 - 1, 0}
    values.update(c + d for c in constants for d in (-2, -1, 0, 1, 2))
    for value in sorted(values):
        if not -found.bound < value < found.bound:
            continue
        region = bisect_left(found.cuts, value) + bisect_right(found.cuts, value)
        assert found.outcomes[region] == folding.outcomes(tests, value), value
    # (between two adjacent constants: no integer, no outcomes)
    for low, high in zip(found.cuts, found.cuts[1:], strict=False):
        if high == low + 1:
            assert found.outcomes[2 * found.cuts.index(high)] is None
