"""Charging between updates: matches added and removed (HTCondor's AddMatch, RemoveMatch).

Pure, as the rest of the accountant: every function returns a new ``AccountantState``.
With ``L`` the last update and ``w`` the slot weight:

    add_match    ResourcesUsed += 1, WeightedResourcesUsed += w,
                 UnchargedTime -= (now - L), WeightedUnchargedTime -= (now - L) * w
    remove_match ResourcesUsed -= 1, WeightedResourcesUsed -= w (never below 0),
                 UnchargedTime += (now - L), WeightedUnchargedTime += (now - L) * w

so a match that starts at ``a`` and ends at ``r`` is charged exactly ``(r - a) * w``
however the updates fall in between. (HTCondor's RemoveMatch credits
``now - max(StartTime, L)``, which undercharges a match that starts and ends inside
one interval by ``StartTime - L``; condorlite credits ``now - L`` so the sum is exact.)

With accounting groups, a submitter with ``@`` also charges its group's record the same
way, and ``HierWeightedResourcesUsed += count * w`` (floored at 0) on the group and each
dotted prefix of its name (``a.b.c``, ``a.b``, ``a``; ``<none>`` only itself), as the
accountant's module doc states. A match charged to a submitter without a record makes
one (``accountant.new_record``), as HTCondor does.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import replace

from condorlite.core.accounting.accountant import (
    AccountantState,
    Record,
    assigned_group,
    has_groups,
    new_record,
)
from condorlite.core.policy import Policy
from condorlite.errors import DomainError


def _since_update(state: AccountantState, now: float) -> float:
    # Before the first update, or with the clock behind it, nothing is owed yet.
    last = state.last_update_time
    return 0.0 if last is None else max(0.0, now - last)


def _check_weight(weight: float) -> None:
    if not math.isfinite(weight) or weight < 0:
        raise DomainError(f"slot weight must be a finite number >= 0, not {weight!r}")


def _group_chain(group: str) -> list[str]:
    """``a.b.c`` -> [``a.b.c``, ``a.b``, ``a``]: the records whose hierarchical usage
    a match in group ``a.b.c`` changes (HTCondor walks the dotted name, so ``<none>``
    is never an ancestor of a configured group)."""
    chain = [group]
    while "." in chain[-1]:
        chain.append(chain[-1].rpartition(".")[0])
    return chain


class _Tally:
    """The charged figures of one record while a batch of moves is applied.

    Mutable on purpose: a batch of tens of thousands of matches then costs one float
    update per figure and match, and one new ``Record`` per record touched, instead of
    one record (and one copy of the record table) per match. Every figure is updated
    match by match in the batch's order with the formulas of the module doc, so the
    floating-point results are exactly those of one ``add_match`` / ``remove_match``
    after the other.
    """

    __slots__ = ("hier", "rec", "uncharged", "used", "w_uncharged", "weighted")

    def __init__(self, rec: Record) -> None:
        self.rec = rec
        self.used = rec.resources_used
        self.weighted = rec.weighted_resources_used
        self.uncharged = rec.uncharged_time
        self.w_uncharged = rec.weighted_uncharged_time
        self.hier = rec.hier_weighted_resources_used

    def charge(self, count: int, weight: float, dt: float) -> None:
        """``count`` (+1 or -1) slots of ``weight`` start (or end) ``dt`` after the
        last update; figures never go below 0."""
        self.used = max(0, self.used + count)
        self.weighted = max(0.0, self.weighted + count * weight)
        self.uncharged = self.uncharged - count * dt
        self.w_uncharged = self.w_uncharged - count * dt * weight

    def record(self) -> Record:
        return replace(self.rec, resources_used=self.used,
                       weighted_resources_used=self.weighted,
                       uncharged_time=self.uncharged, weighted_uncharged_time=self.w_uncharged,
                       hier_weighted_resources_used=self.hier)


def charge_moves(
    state: AccountantState, policy: Policy, moves: Iterable[tuple[str, int, float]],
    now: float,
) -> AccountantState:
    """Apply each (submitter, count, weight) in order: ``count`` +1 is ``add_match``,
    -1 is ``remove_match``. The figures are exactly those of the single calls one after
    the other (``_Tally``); a bad weight raises ``DomainError`` and nothing is kept.

    With groups configured, a submitter with ``@`` also charges its group's record the
    same way, and ``HierWeightedResourcesUsed += count * weight`` (floored at 0) on the
    group and each dotted prefix (module doc).
    """
    dt = _since_update(state, now)
    grouped = has_groups(policy)
    tallies: dict[str, _Tally] = {}
    chains: dict[str, tuple[_Tally, list[_Tally]] | None] = {}  # submitter -> its group's

    def tally(name: str) -> _Tally:
        found = tallies.get(name)
        if found is None:
            found = tallies[name] = _Tally(state.records.get(name)
                                           or new_record(name, policy, now))
        return found

    for submitter, count, weight in moves:
        _check_weight(weight)
        tally(submitter).charge(count, weight, dt)
        if not grouped or "@" not in submitter:
            continue
        if submitter not in chains:
            group, _ = assigned_group(submitter, policy)
            chains[submitter] = (tally(group), [tally(n) for n in _group_chain(group)])
        group_tally, chain = chains[submitter]
        group_tally.charge(count, weight, dt)
        for link in chain:
            link.hier = max(0.0, link.hier + count * weight)
    if not tallies:
        return state
    records = dict(state.records)
    for name, t in tallies.items():
        records[name] = t.record()
    return AccountantState(state.last_update_time, records)


def add_match(
    state: AccountantState, policy: Policy, submitter: str, weight: float, now: float
) -> AccountantState:
    """Charge ``submitter`` (and its group, module docstring) for one more slot of
    weight ``weight`` from ``now`` on."""
    return charge_moves(state, policy, [(submitter, 1, weight)], now)


def add_matches(
    state: AccountantState, policy: Policy, matches: Iterable[tuple[str, float]], now: float
) -> AccountantState:
    """``add_match`` for each (submitter, weight) in order (``charge_moves``)."""
    return charge_moves(state, policy, ((s, 1, w) for s, w in matches), now)


def remove_match(
    state: AccountantState, policy: Policy, submitter: str, weight: float, now: float
) -> AccountantState:
    """Stop charging ``submitter`` (and its group) for one slot of weight ``weight`` at
    ``now``.

    A record missing (e.g. deleted by an admin while the claim ran) is recreated, as
    HTCondor does, so the time used since the last update is still charged.
    """
    return charge_moves(state, policy, [(submitter, -1, weight)], now)
