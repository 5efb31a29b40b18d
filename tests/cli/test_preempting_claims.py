"""The preempting-claim rule through the CLI, cycle after cycle.

A match that preempts bob's running job makes alice's claim at once, but the slot ad
keeps showing bob until the preemption is over (and the ads may be older than the
match). The claim then stays pending: not ended, charged to alice only; the first ad
showing alice confirms it; a third user ends it. Every step is charged exactly.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from condorlite.cli import app
from condorlite.cli.negotiate_claims import preempted_user
from condorlite.core.model import Claim, Match
from tests.cli.test_negotiate import (
    DOM,
    HOUR,
    T0,
    job_ad,
    negotiate,
    records,
    set_prio,
    slot_ad,
    write,
)
from tests.cli.test_negotiate_groups import config

runner = CliRunner()
ALICE, BOB, CAROL = f"alice@{DOM}", f"bob@{DOM}", f"carol@{DOM}"


def claims(state: Path, cfg: Path) -> list[dict]:
    result = runner.invoke(app, ["status", "--claims", "--state-dir", str(state),
                                 "--config", str(cfg), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)["data"]["claims"]["claims"]


def test_a_preempting_claim_waits_for_the_slot_ad_then_follows_it(tmp_path: Path) -> None:
    state = tmp_path / "state"
    cfg = config(tmp_path / "c.toml", UID_DOMAIN=DOM,
                 PREEMPTION_REQUIREMENTS="RemoteUserPrio > SubmitterUserPrio * 1.2")
    run = ("--config", str(cfg))
    bobs = write(tmp_path / "bob.ads", [slot_ad("s1@m", state="Claimed", user="bob",
                                                JobId='"5.0"')])
    none = write(tmp_path / "none.ads", [])
    idle = write(tmp_path / "idle.ads", [job_ad(1, 0, "alice")])
    set_prio(state, "bob", 1000, 10, T0 - HOUR)

    # bob runs on s1 for an hour, seen in the slot ad
    assert negotiate(state, bobs, none, T0 - HOUR, *run)["cycle"]["claims_observed"] == 1
    first = negotiate(state, bobs, idle, T0, *run)
    [match] = first["matches"]
    assert (match["job"], match["slot"], match["reason"], match["preempting"]) == (
        "1.0", "s1@m", "priority", BOB)
    assert [(c["submitter"], c["preempted_user"]) for c in claims(state, cfg)] == [
        (ALICE, BOB)]

    # an hour later the ad still shows bob: the claim waits, nobody is charged twice
    second = negotiate(state, bobs, idle, T0 + HOUR, *run)
    assert second["released"] == [] and second["matches"] == []
    assert second["cycle"]["claims_observed"] == 0 and second["cycle"]["claims_live"] == 1
    [waiting] = claims(state, cfg)
    assert (waiting["submitter"], waiting["job"], waiting["since"]) == (ALICE, "1.0", T0)
    assert waiting["preempted_user"] == BOB
    now = records(state, T0 + HOUR)
    assert now[ALICE]["resources_used"] == 1 and now[BOB]["resources_used"] == 0

    # the ad shows alice's job: confirmed, an ordinary claim from then on
    alices = write(tmp_path / "alice.ads", [slot_ad("s1@m", state="Claimed", user="alice",
                                                    JobId='"1.0"')])
    running = write(tmp_path / "running.ads", [job_ad(1, 0, "alice", status=2)])
    third = negotiate(state, alices, running, T0 + 2 * HOUR, *run)
    assert third["released"] == [] and third["cycle"]["claims_observed"] == 0
    [confirmed] = claims(state, cfg)
    assert confirmed["submitter"] == ALICE and confirmed["preempted_user"] is None

    # a third user on the slot ends alice's claim and is observed
    carols = write(tmp_path / "carol.ads", [slot_ad("s1@m", state="Claimed", user="carol",
                                                    JobId='"9.0"')])
    fourth = negotiate(state, carols, running, T0 + 3 * HOUR, *run)
    assert [(r["submitter"], r["reason"]) for r in fourth["released"]] == [
        (ALICE, "slot shows another user")]
    assert fourth["cycle"]["claims_observed"] == 1
    after = records(state, T0 + 3 * HOUR)
    assert after[ALICE]["accumulated_usage"] == pytest.approx(3 * HOUR)  # T0 .. T0+3h
    assert after[BOB]["accumulated_usage"] == pytest.approx(HOUR)  # T0-1h .. T0
    assert after[ALICE]["resources_used"] == 0 and after[BOB]["resources_used"] == 0
    assert after[CAROL]["resources_used"] == 1


def test_a_third_user_in_the_ad_right_after_the_preemption_ends_it(tmp_path: Path) -> None:
    state = tmp_path / "state"
    cfg = config(tmp_path / "c.toml", UID_DOMAIN=DOM, PREEMPTION_REQUIREMENTS="true")
    run = ("--config", str(cfg))
    bobs = write(tmp_path / "bob.ads", [slot_ad("s1@m", state="Claimed", user="bob")])
    idle = write(tmp_path / "idle.ads", [job_ad(1, 0, "alice")])
    set_prio(state, "bob", 1000, 10, T0)
    assert negotiate(state, bobs, idle, T0, *run)["matches"][0]["preempting"] == BOB
    carols = write(tmp_path / "carol.ads", [slot_ad("s1@m", state="Claimed", user="carol")])
    second = negotiate(state, carols, idle, T0 + HOUR, *run)
    assert [(r["submitter"], r["reason"]) for r in second["released"]] == [
        (ALICE, "slot shows another user")]
    # alice's job is idle again, and PREEMPTION_REQUIREMENTS = true lets it take the
    # slot back from carol, seen in the same cycle: carol is charged in and out at once
    assert [(m["job"], m["preempting"]) for m in second["matches"]] == [("1.0", CAROL)]
    rec = records(state, T0 + HOUR)
    assert rec[ALICE]["accumulated_usage"] == pytest.approx(HOUR)
    assert rec[ALICE]["resources_used"] == 1 and rec[ALICE]["weighted_resources_used"] == 1
    assert rec[CAROL]["resources_used"] == 0 and rec[BOB]["resources_used"] == 0
    assert rec[CAROL]["accumulated_usage"] == 0


def test_the_user_a_preempting_claim_waits_on() -> None:
    def match(preempting: str | None) -> Match:
        return Match("3.0", CAROL, "s1@m", "priority", 1.0, 1, 1, preempting)

    plain = Claim("s1@m", "1.0", ALICE, 1.0, T0)
    waiting = Claim("s1@m", "1.0", ALICE, 1.0, T0, preempted_user=BOB)
    assert preempted_user(match(None), {waiting.slot: waiting}) is None
    assert preempted_user(match(ALICE), {plain.slot: plain}) == ALICE
    assert preempted_user(match(ALICE), {}) == ALICE
    # preempting a claim that was itself still waiting: the ad still shows bob
    assert preempted_user(match(ALICE), {waiting.slot: waiting}) == BOB
    other_slot = Claim("s2@m", "1.1", ALICE, 1.0, T0, preempted_user=BOB)
    assert preempted_user(match(ALICE), {other_slot.slot: other_slot}) == ALICE
