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

from condorlite.core.candidates import as_rank
from condorlite.core.carving import ResidualCache, pair_program, vector_of
from condorlite.core.offers import resource_names

from ._pool import ad

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
    # (a fit of nothing implies nothing: Cpus > 0 and 0 <= Cpus stay)
    "a request of zero leaves Cpus > 0": ({"RequestCpus": 0}, True, True, 2),
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
