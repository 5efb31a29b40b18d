"""Differential tests: condorlite's evaluator against HTCondor's own ClassAd library.

classad2 (``import htcondor2`` first, for daemon semantics) is the oracle. A seeded
corpus of generated expressions (``gen_exprs.py``; 5,000 by default, set
``CONDORLITE_DIFF_COUNT`` for more) is evaluated by both with MY = a job ad and
TARGET = a slot ad (and the other way round); type and value must agree exactly
(reals bit for bit, NaN equal to NaN). Lists and records are compared element by
element: classad2 hands back list elements unevaluated, so both sides are asked for
``(e)[i]``, which evaluates each element where HTCondor does; for a record only the
attribute names are compared (see ``oracle_worker.py``).

Every built-in function is in the corpus (``gen_exprs.FUNCTIONS``); their edge cases
are checked one by one in ``test_builtins.py``, lists in ``test_lazy_lists.py``.
Deliberate differences, kept out of the corpus by the generator and pinned by tests:
* countMatches/evalInEachContext with a first argument naming a missing attribute (or
  one found outside MY) leave HTCondor's evaluation state moved for the rest of the
  expression; the generator names attributes MY defines (test_builtins).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

htcondor2 = pytest.importorskip("htcondor2")
import classad2  # noqa: E402

from condorlite.core.classad.ad import ClassAd  # noqa: E402
from condorlite.core.classad.evaluator import evaluate, symmetric_match  # noqa: E402
from condorlite.core.classad.parser import parse_expr  # noqa: E402
from condorlite.core.classad.timevalues import time_text  # noqa: E402
from condorlite.core.classad.values import AbsTime, Error, RelTime, Undefined  # noqa: E402

from .gen_exprs import JOB_AD, SLOT_AD, generate  # noqa: E402

COUNT = int(os.environ.get("CONDORLITE_DIFF_COUNT", "5000"))
ROOT = Path(__file__).resolve().parent.parent.parent
DATA = ROOT / "tests" / "data" / "classad-ads"


def ours_ad(text: str) -> ClassAd:
    record = parse_expr(text)
    return ClassAd(record.attrs)


def ours(text: str, my, target) -> object:
    """condorlite's value of ``text`` in the worker's canonical (JSON) form."""
    value = evaluate(text, my, target)
    if value is Undefined:
        return "undefined"
    if value is Error:
        return "error"
    if isinstance(value, list):
        return ["list", [ours(f"({text})[{i}]", my, target) for i in range(len(value))]]
    if isinstance(value, ClassAd):
        return ["ad", sorted(k.lower() for k in value)]
    if type(value) is AbsTime:
        return ["abstime", time_text(value)]
    if type(value) is RelTime:
        return ["reltime", "nan" if math.isnan(value) else float(value).hex()]
    if isinstance(value, float):
        return ["real", "nan" if math.isnan(value) else value.hex()]
    return [type(value).__name__, value]


def classad2_answers(texts: list[str], swap: bool) -> tuple[list[object], int]:
    """classad2's answers (None where it crashed) via the worker, restarted after a
    crash; also the number of crashes."""
    answers: list[object] = []
    crashes = 0
    pending = list(texts)
    while pending:
        requests = "".join(json.dumps({"text": t, "swap": swap}) + "\n" for t in pending)
        proc = subprocess.run(
            [sys.executable, "-m", "tests.classad.oracle_worker"],
            input=requests,
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        lines = proc.stdout.splitlines()
        answers.extend(json.loads(line) for line in lines)
        pending = pending[len(lines) :]
        if proc.returncode != 0 and pending:
            answers.append(None)  # the expression that crashed classad2
            crashes += 1
            pending = pending[1:]
    return answers, crashes


def run_corpus(seed: int, count: int, swap: bool) -> tuple[int, int, list[str]]:
    job, slot = ours_ad(JOB_AD), ours_ad(SLOT_AD)
    my, tg = (slot, job) if swap else (job, slot)
    texts = generate(seed, count)
    answers, crashes = classad2_answers(texts, swap)
    failures: list[str] = []
    skipped = 0
    for text, answer in zip(texts, answers, strict=True):
        if answer is None or "unparsable" in answer:
            skipped += answer is not None
            continue
        got = json.loads(json.dumps(ours(text, my, tg)))
        if got != answer["value"]:
            failures.append(f"{text}\n    classad2:   {answer['value']}\n    condorlite: {got}")
    return skipped, crashes, failures


@pytest.mark.parametrize("swap", [False, True], ids=["my=job", "my=slot"])
def test_generated_corpus_agrees_with_classad2(swap: bool) -> None:
    skipped, crashes, failures = run_corpus(seed=20240 + swap, count=COUNT // 2, swap=swap)
    assert skipped < COUNT // 100, f"{skipped} generated expressions did not parse in classad2"
    assert crashes < COUNT // 200, f"classad2 crashed on {crashes} expressions"
    assert not failures, f"{len(failures)} disagreements:\n" + "\n".join(failures[:15])


def test_corpus_covers_every_kind_of_result() -> None:
    """The corpus must exercise all value types, or agreement would mean little."""
    job, slot = ours_ad(JOB_AD), ours_ad(SLOT_AD)
    kinds = set()
    for text in generate(7, 600):
        value = evaluate(text, job, slot)
        kinds.add(
            "undefined"
            if value is Undefined
            else "error"
            if value is Error
            else type(value).__name__
        )
    assert kinds >= {"undefined", "error", "bool", "int", "float", "str", "list", "ClassAd"}


OLD_FORMAT_FILES = sorted(
    p.name for p in DATA.iterdir() if p.suffix in (".ad", ".ads") and ".new." not in p.name
)


def old_ads(name: str) -> list[tuple[ClassAd, object]]:
    """(condorlite ad, classad2 ad) pairs from an old-format fixture; each non-blank
    line is ``Name = expr`` (see the fixtures' README)."""
    pairs = []
    for chunk in (DATA / name).read_text().split("\n\n"):
        lines = [line for line in chunk.splitlines() if line.strip()]
        if not lines:
            continue
        ad = ClassAd()
        for line in lines:
            key, _, expr = line.partition("=")
            ad[key.strip()] = parse_expr(expr.strip(), old=True)
        pairs.append((ad, classad2.parseOne("\n".join(lines), classad2.ParserType.Old)))
    return pairs


def test_symmetric_match_agrees_on_every_fixture_pair() -> None:
    ads = [pair for name in OLD_FORMAT_FILES for pair in old_ads(name)]
    assert len(ads) >= 30
    matches = 0
    for a, a_c in ads:
        for b, b_c in ads:
            expected = a_c.symmetricMatch(b_c)
            assert symmetric_match(a, b, now=None) == expected
            matches += expected
    assert 0 < matches < len(ads) ** 2, "the fixture pairs must include matches and misses"
