"""Partitionable slots whose static part no other slot has (``CarvedLists.add``).

Such a static gets no program (its few states are evaluated in full), but its states
too small for a class's literal requests are passed over without an evaluation, and
a static none of whose states can hold them any more (or that can never match the
class) is passed over for good by the class's later lists. Each case runs the cycle
with the mechanism and with it switched off (the class's literal requests taken as
none, the way without it), requires both to decide as the plain reference cycle
does, and the mechanism to have spared evaluations.
"""

from __future__ import annotations

import pytest

from condorlite.core.matching.carved_lists import CarvedLists
from condorlite.core.matching.match_table import MatchTable
from condorlite.core.matching.pair_programs import job_params
from condorlite.core.matching.slot_vectors import left
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import (
    ad_text,
    pslot_text,
    run_both,
)
from tests.core.negotiation.test_equivalence import _fingerprint

POLICY = Policy(uid_domain="example.org")
USERS = ("alice", "bob", "carol")


def _pslot(i: int, **extra: object) -> str:
    # Each slot's Rank names its own owner inside a call, which ``own_literals`` does
    # not free (it frees a comparison's operand under ``&&``, ``||`` and
    # parentheses), so each is a static of its own.
    attrs: dict[str, object] = dict(Arch='"X86_64"' if i % 5 else '"aarch64"',
                                    Rank=f'ifThenElse(TARGET.Owner == "owner{i}", 1, 0)')
    attrs.update(extra)
    return pslot_text(f"m{i}", 4 + i % 3, 4096 * (1 + i % 4), 50000 + 1000 * i, **attrs)


def _job(cluster: int, proc: int, **extra: object) -> str:
    attrs = dict(ClusterId=cluster, ProcId=proc, Owner=f'"{USERS[cluster % 3]}"', JobStatus=1,
                 JobPrio=0, QDate=1000 + cluster, RequestCpus=1, RequestMemory=1024,
                 RequestDisk=1000, Requirements='TARGET.Arch == "X86_64"')
    attrs.update(extra)
    return ad_text(attrs)


#: the classes: literal requests of several sizes (some larger than what most states
#: keep once carved), a real amount, a request that reads the slot (never a literal),
#: and a class that matches no slot's Arch
CLASSES = [
    dict(RequestCpus=2, RequestMemory=6000),
    dict(RequestCpus=3, RequestMemory=2048, RequestDisk=40000),
    dict(RequestMemory=10000.5),
    dict(RequestMemory="TARGET.Memory / 4"),
    dict(RequestCpus=1, Requirements='TARGET.Arch == "ppc64le"'),
    {},
]


def _jobs(per: int) -> list[str]:
    return [_job(c, p, **CLASSES[c - 1]) for c in range(1, len(CLASSES) + 1)
            for p in range(per)]


class _Spy:
    """The pair evaluations ``CarvedLists.add`` makes in full of states too small
    for the class's literal requests (``job_params``)."""

    def __init__(self, patch: pytest.MonkeyPatch) -> None:
        self.listing = False
        self.too_small = 0
        carved, evaluate = CarvedLists.add, MatchTable._evaluate_pair
        spy = self

        def listing(lists, build):  # type: ignore[no-untyped-def]
            spy.listing = True
            try:
                return carved(lists, build)
            finally:
                spy.listing = False

        def evaluating(table, job_ad, offer, **known):  # type: ignore[no-untyped-def]
            if spy.listing and offer.vector is not None:
                names, values = job_params(job_ad, offer.vector)
                index = offer.vector.index
                if any(amount > left(offer.vector.vals[index[name[len("request"):]]])
                       for name, amount in zip(names, values, strict=True)):
                    spy.too_small += 1
            return evaluate(table, job_ad, offer, **known)

        patch.setattr(CarvedLists, "add", listing)
        patch.setattr(MatchTable, "_evaluate_pair", evaluating)


@pytest.mark.parametrize(("n_slots", "per"), [(12, 30), (16, 40)])
def test_lone_statics_skip_what_cannot_fit(monkeypatch, n_slots, per):
    # (enough jobs for classes to come back in later spins, after other classes
    # carved their slots below what they ask)
    slots, jobs = [_pslot(i) for i in range(n_slots)], _jobs(per)
    spy = _Spy(monkeypatch)
    fast, result = run_both(slots, jobs, POLICY)
    # every static is a single slot's, so none has a program (but the one that stands
    # for "never matches", ``never_matches``): the case tests them
    programs = fast.mm.table.programs.values()
    assert all(p is None or p.never for p in programs) and None in programs
    assert any(fast.mm.lists._carved._dead.values())
    assert spy.too_small == 0
    with monkeypatch.context() as patch:
        patch.setattr(MatchTable, "literal_requests", lambda self, klass, job_ad, offer: ())
        plain, plain_result = run_both(slots, jobs, POLICY)
    assert spy.too_small > 0  # (the plain way evaluates them: the case has such states)
    assert _fingerprint(plain_result) == _fingerprint(result)
    assert fast.mm.evaluations < plain.mm.evaluations
