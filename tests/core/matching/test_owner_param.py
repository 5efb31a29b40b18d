"""A desktop's programs leave the job's ``Owner`` free (``pair_programs._with_owner``):
the parts of a desktop's static, whose START and Rank compare the slot's own owner
literal with ``TARGET.Owner``, are built once for the jobs of every owner, and each
class runs them with its own Owner as a param.

The cycle must decide as the plain reference with the owner left free and bound,
and build fewer parts left free; a param that is no number bounds nothing
(``box_bounds.settled_atom``: its test is run as it is)."""

from __future__ import annotations

import pytest

from condorlite.core.classad.residuals import FreeRef
from condorlite.core.matching import pair_programs
from condorlite.core.matching.box_bounds import settled_atom
from tests.core.matching._against_reference import run_both
from tests.core.matching.test_own_literals import POLICY, USERS, _desktop
from tests.core.negotiation.test_equivalence import _fingerprint


def _jobs(per: int) -> list[str]:
    """Jobs of every owner (and one of none of the desktops), two kinds each."""
    out = []
    for cluster, owner in enumerate((*USERS, "erin") * 2, start=1):
        out.extend("\n".join(f"{k} = {v}" for k, v in dict(
            ClusterId=cluster, ProcId=proc, Owner=f'"{owner}@example.org"', JobStatus=1,
            JobPrio=0, QDate=1000 + cluster, RequestCpus=1 + cluster % 3,
            RequestMemory=1024 * (1 + cluster % 4), RequestDisk=1000,
            Requirements=("TARGET.Memory >= RequestMemory" if cluster % 2
                          else "TARGET.Memory >= 2 * RequestMemory || TARGET.Cpus > 6"),
        ).items()) + "\n" for proc in range(per))
    return out


def _builds(patch: pytest.MonkeyPatch) -> list[int]:
    count = [0]
    real = pair_programs._program_parts

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        count[0] += 1
        return real(*args, **kwargs)

    patch.setattr(pair_programs, "_program_parts", counted)
    return count


@pytest.mark.parametrize("idle", [10, 3600])
def test_owner_left_free_decides_as_bound_with_fewer_parts(monkeypatch, idle) -> None:
    # (busy desktops: START is the owner test; idle ones: START folded to true)
    slots = [_desktop(i, KeyboardIdle=idle if i % 4 else 10) for i in range(24)]
    jobs = _jobs(3)
    results, builds = {}, {}
    for free in (True, False):
        with monkeypatch.context() as patch:
            if not free:
                patch.setattr(pair_programs, "_with_owner",
                              lambda job_ad, vector, params: params)
            count = _builds(patch)
            _, results[free] = run_both(slots, jobs, POLICY)
        builds[free] = count[0]
    assert _fingerprint(results[True]) == _fingerprint(results[False])
    assert builds[True] < builds[False]


def test_a_param_that_is_no_number_bounds_nothing() -> None:
    """An atom comparing a vector value with a string param (or the other way round)
    makes no box; with a number param it is a bound."""
    def text(atom: tuple) -> object:
        return settled_atom(atom, 2, ("alice",), 0)

    def number(atom: tuple) -> object:
        return settled_atom(atom, 2, (4,), 0)

    assert text((0, "==", FreeRef(2), None)) is None
    assert text((2, "==", FreeRef(0), None)) is None
    assert text((2, "==", "alice", None)) is True
    assert number((0, ">=", FreeRef(2), None)) == (0, ">=", 4, None)
    assert number((2, "<=", FreeRef(1), None)) == (1, ">=", 4, None)
    # (a bound on a slot's own literal, the vector's last value here: no box)
    assert settled_atom((1, ">=", 4, None), 2, (), 1) is None
