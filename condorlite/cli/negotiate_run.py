"""One cycle against one transaction's state (steps 2-4 of ``negotiate``'s module doc),
and its outcome as JSON-ready data: ``run_in``, ``cycle_data``, ``result_data``.
Nothing here writes; ``negotiate`` saves the outcome of a real run.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from condorlite.cli.history_rows import CYCLE_KIND
from condorlite.cli.jsontext import Rows, written
from condorlite.cli.negotiate_claims import LiveClaims, claims_from_values, unbacked_in_use
from condorlite.cli.negotiate_inputs import Inputs
from condorlite.cli.render import real
from condorlite.core import accounting as acct
from condorlite.core.accounting import NO_GROUP, AccountantState
from condorlite.core.groups.tree import group_of
from condorlite.core.model import (
    Claim,
    CycleResult,
    Job,
    Match,
    Submitter,
)
from condorlite.core.negotiation.claims import reconcile
from condorlite.core.negotiation.group_cycle import GroupOutcome, demand_of, negotiate
from condorlite.core.policy import Policy
from condorlite.store.transaction import Transaction


@dataclass
class Outcome:
    """What one cycle decided and what it changed in the state."""

    result: CycleResult
    released: list[dict[str, Any]]
    observed: int
    live: LiveClaims
    accountant: AccountantState
    matchmaking_duration: float
    demand: dict[str, float]
    groups: GroupOutcome | None = None
    rr_time: dict[str, float] = field(default_factory=dict)
    #: Seconds ``--now`` lies before the state's last update (0 when not): such a run
    #: charges and decays nothing (``accounting.update_priorities``).
    clock_behind: float = 0.0
    #: The cycle that decided (``group_cycle.negotiate``'s ``keep``), held so that the
    #: outcome, a rendered Result's source, takes it to the process's exit unfreed.
    engine: list[object] = field(default_factory=list)

    @property
    def live_claims(self) -> list[Claim]:
        return self.live.claims()


def submitter_view(state: AccountantState, jobs: list[Job], policy: Policy,
                   now: float) -> dict[str, Submitter]:
    """Every record's figures, plus those of a new record for a job's submitter that
    has none yet (so a newcomer starts at EUP 0.5 x its initial factor)."""
    records = dict(state.records)
    for name in sorted({j.submitter for j in jobs} - set(records)):
        records[name] = acct.new_record(name, policy, now)
    return {
        name: Submitter(name, eup=acct.effective_priority(rec),
                        usage=rec.weighted_resources_used, floor=float(rec.floor),
                        ceiling=None if rec.ceiling < 0 else float(rec.ceiling))
        for name, rec in sorted(records.items())
    }


def _stored_rr_time(tx: Transaction) -> dict[str, float]:
    """The groups' round-robin times of the last cycle row (empty when none is valid)."""
    last = tx.last_history(CYCLE_KIND) or {}
    data = last.get("data") if isinstance(last.get("data"), dict) else {}
    times = data.get("group_rr_time") if isinstance(data, dict) else None
    if not isinstance(times, dict):
        return {}
    return {str(g): float(t) for g, t in times.items()
            if isinstance(t, int | float) and not isinstance(t, bool)}


def run_in(tx: Transaction, inputs: Inputs, policy: Policy, now: float,
           demand: bool = True,
           edit: Callable[[AccountantState], AccountantState] | None = None) -> Outcome:
    """Steps 2-4 of the module doc against one transaction's state (nothing saved).

    Each batch of charges (the claims reconciled; then the preemptions and matches) is
    applied by one ``acct.charge_moves``, in the order of the single calls it stands
    for. ``demand`` False leaves ``Outcome.demand`` empty without groups: only the
    history row of a real run reads it, and it walks every job. ``edit`` changes the
    accountant once it is brought up to ``now``, as an edit command at ``now`` would
    (``--what-if``)."""
    loaded = tx.load_accountant()
    last = loaded.last_update_time
    behind = last - now if last is not None and now < last else 0.0
    state = acct.update_priorities(loaded, policy, now)
    if edit is not None:
        state = edit(state)
    stored = claims_from_values(tx.load_claim_values())
    rec = reconcile(stored, inputs.slots, inputs.jobs, now)
    released = [{"slot": c.slot, "job": c.job, "submitter": c.submitter, "reason": reason}
                for c, reason in rec.ended]
    state = acct.charge_moves(
        state, policy, [(c.submitter, -1, c.weight) for c, _ in rec.ended]
        + [(c.submitter, 1, c.weight) for c in rec.added], now)
    unbacked = unbacked_in_use(state, rec.live)
    if unbacked:
        state = acct.charge_moves(state, policy, [m for u in unbacked for m in u.moves], now)
        released += [u.row() for u in unbacked]
    submitters = submitter_view(state, inputs.jobs, policy, now)
    live = rec.live
    started = time.perf_counter()
    rr_time = _stored_rr_time(tx) if policy.group_names else {}
    engine: list[object] = []
    result, groups = negotiate(inputs.slots, inputs.jobs, submitters, live, policy, now,
                               rr_time, keep=engine)
    matchmaking = time.perf_counter() - started
    if groups is not None:
        rr_time.update(dict.fromkeys(groups.cycle.rr_touched, now))
    state = acct.charge_moves(
        state, policy, [(g.submitter, -1, g.weight) for g in result.preempted]
        + [(m.submitter, 1, m.weight) for m in result.matches], now)
    claims = LiveClaims({c.slot: c for c in live}, result.matches, result.preempted, now)
    if groups is not None:
        wanted = groups.demand
    else:
        wanted = demand_of(inputs.jobs, submitters, live, policy) if demand else {}
    return Outcome(result, released, len(rec.added), claims, state, matchmaking,
                   dict(wanted), groups, {g: rr_time[g] for g in sorted(rr_time)}, behind,
                   engine)


# -- the JSON data -----------------------------------------------------------------------


def cycle_data(outcome: Outcome, inputs: Inputs, now: float, dry_run: bool) -> dict[str, Any]:
    """The ``cycle`` statistics (HTCondor's LastNegotiationCycle* figures and more)."""
    stats = dict(outcome.result.stats)
    stats.update(
        time=real(now), dry_run=dry_run, problems=len(inputs.problems),
        claims_released=len(outcome.released), claims_observed=outcome.observed,
        claims_live=outcome.live.count(),
        matchmaking_duration=round(outcome.matchmaking_duration, 6),
        clock_behind=real(outcome.clock_behind),
    )
    return {k: stats[k] for k in sorted(stats)}


#: The ``Match`` fields a row holds, read by name in this order by ``_match_values``
#: (one C call a match: eleven attribute reads in Python cost a seventh more of the
#: rows' writing, 761 M against 661 M instructions on the 10k partitionable mix).
MATCH_FIELDS = ("job", "submitter", "slot", "reason", "weight", "autocluster", "spin",
                "preempting", "preempted_job", "partitionable", "resources")
_match_values = attrgetter(*MATCH_FIELDS)


class _MatchRows:
    """The rows of ``matches_data``: ``convert`` one plain dict per match (for the
    views, and for ``json`` when orjson refuses a chunk), ``fast`` a chunk's rows for
    orjson (``jsontext.Rows``), each weight marked once per distinct weight and each
    resources amount dict ``jsontext.written`` once per distinct resources tuple."""

    __slots__ = ("shapes", "texts", "weights")

    def __init__(self) -> None:
        self.shapes: dict[tuple[tuple[str, float], ...], dict[str, float]] = {}
        #: ``shape(resources)`` as orjson writes it (``jsontext.written``)
        self.texts: dict[tuple[tuple[str, float], ...], Any] = {}
        #: ``real(w)`` per weight ``w``
        self.weights: dict[float, float] = {}

    def shape(self, resources: tuple[tuple[str, float], ...]) -> dict[str, float]:
        """The amounts of ``resources`` as JSON reals, one dict per distinct tuple."""
        shape = self.shapes.get(resources)
        if shape is None:
            shape = self.shapes[resources] = {k: real(v) for k, v in resources}
        return shape

    def convert(self, m: Match) -> dict[str, Any]:
        """One match's row (its fields read as ``fast`` reads them); ``resources`` is a
        new object per match."""
        (job, submitter, slot, reason, weight, autocluster, spin, preempting, preempted_job,
         partitionable, resources) = _match_values(m)
        shape = self.shapes.get(resources)
        return {
            "job": job, "submitter": submitter, "slot": slot, "reason": reason,
            "preempting": preempting, "preempted_job": preempted_job,
            "weight": self.weights.get(weight) or self.weight(weight),
            "autocluster": autocluster, "spin": spin, "partitionable": partitionable,
            "resources": dict(self.shape(resources) if shape is None else shape),
        }

    def weight(self, weight: float) -> float:
        """``real(weight)``, kept for the next match of the same weight."""
        value = self.weights[weight] = real(weight)
        return value

    def text(self, resources: tuple[tuple[str, float], ...]) -> Any:
        """``shape(resources)`` as orjson writes it, kept for the next match."""
        text = self.texts[resources] = written(self.shape(resources))
        return text

    def fast(self, chunk: Sequence[Match]) -> list[dict[str, Any]]:
        """``convert``'s rows of ``chunk`` for orjson, in one comprehension over each
        match's fields read by name (``MATCH_FIELDS``): the same text at about 0.7 of
        the instructions.

        A kept value is taken by ``get`` and made (and kept) when that gives None or
        a false value, so a zero weight is made each time: 0.0 and -0.0 are one key
        but print apart, while any two other equal floats have the same bits. (A
        ``written`` value is never false: a text, or a dict orjson refused, which
        is not empty.)"""
        texts, text = self.texts.get, self.text
        weights, weight_of = self.weights.get, self.weight
        return [{
            "job": job, "submitter": submitter, "slot": slot, "reason": reason,
            "preempting": preempting, "preempted_job": preempted_job,
            "weight": weights(weight) or weight_of(weight), "autocluster": autocluster,
            "spin": spin, "partitionable": partitionable,
            "resources": texts(resources) or text(resources),
        } for (job, submitter, slot, reason, weight, autocluster, spin, preempting,
               preempted_job, partitionable, resources) in map(_match_values, chunk)]


def matches_data(matches: list[Match]) -> Rows:
    """One JSON object per match, in the order made, as ``jsontext.Rows``: a large
    cycle's matches are converted and encoded a chunk at a time (two halves at once)
    instead of all held as dicts, each chunk's rows made in one comprehension
    (``_MatchRows.fast``). Every float is marked (``real``): one tiny unmarked float
    sends the whole document to the ``json`` module's encoder."""
    rows = _MatchRows()
    return Rows(matches, rows.convert, rows.fast)


def _pool_share(name: str, share: float, groups: GroupOutcome | None,
                pool_weight: float | None) -> dict[str, Any]:
    """``group`` (the submitter's accounting group, "<none>" without one) and
    ``pool_share``: its ``share`` (of its group's pie, by 1/EUP among the group's
    submitters) times the group's effective quota over the pool's weight; without
    GROUP_NAMES the pie is the pool and ``pool_share`` equals ``share``."""
    if groups is None:
        return {"group": NO_GROUP, "pool_share": real(share)}
    group = group_of(name, groups.tree)
    view = next(v for v in groups.views if v.name == group)
    pool = pool_weight or 0.0
    return {"group": group,
            "pool_share": real(share * view.effective_quota / pool) if pool > 0 else 0.0}


def result_data(outcome: Outcome, inputs: Inputs, cycle: dict[str, Any]) -> dict[str, Any]:
    """The ``data`` of ``negotiate --json``; its floats are marked (``jsontext.real``)
    so that a submitter's share under 1e-4 (a pool of a few thousand submitters, or
    one EUP far above the rest) does not send the document to the slow encoder."""
    res = outcome.result
    return {
        "cycle": cycle,
        "matches": matches_data(res.matches),
        "rejections": [{"job": r.job, "submitter": r.submitter, "reason": r.reason,
                        "autocluster": r.autocluster} for r in res.rejections],
        "submitters": [{
            "name": s.name, "effective_priority": real(s.effective_priority),
            "share": real(s.share),
            **_pool_share(s.name, s.share, outcome.groups, cycle.get("pool_weight")),
            "limit": real(s.limit), "usage": real(s.usage), "matched": real(s.matched),
            "matched_jobs": s.matched_jobs, "idle_jobs": s.idle_jobs,
        } for s in res.submitters],
        "groups": groups_data(outcome.groups),
        "group_turns": [] if outcome.groups is None else [{
            "group": r.turn.group, "round": r.turn.round, "step": r.turn.step,
            "limit": real(r.turn.limit), "usage_before": real(r.usage_before),
            "matched": real(r.matched), "submitters": list(r.turn.submitters),
        } for r in outcome.groups.turns],
        "released": outcome.released,
        "problems": inputs.problems,
    }


def groups_data(groups: GroupOutcome | None) -> list[dict[str, Any]]:
    """One object per group (``GroupView.to_json()``, the first round's figures) plus
    ``usage_after`` (weighted usage after the cycle), ``matched`` (what its turns
    matched), ``turns`` and ``at_quota``; empty without GROUP_NAMES."""
    if groups is None:
        return []
    out = []
    for gv in groups.views:
        mine = [r for r in groups.turns if r.turn.group == gv.name]
        item = {k: real(v) if type(v) is float else v for k, v in gv.to_json().items()}
        item.update(usage_after=real(groups.usage_after.get(gv.name, 0.0)),
                    matched=real(sum(r.matched for r in mine)), turns=len(mine),
                    at_quota=groups.capped_by(gv.name) is not None)
        out.append(item)
    return out


def group_fact(groups: GroupOutcome | None, submitter: str) -> dict[str, Any] | None:
    """The ``--explain`` facts of the submitter's group (None without groups)."""
    if groups is None:
        return None
    name = group_of(submitter, groups.tree)
    gv = next(v for v in groups.views if v.name == name)
    last = groups.last_turn(name)
    return {"name": name, "effective_quota": gv.effective_quota,
            "allocated": gv.allocated, "requested": gv.requested, "usage": gv.usage,
            "usage_after": groups.usage_after.get(name, 0.0),
            "accept_surplus": gv.accept_surplus, "capped_by": groups.capped_by(name),
            "last_turn_limit": None if last is None else real(last.turn.limit),
            "limit_reached": last is not None and (
                last.usage_before + last.matched >= last.turn.limit)}


