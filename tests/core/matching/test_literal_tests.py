"""A static part's program that is no box is probed once per group of shapes with
equal own literals (``literal_tests``, ``StaticLists._sieved``): a test that fails
reading nothing but the literals and the params fails at every shape of the group,
which is passed over without its runs. Checked against the plain reference cycle on
desktops whose folded ``START`` is their owner's test alone, and on the probe itself
with tests that read a number, a param or a negative position. Groups dead for a
class (``LiteralSieve``: the owner test's value at the group's literal makes the
slot's ``Requirements`` false) are passed over without a probe."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from condorlite.core import adeval
from condorlite.core.matching import static_lists, static_programs
from condorlite.core.matching.literal_tests import LiteralSieve, fails_on_literals
from condorlite.core.matching.static_lists import StaticLists
from condorlite.core.matching.static_parts import Part
from tests.core.matching._against_reference import run_both
from tests.core.matching.test_static_desktops import POLICY, SLOTS, _job


def _program(*tests, width: int = 3, literals: int = 1, params: tuple = ()):
    """What ``fails_on_literals`` reads of a program: positions ``width - literals``
    to ``width`` are the literals, the params follow."""
    return SimpleNamespace(width=width, literals=literals, params=params, tests=list(tests))


def test_a_failing_test_of_the_literals_alone_fails_the_group() -> None:
    program = _program(lambda v: v[0] > 1, lambda v: v[2] == "alice")
    assert fails_on_literals(program, (5, 7, "bob"))
    assert not fails_on_literals(program, (5, 7, "alice"))


def test_a_failing_test_that_reads_a_number_proves_nothing() -> None:
    # (the same failure, but the test read position 0, a number: the run decides)
    program = _program(lambda v: v[2] == "alice" and v[0] > 1)
    assert not fails_on_literals(program, (0, 7, "alice"))
    # read through a negative position (a param, but not known as one): no proof
    assert not fails_on_literals(_program(lambda v: v[-1] == 9, params=(1,)), (0, 7, "x"))


def test_params_count_as_fixed_and_holding_tests_fail_nothing() -> None:
    program = _program(lambda v: v[2] == v[3], params=("alice",))
    assert fails_on_literals(program, (0, 0, "bob"))
    assert not fails_on_literals(program, (0, 0, "alice"))
    assert not fails_on_literals(_program(lambda v: True), (0, 0, "bob"))


#: jobs of a submitter who owns no desktop (every busy desktop refuses them on its
#: owner's test alone) and of one who owns some
JOBS = ([_job(1, p, "alice", 60000) for p in range(8)]
        + [_job(3, p, "erin", 51000) for p in range(30)])


def _evaluations(monkeypatch: pytest.MonkeyPatch, sieve: bool) -> tuple[int, int]:
    monkeypatch.setattr(static_programs, "SHARED_LITERALS", 16)
    if not sieve:
        monkeypatch.setattr(Part, "by_literals", lambda self, first, width: None)
    probes: list[int] = []
    sieved = StaticLists._sieved

    def counting(self, part, program, groups, job_ad):  # type: ignore[no-untyped-def]
        probes.append(len(groups))
        return sieved(self, part, program, groups, job_ad)

    monkeypatch.setattr(StaticLists, "_sieved", counting)
    fast, _ = run_both(SLOTS, JOBS, POLICY)
    return fast.mm.evaluations, len(probes)


def test_sieved_desktops_decide_as_the_reference_with_fewer_evaluations(
        monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as patch:
        plain, none = _evaluations(patch, sieve=False)
    sieved, calls = _evaluations(monkeypatch, sieve=True)
    assert none == 0 and calls > 0
    assert sieved < plain


def test_parts_group_their_shapes_by_own_literals_only_when_they_share_them() -> None:
    vals = {1: (4, 10, "a"), 2: (4, 11, "b"), 3: (8, 12, "a"), 4: (8, 13, "a")}
    part = Part(None, [1, 2, 3, 4], [], vals)  # type: ignore[arg-type]
    assert part.by_literals(2, 3) == [[1, 3, 4], [2]]
    assert part.by_literals(2, 3) is part.by_literals(2, 3)  # (kept)
    # one group per shape on the numbers: none (a probe each would cost a run each)
    assert part.by_literals(1, 3) is None


def test_a_test_that_wants_more_than_positions_proves_nothing() -> None:
    # (a residual that asked the vector for a tuple's method: no probe, the run decides)
    assert not fails_on_literals(_program(lambda v: v.count("bob") == 0), (0, 0, "bob"))


def test_sieved_probes_the_first_shape_still_there_and_keeps_only_those_there() -> None:
    # (groups by owner; shapes 1 and 5 have left: a group's probe is its first shape
    # still there, a kept group gives only the shapes still there, a group with none
    # left asks no probe and counts no evaluation)
    vals = {k: (k + 3, owner, k) for k, owner in
            ((1, "bob"), (2, "bob"), (3, "bob"), (4, "alice"), (5, "carol"), (6, "alice"))}
    probed: list[object] = []

    def test(v):  # type: ignore[no-untyped-def]
        probed.append(v[2])  # (the shape, a literal too: read, it proves nothing less)
        return v[1] == "bob"

    program = _program(test, width=3, literals=2)
    part = SimpleNamespace(vals=vals, offer=SimpleNamespace(ad=None))
    lists = SimpleNamespace(members={2: [20], 3: [30], 4: [40], 6: [60]},
                            _counts=SimpleNamespace(evaluations=0),
                            _vector=lambda offer: None,
                            _sieve=SimpleNamespace(alive=lambda *args: None))  # (no split)
    kept = StaticLists._sieved(lists, part, program, [[1, 2, 3], [4, 6], [5]], None)  # type: ignore[arg-type]
    assert kept == [2, 3]
    assert probed == [2, 4]
    assert lists._counts.evaluations == 2


def test_sieved_passes_over_dead_groups_unprobed_and_probes_the_others() -> None:
    # (the sieve tells the first group dead: no probe there; the second is probed
    # as before, its shapes still there kept; the probes alone are counted)
    vals = {1: (4, "bob"), 2: (5, "bob"), 3: (6, "alice"), 4: (7, "alice")}
    asked: list[list[list[int]]] = []

    def alive(ad, vector, job_ad, groups, vals):  # type: ignore[no-untyped-def]
        asked.append(groups)
        return [group for group in groups if vals[group[0]][1] != "bob"]

    probed: list[object] = []

    def test(v):  # type: ignore[no-untyped-def]
        probed.append(v[1])
        return True

    program = _program(test, width=2, literals=1)
    part = SimpleNamespace(vals=vals, offer=SimpleNamespace(ad=None))
    lists = SimpleNamespace(members={1: [10], 2: [20], 4: [40]},
                            _counts=SimpleNamespace(evaluations=0),
                            _vector=lambda offer: None, _sieve=SimpleNamespace(alive=alive))
    kept = StaticLists._sieved(lists, part, program, [[1, 2], [3, 4]], None)  # type: ignore[arg-type]
    assert asked == [[[1, 2], [3, 4]]]
    assert kept == [4]
    assert probed == ["alice"]
    assert lists._counts.evaluations == 1


def _sieve_run(monkeypatch: pytest.MonkeyPatch, on: bool) -> tuple[int, int, list]:
    """The cycle's evaluations and probes on the desktops, with the sieve on or off
    (its verdicts recorded: the job's owner, each group's literals, dead or not)."""
    monkeypatch.setattr(static_programs, "SHARED_LITERALS", 16)
    verdicts: list[tuple] = []
    alive = LiteralSieve.alive

    def recording(self, ad, vector, job_ad, groups, vals):  # type: ignore[no-untyped-def]
        found = alive(self, ad, vector, job_ad, groups, vals) if on else None
        if found is not None:
            owner = adeval.attr(job_ad, "Owner").value  # type: ignore[union-attr]
            verdicts.extend((owner, vals[group[0]][-vector.literals:], group not in found)
                            for group in groups)
        return found

    probes: list[int] = []
    probe = fails_on_literals

    def counting(program, vals):  # type: ignore[no-untyped-def]
        probes.append(1)
        return probe(program, vals)

    monkeypatch.setattr(LiteralSieve, "alive", recording)
    monkeypatch.setattr(static_lists, "fails_on_literals", counting)
    fast, _ = run_both(SLOTS, JOBS, POLICY)
    return fast.mm.evaluations, len(probes), verdicts


def test_groups_dead_for_a_class_are_those_of_other_owners_and_save_their_probes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # (both runs agree with the plain reference, ``run_both``)
    with monkeypatch.context() as patch:
        plain, plain_probes, _ = _sieve_run(patch, on=False)
    sieved, probes, verdicts = _sieve_run(monkeypatch, on=True)
    assert verdicts and probes < plain_probes and sieved < plain
    # a busy desktop's folded START is its owner's test alone: dead exactly where
    # the owner is not the job's (erin owns none: every group dead for her)
    for owner, literals, dead in verdicts:
        assert dead == (owner not in literals), (owner, literals, dead)
    assert any(not dead for _, _, dead in verdicts)
    assert all(dead for owner, _, dead in verdicts if owner == "erin")


def test_a_job_binding_the_owner_to_an_expression_is_told_nothing() -> None:
    sieve = LiteralSieve(None)
    split = SimpleNamespace(bindings=lambda job_ad: None)
    sieve._splits[7] = split  # type: ignore[assignment]
    vals = {1: (1, "bob")}
    assert sieve.alive(None, SimpleNamespace(static=7), None, [[1]], vals) is None  # type: ignore[arg-type]
    sieve._splits[8] = None  # (a part whose Requirements reach no literal test)
    assert sieve.alive(None, SimpleNamespace(static=8), None, [[1]], vals) is None  # type: ignore[arg-type]
