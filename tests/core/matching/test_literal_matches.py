"""The groups of a vector static whose ``Requirements`` cannot hold for a class, by
the slot's own literal tests, left out of its walk (``literal_matches``).

The cycle cases run with the groups left out and with the walk whole
(``carved_lists.MATCHES``), both deciding as the plain reference cycle does; every
shape left out of a class's walk is checked against ``Requirements`` evaluated in full
at each of its offers' states with the class's job (it must not hold). The unit cases
check the verdicts: the owner's group live and the others dead for a busy desktop, and
no verdict where ``Requirements`` reads the job otherwise than through the tests or
the job's owner is an expression.
"""

from __future__ import annotations

import pytest

from condorlite.core import adeval
from condorlite.core.classad import parse_ads
from condorlite.core.matching import carved_lists
from condorlite.core.matching.literal_matches import REQUIREMENTS, LiteralMatches
from condorlite.core.matching.literal_orders import literal_tests
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import NOW, run_both
from tests.core.matching.test_own_literals import _desktop, _jobs
from tests.core.negotiation.test_equivalence import _fingerprint

POLICY = Policy(uid_domain="example.org")


def _busy(count: int, **extra: object) -> list[str]:
    # (a busy keyboard: START is its owner test alone once KeyboardIdle is folded)
    return [_desktop(i, KeyboardIdle=60 if i % 4 else 3600,
                     Memory=8192 + 512 * (i % 3), **extra) for i in range(count)]


class _LeftOut:
    """Every shape ``LiteralMatches.live`` leaves out, checked in full: no offer of
    it matches the class's job (its ``Requirements`` does not hold)."""

    def __init__(self, patch: pytest.MonkeyPatch) -> None:
        self.left_out = 0
        self.kept = 0
        live = LiteralMatches.live
        spy = self

        def checked(matches, static, first, job_ad, shapes):  # type: ignore[no-untyped-def]
            out = live(matches, static, first, job_ad, shapes)
            if out is None:
                return out
            registry = matches._registry
            for shape, members in shapes.items():
                if shape in out:
                    spy.kept += 1
                    continue
                spy.left_out += 1
                for seq in members:
                    assert not adeval.requirements_hold(registry[seq].state_ad, job_ad,
                                                        now=int(NOW))
            return out

        patch.setattr(LiteralMatches, "live", checked)


@pytest.mark.parametrize(("count", "per"), [(24, 6), (48, 10)])
def test_busy_desktops_of_other_owners_are_left_out(monkeypatch, count, per):
    slots, jobs = _busy(count), _jobs(per)
    spy = _LeftOut(monkeypatch)
    _, result = run_both(slots, jobs, POLICY)
    assert spy.left_out and spy.kept
    monkeypatch.setattr(carved_lists, "MATCHES", False)
    _, walked = run_both(slots, jobs, POLICY)
    assert _fingerprint(result) == _fingerprint(walked)


def _job(owner: str, **extra: str):
    text = f'Owner = "{owner}@example.org"\nRequestCpus = 1\nRequestMemory = 1024\n'
    text += "".join(f"{k} = {v}\n" for k, v in extra.items())
    return next(iter(parse_ads(text)))


def _offers(slots: list[str]):
    fast, _ = run_both(slots, _jobs(4), POLICY)
    offers = [o for o in fast.offers if o.vector is not None and o.literals]
    assert offers
    return fast.mm.shapes, offers


def _verdicts(shapes, offers, offer, job) -> dict | None:
    """``LiteralMatches.live`` for the class of ``job`` over the shapes of the
    static of ``offer`` (from ``offers``, as they are after the cycle)."""
    static = offer.vector.static
    mine = {}
    for other in offers:
        if other.vector.static == static:
            mine.setdefault(other.shape, {})[other.seq] = None
    return LiteralMatches(shapes.registry, {}, shapes.now).live(static, offer, job, mine), mine


def test_the_owners_group_is_live_and_the_others_dead():
    shapes, offers = _offers(_busy(16))
    left_out = 0
    for offer in offers:
        for user in ("alice", "bob", "carol", "dave", "erin"):
            job = _job(user)
            live, mine = _verdicts(shapes, offers, offer, job)
            if live is None:
                continue
            for shape, members in mine.items():
                holds = [adeval.requirements_hold(shapes.registry[seq].state_ad, job,
                                                  now=int(shapes.now)) for seq in members]
                if shape not in live:
                    left_out += 1
                    assert not any(holds)
    assert left_out


def test_requirements_reading_the_job_otherwise_give_no_verdict():
    # (with the owner test false, START still reads the job's RequestCpus: live)
    start = '(TARGET.RequestCpus > 2) || (TARGET.Owner == "{}@example.org")'
    slots = [_desktop(i, KeyboardIdle=60, Start=start.format(("alice", "bob")[i % 2]))
             for i in range(8)]
    shapes, offers = _offers(slots)
    # (the tests are found: the verdict is what refuses)
    assert all(literal_tests(offer, REQUIREMENTS) is not None for offer in offers)
    for offer in offers:
        assert _verdicts(shapes, offers, offer, _job("carol"))[0] is None


def test_an_owner_that_is_an_expression_gives_no_verdict():
    shapes, offers = _offers(_busy(8))
    computed = next(iter(parse_ads('Owner = strcat("al", "ice@example.org")\n'
                                   'RequestCpus = 1\nRequestMemory = 1024\n')))
    assert any(_verdicts(shapes, offers, offer, _job("erin"))[0] is not None
               for offer in offers)
    for offer in offers:
        assert _verdicts(shapes, offers, offer, computed)[0] is None
