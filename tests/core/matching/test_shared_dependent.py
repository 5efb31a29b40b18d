"""A program's outcomes share their dependent-rank dicts (``carving.PairProgram._ranked``).

States that give the same dependent ranks get one dict (pair results only read it),
one per program; ranks that are all constants give one dict for every state; a zero
is never shared, because -0.0 and 0.0 are equal keys and each keeps its sign. Every
outcome is checked against the general program's, value and sign.
"""

from __future__ import annotations

import itertools
import math

from condorlite.core.classad.parser import parse_expr
from condorlite.core.matching.candidates import as_rank
from condorlite.core.matching.offers import resource_names
from condorlite.core.matching.pair_programs import ResidualCache, pair_program
from condorlite.core.matching.slot_vectors import vector_of
from tests.core._pool import ad
from tests.core.matching.test_carving_boxes import JOB, SLOT

#: states (cpus, disk, memory) on both sides of the zero of the first rank below
STATES = list(itertools.product([1, 2, 4, 8], [1000, 100000], [4096, 8192.0, 16384]))
#: one rank reading the state, whose zero is 0.0 or -0.0 by the state's Cpus
ONE = [("pre", "(MY.Memory - 4096.0) * (MY.Cpus - 3)")]
#: two ranks, one of them constant
TWO = [("pre", "MY.Memory / 1024"), ("post", "7.5")]
CONSTANT = [("pre", "1.0"), ("post", "-2")]


def _program(dependent: list[tuple[str, str]]):
    slot_ad = ad(**SLOT)
    job_ad = ad(**JOB)
    vector = vector_of(slot_ad, frozenset({"cpus", "memory", "disk"}))
    assert vector is not None and vector.names == ("cpus", "disk", "memory")
    program = pair_program(job_ad, slot_ad, vector, resource_names(slot_ad, job_ad),
                           [(key, parse_expr(text)) for key, text in dependent], None,
                           as_rank, ResidualCache(lambda ad_, names: ()))
    assert program is not None
    return program


def _ranks(program, general) -> list[dict]:
    out = []
    for cpus, disk, memory in STATES:
        vals = (cpus, disk, memory)
        got, want = program.run(vals, as_rank), general.run(vals, as_rank)
        assert got[0] == want[0], vals
        if not got[0]:
            continue
        assert got[3] == want[3], vals
        for key, value in want[3].items():
            assert math.copysign(1.0, got[3][key]) == math.copysign(1.0, value), (vals, key)
        out.append(got[3])
    return out


def _general(dependent):
    """The same program run in full, each outcome's ranks in a dict of its own."""
    general = _program(dependent)
    general.box, general.result = False, None
    general.dependent_keys = tuple(key for key, _ in general.dependent)
    general.dependents = _NeverKept()
    return general


class _NeverKept(dict):
    """A memo that keeps nothing: every outcome's dict made afresh."""

    def __setitem__(self, key, value) -> None:
        return None


def test_equal_ranks_share_a_dict_and_zeros_keep_their_sign() -> None:
    program = _program(ONE)
    ranks = _ranks(program, _general(ONE))
    signs = {math.copysign(1.0, r["pre"]) for r in ranks if r["pre"] == 0.0}
    assert signs == {1.0, -1.0}  # both zeros met, each with its own sign
    nonzero = [r for r in ranks if r["pre"] != 0.0]
    assert len({id(r) for r in nonzero}) == len({r["pre"] for r in nonzero}) < len(nonzero)
    zero = [r for r in ranks if r["pre"] == 0.0]
    assert len({id(r) for r in zero}) == len(zero)  # never shared


def test_several_ranks_are_keyed_by_all_their_values() -> None:
    program = _program(TWO)
    ranks = _ranks(program, _general(TWO))
    assert {r["post"] for r in ranks} == {7.5}
    assert len({id(r) for r in ranks}) == len({r["pre"] for r in ranks}) < len(ranks)


def test_constant_ranks_give_one_dict() -> None:
    program = _program(CONSTANT)
    ranks = _ranks(program, _general(CONSTANT))
    assert ranks and all(r == {"pre": 1.0, "post": -2.0} for r in ranks)
    assert len({id(r) for r in ranks}) == 1
