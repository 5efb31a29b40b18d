"""Bad values in ads are the ad's problem (issue 17, item 2): a slot with an infinite or
absurd SlotWeight is a listed problem, a job with a 5,000-digit request reads it as
HTCondor does (0), and the cycle goes on."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from condorlite.cli import app
from condorlite.store.db import open_state

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "examples" / "condorlite.toml"


def _cycle(tmp_path: Path, slots: Path, jobs: Path) -> dict:
    open_state(tmp_path / "s", config_path=CONFIG)  # --dry-run reads a state, never makes one
    done = CliRunner().invoke(app, ["negotiate", "--config", str(CONFIG), "--slots", str(slots),
                                    "--jobs", str(jobs), "--state-dir", str(tmp_path / "s"),
                                    "--now", "1760000000", "--json", "--dry-run"])
    assert done.exit_code == 0, done.output
    return json.loads(done.stdout)["data"]


def _with(tmp_path: Path, kind: str, extra: str) -> Path:
    """A copy of the example's ``kind`` ads with ``extra`` added to its first idle job or
    its first slot."""
    target = tmp_path / kind
    shutil.copytree(ROOT / "examples" / kind, target)
    path = sorted(p for p in target.iterdir() if p.suffix == ".ads")[0]
    ads = path.read_text().split("\n\n")
    index = next(i for i, ad in enumerate(ads) if kind == "slots" or "JobStatus = 1" in ad)
    ads[index] += "\n" + extra + "\n"
    path.write_text("\n\n".join(ads))
    return target


@pytest.mark.parametrize("weight", ['real("inf")', "1e308", "-real(\"inf\")", 'real("nan")'])
def test_a_slot_with_an_absurd_weight_is_a_problem(tmp_path: Path, weight: str) -> None:
    slots = _with(tmp_path, "slots", f"SlotWeight = {weight}")
    data = _cycle(tmp_path, slots, ROOT / "examples" / "jobs")
    plain = _cycle(tmp_path / "plain", ROOT / "examples" / "slots", ROOT / "examples" / "jobs")
    if weight.startswith("-"):  # a negative weight counts 0, as HTCondor's does
        assert data["problems"] == []
        return
    assert len(data["problems"]) == 1 and "slot weight" in data["problems"][0]["problem"]
    assert len(data["matches"]) >= len(plain["matches"]) - 8  # the slot's jobs aside


def test_a_5000_digit_request_reads_as_zero(tmp_path: Path) -> None:
    jobs = _with(tmp_path, "jobs", "RequestMemory = 1" + "0" * 5000)
    data = _cycle(tmp_path, ROOT / "examples" / "slots", jobs)
    assert data["problems"] == [] and len(data["matches"]) == 48
