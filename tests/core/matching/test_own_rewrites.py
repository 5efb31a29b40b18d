"""A slot's own policy folded and literals hoisted once per set of entries they read
(``own_rewrites``): every offer's ad must be, entry for entry, what the two modules
make of it one offer at a time, and ``unhoist`` must put back the same.

The pools mix idle machines that share every policy entry (the memo's hits), desktops
whose ``START`` names their owner and reads a ``KeyboardIdle`` of their own (misses,
then given up), static and partitionable slots. The ranks of a loose record
(``first_ranks.FirstRanks.loose_values``) are checked against a full evaluation.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from condorlite.core import adeval
from condorlite.core.classad.ad import ClassAd
from condorlite.core.classad.ast import Literal
from condorlite.core.classad.parser import parse_expr
from condorlite.core.matching import own_policy, own_rewrites
from condorlite.core.matching.candidates import as_rank
from condorlite.core.matching.own_literals import OwnLiterals
from condorlite.core.matching.own_policy import OwnPolicy
from condorlite.core.matching.own_rewrites import OwnRewrites
from condorlite.core.negotiation.offer_pool import build_offers
from condorlite.core.policy import Policy
from tests.core._pool import decoded_texts
from tests.core.matching._against_reference import (
    NOW,
    WITHIN_RESOURCE_LIMITS,
    ad_text,
    run_both,
)
from tests.core.matching.test_own_literals import _desktop, _jobs

POLICY = Policy(uid_domain="example.org")
KEEP = frozenset({"cpus", "memory", "disk"})


def _machine(i: int, partitionable: bool) -> str:
    return ad_text(dict(
        Name=f'"slot{i % 4 + 1}@node{i // 4}"', Machine=f'"node{i // 4}"',
        State='"Unclaimed"', Activity='"Idle"', PartitionableSlot=str(partitionable).lower(),
        Cpus=8 if partitionable else 4, Memory=16384 if partitionable else 8192,
        Disk=100000, Arch='"X86_64"', OpSys='"LINUX"', KFlops=1_000_000 + 7919 * i,
        SlotID=i % 4 + 1, Start="true", Requirements="START && WithinResourceLimits",
        WithinResourceLimits=WITHIN_RESOURCE_LIMITS, Rank="0.0", CurrentRank="0.0",
        SlotWeight="Cpus"))


def _pool() -> list[str]:
    texts = [_machine(i, partitionable=i % 3 == 0) for i in range(36)]
    texts += [_desktop(i, PartitionableSlot="false" if i % 2 else "true",
                       KeyboardIdle=60 + 97 * i) for i in range(30)]
    return texts


def _offers(slots: list):
    return build_offers(slots, [], NOW, lambda user: {})


def _same_table(a, b) -> None:
    ta, tb = adeval.table(a), adeval.table(b)
    assert list(ta) == list(tb)  # type: ignore[arg-type]
    assert all(ta[name] is tb[name] for name in ta)  # type: ignore[index]


def _folded(policy: OwnPolicy, offer) -> dict:
    """``OwnPolicy.changes`` of the offer, less a fold that decides nothing when
    ``own_rewrites.INLINED`` is on (the reference the rewrites are held to)."""
    changes = policy.changes(offer)
    if own_rewrites.INLINED and changes and own_policy.decides_nothing(offer.ad, changes):
        return {}
    return changes


class _Rewritten(NamedTuple):
    """What ``_rewritten_alike`` made: the rewrites, the literals, the decoded slots
    and two offers of each (rewritten; folded and hoisted alone)."""

    rewrites: OwnRewrites
    literals: OwnLiterals
    slots: list
    fast: list
    plain: list


def _rewritten_alike(texts: list[str]) -> _Rewritten:
    """Each slot of ``texts`` rewritten on one offer (``OwnRewrites.rewrite``) and
    folded and hoisted by the two modules alone on a second: the same table and
    literals, offer by offer."""
    policy, literals = OwnPolicy(KEEP), OwnLiterals()
    rewrites = OwnRewrites(policy, literals)
    slots, _ = decoded_texts(texts, [], POLICY, shared=True)
    fast, plain = _offers(slots), _offers(slots)
    for a, b in zip(fast, plain, strict=True):
        rewrites.rewrite(a)
        b.literals = literals.hoist(b, _folded(policy, b))
        _same_table(a.ad, b.ad)
        assert a.literals == b.literals
    return _Rewritten(rewrites, literals, slots, fast, plain)


def _unhoisted_alike(literals: OwnLiterals, fast: list, plain: list) -> None:
    """Both offers of each slot unhoisted: the same table again."""
    for a, b in zip(fast, plain, strict=True):
        literals.unhoist(a)
        literals.unhoist(b)
        _same_table(a.ad, b.ad)


@pytest.mark.parametrize("batch", [True, False])
@pytest.mark.parametrize("decided", [True, False])
@pytest.mark.parametrize("folded", [True, False])
@pytest.mark.parametrize("inlined", [True, False])
@pytest.mark.parametrize("misses", [own_rewrites.MISSES, 2])
def test_rewrites_are_the_two_modules_entry_for_entry(monkeypatch, misses, inlined, folded,
                                                      decided, batch):
    """Every offer's ad is the two modules', one offer at a time or all at once
    (``rewrite_all``: the slots of a machine, holding its entries, rewritten as the
    slot before them with no plan lookup)."""
    monkeypatch.setattr(own_rewrites, "MISSES", misses)
    monkeypatch.setattr(own_rewrites, "INLINED", inlined)
    monkeypatch.setattr(own_rewrites, "FOLDED", folded)
    monkeypatch.setattr(own_rewrites, "DECIDED", decided)
    policy, literals = OwnPolicy(KEEP), OwnLiterals()
    rewrites = OwnRewrites(policy, literals)
    looked = []
    full = rewrites._planned
    monkeypatch.setattr(rewrites, "_planned",
                        lambda offer, *rest: looked.append(offer) or full(offer, *rest))
    # (two offers of each slot: its ad's entries are the very same objects)
    slots, _ = decoded_texts(_pool(), [], POLICY, shared=True)
    fast, plain = _offers(slots), _offers(slots)
    if batch:
        rewrites.rewrite_all(fast)
        # (a machine's static slots share their entries: runs of them, not looked
        # up; after two misses the machines' plans are given up too, no runs)
        assert (len(looked) < len(fast)) == (misses != 2)
    for a, b in zip(fast, plain, strict=True):
        if not batch:
            rewrites.rewrite(a)
        # (the same two modules, so the rewritten entries are the same objects)
        b.literals = literals.hoist(b, _folded(policy, b))
        _same_table(a.ad, b.ad)
        assert a.literals == b.literals
    hits = sum(counts[0] for counts in rewrites._counts.values())
    if misses == 2:  # (given up after two misses: the machines too, but for a hit)
        assert any(counts[1] < 0 for counts in rewrites._counts.values())
    else:  # the idle machines share their policy entries; the desktops share none
        assert hits >= 30
    assert any(a.literals for a in fast)
    # the idle machines' fold (``START`` inlined) decides nothing: with ``INLINED``
    # they keep the slot's own ad, no copy; the desktops' fold is made
    kept = [a.ad is a.slot.ad for a in fast]
    assert any(kept) == inlined and not all(kept)
    _unhoisted_alike(literals, fast, plain)


@pytest.mark.parametrize("decided", [True, False])
@pytest.mark.parametrize("folded", [True, False])
@pytest.mark.parametrize("inlined", [True, False])
def test_a_cycle_with_the_rewrites_decides_as_the_reference(monkeypatch, inlined, folded,
                                                            decided):
    monkeypatch.setattr(own_rewrites, "INLINED", inlined)
    monkeypatch.setattr(own_rewrites, "FOLDED", folded)
    monkeypatch.setattr(own_rewrites, "DECIDED", decided)
    fast, _ = run_both(_pool(), _jobs(6), POLICY)
    assert sum(counts[0] for counts in fast.mm.own_rewrites._counts.values()) >= 30


def _folded_hits(rewrites: OwnRewrites) -> list[list[int]]:
    return [plan.folded_counts for plan in rewrites._plans.values() if plan.folded]


@pytest.mark.parametrize("own", [False, True])
def test_a_given_up_plan_rewrites_per_fold_as_the_two_modules(monkeypatch, own):
    """Desktops of few owners, each ``KeyboardIdle`` its own (the plans given up
    after two misses): their rewrites are remembered per folded entries (two per
    owner: idle or busy) and equal the two modules' entry for entry; with a
    ``START`` that folds to an expression of its own per slot (``own``: the number
    stays in it), the folds miss until given up, and are still equal. (The plans
    keyed on the entries: ``DECIDED`` off, or the desktops' plans would hit.)"""
    monkeypatch.setattr(own_rewrites, "MISSES", 2)
    monkeypatch.setattr(own_rewrites, "DECIDED", False)
    start = "(KeyboardIdle > 15 * 60) || (TARGET.ImageSize < KeyboardIdle)" if own \
        else None
    # (own: every desktop busy, ``KeyboardIdle`` under 900, so none folds to true)
    texts = [_desktop(i % 4, KeyboardIdle=100 + (7 if own else 97) * i, Name=f'"slot1@d{i}"',
                      **({"Start": start} if start else {})) for i in range(40)]
    done = _rewritten_alike(texts)
    rewrites = done.rewrites
    assert all(counts[1] < 0 for counts in rewrites._counts.values())
    counts = _folded_hits(rewrites)
    if own:
        assert counts and all(c[1] < 0 and c[0] == 0 for c in counts)
    else:  # four owners x idle or busy: at most eight misses, the rest hits
        assert sum(c[0] for c in counts) >= 40 - 8 - 2
        assert all(c[1] >= 0 for c in counts)
    _unhoisted_alike(done.literals, done.fast, done.plain)


#: ``Requirements`` of desktops: the default (reads ``START``, not ``KeyboardIdle``),
#: one comparing ``KeyboardIdle`` with an integer too (its decisions joined to
#: ``START``'s), one reading it outside a comparison (keyed on its entry)
_REQUIREMENTS = {
    "default": "START && WithinResourceLimits",
    "compared": "START && WithinResourceLimits && KeyboardIdle >= 120",
    "elsewhere": "START && WithinResourceLimits && KeyboardIdle =!= undefined",
}


@pytest.mark.parametrize("requirements", sorted(_REQUIREMENTS))
def test_desktop_rewrites_keyed_on_what_their_comparisons_decide(requirements):
    """Desktops of four owners, each ``KeyboardIdle`` an integer of its own on both
    sides of the constants (and a few bound to a real, a string or an expression,
    keyed on their entries): a rewrite is remembered per owner and outcomes, not
    given up, and every offer's ad equals the two modules' entry for entry; where
    ``Requirements`` reads ``KeyboardIdle`` outside a comparison, on its entry."""
    odd = {7: "900.5", 11: '"idle"', 13: "ConsoleIdle + 1"}
    texts = [_desktop(i % 4, KeyboardIdle=odd.get(i, 100 + 61 * i), ConsoleIdle=950,
                      Name=f'"slot1@d{i}"', Requirements=_REQUIREMENTS[requirements])
             for i in range(40)]
    done = _rewritten_alike(texts)
    rewrites, slots = done.rewrites, done.slots
    plans = list(rewrites._plans.values())
    assert len(plans) == 4
    for plan in plans:
        decided = dict(zip(plan.reads, plan.tests or (), strict=False))
        # the key by regions is the key of the outcomes, desktop by desktop
        for slot in slots:
            if plan.tests is not None:
                entries = tuple(map(adeval.table(slot.ad).get, plan.reads))
                assert own_rewrites._decided_key(entries, plan.decided) == \
                    own_policy._decided_key(entries, plan.tests)
        if requirements == "elsewhere":
            assert plan.tests is None
        else:
            assert len(decided["keyboardidle"]) == (2 if requirements == "compared" else 1)
    if requirements == "elsewhere":  # every desktop's entry its own: given up
        (counts,) = rewrites._counts.values()
        assert counts[1] < 0
    else:
        # each plan counts alone: per owner, idle or not (and under 120 or not),
        # and the three odd bindings (keyed on their entries)
        assert not rewrites._counts
        counts = [plan.counts for plan in plans]
        assert all(c[1] > 0 for c in counts)
        assert sum(c[1] for c in counts) <= 4 * (3 if requirements == "compared" else 2) + 3
        assert sum(c[0] + c[1] for c in counts) == 40
    _unhoisted_alike(done.literals, done.fast, done.plain)


def test_loose_ranks_are_the_full_evaluation_and_walked_ones_are_worked_out_once():
    """Every offer's job-independent ranks equal a full evaluation of the policy
    rank in its ad; the pre-job rank, which reads only walked literals (``Cpus``,
    ``Memory``, ``Rank``), is kept once per loose record."""
    texts = [_machine(i, partitionable=False) for i in range(48)]
    fast, _ = run_both(texts, _jobs(6), POLICY)
    exprs = dict(fast.mm.exprs.ranks(False))
    checked = 0
    for offer in fast.offers:
        if offer.holder is not None or not offer.available:
            continue
        for key, value in offer.independent.items():
            full = as_rank(adeval.eval_expr(exprs[key], offer.ad, None, int(NOW)))
            assert value == full and type(value) is type(full)
            checked += 1
    assert checked
    fixed = [found[3] for found in fast.mm.prep.ranks._fixed.values()]
    assert any(fixed) and all(type(v) is float for f in fixed for v in f.values())
    assert not any(isinstance(v, Literal) for f in fixed for v in f.values())


def _entry(text: str, name: str = "Requirements") -> tuple:
    return (name, parse_expr(text))


@pytest.mark.parametrize(("before", "after", "nothing"), [
    # literals put in place of references, nothing decided
    ("START && WithinResourceLimits", "true && WithinResourceLimits", True),
    ("(MY.A > X) ? B : -C", "(MY.A > 2) ? 1.5 : -C", True),
    ("ifThenElse(A, B, C) || D", "ifThenElse(true, 1, C) || D", True),
    ("(A) && !B", "(1) && !B", True),
    # something decided, or a string that may be hoisted, or the spelling changed
    ("KeyboardIdle > 900 && B", "true && B", False),
    ("(A)", "1", False),
    ("Owner == TARGET.Owner", '"alice" == TARGET.Owner', False),
    ("A && B", "A || B", False),
    ("f(A, B)", "f(1)", False),
])
def test_a_fold_decides_nothing_when_it_only_inlines_literals(before, after, nothing):
    ad = ClassAd()
    ad["Requirements"] = parse_expr(before)
    changes = {"requirements": _entry(after)}
    assert own_policy.decides_nothing(ad, changes) is nothing
    # (a rebinding the ad spells otherwise is a change of its own)
    assert not own_policy.decides_nothing(
        ad, {"requirements": _entry(after, "requirements")})
