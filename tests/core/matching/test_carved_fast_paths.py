"""The carved walk's shortcuts give what the plain calls give.

* ``PairProgram.run_fitted``: a state the walk found holding the fixed requests is run
  without testing them again; every outcome must equal ``run``'s, and a program with
  no other request shares its fixed requests' ``taken`` dict between states;
* ``candidates.as_rank``, ``carving._job_rank`` and ``carving._slot_rank``: a plain
  number's case inline, against ``adeval.as_float`` and ``adeval.slot_rank`` as they
  were read before (signs of zero and NaN included).
"""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from condorlite.core import adeval
from condorlite.core.classad.values import Error, Undefined
from condorlite.core.matching import carving
from condorlite.core.matching.candidates import _SINGLE, FLT_MAX, as_rank
from condorlite.core.matching.carving import PairProgram
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import run_both
from tests.core.matching.test_carved_cells import _jobs, _pslot
from tests.core.matching.test_own_literals import _desktop
from tests.core.matching.test_own_literals import _jobs as _desktop_jobs

POLICY = Policy(uid_domain="example.org")


def _plain_rank(value: object) -> float:
    """``as_rank`` as it was: by ``adeval.as_float``."""
    number = adeval.as_float(value)
    if number is None:
        return -FLT_MAX
    if abs(number) > FLT_MAX:
        return FLT_MAX if number > 0 else -FLT_MAX
    return _SINGLE.unpack(_SINGLE.pack(number))[0]


def _same(a: float, b: float) -> bool:
    """Equal floats with the same sign, or both NaN."""
    if a != a or b != b:
        return a != a and b != b
    return a == b and math.copysign(1.0, a) == math.copysign(1.0, b) and type(a) is type(b)


ODD = [True, False, Undefined, Error, "12", None, [1], 0, -0.0, 0.0, math.nan, math.inf,
       -math.inf, 2**80, -(2**80), 3.5e38, -3.5e38, 1e-50, 7]


@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True),
                 st.integers(min_value=-(2**200), max_value=2**200),
                 st.sampled_from(ODD)))
def test_the_inline_ranks_are_the_plain_ones(value) -> None:
    assert _same(as_rank(value), _plain_rank(value))
    assert _same(carving._job_rank(value), adeval.as_float(value) or 0.0)
    assert _same(carving._slot_rank(value), adeval.slot_rank(value))


def test_a_negative_zero_job_rank_is_zero_and_nan_slot_rank_stays_nan() -> None:
    # (what ``or 0.0`` does to -0.0, and what slot_rank keeps: both read by the engine)
    assert math.copysign(1.0, carving._job_rank(-0.0)) == 1.0
    assert carving._job_rank(math.nan) == 0.0
    assert math.isnan(carving._slot_rank(math.nan))
    assert math.isnan(carving._slot_rank(Undefined))


class _Checked:
    """``run_fitted`` wrapped: each outcome compared with ``run``'s at the same vals."""

    def __init__(self, monkeypatch) -> None:
        self.calls = self.matched = self.shared = 0
        fitted = PairProgram.run_fitted
        checked = self

        def run_fitted(program, vals, as_rank):  # type: ignore[no-untyped-def]
            out = fitted(program, vals, as_rank)
            assert out == program.run(vals, as_rank)
            checked.calls += 1
            if out[0]:
                checked.matched += 1
                if out[4] is program.fixed_taken:
                    checked.shared += 1
            return out

        monkeypatch.setattr(PairProgram, "run_fitted", run_fitted)


def _bounded_jobs(per: int) -> list[str]:
    """Jobs whose Requirements bound a resource beyond what they take (a box with
    bounds left to test: ``Cpus >= 4`` for one core), ranked by Memory or not."""
    out = []
    for cluster in range(1, 7):
        attrs = dict(Owner=f'"u{cluster % 3}@example.org"', JobStatus=1, JobPrio=0,
                     QDate=1000 + cluster, RequestCpus=1, RequestMemory=1024 * cluster,
                     RequestDisk=1000, Rank="Memory" if cluster % 2 else "0.0",
                     Requirements=f"TARGET.Cpus >= {2 + cluster} && "
                                  "TARGET.Memory >= 2 * RequestMemory")
        out.extend("\n".join(f"{k} = {v}" for k, v in dict(
            ClusterId=cluster, ProcId=proc, **attrs).items()) + "\n" for proc in range(per))
    return out


def test_fitted_runs_give_the_full_runs_outcomes(monkeypatch) -> None:
    checked = _Checked(monkeypatch)
    run_both([_pslot(i) for i in range(20)], _jobs(10), POLICY)
    assert checked.matched > 0
    # (the job ranks that read the state are no box with one result: run per state)
    assert checked.calls > 20


def test_fitted_runs_test_the_bounds_a_fit_leaves(monkeypatch) -> None:
    checked = _Checked(monkeypatch)
    run_both([_pslot(i) for i in range(20)], _bounded_jobs(12), POLICY)
    # states that hold the requests but fail a bound: run, and not matched
    assert checked.calls > checked.matched > 0


def test_fitted_runs_of_desktops_share_the_fixed_requests(monkeypatch) -> None:
    """Desktops test their owner (a slot's own literal): no box, no other request,
    so each matching state's ``taken`` is the program's fixed requests' dict."""
    checked = _Checked(monkeypatch)
    run_both([_desktop(i) for i in range(24)], _desktop_jobs(6), POLICY)
    assert checked.shared > 0
