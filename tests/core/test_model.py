"""Decoding ads into the negotiator's model: submitter names, job ids, slot kinds and
weights, who holds a busy slot."""

from __future__ import annotations

import pytest

from condorlite.core.ad_decoder import job_from_ad, slot_from_ad
from condorlite.core.model import (
    IDLE,
    AdProblem,
    holder_of,
    job_id,
    slot_kind,
    slot_weight,
    submitter_of,
)
from condorlite.core.policy import Policy
from tests.core._pool import ad

POLICY = Policy(uid_domain="uid.example")


@pytest.mark.parametrize(("attrs", "expected"), [
    ({"Owner": '"alice"'}, "alice@uid.example"),
    ({"Owner": '"alice"', "User": '"alice@cs.wisc.edu"'}, "alice@cs.wisc.edu"),
    # the domain is the part after the LAST @ of User
    ({"Owner": '"alice"', "User": '"a@b@submit.example"'}, "alice@submit.example"),
    ({"Owner": '"alice"', "User": '"alice"'}, "alice@uid.example"),
    ({"Owner": '"carol"', "AccountingGroup": '"group_physics.carol"',
      "User": '"carol@x.org"'}, "group_physics.carol@x.org"),
    ({"Owner": '"carol"', "AccountingGroup": '"group_physics.carol"'},
     "group_physics.carol@uid.example"),
    ({"Owner": '"carol"', "AccountingGroup": '"grp.carol@other.org"'}, "grp.carol@other.org"),
    ({"AccountingGroup": '"group_a.x"'}, "group_a.x@uid.example"),
    ({"Owner": '"bob"', "NiceUser": "true"}, "nice-user.bob@uid.example"),
    ({"Owner": '"bob"', "NiceUser": "false"}, "bob@uid.example"),
    ({"Owner": '"bob"', "NiceUser": '"yes"'}, "bob@uid.example"),  # only boolean true
    ({"Owner": '"bob"', "NiceUser": "true", "User": '"bob@x.org"'}, "nice-user.bob@x.org"),
    ({"Owner": '"bob"', "NiceUser": "true", "AccountingGroup": '"g.bob"'},
     "nice-user.g.bob@uid.example"),
    ({"Owner": '"bob"', "AccountingGroup": '""'}, "bob@uid.example"),  # empty group ignored
])
def test_submitter_of(attrs: dict, expected: str) -> None:
    assert submitter_of(ad(**attrs), POLICY) == expected


def test_submitter_needs_an_owner_or_a_group() -> None:
    with pytest.raises(AdProblem, match="no Owner"):
        submitter_of(ad(ClusterId=1, User='"x@y"'), POLICY)
    with pytest.raises(AdProblem):
        submitter_of(ad(Owner="undefined"), POLICY)


def test_job_id_and_its_problems() -> None:
    assert job_id(ad(ClusterId=12, ProcId=3)) == "12.3"
    assert job_id(ad(ClusterId="4 + 3", ProcId=0)) == "7.0"  # expressions evaluate
    for bad in (ad(ClusterId=1), ad(ProcId=1), ad(ClusterId='"1"', ProcId=0)):
        with pytest.raises(AdProblem, match="ClusterId/ProcId"):
            job_id(bad)


def test_job_from_ad_defaults_and_queue_key() -> None:
    job = job_from_ad(ad(ClusterId=5, ProcId=2, Owner='"a"', Requirements="true"), POLICY, 7)
    assert (job.id, job.cluster, job.proc, job.index) == ("5.2", 5, 2, 7)
    assert job.status == IDLE and job.idle and (job.prio, job.qdate) == (0, 0)
    high = job_from_ad(ad(ClusterId=9, ProcId=0, Owner='"a"', Requirements="true",
                          JobPrio=5, QDate=100, JobStatus=2), POLICY, 0)
    assert not high.idle
    assert high.queue_key() < job.queue_key()  # higher JobPrio first
    with pytest.raises(AdProblem, match="no Requirements"):
        job_from_ad(ad(ClusterId=1, ProcId=0, Owner='"a"'), POLICY, 0)


@pytest.mark.parametrize(("attrs", "kind"), [
    ({"PartitionableSlot": "true"}, "partitionable"),
    ({"SlotType": '"Partitionable"'}, "partitionable"),
    ({"DynamicSlot": "true"}, "dynamic"),
    ({"SlotType": '"Dynamic"'}, "dynamic"),
    ({"SlotType": '"Static"'}, "static"),
    ({}, "static"),
])
def test_slot_kind(attrs: dict, kind: str) -> None:
    assert slot_kind(ad(Name='"s"', **attrs)) == kind


def test_slot_weight_rules() -> None:
    assert slot_weight(ad(Cpus=8, SlotWeight=3), POLICY) == 3.0
    assert slot_weight(ad(Cpus=8), POLICY) == 8.0  # SLOT_WEIGHT defaults to Cpus
    assert slot_weight(ad(Cpus=8, Memory=4096),
                       Policy(slot_weight="Memory / 1024")) == 4.0
    assert slot_weight(ad(Memory=1), POLICY) == 1.0  # Cpus undefined -> 1
    assert slot_weight(ad(SlotWeight=-2), POLICY) == 0.0  # never negative
    assert slot_weight(ad(Cpus=8, SlotWeight=3),
                       Policy(negotiator_use_slot_weights=False)) == 1.0


def test_busy_slot_holder_order() -> None:
    full = dict(PreemptingAccountingGroup='"g.p"', PreemptingUser='"p@x"',
                AccountingGroup='"g.a@x"', RemoteUser='"r@x"')
    assert holder_of(ad(**full)) == "g.p"
    del full["PreemptingAccountingGroup"]
    assert holder_of(ad(**full)) == "p@x"
    del full["PreemptingUser"]
    assert holder_of(ad(**full)) == "g.a@x"
    del full["AccountingGroup"]
    assert holder_of(ad(**full)) == "r@x"
    assert holder_of(ad(Name='"s"')) is None


def test_slot_from_ad() -> None:
    claimed = slot_from_ad(ad(Name='"slot1@m"', State='"Claimed"', RemoteUser='"a@x"',
                              JobId='"3.1"', Cpus=2, CurrentRank=4), POLICY, 0)
    assert claimed.busy and claimed.remote_user == "a@x" and claimed.remote_job == "3.1"
    assert (claimed.weight, claimed.current_rank, claimed.machine) == (2.0, 4.0, "m")
    idle = slot_from_ad(ad(Name='"slot2@m"', RemoteUser='"a@x"'), POLICY, 1)
    assert idle.state == "Unclaimed" and not idle.busy and idle.remote_user is None
    pslot = slot_from_ad(ad(Name='"p@m"', State='"Claimed"', PartitionableSlot="true",
                            RemoteUser='"a@x"'), POLICY, 2)
    assert not pslot.busy and pslot.remote_user is None  # a pslot keeps offering
    with pytest.raises(AdProblem, match="no Name"):
        slot_from_ad(ad(Cpus=1), POLICY, 3)
