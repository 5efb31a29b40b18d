"""A static desktop's ``START`` as a function of the job's ``Owner`` (``owner_gates``):
one specialisation per pair shape rules out, per owner, the classes whose owner makes
the leftmost operand of the desktop's ``Requirements`` false, without a full
evaluation each.

The cycle runs with the gates and with them switched off (``OwnerGates.rules_out``
never rules out), both against the plain reference cycle (``run_both``); the gates
must spare full evaluations of the slot's ``Requirements`` and be made once per pair
shape, never for a ``START`` that reads more of the job than its ``Owner``. The static
lists ask the gates once per owner for every shape they walk (``OwnerWalks._by_owner``,
switched by ``owner_walks.BY_OWNER``): the same results and evaluation counts, the
ruled-out pairs never asked of the match table.
"""

from __future__ import annotations

import pytest

from condorlite.core import adeval
from condorlite.core.classad import parse_ad
from condorlite.core.classad.parser import parse_expr
from condorlite.core.matching import match_table, owner_walks
from condorlite.core.matching.owner_gates import OwnerGates, leftmost
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import NOW, ad_text, run_both
from tests.core.negotiation.test_equivalence import _fingerprint

POLICY = Policy(uid_domain="example.org")
USERS = ("alice", "bob", "carol")
#: a desktop's Requirements, by kind: its START first in an ``&&`` chain (in
#: parentheses), START alone, and START after a test of the job's requests (no gate:
#: the leftmost operand reads the job's RequestCpus)
REQUIREMENTS = ("(START) && TARGET.RequestCpus <= MY.Cpus && TARGET.RequestMemory <= MY.Memory",
                "START",
                "TARGET.RequestCpus <= MY.Cpus && START")


def _desktop(i: int) -> str:
    owner = USERS[i % len(USERS)]
    start = f'(KeyboardIdle > 15 * 60) || (TARGET.Owner == "{owner}")'
    if i % 5 == 4:
        # (reads the job's RequestCpus too: no gate, a 4-cpu job of anyone may match)
        start += " || TARGET.RequestCpus > 2"
    # (a static slot each, its own Disk: its own pair shape, fewer than
    # ``SHARED_LITERALS`` per part, so evaluated in full; busy on all but every fourth)
    return ad_text(dict(
        Name=f'"slot1@desk{i}"', Machine=f'"desk{i}"', State='"Unclaimed"',
        Activity='"Idle"', Cpus=4, Memory=8192, Disk=50000 + 1000 * i,
        Arch='"X86_64"', OpSys='"LINUX"', KeyboardIdle=3600 if i % 4 == 3 else 60,
        Start=start, Requirements=REQUIREMENTS[i % len(REQUIREMENTS)],
        Rank=f'TARGET.Owner == "{owner}"', CurrentRank="0.0", SlotWeight="Cpus"))


def _job(cluster: int, proc: int, owner: str, cpus: int, disk: int) -> str:
    return ad_text(dict(
        ClusterId=cluster, ProcId=proc, Owner=f'"{owner}"', JobStatus=1, JobPrio=0,
        QDate=1000 + cluster, RequestCpus=cpus, RequestMemory=1024, RequestDisk=disk,
        Requirements='TARGET.OpSys == "LINUX" && TARGET.Disk >= RequestDisk'))


SLOTS = [_desktop(i) for i in range(24)]
#: owners with desktops and without (erin), small and large requests
JOBS = ([_job(1, p, "alice", 1, 51000) for p in range(4)]
        + [_job(2, p, "bob", 4, 60000) for p in range(4)]
        + [_job(3, p, "erin", 1, 52000) for p in range(6)]
        + [_job(4, p, "erin", 3, 55000) for p in range(6)]
        + [_job(5, p, "carol", 2, 50000) for p in range(3)])


class _Counts:
    """The full evaluations of a slot's ``Requirements`` (``requirements_hold`` with
    the slot as MY, by the match table), the gates made and the pairs they ruled out."""

    def __init__(self, patch: pytest.MonkeyPatch, gates: bool) -> None:
        self.slot_tests = self.ruled_out = 0
        self.made: list[str] = []
        counts = self
        holds = adeval.requirements_hold

        def counted(my, target, *, now=None):  # type: ignore[no-untyped-def]
            if adeval.attr(my, "start") is not None:
                counts.slot_tests += 1
            return holds(my, target, now=now)

        patch.setattr(match_table.adeval, "requirements_hold", counted)
        rules_out, gate = OwnerGates.rules_out, OwnerGates._gate

        def counted_rules_out(gates_, owner, job_ad, offer):  # type: ignore[no-untyped-def]
            if not gates:
                return False
            out = rules_out(gates_, owner, job_ad, offer)
            counts.ruled_out += out
            return out

        def counted_gate(gates_, job_ad, slot_ad):  # type: ignore[no-untyped-def]
            made = gate(gates_, job_ad, slot_ad)
            if made is not None:
                counts.made.append(adeval.attr(slot_ad, "name").value)  # type: ignore[union-attr]
            return made

        patch.setattr(OwnerGates, "rules_out", counted_rules_out)
        patch.setattr(OwnerGates, "_gate", counted_gate)


@pytest.mark.parametrize("by_owner", [True, False])
def test_gates_decide_as_the_reference_with_fewer_full_evaluations(monkeypatch,
                                                                   by_owner) -> None:
    results, counts, evaluations = {}, {}, {}
    for gates in (True, False):
        with monkeypatch.context() as patch:
            patch.setattr(owner_walks, "BY_OWNER", by_owner)
            counts[gates] = _Counts(patch, gates)
            fast, results[gates] = run_both(SLOTS, JOBS, POLICY)
            evaluations[gates] = fast.mm.evaluations
        assert all(o.literals and o.vector is None for o in fast.offers)
    assert _fingerprint(results[True]) == _fingerprint(results[False])
    gated = counts[True]
    assert gated.ruled_out
    # (every pair is counted once, ruled out or evaluated in full)
    assert evaluations[True] == evaluations[False]
    if by_owner:
        # (a verdict per owner and shape stands for the pairs of every class of it)
        assert gated.slot_tests < counts[False].slot_tests
    else:
        assert gated.slot_tests + gated.ruled_out == counts[False].slot_tests
    # one gate per pair shape at most (each desktop its own), none for a START that
    # reads the job's requests or behind one (the leftmost operand is not START)
    assert len(gated.made) == len(set(gated.made))
    for name in gated.made:
        i = int(name.split("desk")[1].split('"')[0])
        assert i % 5 != 4 and i % len(REQUIREMENTS) != 2


def _ads(slot: str, job: str) -> tuple:
    return parse_ad(slot, "old"), parse_ad(job, "old")


class _Offer:
    """What a gate reads of an offer."""

    def __init__(self, ad: object, pair_shape: int) -> None:
        self.ad, self.pair_shape = ad, pair_shape


@pytest.mark.parametrize(("start", "requirements", "gated"), [
    ('false || TARGET.Owner == "alice"', "START && TARGET.RequestCpus <= 4", True),
    ('TARGET.Owner == "alice"', "(START)", True),
    # a cycle through the slot's Requirements: no gate
    ('TARGET.Owner == "alice" && MY.Requirements', "START && true", False),
    # more of the job than its Owner
    ('TARGET.Owner == "alice" || TARGET.Group == "x"', "START", False),
    # rules nothing out
    ("true", "START && TARGET.RequestCpus <= 4", False),
])
def test_a_gate_is_kept_only_when_it_reads_the_owner_alone(start, requirements, gated) -> None:
    slot, alice = _ads(ad_text(dict(Start=start, Requirements=requirements, Cpus=4)),
                       ad_text(dict(Owner='"alice"', RequestCpus=1, Group='"y"')))
    _, bob = _ads(ad_text(dict(Cpus=4)), ad_text(dict(Owner='"bob"', RequestCpus=1,
                                                      Group='"y"')))
    gates = OwnerGates(NOW)
    offer = _Offer(slot, 7)
    assert not gates.fails(alice, offer)
    assert gates.fails(bob, offer) is gated
    # (worked out at alice's ask, for every owner; not for a START bound to true)
    assert gates.made == (start != "true")
    if gated:
        # (bob's verdict is kept for the shape: asked again, no new gate)
        assert gates.fails(bob, _Offer(slot, 7)) and gates.made == 1
    # whatever the gate says, a ruled-out pair's Requirements do not hold in full
    assert not gated or not adeval.requirements_hold(slot, bob, now=int(NOW))


def test_a_job_whose_owner_is_no_string_literal_is_not_ruled_out() -> None:
    slot, job = _ads(ad_text(dict(Start='TARGET.Owner == "alice"', Requirements="START")),
                     ad_text(dict(Owner='strcat("b", "ob")')))
    gates = OwnerGates(NOW)
    assert not gates.fails(job, _Offer(slot, 1))
    assert gates.made == 0


def test_leftmost_operand_of_an_and_chain() -> None:
    assert leftmost(parse_expr("((A) && B) && C")) == parse_expr("A")
    assert leftmost(parse_expr("(A || B) && C")) == parse_expr("A || B")
    assert leftmost(parse_expr("(A)")) == parse_expr("A")


def test_static_lists_skip_the_pairs_the_gates_rule_out(monkeypatch) -> None:
    """With ``BY_OWNER`` the pairs a gate rules out never reach the match table's
    ``_evaluate_pair``, the split is made once per owner and grouping of the static
    shapes, and the results and evaluation counts are those without it."""
    results, evaluated, evaluations, splits = {}, {}, {}, {}
    evaluate = match_table.MatchTable._evaluate_pair
    split = owner_walks.OwnerWalks._by_owner
    for by_owner in (True, False):
        with monkeypatch.context() as patch:
            patch.setattr(owner_walks, "BY_OWNER", by_owner)
            seen: list[object] = []

            def counted(table, job_ad, offer, _seen=seen, **known):  # type: ignore[no-untyped-def]
                _seen.append("pair")
                return evaluate(table, job_ad, offer, **known)

            def counted_split(walks, owner, job_ad, walked, _seen=seen):  # type: ignore[no-untyped-def]
                if owner not in walks._owner_walks:
                    # (the walked list itself kept: its id is never reused meanwhile)
                    _seen.append((walked, owner))
                return split(walks, owner, job_ad, walked)

            patch.setattr(match_table.MatchTable, "_evaluate_pair", counted)
            patch.setattr(owner_walks.OwnerWalks, "_by_owner", counted_split)
            fast, results[by_owner] = run_both(SLOTS, JOBS, POLICY)
            evaluations[by_owner] = fast.mm.evaluations
            evaluated[by_owner] = seen.count("pair")
            splits[by_owner] = [x for x in seen if x != "pair"]
    assert _fingerprint(results[True]) == _fingerprint(results[False])
    assert evaluations[True] == evaluations[False]
    assert evaluated[True] < evaluated[False]
    made = [(id(walked), owner) for walked, owner in splits[True]]
    assert len(set(made)) == len(made) and not splits[False]
    assert {owner for _, owner in splits[True]} == {"alice", "bob", "carol", "erin"}
