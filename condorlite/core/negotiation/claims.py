"""Reconciling stored claims with the slot and job ads of a new cycle.

HTCondor's accountant checks its matches against the collector's slot ads at the start
of every cycle (``CheckMatches``). condorlite does the same with its claims table:

* a busy slot ad (State Claimed or Preempting) is a claim of the user holding it; a
  stored claim of that slot by someone else ends ("slot shows another user") and the
  slot's user gets an *observed* claim from now on;
* except a claim made by preempting: it remembers the user it took the slot from
  (``preempted_user``) and stays *pending* while the slot ad still shows that user (the
  startd advertises the old claim until the preemption is over, and the ads may be
  older than the match). It is kept as it is, charged to its own user only: the kept
  claim marks the slot as claimed, so the old user gets no observed claim back. The
  first slot ad showing the claim's own user confirms it (``preempted_user`` is
  dropped; it is an ordinary claim from then); a third user ends it as above;
* a claim whose slot is no longer in the input ends ("slot disappeared"); for a piece of
  a partitionable slot, that is the parent;
* a piece of a partitionable slot that condorlite matched ends when a dynamic slot ad
  shows its job running ("job started on <slot>"): from then the dynamic slot's own
  observed claim carries the charge, so nothing is counted twice;
* a claim condorlite made ends when its job is no longer in the job input ("job left
  the queue") or is no longer idle or running ("job is held" ...). Observed claims
  follow their slot ad only, since their jobs may live in another queue.

Every change is returned, never applied: the caller charges the accountant
(``remove_match`` for ``ended``, ``add_match`` for ``added``) in the same transaction.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.model import IDLE, JOB_STATUS_NAMES, RUNNING, Claim, Job, Slot


@dataclass(frozen=True)
class Reconciled:
    kept: list[Claim]
    ended: list[tuple[Claim, str]]
    added: list[Claim]

    @property
    def live(self) -> list[Claim]:
        return sorted(self.kept + self.added, key=lambda c: c.slot)


def _job_gone(claim: Claim, jobs: dict[str, Job]) -> str | None:
    if claim.observed or claim.job is None:
        return None
    job = jobs.get(claim.job)
    if job is None:
        return "job left the queue"
    if job.status not in (IDLE, RUNNING):
        return f"job is {JOB_STATUS_NAMES.get(job.status, f'in state {job.status}')}"
    return None


def _shows_another_user(claim: Claim, slot: Slot) -> bool:
    """True when a busy slot ad names a user other than the claim's, and that user is
    not the one a pending preemption took the slot from."""
    shown = slot.remote_user
    if not slot.busy or shown is None or shown == claim.submitter:
        return False
    return shown != claim.preempted_user


def _seen_busy(claim: Claim, slot: Slot) -> Claim:
    """A kept claim of a busy slot ad: unchanged while pending (the ad shows the
    preempted user, whose job it names); confirmed when the ad shows the claim's own
    user; a claim without a job id takes the one the ad names."""
    if claim.preempted_user is not None and slot.remote_user == claim.preempted_user:
        return claim
    if claim.preempted_user is not None and slot.remote_user == claim.submitter:
        claim = replace(claim, preempted_user=None)
    if claim.job is None and slot.remote_job:
        claim = replace(claim, job=slot.remote_job)
    return claim


def reconcile(claims: list[Claim], slots: list[Slot], jobs: list[Job], now: float) -> Reconciled:
    """Compare ``claims`` with this cycle's ads (see the module doc)."""
    by_name = {s.name: s for s in slots}
    by_job = {j.id: j for j in jobs}
    started = {s.remote_job: s for s in slots if s.busy and s.remote_job}
    kept: list[Claim] = []
    ended: list[tuple[Claim, str]] = []
    claimed_slots: set[str] = set()
    for claim in sorted(claims, key=lambda c: c.slot):
        parent = claim.partitionable
        slot = by_name.get(parent or claim.slot)
        reason = None
        if slot is None:
            reason = "slot disappeared"
        elif parent is not None and claim.job in started:
            reason = f"job started on {started[claim.job].name}"
        elif parent is None and _shows_another_user(claim, slot):
            reason = "slot shows another user"
        else:
            reason = _job_gone(claim, by_job)
        if reason is None:
            if parent is None and slot.busy:
                claim = _seen_busy(claim, slot)
            kept.append(claim)
            claimed_slots.add(claim.slot)
        else:
            ended.append((claim, reason))
    added = [
        Claim(slot=s.name, job=s.remote_job, submitter=s.remote_user, weight=s.weight,
              start_time=now, observed=True)
        for s in sorted(slots, key=lambda s: s.name)
        if s.busy and s.remote_user and s.name not in claimed_slots
    ]
    return Reconciled(kept, ended, added)


def claims_left(ad: ClassAd, claims: list[Claim], now: float) -> dict[str, int | float]:
    """What a partitionable slot has left of each resource its live claims took: the
    ad's amount (0 when not a number) less the amounts of ``claims``, an integral
    result as an int. Empty when there are no claims: the ad is offered as it is."""
    left: dict[str, float] = {}
    for claim in claims:
        for res, amount in claim.resources:
            if res not in left:
                left[res] = adeval.as_float(adeval.eval_attr(ad, res, None, now)) or 0.0
            left[res] -= amount
    return {r: int(v) if float(v).is_integer() else v for r, v in left.items()}
