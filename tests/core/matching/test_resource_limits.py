"""A static slot's request limits compared directly (``resource_limits``): the
conjuncts ``TARGET.Request<R> <= MY.<R>`` of its ``Requirements`` (through
``WithinResourceLimits``) decided by the class's literal requests and the slot's
literal resources, without a full evaluation.

The cycle runs with the limit tests and with them switched off
(``ResourceLimits.fails`` never rules out), both against the plain reference cycle
(``run_both``); every pair a limit test rules out must be one whose slot
``Requirements`` does not hold in full, and the tests must spare full evaluations.
"""

from __future__ import annotations

import pytest

from condorlite.core import adeval
from condorlite.core.classad import parse_ad
from condorlite.core.classad.operators import compare
from condorlite.core.matching import match_table
from condorlite.core.matching.resource_limits import (
    _OPS,
    _TURNED,
    EXACT,
    LimitTest,
    ResourceLimits,
    limit_tests,
)
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import NOW, ad_text, run_both
from tests.core.negotiation.test_equivalence import _fingerprint

POLICY = Policy(uid_domain="example.org")
USERS = ("alice", "bob", "carol")
WITHIN = ("MY.Cpus > 0 && TARGET.RequestCpus <= MY.Cpus && MY.Memory > 0 && "
          "TARGET.RequestMemory <= MY.Memory && MY.Disk > 0 && TARGET.RequestDisk <= MY.Disk"
          " && (TARGET.RequestGPUs =?= undefined || MY.GPUs >= TARGET.RequestGPUs)")
#: a slot's Requirements, by kind: HTCondor's, its limits written the other way round
#: in parentheses, and none (a START of limits the slot does not bind to literals)
REQUIREMENTS = ("START && WithinResourceLimits",
                "(MY.Memory >= TARGET.RequestMemory) && (START && MY.Cpus >= TARGET.RequestCpus)",
                "START || TARGET.RequestCpus <= MY.Cpus")


def _slot(i: int) -> str:
    owner = USERS[i % len(USERS)]
    # desktops (their START names their owner: own literals) and plain slots
    start = (f'(KeyboardIdle > 15 * 60) || (TARGET.Owner == "{owner}")' if i % 2
             else "TARGET.RequestMemory < 100000")
    # (a static slot each, its own Disk: its own pair shape, fewer than
    # ``SHARED_LITERALS`` per part, so evaluated in full)
    return ad_text(dict(
        Name=f'"slot1@m{i}"', Machine=f'"m{i}"', State='"Unclaimed"',
        Activity='"Idle"', Cpus=1 + i % 4, Memory=1024 * (1 + i % 3),
        Disk=50000 + 1000 * i, GPUs=i % 2, Arch='"X86_64"', OpSys='"LINUX"',
        KeyboardIdle=3600 if i % 4 == 3 else 60, Start=start,
        WithinResourceLimits=WITHIN, Requirements=REQUIREMENTS[i % len(REQUIREMENTS)],
        Rank=f'TARGET.Owner == "{owner}"' if i % 2 else "0", CurrentRank="0.0",
        SlotWeight="Cpus"))


def _job(cluster: int, proc: int, owner: str, cpus: object, memory: object) -> str:
    return ad_text(dict(
        ClusterId=cluster, ProcId=proc, Owner=f'"{owner}"', JobStatus=1, JobPrio=0,
        QDate=1000 + cluster, RequestCpus=cpus, RequestMemory=memory, RequestDisk=50000,
        Requirements='TARGET.OpSys == "LINUX"'))


SLOTS = [_slot(i) for i in range(24)]
#: small and large literal requests, a real one, and requests that are expressions
#: (not decided by a limit test: evaluated in full)
JOBS = ([_job(1, p, "alice", 1, 1024) for p in range(4)]
        + [_job(2, p, "bob", 4, 3072) for p in range(4)]
        + [_job(3, p, "erin", 2, 2048.5) for p in range(6)]
        + [_job(4, p, "erin", "1 + 2", "3 * 1024") for p in range(6)]
        + [_job(5, p, "carol", 3, 1024) for p in range(3)])


class _Counts:
    """The full evaluations of ``Requirements`` by the match table, and the pairs the
    limit tests ruled out (each checked: its slot's Requirements do not hold)."""

    def __init__(self, patch: pytest.MonkeyPatch, limits: bool) -> None:
        self.full = self.ruled_out = 0
        counts = self
        holds = adeval.requirements_hold

        def counted(my, target, *, now=None):  # type: ignore[no-untyped-def]
            counts.full += 1
            return holds(my, target, now=now)

        patch.setattr(match_table.adeval, "requirements_hold", counted)
        fails = ResourceLimits.fails

        def counted_fails(limits_, job_ad, offer):  # type: ignore[no-untyped-def]
            if not limits:
                return False
            out = fails(limits_, job_ad, offer)
            if out:
                counts.ruled_out += 1
                assert not holds(offer.ad, job_ad, now=int(NOW))
            return out

        patch.setattr(ResourceLimits, "fails", counted_fails)


def test_limits_decide_as_the_reference_with_fewer_full_evaluations(monkeypatch) -> None:
    results, counts = {}, {}
    for limits in (True, False):
        with monkeypatch.context() as patch:
            counts[limits] = _Counts(patch, limits)
            fast, results[limits] = run_both(SLOTS, JOBS, POLICY)
        assert all(o.vector is None and not o.partitionable for o in fast.offers)
        assert any(o.literals for o in fast.offers) and not all(o.literals for o in fast.offers)
    assert _fingerprint(results[True]) == _fingerprint(results[False])
    assert counts[True].ruled_out
    assert counts[True].full < counts[False].full


def _ads(slot: dict, job: dict) -> tuple:
    return parse_ad(ad_text(slot), "old"), parse_ad(ad_text({"Owner": '"x"', **job}), "old")


class _Offer:
    """What the limit tests read of an offer."""

    def __init__(self, ad: object, pair_shape: int) -> None:
        self.ad, self.pair_shape = ad, pair_shape


def test_the_limit_tests_of_htcondors_requirements() -> None:
    slot, _ = _ads(dict(Start="true", Requirements="START && WithinResourceLimits",
                        WithinResourceLimits=WITHIN, Cpus=4, Memory=2048.0, Disk=100, GPUs=0),
                   {})
    # (the GPUs test sits under an ||: no conjunct, left to the full evaluation)
    assert limit_tests(slot) == (LimitTest("requestcpus", "<=", 4),
                                 LimitTest("requestmemory", "<=", 2048.0),
                                 LimitTest("requestdisk", "<=", 100))


@pytest.mark.parametrize(("slot", "tests"), [
    # the slot's name on the left, in parentheses: turned round
    (dict(Requirements="(MY.Cpus >= TARGET.RequestCpus)", Cpus=2),
     (LimitTest("requestcpus", "<=", 2),)),
    # an unscoped name the slot binds is the slot's
    (dict(Requirements="TARGET.RequestCpus < Cpus", Cpus=2),
     (LimitTest("requestcpus", "<", 2),)),
    # under an || or a !: no conjunct
    (dict(Requirements="TARGET.RequestCpus <= MY.Cpus || START", Cpus=2, Start="true"), ()),
    (dict(Requirements="!(TARGET.RequestCpus > MY.Cpus)", Cpus=2), ()),
    # the slot's amount no literal number, or a boolean
    (dict(Requirements="TARGET.RequestCpus <= MY.Cpus", Cpus="1 + 1"), ()),
    (dict(Requirements="TARGET.RequestCpus <= MY.Cpus", Cpus="true"), ()),
    # an integer too large to be a real exactly: not a limit test
    (dict(Requirements="TARGET.RequestCpus <= MY.Cpus", Cpus=2 ** 60), ()),
    # an equality, or the job's name unscoped: not a limit test
    (dict(Requirements="TARGET.RequestCpus == MY.Cpus", Cpus=2), ()),
    (dict(Requirements="RequestCpus <= MY.Cpus", Cpus=2), ()),
    # names walked through once each; never the Requirements again
    (dict(Requirements="A && B", A="B && TARGET.RequestCpus <= MY.Cpus",
          B="A && MY.Requirements", Cpus=2),
     (LimitTest("requestcpus", "<=", 2),)),
    # deeper than DEPTH names: not looked for
    (dict(Requirements="A", A="B", B="C", C="D", D="TARGET.RequestCpus <= MY.Cpus", Cpus=2),
     ()),
])
def test_which_conjuncts_are_limit_tests(slot, tests) -> None:
    ad, _ = _ads(slot, {})
    assert limit_tests(ad) == tests


@pytest.mark.parametrize(("cpus", "fails"), [
    (4, False), (5, True), (4.5, True), (3.5, False),
    # an integer too large to be a real exactly: decided by the full evaluation
    (2 ** 60, False),
    # not a literal number: decided by the full evaluation
    ("2 + 3", False), ('"5"', False), ("undefined", False), ("true", False), (None, False),
])
def test_a_job_is_ruled_out_by_its_literal_requests_only(cpus, fails) -> None:
    job = {} if cpus is None else dict(RequestCpus=cpus)
    slot, job_ad = _ads(dict(Requirements="START && TARGET.RequestCpus <= MY.Cpus",
                             Start="true", Cpus=4), job)
    limits = ResourceLimits()
    assert limits.fails(job_ad, _Offer(slot, 3)) is fails
    # a ruled-out pair's Requirements do not hold in full
    assert not fails or not adeval.requirements_hold(slot, job_ad, now=int(NOW))


def test_the_tests_are_read_once_per_pair_shape() -> None:
    small, job = _ads(dict(Requirements="TARGET.RequestCpus <= MY.Cpus", Cpus=1),
                      dict(RequestCpus=2))
    large, _ = _ads(dict(Requirements="TARGET.RequestCpus <= MY.Cpus", Cpus=8), {})
    limits = ResourceLimits()
    assert limits.fails(job, _Offer(small, 1))
    # (the shape's tests stand for every offer of it: offers of one pair shape bind
    # what a pair reads alike, so an offer of another binding is another shape)
    assert limits.fails(job, _Offer(large, 1))
    assert not limits.fails(job, _Offer(large, 2))


def test_pythons_comparisons_are_the_evaluators_on_such_numbers() -> None:
    numbers = (0, 1, 2, -3, 2.5, 2.0, -0.0, 1e300, float("inf"), float("-inf"),
               float("nan"), EXACT, -EXACT, float(EXACT), EXACT - 1)
    for op, holds in _OPS.items():
        for value in numbers:
            for amount in numbers:
                assert holds(value, amount) is compare(op, value, amount)
                # (a test written with the slot on the left, turned round)
                assert _OPS[_TURNED[op]](value, amount) is compare(op, amount, value)
