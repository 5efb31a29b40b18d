"""Bounded evaluation (issue 17, item 1): an ad whose attributes multiply each other's
cost (``A60 = A59 + A59``, or the same with ``strcat``) is error within the step
budget (``scope.MAX_STEPS``), in ``eval`` and in a cycle, and every other job of
the cycle is matched as without it."""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from condorlite.cli import app
from condorlite.core.classad import evaluate, parse_ads
from condorlite.core.classad.scope import MAX_STEPS
from condorlite.core.classad.values import Error

ROOT = Path(__file__).resolve().parents[2]
CONFIG = ROOT / "examples" / "condorlite.toml"

NUMBERS = "A0 = 1\n" + "".join(f"A{k} = A{k - 1} + A{k - 1}\n" for k in range(1, 61))
STRINGS = 'S0 = "ab"\n' + "".join(f"S{k} = strcat(S{k - 1}, S{k - 1})\n" for k in range(1, 61))


@pytest.mark.parametrize(("ad", "expr", "small"), [
    (NUMBERS, "A60 > 0", ("A10", 1024)),
    (STRINGS, "size(S60)", ("size(S10)", 2048)),
])
def test_a_self_multiplying_ad_is_error_quickly(ad, expr, small):
    parsed = next(iter(parse_ads(ad, "old")))
    started = time.process_time()
    assert evaluate(expr, parsed) is Error
    assert time.process_time() - started < 1.0
    assert evaluate(small[0], parsed) == small[1]  # well within the budget


def test_a_long_chain_within_the_budget_evaluates():
    chain = "B0 = 1\n" + "".join(f"B{k} = B{k - 1} + 1\n" for k in range(1, 201))
    assert evaluate("B200", next(iter(parse_ads(chain, "old")))) == 201
    assert MAX_STEPS >= 10_000


def test_a_hostile_job_leaves_the_cycle_as_it_was(tmp_path):
    jobs = tmp_path / "jobs"
    shutil.copytree(ROOT / "examples" / "jobs", jobs)
    path = sorted(jobs.glob("*.ads"))[0]
    ads = path.read_text().split("\n\n")
    index = next(i for i, ad in enumerate(ads) if re.search(r"^JobStatus = 1$", ad, re.M))
    ident = ".".join(re.search(rf"^{k} = (\d+)$", ads[index], re.M).group(1)
                     for k in ("ClusterId", "ProcId"))
    lines = [x for x in ads[index].splitlines() if not x.startswith(("Requirements", "Rank"))]
    ads[index] = "\n".join([*lines, NUMBERS + STRINGS.rstrip(),
                            "Requirements = A60 > 0 && size(S60) > 0", "Rank = A60"])
    path.write_text("\n\n".join(ads))
    state = tmp_path / "s"
    assert CliRunner().invoke(app, ["setfactor", "x@example.org", "5", "--state-dir",
                                    str(state), "--now", "1"]).exit_code == 0

    def cycle(job_dir: Path) -> dict:
        done = CliRunner().invoke(app, [
            "negotiate", "--config", str(CONFIG), "--jobs", str(job_dir), "--state-dir",
            str(state), "--now", "1760000000", "--dry-run", "--json"])
        assert done.exit_code == 0, done.output
        return json.loads(done.output)["data"]

    started = time.process_time()
    hostile = cycle(jobs)
    spent = time.process_time() - started
    plain = cycle(ROOT / "examples" / "jobs")
    assert spent < 2.0 * 3  # the 2 s on a 40-slot pool, with room for a slow CI
    assert ident not in {m["job"] for m in hostile["matches"]}
    others = [m for m in plain["matches"] if m["job"] != ident]
    assert len(hostile["matches"]) == len(others)
