"""The seed's prioritisation example (N1GE 6.1 manual, resource reservation section):
L4_RR (-p 100, license=4), L5_RR (license=5), L1_RR (license=1) with the default
weights 1/0.1/0.01 print 1.08000, 0.10500 and 0.00500 there. The same jobs recorded on
SoGE 8.1.9 (tests/data/sge/dispatch_license/run1, license urgency 0) print 0.60383,
0.55500 and 0.55500: the real scheduler normalises ppri over -1024..1024, not over the
jobs (docs/sge.md, differences)."""

from __future__ import annotations

from dataclasses import replace

from condorlite.core.sge.priority import prioritise
from condorlite.store.sge_cell import read_cell
from tests.sge.recorded import DATA

RUN1 = DATA / "dispatch_license" / "run1"


def _prios(result) -> list[str]:
    return [f"{r.prio:.5f}" for r in result.jobs]


def test_the_real_scheduler_on_the_seed_jobs() -> None:
    cell = read_cell(RUN1)
    result = prioritise(cell, cell.now)
    assert [r.job.number for r in result.jobs] == [385, 386, 387]
    assert _prios(result) == ["0.60383", "0.55500", "0.55500"]


def test_the_seeds_figures_with_its_normalisation_and_a_license_urgency() -> None:
    cell = read_cell(RUN1)
    # The seed's example implies the license complex has an urgency (L5_RR, asking for
    # most licenses, has nurg 1); give it 1000 and normalise ppri over the jobs.
    license = replace(cell.complexes["license"], urgency=1000.0)
    cell = replace(cell, complexes={**cell.complexes, "license": license})
    result = prioritise(cell, cell.now, npprior_over_jobs=True)
    assert [r.job.name for r in result.jobs] == ["j_alice", "j_bob", "j_carol"]
    assert _prios(result) == ["1.08000", "0.10500", "0.00500"]
