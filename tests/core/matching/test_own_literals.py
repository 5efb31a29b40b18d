"""A partitionable desktop's own owner literal left free in its vector
(``own_literals``): desktops of one machine type share one vector static and one
program per class, whoever owns them.

Each pool case runs the cycle with the literals hoisted and with hoisting switched
off, requires both to decide as the plain reference cycle does, and the hoisted run
to have made one static per (machine type, folded START) instead of one per owner,
and fewer programs. The unit cases check the rewrite itself: what it frees, what it
leaves, and that the rewritten expression evaluates as the original in the ad.
"""

from __future__ import annotations

import pytest

from condorlite.core import adeval
from condorlite.core.ad_decoder import slot_from_ad
from condorlite.core.classad import parse_ads
from condorlite.core.classad.ast import AttrRef, Literal
from condorlite.core.classad.lexer import tokenize
from condorlite.core.classad.printer import unparse
from condorlite.core.matching.own_literals import HIDDEN, OwnLiterals
from condorlite.core.matching.own_policy import OwnPolicy
from condorlite.core.negotiation.offer_pool import build_offers
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import (
    ProgramBuilds,
    pslot_text,
    run_both,
)
from tests.core.negotiation.test_equivalence import _fingerprint

POLICY = Policy(uid_domain="example.org")
USERS = ("alice", "bob", "carol", "dave")
#: machine types: (Arch, Cpus, Memory)
TYPES = [('"X86_64"', 8, 16384), ('"aarch64"', 4, 8192)]


def _desktop(i: int, **extra: object) -> str:
    owner = USERS[i % len(USERS)]
    arch, cpus, memory = TYPES[i % 2 if i % 5 else 0]
    attrs: dict[str, object] = dict(
        Arch=arch, KeyboardIdle=3600 if i % 3 else 60,
        Start=f'(KeyboardIdle > 15 * 60) || (TARGET.Owner == "{owner}@example.org")',
        Rank=f'TARGET.Owner == "{owner}@example.org"')
    attrs.update(extra)
    return pslot_text(f"desk{i}", cpus, memory, 100000, **attrs)


def _jobs(per: int) -> list[str]:
    out = []
    for cluster in range(1, 9):
        owner = USERS[cluster % len(USERS)] if cluster % 4 else "erin"
        arch = '"X86_64"' if cluster % 3 else '"aarch64"'
        out.extend("\n".join(f"{k} = {v}" for k, v in dict(
            ClusterId=cluster, ProcId=proc, Owner=f'"{owner}@example.org"', JobStatus=1,
            JobPrio=0, QDate=1000 + cluster, RequestCpus=1 + cluster % 3,
            RequestMemory=1024 * (1 + cluster % 4), RequestDisk=1000,
            Requirements=f"TARGET.Arch == {arch}").items()) + "\n" for proc in range(per))
    return out


@pytest.mark.parametrize(("n_desktops", "per"), [(24, 6), (40, 10)])
def test_desktops_of_one_type_share_a_static_whoever_owns_them(monkeypatch, n_desktops, per):
    slots, jobs = [_desktop(i) for i in range(n_desktops)], _jobs(per)
    builds = ProgramBuilds(monkeypatch)
    fast, result = run_both(slots, jobs, POLICY)
    hoisted_builds, statics = builds.count, len(fast.mm.prep._vectors.statics)
    # two machine types, each idle (START folded to true) or busy (the owner test):
    # four statics, whoever the owners are
    assert statics == 4
    assert all(o.vector is not None and o.literals for o in fast.offers)
    builds.count = 0
    with monkeypatch.context() as patch:
        patch.setattr(OwnLiterals, "hoist", _fold_only)
        plain, plain_result = run_both(slots, jobs, POLICY)
    assert len(plain.mm.prep._vectors.statics) > 2 * statics
    assert builds.count > hoisted_builds
    assert _fingerprint(plain_result) == _fingerprint(result)


def test_busy_desktops_owned_by_a_submitter_go_to_their_owner():
    # every desktop busy: START holds only for its owner's jobs, whose slot Rank is 1
    slots = [_desktop(i, KeyboardIdle=10) for i in range(16)]
    fast, result = run_both(slots, _jobs(4), POLICY)
    owner = {f"slot1@desk{i}": USERS[i % len(USERS)] for i in range(16)}
    assert result.matches
    assert all(m.submitter.startswith(owner[m.slot.split("#")[0]]) for m in result.matches)
    assert len(fast.mm.prep._vectors.statics) == 2


def _fold_only(self, offer, folded=None) -> tuple:
    """``OwnLiterals.hoist`` that hoists nothing: only the folded rebindings it is
    handed are made (``Matchmaker.prepare`` has it make them)."""
    if folded:
        offer.ad = adeval.with_entries(offer.ad, folded)
    return ()


def _offer(text: str):
    ad = next(iter(parse_ads(text)))
    return build_offers([slot_from_ad(ad, POLICY, 0)], [], 0.0, lambda user: {})[0]


def test_hoist_frees_target_comparisons_only_and_keeps_the_values():
    offer = _offer(_desktop(1, Rank='TARGET.Owner == "bob@example.org" && MY.Arch == "X86_64"',
                            Start='("alice" =?= TARGET.Owner) || (TARGET.Group is "g")'))
    original = offer.ad
    names = OwnLiterals().hoist(offer)
    assert names == (f"{HIDDEN}rank0", f"{HIDDEN}start0", f"{HIDDEN}start1")
    ad = offer.ad
    assert adeval.attr(ad, names[0]) == Literal("bob@example.org")
    assert adeval.attr(ad, names[1]) == Literal("alice")
    # a comparison with the slot's own Arch is left as it is
    assert 'MY.Arch == "X86_64"' in unparse(adeval.attr(ad, "rank"))
    assert '"bob' not in unparse(adeval.attr(ad, "rank"))
    assert isinstance(adeval.attr(ad, "rank").left.right, AttrRef)  # type: ignore[union-attr]
    for owner, group in (("bob@example.org", "g"), ("alice", "h"), ("erin", "g")):
        job = next(iter(parse_ads(f'Owner = "{owner}"\nGroup = "{group}"\n')))
        for name in ("rank", "start", "requirements"):
            assert (adeval.eval_attr(ad, name, job, 0) == adeval.eval_attr(original, name, job, 0))
    # the slot's own ad is untouched
    assert '"bob@example.org"' in unparse(adeval.attr(offer.slot.ad, "rank"))


def test_unhoist_puts_back_the_ad_before_the_rewrite_entry_for_entry():
    """A static desktop's ad after ``unhoist``: the entries it held before ``hoist``
    (the very objects), in the same order, and no hidden name."""
    offer = _offer(_desktop(3, Rank='TARGET.Owner == "bob"', PartitionableSlot="false",
                            Start='("alice" =?= TARGET.Owner) || (TARGET.Group is "g")'))
    assert not offer.partitionable
    before = adeval.table(offer.ad)
    assert before is not None
    literals = OwnLiterals()
    assert literals.hoist(offer)
    assert adeval.table(offer.ad) != before
    literals.unhoist(offer)
    after = adeval.table(offer.ad)
    assert list(after) == list(before)  # type: ignore[arg-type]
    assert all(after[name] is entry for name, entry in before.items())  # type: ignore[index]
    literals.unhoist(offer)  # (once only: the second leaves it as it is)
    assert adeval.table(offer.ad) is after


@pytest.mark.parametrize("idle", [60, 3600])
def test_folding_and_hoisting_in_one_copy_give_the_two_step_ad(idle):
    """``hoist`` handed the folded rebindings (``Matchmaker.prepare``): one copy of
    the ad, with the same entries (the very objects, in the same order) as folding
    then hoisting gives, and ``unhoist`` puts back the folded ad, not the slot's."""
    text = _desktop(4, PartitionableSlot="false", KeyboardIdle=idle)
    folding, literals = OwnPolicy(frozenset({"cpus", "memory", "disk"})), OwnLiterals()
    two_step, one_copy = _offer(text), _offer(text)
    folding.fold(two_step)
    folded = adeval.table(two_step.ad)
    assert literals.hoist(two_step)
    changes = folding.changes(one_copy)
    assert changes and one_copy.ad is one_copy.slot.ad
    assert literals.hoist(one_copy, changes)
    ta, tb = adeval.table(two_step.ad), adeval.table(one_copy.ad)
    assert list(ta) == list(tb) and ta == tb  # type: ignore[arg-type]
    # (the two offers' ads were parsed apart: only the rewritten entries are shared)
    rewritten = [n for n in tb if n in changes or n.startswith(HIDDEN) or n == "rank"]
    assert all(ta[n] is tb[n] for n in rewritten)  # type: ignore[index]
    # the slot's own ad is untouched, the folded START is what both hold
    assert "KeyboardIdle" in unparse(adeval.attr(one_copy.slot.ad, "start"))
    assert "KeyboardIdle" not in unparse(adeval.attr(one_copy.ad, "start"))
    for offer in (two_step, one_copy):
        literals.unhoist(offer)
        after = adeval.table(offer.ad)
        assert list(after) == list(folded) and after == folded  # type: ignore[arg-type]
    assert adeval.table(two_step.ad)["start"] is adeval.table(one_copy.ad)["start"]


def test_hoist_leaves_an_offer_without_such_literals_alone():
    offer = _offer(_desktop(2, Rank="0.0", Start="true"))
    before = offer.ad
    assert OwnLiterals().hoist(offer) == ()
    assert offer.ad is before


def test_no_text_can_spell_a_hidden_name():
    # a quoted name cannot hold the NUL that every hidden name begins with
    with pytest.raises(Exception):  # noqa: B017 (the lexer's own error class)
        tokenize(f"TARGET.'{HIDDEN}rank0'")


def test_a_freed_literal_compared_with_a_number_makes_no_box():
    # START compares the slot's own string with the job's Kind, which some jobs bind
    # to a number: "k1" == 5 is error (no match), which a box's bound on numbers
    # cannot say, so the program runs the test as it is
    slots = [_desktop(i, Start=f'TARGET.Kind == "k{i % 3}"') for i in range(18)]
    kinds = ('"k1"', "5", '"k2"')
    jobs = [text.replace("JobStatus = 1", f"JobStatus = 1\nKind = {kinds[n % 3]}")
            for n, text in enumerate(_jobs(3))]
    fast, result = run_both(slots, jobs, POLICY)
    assert len(fast.mm.prep._vectors.statics) == 2
    programs = [p for p in fast.mm.table.programs.values() if p is not None and not p.never]
    assert programs and not any(p.box for p in programs)
    numbered = {f"{cluster}.{proc}" for n, (cluster, proc) in enumerate(
        (c, p) for c in range(1, 9) for p in range(3)) if n % 3 == 1}
    matched = {m.job for m in result.matches}
    assert matched and not matched & numbered
