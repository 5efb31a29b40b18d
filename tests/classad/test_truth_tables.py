"""The 4x4 truth tables of && and || and the table of !, as data-file vectors."""

from __future__ import annotations

from pathlib import Path

import pytest

from condorlite.core.classad.evaluator import evaluate
from condorlite.core.classad.values import Error, Undefined

TABLE = Path(__file__).resolve().parent.parent / "data" / "classad-truth-tables.txt"
VALUES = {"true": True, "false": False, "undefined": Undefined, "error": Error}
VECTORS = [
    tuple(part.strip() for part in line.split("=>"))
    for line in TABLE.read_text().splitlines()
    if line.strip() and not line.startswith("#")
]


def test_tables_are_complete() -> None:
    assert len(VECTORS) == 16 + 16 + 4


@pytest.mark.parametrize(("expr", "expected"), VECTORS)
def test_condorlite(expr: str, expected: str) -> None:
    assert evaluate(expr) is VALUES[expected]


@pytest.mark.parametrize(("expr", "expected"), VECTORS)
def test_classad2_agrees_with_the_table(expr: str, expected: str) -> None:
    pytest.importorskip("htcondor2")
    import classad2

    got = classad2.ExprTree(expr).eval()
    if isinstance(got, classad2.Value):
        got = "undefined" if got == classad2.Value.Undefined else "error"
    else:
        got = "true" if got else "false"
    assert got == expected


@pytest.mark.parametrize("left", ["0", "0.0", "1", "2.5"])
def test_numbers_count_as_booleans(left: str) -> None:
    truth = left not in ("0", "0.0")
    assert evaluate(f"{left} && true") is truth
    assert evaluate(f"{left} || false") is truth
    assert evaluate(f"!{left}") is (not truth)
    assert evaluate(f'{left} && "x"') is (False if not truth else Error)
