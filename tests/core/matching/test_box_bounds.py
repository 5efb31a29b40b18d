"""A box's bounds less those another implies (``box_bounds.strongest``): the box run
gives what the conjunction of all its bounds gives, at every vector of numbers.

Atoms are made as ``PairProgram`` makes them (``residuals.bound_test``), on two
positions, with every comparison operator and numbers of both types (integers
beyond 2**53, infinities and NaN among them); the vectors hold integers, reals and
booleans, around the bounds' numbers.
"""

from __future__ import annotations

import itertools
import random

from condorlite.core.classad.residuals import bound_test
from condorlite.core.matching.box_bounds import box_tests, implied_by_own_fit, strongest

OPS = (">=", ">", "<=", "<", "==", "!=")
NUMBERS = (0, 1, 4, 4.0, 4.5, -3, 2**53, 2**53 + 1, 2**60, float(2**53), float("inf"),
           float("nan"))
VALUES = (0, 1, 3, 4, 5, 4.0, 4.5, 3.999, -3, -3.5, True, False, 2**53, 2**53 + 1,
          2**53 + 2, 2**60, float(2**53), float("inf"), float("-inf"), float("nan"))


def _atom(index: int, op: str, number: object) -> tuple:
    test = bound_test(index, op, number)  # type: ignore[arg-type]
    return test.atoms[0]  # type: ignore[attr-defined]


def _holds(atoms: list[tuple], vals: tuple) -> bool:
    return all(test(vals) for _, _, _, test in atoms)


def test_kept_bounds_decide_as_all_of_them() -> None:
    rng = random.Random(18)
    pairs = list(itertools.product(VALUES, repeat=2))
    for _ in range(400):
        atoms = [_atom(rng.randrange(2), rng.choice(OPS), rng.choice(NUMBERS))
                 for _ in range(rng.randrange(1, 7))]
        kept = strongest(atoms)
        assert len(kept) <= len(atoms)
        assert all(atom in atoms for atom in kept)
        for vals in pairs:
            assert _holds(kept, vals) == _holds(atoms, vals), (atoms, kept, vals)


def test_repeated_and_weaker_bounds_are_dropped() -> None:
    """A slot's ``WithinResourceLimits`` repeats the job's bounds and adds ``x > 0``:
    one lower bound per position is left, the tightest, in its first place."""
    atoms = [_atom(1, ">=", 1000000), _atom(2, ">=", 3072), _atom(0, ">=", 4),
             _atom(0, ">", 0), _atom(0, ">=", 4), _atom(2, ">", 0), _atom(2, ">=", 3072),
             _atom(1, ">", 0), _atom(1, ">=", 1000000)]
    kept = strongest(atoms)
    assert [(index, op, number) for index, op, number, _ in kept] == [
        (1, ">=", 1000000), (2, ">=", 3072), (0, ">=", 4)]
    # (a strict bound of the same number is the tighter; the other type is apart)
    kept = strongest([_atom(0, ">=", 4), _atom(0, ">", 4), _atom(0, ">=", 4.0)])
    assert [(op, number) for _, op, number, _ in kept] == [(">", 4), (">=", 4.0)]
    # (an upper bound, an equality and a NaN are no lower bound)
    kept = strongest([_atom(0, "<=", 8), _atom(0, "<", 8), _atom(0, "==", 2),
                       _atom(0, "==", 2), _atom(0, ">", float("nan"))])
    assert [(op, number) for _, op, number, _ in kept][:2] == [("<", 8), ("==", 2)]
    assert len(kept) == 3


def test_box_tests_leave_out_what_a_fit_implies() -> None:
    """``box_tests``: a lower bound on a resource the class takes a fixed amount of at
    least the bound's number (more, for a strict one) holds wherever the fit does and
    is not tested; the others keep their own tests, and an atom settled with no test
    of its own (a bound against a param) gets one made."""
    cpus, memory = _atom(0, ">=", 4), _atom(1, ">", 2048)
    tests = box_tests([cpus, memory, (1, "<=", 8192, None)], {0: 4.0, 1: 2048.0})
    assert tests[0] is memory[3]  # (2048 taken does not imply Memory > 2048)
    assert len(tests) == 2
    made = tests[1]
    assert made.atoms[0][:3] == (1, "<=", 8192)  # type: ignore[attr-defined]
    assert made((4, 8192)) is True and made((4, 8193)) is False
    # (nothing is taken: every bound is tested, the weaker of one position left out)
    assert len(box_tests([cpus, _atom(0, ">", 0)], {})) == 1


def test_a_bound_on_its_own_request_adds_nothing_where_the_fit_implies_it() -> None:
    """``implied_by_own_fit``: with ``x >= v`` where the class takes ``v`` of ``x``
    (a positive number within 2**53), ``box_tests`` gives the same tests as without
    it, whatever other bounds there are (those it implies are implied by the fit);
    with ``v`` zero, negative or beyond 2**53 it is no such bound."""
    rng = random.Random(35)
    values = (1, 2, 4, 4.0, 4.5, 2048, 0.5, 2**53, float(2**53))
    for _ in range(600):
        value = rng.choice(values)
        assert implied_by_own_fit(value)
        atoms = [_atom(rng.randrange(2), rng.choice(OPS), rng.choice(NUMBERS))
                 for _ in range(rng.randrange(0, 6))]
        own = (0, ">=", value, None)
        where = rng.randrange(len(atoms) + 1)
        amounts = {0: float(value)} | ({1: 2.0} if rng.randrange(2) else {})
        with_own = box_tests([*atoms[:where], own, *atoms[where:]], amounts)
        without = box_tests(atoms, amounts)
        assert sorted(map(_key, with_own), key=repr) == sorted(map(_key, without), key=repr)
    for value in (0, 0.0, -1, 2**53 + 1, float("nan"), float("inf"), "4", True):
        assert not implied_by_own_fit(value)


def _key(test) -> tuple:  # type: ignore[no-untyped-def]
    return test.atoms[0][:3]
