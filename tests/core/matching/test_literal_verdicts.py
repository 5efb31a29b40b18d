"""A literal probe's answer kept per (tests, values read) and shared between the
programs of the same tests (``literal_verdicts``): every answer equals
``fails_on_literals``' own, whatever the programs' params, the vectors and what the
tests read (one literal and one param, a number, a position that depends on a value
read, a raise); values equal in Python but not in ClassAds are kept apart; a probe is
run again only for values not read before."""

from __future__ import annotations

import math
import random
from types import SimpleNamespace

from condorlite.core.matching import literal_verdicts
from condorlite.core.matching.literal_tests import fails_on_literals
from condorlite.core.matching.literal_verdicts import LiteralVerdicts


def _program(tests: list, params: tuple, width: int = 4, literals: int = 2):
    return SimpleNamespace(width=width, literals=literals, params=params, tests=tests)


def _owner(v):  # type: ignore[no-untyped-def]
    return v[3] == v[4]  # (the slot's owner literal against the class's param)


def _by_value(v):  # type: ignore[no-untyped-def]
    # (which position it reads next depends on a value read)
    return v[2] == "x" or (v[3] == v[5] if v[2] == "y" else v[0] > 2)


def _numbers(v):  # type: ignore[no-untyped-def]
    return v[0] + v[1] < 9


def _raises(v):  # type: ignore[no-untyped-def]
    return v.count(v[2]) == 0 if v[3] == "b" else v[3] != "c"


def test_kept_answers_equal_the_probe_for_random_programs_and_vectors() -> None:
    r = random.Random(7)
    owners = ("a", "b", "c", "d")
    suites = [[_owner], [_numbers, _owner], [_by_value, _owner], [_raises, _by_value],
              [_owner, _raises]]
    verdicts = LiteralVerdicts()
    for _ in range(3000):
        tests = r.choice(suites)
        program = _program(tests, (r.choice(owners), r.choice(owners)))
        vals = (r.randrange(6), r.randrange(6), r.choice(("x", "y", "z")), r.choice(owners))
        kept = verdicts.of(program)
        assert verdicts.fails(program, kept, vals) == fails_on_literals(program, vals)


def test_a_probe_runs_once_per_tests_and_values_read(monkeypatch) -> None:
    runs = []

    def counted(program, vals, seen=None):  # type: ignore[no-untyped-def]
        runs.append(vals)
        return fails_on_literals(program, vals, seen)

    monkeypatch.setattr(literal_verdicts, "fails_on_literals", counted)
    verdicts = LiteralVerdicts()
    tests = [_owner]
    # (two classes of one owner, other requests: the second asks no probe; a third
    # owner asks again; the same tests in another list are the same tests)
    for params, probes in ((("a", 1), 1), (("a", 2), 1), (("b", 1), 2)):
        program = _program(tests, params)
        assert verdicts.fails(program, verdicts.of(program), (0, 0, "z", "c"))
        assert len(runs) == probes
    program = _program(list(tests), ("a", 3))
    assert verdicts.fails(program, verdicts.of(program), (5, 5, "y", "c"))
    assert len(runs) == 2
    # (other tests: their own answers)
    program = _program([_numbers, _owner], ("a", 1))
    assert verdicts.fails(program, verdicts.of(program), (0, 0, "z", "c"))
    assert len(runs) == 3


def test_values_equal_in_python_but_not_in_classads_are_kept_apart() -> None:
    def is_bool(v):  # type: ignore[no-untyped-def]
        return type(v[3]) is bool

    def positive(v):  # type: ignore[no-untyped-def]
        return math.copysign(1.0, v[3]) > 0

    for test, values in ((is_bool, (1, True, 1.0)), (positive, (0.0, -0.0))):
        verdicts = LiteralVerdicts()
        for _ in range(2):
            for value in values:
                program = _program([test], ("p",))
                vals = (0, 0, "z", value)
                assert (verdicts.fails(program, verdicts.of(program), vals)
                        == fails_on_literals(program, vals))
