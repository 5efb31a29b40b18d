"""The live differential check: scenarios freshly generated and recorded with a real
Grid Engine cell (``tools/sge/live_record.sh``, run by ``.ci/run``) agree with
condorlite. Skipped unless ``CONDORLITE_SGE_LIVE`` names the recording directory."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.sge.recorded import compare

LIVE = os.environ.get("CONDORLITE_SGE_LIVE")
RUNS = sorted(p.parent.parent for p in Path(LIVE).glob("*/*/expected/qstat.xml")) if LIVE else []


@pytest.mark.skipif(not LIVE, reason="no live recordings (CONDORLITE_SGE_LIVE unset)")
def test_there_are_live_recordings() -> None:
    assert RUNS, f"no recordings under {LIVE}"


@pytest.mark.parametrize("snapshot", RUNS, ids=lambda p: p.parent.name)
def test_live_scenario_matches(snapshot: Path) -> None:
    assert compare(snapshot) == []
