"""The bounded CI slice of the differential campaign (``benchmarks/classad_campaign.py``).

A few thousand cases from ``fuzz_cases`` (per-scenario random MY and TARGET ads;
unparenthesised expressions over every built-in with right and wrong arguments, bytes
that are not UTF-8, huge literals, long chains; symmetric matches; the old, new and JSON
writers with each text read back) asked of condorlite and of classad2: every finding
must fall in a deliberate difference of docs/classad.md. ``CONDORLITE_FUZZ_SCENARIOS`` sets the
number of scenarios (11 cases each).
"""

from __future__ import annotations

import os
import random
import sys

import pytest

pytest.importorskip("htcondor2")

from condorlite.core.classad import ast
from condorlite.core.classad.errors import ClassAdSyntaxError
from condorlite.core.classad.parser import parse_expr

from .fuzz_cases import EXPRS_PER_SCENARIO, fixed_ad_cases, scenario
from .fuzz_classify import children, classify, subexpressions
from .fuzz_compare import run_cases
from .fuzz_exprs import BYTE_STRINGS, FuzzGenerator
from .gen_exprs import CORPUS_FUNCTIONS

SCENARIOS = int(os.environ.get("CONDORLITE_FUZZ_SCENARIOS", "400"))
TOLERATED = ("deliberate",)


@pytest.fixture(autouse=True)
def deep_recursion():
    """The CLI's recursion limit (HTCondor's nesting limit, not Python's, applies)."""
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20_000))
    yield
    sys.setrecursionlimit(limit)


def untolerated(cases: list[dict]) -> list[str]:
    findings, counts = run_cases(cases)
    assert counts["oracle_crash"] == 0, "classad2 crashed on a generated case"
    assert counts["both_refused"] < len(cases) // 3, "too many generated texts do not parse"
    out = []
    for finding in findings:
        name, small = classify(finding)
        if not name.startswith(TOLERATED):
            text = small.case.get("text") or small.case.get("my")
            out.append(f"{name}: {text[:300]}\n  classad2: {small.theirs}\n  ours: {small.ours}")
    return out


@pytest.mark.parametrize("part", range(2))
def test_random_scenarios_agree_with_classad2(part: int) -> None:
    seeds = range(9000 + part * SCENARIOS // 2, 9000 + (part + 1) * SCENARIOS // 2)
    bad = untolerated([c for seed in seeds for c in scenario(seed)])
    assert not bad, f"{len(bad)} disagreements:\n" + "\n".join(bad[:10])


def test_fixed_ads_and_long_chains_agree_with_classad2() -> None:
    gen = FuzzGenerator(77)
    chains = [gen.long_chain() for _ in range(40)]
    cases = fixed_ad_cases(5150, 400)
    my, target = cases[0]["my"], cases[0]["target"]
    cases += [{"kind": "eval", "my": my, "target": target, "text": t} for t in chains]
    bad = untolerated(cases)
    assert not bad, f"{len(bad)} disagreements:\n" + "\n".join(bad[:10])


def unparenthesised(text: str) -> bool:
    """Whether ``text`` has an operator whose operand is an operation written without
    parentheses (``a + b * c``), so that precedence decides its meaning."""
    try:
        tree = parse_expr(text)
    except ClassAdSyntaxError:
        return False
    return any(
        isinstance(node, ast.Binary | ast.Conditional)
        and any(
            isinstance(child, ast.Binary | ast.Conditional | ast.Unary) for child in children(node)
        )
        for node in subexpressions(tree)
    )


def test_generator_reaches_what_issue_19_asks_for() -> None:
    """Unparenthesised operators, every built-in, bytes that are not UTF-8, literals
    over 4,300 digits, long chains, matches and writers, per-scenario ads."""
    cases = [c for seed in range(300) for c in scenario(seed)]
    texts = [c["text"] for c in cases if c["kind"] == "eval"]
    joined = "\n".join(texts).lower()
    assert len(cases) == 300 * (EXPRS_PER_SCENARIO + 3)
    assert {c["kind"] for c in cases} == {"eval", "match", "write"}
    assert len({c["my"] for c in cases}) == 600, "each scenario has its own two ads"
    assert sum(map(unparenthesised, texts)) > len(texts) // 4
    # evalInEachContext is left to gen_exprs' corpus: see FuzzGenerator.call
    missing = (
        {f.rstrip("1234").lower() for f in CORPUS_FUNCTIONS}
        - {"evalineachcontext"}
        - {
            f.rstrip("1234").lower()
            for f in CORPUS_FUNCTIONS
            if f.rstrip("1234").lower() + "(" in joined
        }
    )
    assert not missing, f"built-ins never generated: {sorted(missing)}"
    assert any(b.lower() in joined for b in BYTE_STRINGS[:3])
    assert any(len(token) > 4300 for c in cases for token in c["my"].split())
    gen = FuzzGenerator(random.Random(3).getrandbits(32))
    chains = [gen.long_chain() for _ in range(60)]
    assert any(t.count(" || ") == 198 for t in chains)
    assert any(t.startswith("{" * 199) for t in chains)
    assert any(t.startswith("{" * 165) and not t.startswith("{" * 166) for t in chains)
    assert any(t.count("[0]") + t.count(".x") > 50 for t in chains)
