"""``condorlite negotiate``: one negotiation cycle, in one state transaction.

What one run does (the contract of ``docs/negotiate.md``, "The command"):

1. read the slot and job ads (``--slots`` / ``--jobs``, else ``SLOTS`` / ``JOBS`` of the
   config) and decode them; an unparsable file stops the run (65) and a missing one
   too (66) before the state is touched; an ad that cannot take part (no Name, no
   ClusterId/ProcId, no Requirements, no Owner, a duplicate) is listed under
   ``problems`` and skipped;
2. in one transaction: bring the accountant up to ``now``; reconcile the stored claims
   with the ads (``core.claims.reconcile``), charging ``remove_match`` for every claim
   that ended and ``add_match`` for every claim newly seen in a busy slot ad;
3. run the cycle (``core.group_cycle.negotiate``: ``run_cycle``, or with GROUP_NAMES
   the group turns on one pool) with each submitter's EUP, usage, floor and ceiling
   from the accountant (a submitter without a record gets a new one's figures); the
   groups' round-robin times come from the last cycle's history row;
4. charge every preemption (``remove_match``, the slot's claim dropped) and every
   match (``add_match``, a new claim; a piece of a partitionable slot is stored as
   ``<slot>#<job>``);
5. save the accountant and the claims and append a ``negotiation_cycle`` history row
   whose ``data["cycle"]`` holds the cycle's statistics, ``data["demand"]`` each
   submitter's weighted running + idle jobs (``userprio --quotas`` reads it) and, with
   groups, ``data["group_rr_time"]`` (group -> epoch of its last round-robin service).

``--dry-run`` runs steps 1-4 in a read transaction and writes nothing. The two
durations (``duration``: the whole command; ``matchmaking_duration``: the
``run_cycle`` call, in seconds) are wall-clock figures: they appear only in the JSON
``cycle`` object and the history row, never in the human output, so that the same
state, ads, config and ``--now`` print the same text byte for byte.
"""

from __future__ import annotations

import gc
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from condorlite.cli import negotiate_view as view
from condorlite.cli._params import ConfigOpt, JsonOpt, LockTimeoutOpt, NowOpt, StateDirOpt
from condorlite.cli._state import DEFAULT_LOCK_TIMEOUT, Clock, ad_paths, open_store
from condorlite.cli.errors import run_command
from condorlite.cli.history_rows import CYCLE_KIND, accounts_of
from condorlite.cli.negotiate_claims import LiveClaims, claims_from_values, unbacked_in_use
from condorlite.cli.render import Result, stderr_console
from condorlite.cli.status import JobsOpt, SlotsOpt
from condorlite.core import accounting as acct
from condorlite.core import adeval
from condorlite.core.accounting import AccountantState
from condorlite.core.claims import reconcile
from condorlite.core.explain import explain_job
from condorlite.core.group_cycle import GroupOutcome, demand_of, negotiate
from condorlite.core.groups import group_of
from condorlite.core.model import (
    AdProblem,
    Claim,
    CycleResult,
    Job,
    Match,
    Slot,
    Submitter,
    job_from_ad,
    slot_from_ad,
)
from condorlite.core.policy import Policy
from condorlite.errors import DataError, UsageError
from condorlite.store.adfiles import (
    LoadedAd,
    collector_paused,
    expand_paths,
    read_ads,
    skipped_files,
)
from condorlite.store.db import StateStore, Transaction

# -- reading and decoding the ads ------------------------------------------------------


@dataclass
class Inputs:
    """The decoded ads of one run and what was skipped."""

    slots: list[Slot] = field(default_factory=list)
    jobs: list[Job] = field(default_factory=list)
    problems: list[dict[str, Any]] = field(default_factory=list)


def _problem(kind: str, loaded: LoadedAd, message: str) -> dict[str, Any]:
    # "ad" counts from 1 within its file, as a person would point at it.
    return {"kind": kind, "source": loaded.source, "ad": loaded.index + 1, "problem": message}


#: MyType values that mark an ad as the other kind (a mixed file is read for both).
_FOREIGN = {"slot": frozenset({"job"}), "job": frozenset({"machine", "slot"})}


def _foreign(kind: str, loaded: LoadedAd) -> dict[str, Any] | None:
    my_type = adeval.attr(loaded.ad, "MyType")
    text = getattr(my_type, "value", None)
    if isinstance(text, str) and text.lower() in _FOREIGN[kind]:
        return _problem(kind, loaded, f'a {text} ad (MyType "{text}"), not a {kind} ad')
    return None


def _decode_kind(
    kind: str,
    ads: list[LoadedAd],
    convert: Callable[[Any, Policy, int], Any],
    what: str,
    policy: Policy,
    problems: list[dict[str, Any]],
) -> list[Any]:
    """The ads of one kind converted in order; foreign, bad and duplicate ads become
    problems (the first ad with a given identity wins)."""
    out: list[Any] = []
    seen: dict[str, LoadedAd] = {}  # identity -> the ad that first had it
    for loaded in ads:
        if (foreign := _foreign(kind, loaded)) is not None:
            problems.append(foreign)
            continue
        try:
            item = convert(loaded.ad, policy, len(out))
        except AdProblem as exc:
            problems.append(_problem(kind, loaded, str(exc)))
            continue
        key = item.name if kind == "slot" else item.id
        first = seen.setdefault(key, loaded)
        if first is not loaded:
            problems.append(_problem(kind, loaded, f"duplicate {what} {key} (first in "
                                     f"{first.source} ad {first.index + 1}); skipped"))
            continue
        out.append(item)
    return out


def decode(slot_ads: list[LoadedAd], job_ads: list[LoadedAd], policy: Policy) -> Inputs:
    """Slots and jobs from their ads; bad or duplicate ads become problems.

    The first ad with a given slot Name or job id wins; later ones are skipped. An ad
    whose MyType names the other kind (a job among the slots, a Machine among the jobs)
    is skipped too, so one ``condor_status``/``condor_q`` mix can be given to both.
    """
    out = Inputs()
    out.slots = _decode_kind("slot", slot_ads, slot_from_ad, "slot Name", policy, out.problems)
    out.jobs = _decode_kind("job", job_ads, job_from_ad, "job", policy, out.problems)
    return out


def read_inputs(slots: list[str] | None, jobs: list[str] | None, store: StateStore) -> Inputs:
    slot_paths = ad_paths(slots, store.policy.slots, store.config_path, "slot", "--slots")
    job_paths = ad_paths(jobs, store.policy.jobs, store.config_path, "job", "--jobs")
    if "-" in [str(p) for p in slot_paths] and "-" in [str(p) for p in job_paths]:
        raise UsageError("'-' (standard input) can be given for --slots or --jobs, not both")
    skipped = skipped_files([*slot_paths, *job_paths])
    if skipped:
        stderr_console().print(
            f"condorlite negotiate: skipped {len(skipped)} file(s) that are not ad files "
            f"(*.ad, *.ads, *.json): " + ", ".join(str(p) for p in skipped[:10])
            + (" ..." if len(skipped) > 10 else ""),
            markup=False,
        )
    slot_ads = read_ads(slot_paths, stdin=sys.stdin)
    job_ads = read_ads(job_paths, stdin=sys.stdin)
    return decode(slot_ads, job_ads, store.policy)


# -- the cycle inside the transaction --------------------------------------------------


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
           demand: bool = True) -> Outcome:
    """Steps 2-4 of the module doc against one transaction's state (nothing saved).

    Each batch of charges (the claims reconciled; then the preemptions and matches) is
    applied by one ``acct.charge_moves``, in the order of the single calls it stands
    for. ``demand`` False leaves ``Outcome.demand`` empty without groups: only the
    history row of a real run reads it, and it walks every job."""
    loaded = tx.load_accountant()
    last = loaded.last_update_time
    behind = last - now if last is not None and now < last else 0.0
    state = acct.update_priorities(loaded, policy, now)
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
    result, groups = negotiate(inputs.slots, inputs.jobs, submitters, live, policy, now,
                               rr_time)
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
                   dict(wanted), groups, {g: rr_time[g] for g in sorted(rr_time)}, behind)


# -- the JSON data -----------------------------------------------------------------------


def _num(value: float) -> int | float:
    return int(value) if float(value).is_integer() else value


def cycle_data(outcome: Outcome, inputs: Inputs, now: float, dry_run: bool) -> dict[str, Any]:
    """The ``cycle`` statistics (HTCondor's LastNegotiationCycle* figures and more)."""
    stats = dict(outcome.result.stats)
    stats.update(
        time=_num(now), dry_run=dry_run, problems=len(inputs.problems),
        claims_released=len(outcome.released), claims_observed=outcome.observed,
        claims_live=outcome.live.count(),
        matchmaking_duration=round(outcome.matchmaking_duration, 6),
        clock_behind=_num(outcome.clock_behind),
    )
    return {k: stats[k] for k in sorted(stats)}


class _Nums(dict):
    """``_num`` of each value met, computed once: a cycle's tens of thousands of matches
    share a handful of weights and amounts. (Equal keys give equal ``_num``: 1, 1.0
    and True all give 1; 0.0 and -0.0 give 0.)"""

    def __missing__(self, value: float) -> int | float:
        out = self[value] = _num(value)
        return out


def matches_data(matches: list[Match]) -> list[dict[str, Any]]:
    """One JSON object per match, in the order made; ``resources`` is a new object per
    match, its amounts converted once per distinct resources tuple."""
    nums = _Nums()
    shapes: dict[tuple[tuple[str, float], ...], dict[str, int | float]] = {}
    out = []
    for m in matches:
        shape = shapes.get(m.resources)
        if shape is None:
            shape = shapes[m.resources] = {k: nums[v] for k, v in m.resources}
        out.append({
            "job": m.job, "submitter": m.submitter, "slot": m.slot, "reason": m.reason,
            "preempting": m.preempting, "preempted_job": m.preempted_job,
            "weight": nums[m.weight], "autocluster": m.autocluster, "spin": m.spin,
            "partitionable": m.partitionable, "resources": dict(shape),
        })
    return out


def result_data(outcome: Outcome, inputs: Inputs, cycle: dict[str, Any]) -> dict[str, Any]:
    res = outcome.result
    return {
        "cycle": cycle,
        "matches": matches_data(res.matches),
        "rejections": [{"job": r.job, "submitter": r.submitter, "reason": r.reason,
                        "autocluster": r.autocluster} for r in res.rejections],
        "submitters": [{
            "name": s.name, "effective_priority": s.effective_priority, "share": s.share,
            "limit": s.limit, "usage": _num(s.usage), "matched": _num(s.matched),
            "matched_jobs": s.matched_jobs, "idle_jobs": s.idle_jobs,
        } for s in res.submitters],
        "groups": groups_data(outcome.groups),
        "group_turns": [] if outcome.groups is None else [{
            "group": r.turn.group, "round": r.turn.round, "step": r.turn.step,
            "limit": _num(r.turn.limit), "usage_before": _num(r.usage_before),
            "matched": _num(r.matched), "submitters": list(r.turn.submitters),
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
        item = gv.to_json()
        item.update(usage_after=_num(groups.usage_after.get(gv.name, 0.0)),
                    matched=_num(sum(r.matched for r in mine)), turns=len(mine),
                    at_quota=groups.capped_by(gv.name) is not None)
        out.append(item)
    return out


def _history_what(cycle: dict[str, Any]) -> str:
    return (f"{cycle['matches']} matches, {cycle['rejections']} rejections, "
            f"{cycle['idle_jobs']} idle jobs, {cycle['active_submitters']} submitters")


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
            "last_turn_limit": None if last is None else _num(last.turn.limit),
            "limit_reached": last is not None and (
                last.usage_before + last.matched >= last.turn.limit)}


# -- the command -------------------------------------------------------------------------


def _body(slots: list[str] | None, jobs: list[str] | None, state_dir: Path | None,
          now: str | float | None, dry_run: bool, explain: str | None,
          lock_timeout: float, config: Path | None, allow_empty: bool = False,
          summary: bool = False) -> Result:
    started = time.perf_counter()
    clock = Clock(now)
    store = open_store(state_dir, lock_timeout, config, write=not dry_run)
    policy = store.policy
    inputs = read_inputs(slots, jobs, store)
    with store.transaction(write=not dry_run) as tx:
        at = clock.read()  # after the lock: see Clock
        if not inputs.slots and not allow_empty:
            _refuse_empty_pool(tx, slots, store)
        outcome = run_in(tx, inputs, policy, at, demand=not dry_run)
        cycle = cycle_data(outcome, inputs, at, dry_run)
        cycle["duration"] = round(time.perf_counter() - started, 6)
        data = result_data(outcome, inputs, {k: cycle[k] for k in sorted(cycle)})
        if not dry_run:
            tx.save_accountant(outcome.accountant)
            tx.save_claim_values(outcome.live.row_values())
            row: dict[str, Any] = {
                "cycle": data["cycle"], "demand": outcome.demand,
                "accounts": accounts_of(outcome.accountant, data["submitters"],
                                        data["rejections"])}
            if outcome.groups is not None:
                row["group_rr_time"] = outcome.rr_time
            tx.add_history(CYCLE_KIND, _history_what(cycle), row, at)
            if policy.history_retention > 0:
                tx.prune_history(at - policy.history_retention)
    if outcome.clock_behind:
        stderr_console().print(
            f"condorlite negotiate: --now is {outcome.clock_behind:g} s before the state's "
            f"last update: nothing was charged or decayed, and the update time was kept",
            markup=False,
        )
    if explain is not None:
        job = next((j for j in inputs.jobs if j.id == explain.strip()), None)
        if job is None:
            # The cycle is cron's and runs whatever the question; a job that left the
            # queue (or a typo) is answered "unknown", with a warning.
            data["explain"] = {"job": explain.strip(), "status": "unknown",
                               "message": f"no job {explain.strip()} in the job ads"}
            stderr_console().print(
                f"condorlite negotiate: warning: no job {explain.strip()} in the job ads "
                f"(give it as ClusterId.ProcId, e.g. 123.0); the cycle ran", markup=False)
        else:
            data["explain"] = explain_job(job, inputs.slots, outcome.result,
                                          outcome.live_claims, at,
                                          group_fact(outcome.groups, job.submitter))
    return Result("negotiate", data, lambda console: view.draw(console, data, summary),
                  sources=(inputs, outcome))


@contextmanager
def _collector_paused_aging() -> Iterator[None]:
    """``collector_paused`` for the whole command, and what was allocated meanwhile then
    handed to the collector's oldest generation unexamined (``gc.freeze`` then
    ``gc.unfreeze``).

    The cycle allocates millions of small objects and frees them by reference counting
    (it makes no reference cycles worth collecting): with the cyclic collector running,
    its passes over the heap of ads cost about a third of the cycle on the 10,000-slot
    benchmark pool. It stays paused while the result is rendered too. Re-enabled as
    it is, its first pass would walk every object allocated while it was paused (all
    still in the youngest generation), about 0.3 s on that pool, to find nothing.
    """
    with collector_paused():
        try:
            yield
        finally:
            gc.freeze()
            gc.unfreeze()


def _refuse_empty_pool(tx: Transaction, slots: list[str] | None, store: StateStore) -> None:
    """No slot ad was read: if claims are recorded, that looks like a failed dump (a
    pool does not vanish between two cycles), and ending every claim would stop all
    usage; refuse, naming what was read, unless ``--allow-empty`` says it is real."""
    claims = tx.load_claim_values()
    if not claims:
        return
    paths = ad_paths(slots, store.policy.slots, store.config_path, "slot", "--slots")
    files = expand_paths([p for p in paths if str(p) != "-"])
    read = ", ".join(str(p) for p in paths)
    raise DataError(
        f"no slot ads were read from {read} ({len(files)} ad file(s)); ending all "
        f"{len(claims)} recorded claims would look like a failed dump",
        hint="if the pool really is empty, run again with --allow-empty",
    )


def register(app: typer.Typer) -> None:
    @app.command("negotiate")
    def negotiate(
        slots: SlotsOpt = None,
        jobs: JobsOpt = None,
        state_dir: StateDirOpt = None,
        config: ConfigOpt = None,
        now: NowOpt = None,
        dry_run: Annotated[bool, typer.Option(
            "--dry-run", help="Run the cycle and print it, but write nothing.")] = False,
        explain: Annotated[str | None, typer.Option(
            "--explain", metavar="JOBID",
            help="Also explain where one idle job (ClusterId.ProcId) stands.")] = None,
        lock_timeout: LockTimeoutOpt = DEFAULT_LOCK_TIMEOUT,
        allow_empty: Annotated[bool, typer.Option(
            "--allow-empty",
            help="Accept reading no slot ad at all (every recorded claim then ends).",
        )] = False,
        summary: Annotated[bool, typer.Option(
            "--summary",
            help="Print totals, submitters and problems, not every match (for cron).",
        )] = False,
        as_json: JsonOpt = False,
    ) -> None:
        """Run one negotiation cycle: match idle jobs to slots in fair-share order."""
        with _collector_paused_aging():
            run_command("negotiate", as_json, lambda: _body(
                slots, jobs, state_dir, now, dry_run, explain, lock_timeout, config,
                allow_empty, summary))
