"""Pair programs share their parts (``ResidualCache.parts``): classes that differ only in
the values of their literal requests get the residuals another class built, and each
still gets a program of its own amounts; anything else a part reads keeps them apart.
Also the residuals' inline arithmetic (``operators.arithmetic_fn``) against
``operators.arithmetic``, and the job's literal requests (``job_params``)."""

from __future__ import annotations

import itertools

import pytest

from condorlite.core import adeval
from condorlite.core.classad import operators as ops
from condorlite.core.classad import parse_ads
from condorlite.core.classad.ast import Literal
from condorlite.core.classad.values import INT64_MAX, INT64_MIN, Error, Undefined
from condorlite.core.matching import pair_programs
from condorlite.core.matching.candidates import as_rank
from condorlite.core.matching.expr_numbers import Canon
from condorlite.core.matching.offers import resource_names
from condorlite.core.matching.pair_programs import ResidualCache, job_params, pair_program
from condorlite.core.matching.slot_vectors import SlotVector, vector_of
from tests.core._pool import ad

from .test_carving_boxes import GRID, JOB, SLOT


@pytest.fixture
def builds(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times a program's parts were built (``pair_programs._program_parts``)."""
    count = [0]
    real = pair_programs._program_parts

    def counted(*args, **kwargs):
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(pair_programs, "_program_parts", counted)
    return count


def _programs(jobs: list[dict]) -> list:
    """Each job's program against ``SLOT``, all through one static's residual cache."""
    slot_ad = ad(**SLOT)
    vector = vector_of(slot_ad, frozenset({"cpus", "memory", "disk"}))
    assert vector is not None
    cache = ResidualCache(Canon().key)
    out = []
    for changes in jobs:
        job_ad = ad(**{**JOB, **changes})
        out.append(pair_program(job_ad, slot_ad, vector, resource_names(slot_ad, job_ad), [],
                                None, as_rank, cache))
    return out


def _alone(changes: dict):
    """The job's program made with a cache of its own (nothing shared)."""
    return _programs([changes])[0]


def test_classes_differing_in_literal_requests_share_the_parts(builds: list[int]) -> None:
    amounts = [{"RequestCpus": c, "RequestMemory": m} for c in (1, 2, 4) for m in (1024, 8192)]
    programs = _programs(amounts)
    assert builds[0] == 1
    for changes, program in zip(amounts, programs, strict=True):
        alone = _alone(changes)
        assert program.taken == {"Cpus": changes["RequestCpus"],
                                 "Memory": changes["RequestMemory"], "Disk": 1000}
        for cpus, memory, disk in GRID:
            vals = (cpus, disk, memory)
            assert program.run(vals, as_rank) == alone.run(vals, as_rank), (changes, vals)


@pytest.mark.parametrize("other", [
    {"RequestCpus": "1 + 1"},  # the same amount, not a literal: no param, its own parts
    {"Requirements": 'TARGET.Arch == "X86_64" && TARGET.Memory >= 2 * RequestMemory'},
])
def test_a_class_reading_something_else_gets_parts_of_its_own(
        builds: list[int], other: dict) -> None:
    first, second = _programs([{"RequestCpus": 2}, other])
    assert builds[0] >= 2  # (the first is a box: one build; the second builds its own)
    alone = _alone(other)
    for cpus, memory, disk in GRID:
        vals = (cpus, disk, memory)
        assert second.run(vals, as_rank) == alone.run(vals, as_rank), (other, vals)
    # (and the first program is untouched by the second)
    assert first.run((8, 100000, 16384), as_rank)[4] == {"Cpus": 2, "Memory": 4096,
                                                          "Disk": 1000}


@pytest.mark.parametrize("rank", ["TARGET.Memory", "Memory", "2 * RequestCpus", "0"])
def test_a_class_of_another_rank_shares_the_parts_and_takes_its_own_rank(
        builds: list[int], rank: str) -> None:
    """The job's Rank is kept apart from the other parts (``pair_programs._pair_program``):
    a class that differs only in its Rank reuses them, and its program gives what
    its own program, nothing shared, gives."""
    first, second = _programs([{"RequestCpus": 2}, {"RequestCpus": 2, "Rank": rank}])
    assert builds[0] == 1
    assert second.tests == first.tests  # the same residual objects
    alone = _alone({"RequestCpus": 2, "Rank": rank})
    for cpus, memory, disk in GRID:
        vals = (cpus, disk, memory)
        assert second.run(vals, as_rank) == alone.run(vals, as_rank), (rank, vals)
    assert first.run((8, 100000, 16384), as_rank)[1] == 0.0


def test_a_job_that_cannot_match_shares_the_never_program(builds: list[int]) -> None:
    never = {"Requirements": 'TARGET.Arch == "aarch64"'}
    programs = _programs([{**never, "RequestCpus": 1}, {**never, "RequestCpus": 4}])
    assert builds[0] == 1
    assert all(p.never for p in programs)
    assert programs[1].run((8, 100000, 16384), as_rank) == (False,)


_VALUES = [0, 1, -1, 7, INT64_MAX, INT64_MIN, INT64_MAX // 2 + 1, 0.0, -0.0, 2.5, -1e308,
           1e308, float("inf"), float("-inf"), float("nan"), True, False, Undefined, Error,
           "text"]


@pytest.mark.parametrize("op", ["+", "-", "*"])
def test_inline_arithmetic_is_arithmetic(op: str) -> None:
    fast = ops.arithmetic_fn(op)
    for a, b in itertools.product(_VALUES, repeat=2):
        got, want = fast(a, b), ops.arithmetic(op, a, b)
        assert type(got) is type(want), (a, op, b)
        assert got is want or got == want or (got != got and want != want), (a, op, b)
        if type(want) is float and want == 0:
            assert str(got) == str(want), (a, op, b)  # the sign of a zero


def test_job_params_are_the_literal_number_requests_of_the_vector() -> None:
    # (``job_params`` reads the ad's table directly: the same as ``adeval.attr`` of
    # each request, for any spelling of the job's attribute)
    (job,) = parse_ads('REQUESTCPUS = 2\nRequestMemory = 1024.5\nrequestdisk = "x"\n'
                       'RequestGpus = RequestCpus * 2\nRequestNothing = 3\n')
    names = ("cpus", "disk", "gpus", "memory", "slots")
    vector = SlotVector(names, (1, 2, 3, 4, 5), {n: i for i, n in enumerate(names)})
    expected = [("request" + n, e.value) for n in names
                if type(e := adeval.attr(job, "request" + n)) is Literal
                and type(e.value) in (int, float)]
    assert job_params(job, vector) == (("requestcpus", "requestmemory"), (2, 1024.5))
    assert job_params(job, vector) == (tuple(n for n, _ in expected),
                                       tuple(v for _, v in expected))


#: Requirements that hold in no state but are no constant: an ``&&`` with an operand
#: that is never true (``residual_logic.never_true``), on the job's side or the slot's
_NEVER_TRUE = {
    "the job's": ({"Requirements": "TARGET.Memory >= RequestMemory && TARGET.HasNothing"}, {}),
    "the slot's": ({}, {"Requirements": "START && WithinResourceLimits && TARGET.HasNothing"}),
}


@pytest.mark.parametrize("case", sorted(_NEVER_TRUE))
def test_requirements_never_true_end_the_parts_and_share_one_program(
        monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    job_changes, slot_changes = _NEVER_TRUE[case]
    slot_ad = ad(**{**SLOT, **slot_changes})
    vector = vector_of(slot_ad, frozenset({"cpus", "memory", "disk"}))
    assert vector is not None
    made: list[str] = []
    real = pair_programs._attribute

    def counted(pair, params, ad_, name, used):
        made.append(name if ad_ is pair[0] else "slot " + name)
        return real(pair, params, ad_, name, used)

    monkeypatch.setattr(pair_programs, "_attribute", counted)
    cache = ResidualCache(Canon().key)
    programs, jobs = [], []
    for cpus in (1, 4):
        job_ad = ad(**{**JOB, **job_changes, "RequestCpus": cpus, "Rank": f"Cpus * {cpus}"})
        jobs.append(job_ad)
        programs.append(pair_program(job_ad, slot_ad, vector, resource_names(slot_ad, job_ad),
                                     [], None, as_rank, cache))
    assert all(p is not None and p.never for p in programs)
    assert programs[0] is programs[1] is cache.never  # one per static
    # the parts after the Requirements that holds nowhere are never made
    assert "slot Rank" not in made and "Rank" not in made
    for job_ad in jobs:
        for cpus, memory, disk in GRID:
            state = ad(**{**SLOT, **slot_changes, "Cpus": cpus, "Memory": memory,
                          "Disk": disk})
            assert not (adeval.requirements_hold(job_ad, state)
                        and adeval.requirements_hold(state, job_ad)), (case, cpus, memory)
            assert programs[0].run((cpus, disk, memory), as_rank) == (False,)
