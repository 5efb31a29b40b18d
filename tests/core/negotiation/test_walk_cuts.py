"""A walk the limit refuses is cut once what is left of each kind is refused
(``list_scan.ListWalk._rest_refused``, ``SPLIT``): the bounds read off the list, and
whole cycles with the cut on and off against the reference cycle."""

from __future__ import annotations

import math
import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace

import pytest

from condorlite.core.matching import list_scan
from condorlite.core.matching.candidates import ENTRY_IDX, Candidates
from condorlite.core.matching.list_scan import ListScan, ListWalk
from condorlite.core.matching.piece_costs import PieceCosts
from condorlite.core.matching.walk_limits import Bounds, Permit, RestFloors
from condorlite.core.model import NO_PREEMPTION, PRIO_PREEMPTION, RANK_PREEMPTION, Submitter
from condorlite.core.negotiation import negotiator
from condorlite.core.policy import Policy
from tests.core._pool import decoded_pool, job, slot, user
from tests.core.negotiation.test_equivalence import PREEMPTIVE, _fingerprint, _submitters
from tests.core.negotiation.test_equivalence_realistic import EVERYTHING
from tests.core.negotiation.test_equivalence_realistic import _pool as _realistic_pool
from tests.core.reference import run_reference_cycle

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import genpool  # a script directory, not a package

NOW = float(genpool.BASE_TIME)


class _Costs:
    """``PieceCosts.floor`` as the walk asks it: the pool's floor, or without the
    held slots."""

    def __init__(self, floor: float, free: float) -> None:
        self._floor, self._free = floor, free

    def floor(self, klass, signature, listed_static=None, *, held=True):
        return self._floor if held else self._free


def _entry(idx: int, reason: str) -> tuple:
    """An entry as the walk reads it: the offer's position, version and reason at
    ``ENTRY_IDX``, ``ENTRY_VERSION``, ``ENTRY_REASON``."""
    return (0.0, 0.0, 0.0, 0.0, 0.0, f"s{idx}", idx, 0, reason)


def _walk(offers, entries, *, static=(), pending=(), floor=1.0, free=4.0, has_rank=False):
    cands = Candidates(list(entries), static=list(static), has_rank=has_rank)
    cands.pending = [list(item) for item in pending]
    scan = ListScan(offers, None, _Costs(floor, free))  # type: ignore[arg-type]
    return scan.walk(cands, 0, None, "a", False, Bounds(0.0, 0.0, False, False))  # type: ignore[arg-type]


def _offer(weight: float, available: bool = True, partitionable: bool = False):
    return SimpleNamespace(weight=weight, available=available, partitionable=partitionable)


def _permit(free_room: float, prio_room: float, free_round=False, prio_round=False):
    return Permit(0.0, 0.0, free_room, prio_room, free_round, prio_round)


def test_rest_floors_read_what_is_left_of_each_kind():
    """Priority entries bound by their offers' least weight (gone offers passed
    over, a held piece unbounded), entries by no preemption by the floor without the
    held slots when any is left (statics, carved slots, runs made on demand count),
    and an entry by rank preemption noted."""
    offers = [_offer(4.0), _offer(1.0, available=False), _offer(8.0), _offer(2.0)]
    walk = _walk(offers, [_entry(0, PRIO_PREEMPTION), _entry(1, PRIO_PREEMPTION)],
                 pending=[([_entry(2, PRIO_PREEMPTION)], 0)])
    assert walk._rest_floors(0, 0) == (math.inf, 4.0, False)
    # (from position 1 on only the gone 1-weight offer and the pending 8 are left)
    assert walk._rest_floors(1, 0) == (math.inf, 8.0, False)
    walk = _walk(offers, [_entry(0, PRIO_PREEMPTION)], static=[_entry(3, NO_PREEMPTION)])
    assert walk._rest_floors(0, 0) == (4.0, 4.0, False)
    assert walk._rest_floors(0, 1) == (math.inf, 4.0, False)  # (the static one read)
    walk.cands.carved.append(3)
    assert walk._rest_floors(0, 1).free == 4.0
    lazy = _walk(offers, [], pending=[([], 0, object())])
    assert lazy._rest_floors(0, 0).free == 4.0
    held_piece = _walk([_offer(4.0, partitionable=True)], [_entry(0, PRIO_PREEMPTION)])
    assert held_piece._rest_floors(0, 0).prio == 0.0
    ranked = _walk(offers, [_entry(3, RANK_PREEMPTION)])
    assert ranked._rest_floors(0, 0).rank


def test_rest_refused_by_kind_and_round_up_rules(monkeypatch):
    """The pool floor (1, a held slot elsewhere) refuses nothing under rooms of 3;
    the list's own bounds (4 without preemption, 4 by priority) refuse it all; a
    round-up rule lets its kind through unless nothing of that kind is left; an entry
    by rank preemption is never refused; ``SPLIT`` False asks the pool floor alone."""
    offers = [_offer(4.0), _offer(4.0)]
    both = [_entry(0, PRIO_PREEMPTION), _entry(1, NO_PREEMPTION)]
    assert _walk(offers, both)._rest_refused(_permit(3.0, 3.0), 0, 0)
    assert not _walk(offers, both)._rest_refused(_permit(5.0, 3.0), 0, 0)
    assert not _walk(offers, both)._rest_refused(_permit(3.0, 3.0, free_round=True), 0, 0)
    prio_only = [_entry(0, PRIO_PREEMPTION)]
    assert _walk(offers, prio_only)._rest_refused(_permit(3.0, 3.0, free_round=True), 0, 0)
    assert not _walk(offers, prio_only)._rest_refused(_permit(3.0, 5.0), 0, 0)
    ranked = [*both, _entry(1, RANK_PREEMPTION)]
    assert not _walk(offers, ranked, has_rank=True)._rest_refused(_permit(3.0, 3.0), 0, 0)
    # the pool floor refused: cut without reading the list (which says otherwise)
    assert _walk(offers, [*both, _entry(0, NO_PREEMPTION)], floor=4.0, free=1.0
                 )._rest_refused(_permit(3.0, 3.0), 0, 0)
    monkeypatch.setattr(list_scan, "SPLIT", False)
    assert not _walk(offers, both)._rest_refused(_permit(3.0, 3.0), 0, 0)


def test_the_limits_rules_of_a_cut():
    """``walk_limits``'s rules on their own: the class's floor refused when both
    bounds are passed (the round-up rule aside: ``_rest_refused`` asks it only when
    no round-up rule is in force); what is left refused kind by kind, a kind with
    nothing left refused, a round-up rule letting its kind through, an entry by rank
    preemption never refused; ``Bounds.permit`` gives the round-up rule only to a
    positive limit with nothing used."""
    permit = Permit(1.0, 2.0, 3.0, 4.0, False, False)
    assert permit.refuses_floor(2.5) and not permit.refuses_floor(2.0)
    assert not Permit(1.0, 2.0, 3.0, 5.0, False, False).refuses_floor(2.5)
    assert RestFloors(2.5, 2.5, False).refused(permit)
    assert not RestFloors(2.0, 2.5, False).refused(permit)
    assert not RestFloors(2.5, 2.0, False).refused(permit)
    assert RestFloors(math.inf, 2.5, False).refused(permit._replace(free_round=True))
    assert not RestFloors(2.5, 2.5, False).refused(permit._replace(free_round=True))
    assert not RestFloors(2.5, 2.5, False).refused(permit._replace(prio_round=True))
    assert RestFloors(2.5, math.inf, False).refused(permit._replace(prio_round=True))
    assert not RestFloors(math.inf, math.inf, True).refused(permit)
    bounds = Bounds(3.0, 4.0, True, False)
    assert bounds.permit(0.0, 0.0) == Permit(0.0, 0.0, 3.0, 4.0, True, False)
    assert bounds.permit(1.0, 0.0) == Permit(1.0, 0.0, 3.0, 4.0, False, False)


def _held_elsewhere_pool(policy: Policy):
    """Five 4-core static slots and a 1-core slot held by carol that alice's 4-core
    jobs never match; alice has jobs enough to be left with a fraction of a slot.
    The pool's least held weight (1) bounds nothing alice's list holds."""
    slots = [slot(f"big{i}@m", Cpus=4, index=i, policy=policy) for i in range(5)]
    slots.append(slot("cheap@m", user=user("carol"), state="Claimed", index=5,
                      policy=policy, Arch='"ARM"', TotalJobRunTime=100))
    jobs = [job(30, p, "alice", index=p, policy=policy, RequestCpus=4) for p in range(5)]
    jobs += [job(40, p, "bob", index=5 + p, policy=policy) for p in range(2)]
    subs = {user("alice"): Submitter(user("alice"), eup=500.0, usage=0.0),
            user("bob"): Submitter(user("bob"), eup=500.0, usage=0.0),
            user("carol"): Submitter(user("carol"), eup=5000.0, usage=1.0)}
    return slots, jobs, subs


@pytest.mark.parametrize("split", [True, False])
def test_a_held_slot_the_list_does_not_hold_bounds_nothing(monkeypatch, split):
    """Alice's walk is cut once her limit refuses a 4-core slot with ``SPLIT`` (the
    pool floor, the held 1-core slot, refuses nothing), and walked to the end
    without it; the cycle is the reference's either way."""
    monkeypatch.setattr(list_scan, "SPLIT", split)
    policy = Policy(uid_domain="example.org", **PREEMPTIVE)
    slots, jobs, subs = _held_elsewhere_pool(policy)
    fast = negotiator.Cycle(slots, jobs, subs, [], policy, NOW)
    fast.run()
    assert (fast.scan.walks_cut > 0) is split
    assert _fingerprint(fast.result()) == _fingerprint(
        run_reference_cycle(slots, jobs, subs, policy, NOW))


@pytest.mark.parametrize("split", [True, False])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_cut_walks_give_the_reference_cycle(tmp_path, monkeypatch, split, seed):
    """Generated pools with claimed slots and priority preemption, the cut on and off:
    the reference's cycle either way, and the cut taken at least as often on."""
    counts = {}
    policy = replace(Policy(uid_domain="example.org"), **PREEMPTIVE)
    spec = genpool.PoolSpec(slots=60, jobs=400, submitters=6, autoclusters=20, seed=seed,
                            claimed_fraction=0.4)
    slots, jobs = decoded_pool(genpool.write_pool(spec, tmp_path), policy, True)
    subs = _submitters(slots, jobs)
    plain = _fingerprint(run_reference_cycle(slots, jobs, subs, policy, NOW))
    for mode in (False, split):
        monkeypatch.setattr(list_scan, "SPLIT", mode)
        fast = negotiator.Cycle(slots, jobs, subs, [], policy, NOW)
        fast.run()
        counts[mode] = fast.scan.walks_cut
        assert _fingerprint(fast.result()) == plain
    assert counts[split] >= counts[False]


def _checked_asks(monkeypatch) -> Counter:
    """Wrap ``ListWalk._rest_refused`` and ``PieceCosts.floor`` to check what the
    class's piece floor relies on (``PieceCosts.floor``): at every ask, each entry
    left in the list (merged, static, pending, made on demand so far) and each slot
    carved to take back, of a slot with a resource vector, is of a static the class
    has a program for; and working out a floor makes no program. Returns the counts
    of asks and entries checked."""
    counts: Counter = Counter()
    rest_refused, floor = ListWalk._rest_refused, PieceCosts.floor

    def checked_rest(self, permit, pos, spos):
        cands, mm, offers = self.cands, self.scan.mm, self.scan.offers
        part = cands.signature if mm.per_submitter else ()
        runs = [cands.entries[pos:], cands.static[spos:]]
        runs += [item[0][item[1]:] for item in cands.pending]
        seqs = [entry[ENTRY_IDX] for run in runs for entry in run] + list(cands.carved)
        for idx in seqs:
            offer = offers[idx]
            if offer.partitionable and offer.vector is not None:
                counts["entries"] += 1
                assert ((self.klass, part), offer.vector.static) in mm.table.programs
        counts["asks"] += 1
        return rest_refused(self, permit, pos, spos)

    def checked_floor(self, *args, **kwargs):
        before = len(self.mm.table.programs)
        found = floor(self, *args, **kwargs)
        assert len(self.mm.table.programs) == before
        counts["floors"] += 1
        return found

    monkeypatch.setattr(ListWalk, "_rest_refused", checked_rest)
    monkeypatch.setattr(PieceCosts, "floor", checked_floor)
    return counts


@pytest.mark.parametrize("fraction", [1.0, 0.5])
@pytest.mark.parametrize("seed", [1, 2])
def test_a_list_holds_only_statics_its_class_has_programs_for(tmp_path, monkeypatch,
                                                              fraction, seed):
    """The piece floor is over the statics the class has programs for
    (``PieceCosts.floor``): realistic pools with partitionable slots (every property
    of ``test_equivalence_realistic`` on), whose walks the limit refuses and cuts,
    never list an entry of another static, and no floor makes a program (one made
    for the floor alone was never run). The cycle is the reference's."""
    counts = _checked_asks(monkeypatch)
    spec = genpool.PoolSpec(slots=60, jobs=250, submitters=8, autoclusters=40, seed=seed,
                            partitionable_fraction=fraction, **EVERYTHING)
    slots, jobs, subs, policy = _realistic_pool(tmp_path, spec)
    fast = negotiator.Cycle(slots, jobs, subs, [], policy, NOW)
    fast.run()
    assert counts["asks"] > 0 and counts["floors"] > 0 and counts["entries"] > 0
    assert fast.scan.walks_cut > 0
    assert _fingerprint(fast.result()) == _fingerprint(
        run_reference_cycle(slots, jobs, subs, policy, NOW))
