"""The example pool reads whole and every example job matches at least one example slot."""

from __future__ import annotations

from pathlib import Path

from condorlite.core.classad import symmetric_match
from condorlite.store.adfiles import read_ads
from condorlite.store.config import load_policy

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def test_every_example_job_matches_some_slot() -> None:
    slots = [x.ad for x in read_ads([EXAMPLES / "slots"])]
    jobs = [x.ad for x in read_ads([EXAMPLES / "jobs"])]
    assert (len(slots), len(jobs)) == (34, 62)
    lonely = [f"{j.evaluate('ClusterId')}.{j.evaluate('ProcId')}" for j in jobs
              if not any(symmetric_match(j, s) for s in slots)]
    assert lonely == []


def test_the_desktop_slots_refuse_jobs_while_their_owner_is_active() -> None:
    slots = {x.ad.evaluate("Name"): x.ad for x in read_ads([EXAMPLES / "slots"])}
    (job, *_rest) = [x.ad for x in read_ads([EXAMPLES / "jobs" / "alice.ads"])]
    assert not symmetric_match(job, slots["slot1@desk01.example.org"])  # Owner state
    assert symmetric_match(job, slots["slot3@desk01.example.org"])


def test_the_example_config_loads_and_points_at_the_example_ads() -> None:
    policy = load_policy(EXAMPLES / "condorlite.toml")
    assert policy.slots == ("slots",) and policy.jobs == ("jobs",)
    assert policy.group_names == ("group_physics",)
    assert (EXAMPLES / policy.slots[0]).is_dir() and (EXAMPLES / policy.jobs[0]).is_dir()
