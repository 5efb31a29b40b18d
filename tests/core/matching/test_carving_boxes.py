"""Box programs (``carving``): a pair whose tests are conjunctions of bounds gives, in
every state, what the general residual program gives.

Each case builds the (job, partitionable slot) program, checks whether it is a box and
which bounds a fit leaves to test, then runs it over a grid of states (below, at and
above each request, integers and reals) with the box on and with the box off (the
general path, itself held to full evaluation by ``tests/classad/test_partial.py``).
"""

from __future__ import annotations

import itertools

import pytest

from condorlite.core.matching.candidates import as_rank
from condorlite.core.matching.offers import resource_names
from condorlite.core.matching.pair_programs import ResidualCache, pair_program
from condorlite.core.matching.slot_vectors import vector_of
from tests.core._pool import ad

SLOT = dict(
    Name='"slot1@m1"', PartitionableSlot="true", Cpus=8, Memory=16384, Disk=100000,
    Arch='"X86_64"', OpSys='"LINUX"', Start="true",
    Requirements="START && WithinResourceLimits",
    WithinResourceLimits=("MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && MY.Memory > 0 "
                          "&& TARGET.RequestMemory <= MY.Memory && TARGET.RequestDisk <= MY.Disk"),
    Rank="0.0", SlotWeight="Cpus",
)
JOB = dict(RequestCpus=2, RequestMemory=4096, RequestDisk=1000,
           Requirements='TARGET.Arch == "X86_64" && TARGET.Memory >= RequestMemory',
           Rank="0")

#: (job changes, is a box, constant ranks, bounds left to test)
CASES = {
    "all implied by the fit": ({}, True, True, 0),
    "a bound above the request": (
        {"Requirements": "TARGET.Memory >= 2 * RequestMemory && TARGET.Cpus > 1"}, True, True, 1),
    # (a fit of nothing implies nothing: Cpus > 0 stays, and implies 0 <= Cpus)
    "a request of zero leaves Cpus > 0": ({"RequestCpus": 0}, True, True, 1),
    # (the slot's Memory > 0 and RequestMemory <= Memory, implied by the job's tighter bound)
    "bounds implied by a tighter one": (
        {"Requirements": "TARGET.Memory >= 8192 && TARGET.Memory >= 4096 && TARGET.Cpus > 0",
         "RequestCpus": 0, "RequestMemory": 0}, True, True, 2),
    "an upper bound": ({"Requirements": "TARGET.Memory <= 8192"}, True, True, 1),
    "a rank reading the state": ({"Rank": "TARGET.Memory"}, True, False, 0),
    "a disjunction is no box": (
        {"Requirements": "TARGET.Memory >= 8192 || TARGET.Cpus >= 4"}, False, False, 0),
    "a request reading the slot is no box": (
        {"RequestMemory": "TARGET.Memory / 4"}, False, False, 0),
}

GRID = list(itertools.product([0, 1, 2, 2.5, 8], [0, 4095, 4096, 8192.0, 16384],
                              [999, 1000, 100000]))


def _program(job_changes: dict):
    slot_ad = ad(**SLOT)
    job_ad = ad(**{**JOB, **job_changes})
    vector = vector_of(slot_ad, frozenset({"cpus", "memory", "disk"}))
    assert vector is not None and vector.names == ("cpus", "disk", "memory")
    program = pair_program(job_ad, slot_ad, vector, resource_names(slot_ad, job_ad), [],
                           None, as_rank, ResidualCache(lambda ad_, names: ()))
    assert program is not None
    return program


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_box_gives_what_the_general_program_gives(name: str) -> None:
    changes, box, constant, bounds = CASES[name]
    program = _program(changes)
    assert program.box is box
    assert (program.result is not None) is constant
    assert len(program.bounds) == bounds
    general = _program(changes)
    general.box = False
    matched = 0
    for cpus, memory, disk in GRID:
        vals = (cpus, disk, memory)
        got, want = program.run(vals, as_rank), general.run(vals, as_rank)
        assert got == want, (name, vals)
        matched += got[0]
    assert 0 < matched < len(GRID)  # the grid has states on both sides


def test_classes_differing_only_in_requests_share_residuals() -> None:
    """The job's literal requests are left free: a second class asking for other
    amounts reuses the first one's residuals (no new specialisation) and still gets
    its own fit, bounds and outcome in every state."""
    from condorlite.core.matching.shape_keys import ShapeKeys

    cache = ResidualCache(ShapeKeys().canon.key)
    slot_ad = ad(**SLOT)
    vector = vector_of(slot_ad, frozenset({"cpus", "memory", "disk"}))
    assert vector is not None
    programs = []
    for memory in (4096, 8192, 12000):
        job_ad = ad(**{**JOB, "RequestMemory": memory})
        programs.append(pair_program(job_ad, slot_ad, vector,
                                     resource_names(slot_ad, job_ad), [], None, as_rank,
                                     cache))
    first, *others = programs
    assert all(p is not None and p.box and p.params for p in programs)
    for other in others:
        assert other.tests == first.tests  # the same residual objects
    for memory, program in zip((4096, 8192, 12000), programs, strict=True):
        general = _program({"RequestMemory": memory})
        general.box = False
        assert dict(program.taken)["Memory"] == memory
        for cpus, mem, disk in [*GRID, (2, 12000, 1000), (2, 11999.5, 1000)]:
            vals = (cpus, disk, mem)
            assert program.run(vals, as_rank) == general.run(vals, as_rank), (memory, vals)


def _full(job_ad, slot_ad, vals):
    """The pair evaluated in full in the state ``vals`` (as ``MatchTable._evaluate_pair``
    does without programs): (match, job Rank, taken)."""
    from condorlite.core import adeval
    from condorlite.core.matching.offers import requested, with_attrs

    state = with_attrs(slot_ad, dict(zip(("Cpus", "Disk", "Memory"), vals, strict=True)))
    taken = requested(state, job_ad, None)
    if taken is None or not (adeval.requirements_hold(job_ad, state, now=None)
                             and adeval.requirements_hold(state, job_ad, now=None)):
        return (False,)
    rank = adeval.as_float(adeval.eval_attr(job_ad, "Rank", state, None)) or 0.0
    return (True, rank, taken)


@pytest.mark.parametrize("name", sorted(CASES))
def test_programs_agree_with_full_evaluation(name: str) -> None:
    changes = CASES[name][0]
    program = _program(changes)
    job_ad, slot_ad = ad(**{**JOB, **changes}), ad(**SLOT)
    for cpus, memory, disk in GRID:
        vals = (cpus, disk, memory)
        got, want = program.run(vals, as_rank), _full(job_ad, slot_ad, vals)
        assert got[:2] == want[:2] and (not want[0] or got[4] == want[2]), (name, vals)
