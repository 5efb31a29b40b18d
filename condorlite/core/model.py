"""The values the negotiation cycle passes around, and how ads become them.

Slots and jobs keep their ClassAd (matchmaking evaluates it) next to the few facts the
negotiator reads on every step, decoded once here:

* a slot's identity is its ``Name``; its kind is ``partitionable`` (``PartitionableSlot``
  true or ``SlotType == "Partitionable"``), ``dynamic`` (``DynamicSlot`` true or
  ``SlotType == "Dynamic"``) or ``static``; it is *busy* when its ``State`` is Claimed or
  Preempting (a partitionable slot never is: it keeps offering what it has left);
* the user holding a busy slot is, as in HTCondor's accountant, the first of
  ``PreemptingAccountingGroup``, ``PreemptingUser``, ``AccountingGroup``, ``RemoteUser``;
* a slot's weight is its ``SlotWeight`` attribute, else the ``SLOT_WEIGHT`` expression
  evaluated in the slot (default ``Cpus``), else 1; with
  ``NEGOTIATOR_USE_SLOT_WEIGHTS = False`` every slot weighs 1;
* a job's identity is ``ClusterId.ProcId``; its submitter is ``submitter_of``; its state
  is ``JobStatus`` (1 idle, 2 running, 3 removed, 4 completed, 5 held; absent means idle,
  so hand-written ads work).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.parser import parse_expr
from condorlite.core.policy import Policy

IDLE, RUNNING, REMOVED, COMPLETED, HELD = 1, 2, 3, 4, 5
JOB_STATUS_NAMES = {
    IDLE: "idle", RUNNING: "running", REMOVED: "removed", COMPLETED: "completed", HELD: "held",
}
BUSY_STATES = frozenset({"claimed", "preempting"})
NICE_USER_PREFIX = "nice-user."

#: Reasons a match is made, best first (HTCondor's PreemptState, reversed).
NO_PREEMPTION, RANK_PREEMPTION, PRIO_PREEMPTION = "no preemption", "rank", "priority"
REASON_ORDER = {NO_PREEMPTION: 2, RANK_PREEMPTION: 1, PRIO_PREEMPTION: 0}


@dataclass(frozen=True)
class Slot:
    """One slot ad as the negotiator sees it."""

    name: str
    index: int
    ad: ClassAd = field(repr=False, compare=False)
    state: str
    activity: str
    kind: str
    weight: float
    remote_user: str | None
    remote_job: str | None
    current_rank: float
    machine: str

    @property
    def busy(self) -> bool:
        return self.kind != "partitionable" and self.state.lower() in BUSY_STATES


@dataclass(frozen=True)
class Job:
    """One job ad: identity, submitter and the keys of HTCondor's queue order."""

    id: str
    cluster: int
    proc: int
    index: int
    ad: ClassAd = field(repr=False, compare=False)
    status: int
    submitter: str
    prio: int
    qdate: int

    @property
    def idle(self) -> bool:
        return self.status == IDLE

    def queue_key(self) -> tuple[int, int, int, int]:
        """JobPrio (higher first), then QDate, ClusterId, ProcId (lower first)."""
        return (-self.prio, self.qdate, self.cluster, self.proc)


@dataclass(frozen=True)
class Submitter:
    """What the accountant knows of one submitter at the start of the cycle.

    ``ceiling`` None means no ceiling (HTCondor's -1); ``floor`` 0 means no floor.
    """

    name: str
    eup: float
    usage: float
    floor: float = 0.0
    ceiling: float | None = None


@dataclass(frozen=True)
class Claim:
    """A slot (or a piece of a partitionable slot) held by a job.

    ``slot`` is the slot's Name, or ``<pslot Name>#<job id>`` for a piece carved from a
    partitionable slot (``partitionable`` then names the parent and ``resources`` holds
    what was taken). ``observed`` is True for claims read from busy slot ads rather than
    made by condorlite. ``preempted_user`` names the user a match by preemption took the
    slot from, until the slot ad shows the claim's own user (``core.claims``).
    """

    slot: str
    job: str | None
    submitter: str
    weight: float
    start_time: float
    partitionable: str | None = None
    resources: tuple[tuple[str, float], ...] = ()
    observed: bool = False
    preempted_user: str | None = None


@dataclass(frozen=True)
class Match:
    """A job given a slot in this cycle."""

    job: str
    submitter: str
    slot: str
    reason: str
    weight: float
    autocluster: int
    spin: int
    preempting: str | None = None
    preempted_job: str | None = None
    partitionable: str | None = None
    resources: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True)
class Rejection:
    """A job that got nothing, with HTCondor's wording for why."""

    job: str
    submitter: str | None
    reason: str
    autocluster: int | None = None


@dataclass(frozen=True)
class SubmitterReport:
    """Per-submitter figures of the cycle (share and limit from the first pie spin)."""

    name: str
    effective_priority: float
    share: float
    limit: float
    usage: float
    matched: float
    matched_jobs: int
    idle_jobs: int


@dataclass
class CycleResult:
    """Everything one negotiation cycle decided."""

    matches: list[Match]
    rejections: list[Rejection]
    submitters: list[SubmitterReport]
    stats: dict[str, Any]
    preempted: list[Claim] = field(default_factory=list)
    #: job id -> autocluster id, for every idle job negotiated.
    autocluster_of: dict[str, int] = field(default_factory=dict)
    #: job id -> what happened to it last (for --explain).
    notes: dict[str, str] = field(default_factory=dict)


class AdProblem(Exception):
    """An ad that cannot take part in the cycle; reported and skipped, never fatal."""


def _string(ad: ClassAd, name: str) -> str | None:
    return adeval.as_str(adeval.eval_attr(ad, name))


def job_id(ad: ClassAd) -> str:
    """``ClusterId.ProcId``; raises AdProblem when either is missing or not an integer."""
    cluster = adeval.as_int(adeval.eval_attr(ad, "ClusterId"))
    proc = adeval.as_int(adeval.eval_attr(ad, "ProcId"))
    if cluster is None or proc is None:
        raise AdProblem("job ad has no integer ClusterId/ProcId")
    return f"{cluster}.{proc}"


def submitter_of(ad: ClassAd, policy: Policy) -> str:
    """The accounting name a job is negotiated and charged under.

    ``AccountingGroup`` if set, else ``Owner``; then ``@`` and the domain of the job's
    ``User`` attribute (the part after its last ``@``), else ``UID_DOMAIN``. A name that
    already carries an ``@`` is kept whole. ``NiceUser = true`` prefixes ``nice-user.``.
    Raises AdProblem when the job has neither an accounting group nor an owner.
    """
    base = _string(ad, "AccountingGroup") or _string(ad, "Owner")
    if not base:
        raise AdProblem("job ad has no Owner (and no AccountingGroup)")
    if adeval.as_bool(adeval.eval_attr(ad, "NiceUser")) and not base.startswith(
        NICE_USER_PREFIX
    ):
        base = NICE_USER_PREFIX + base
    if "@" in base:
        return base
    user = _string(ad, "User")
    domain = user.rsplit("@", 1)[1] if user and "@" in user else policy.uid_domain
    return f"{base}@{domain}"


def job_from_ad(ad: ClassAd, policy: Policy, index: int) -> Job:
    """Decode one job ad; raises AdProblem for one that cannot be negotiated."""
    ident = job_id(ad)
    if adeval.attr(ad, "Requirements") is None:
        raise AdProblem(f"job {ident} has no Requirements")
    status = adeval.as_int(adeval.eval_attr(ad, "JobStatus"))
    cluster, proc = (int(part) for part in ident.split("."))
    return Job(
        id=ident,
        cluster=cluster,
        proc=proc,
        index=index,
        ad=ad,
        status=IDLE if status is None else status,
        submitter=submitter_of(ad, policy),
        prio=adeval.as_int(adeval.eval_attr(ad, "JobPrio")) or 0,
        qdate=adeval.as_int(adeval.eval_attr(ad, "QDate")) or 0,
    )


def slot_kind(ad: ClassAd) -> str:
    """``partitionable``, ``dynamic`` or ``static``."""
    slot_type = (_string(ad, "SlotType") or "").lower()
    if adeval.as_bool(adeval.eval_attr(ad, "PartitionableSlot")) or slot_type == "partitionable":
        return "partitionable"
    if adeval.as_bool(adeval.eval_attr(ad, "DynamicSlot")) or slot_type == "dynamic":
        return "dynamic"
    return "static"


def slot_weight(ad: ClassAd, policy: Policy) -> float:
    """SlotWeight, else SLOT_WEIGHT evaluated in the slot, else 1 (never negative)."""
    if not policy.negotiator_use_slot_weights:
        return 1.0
    weight = adeval.as_float(adeval.eval_attr(ad, "SlotWeight"))
    if weight is None:
        expr = _policy_expr(policy.slot_weight)
        weight = adeval.as_float(adeval.eval_expr(expr, ad, None))
    if weight is None:
        weight = 1.0
    return max(weight, 0.0)


_PARSED: dict[str, Any] = {}


def _policy_expr(text: str):
    """Parse a policy expression once per process (the config loader validated it)."""
    expr = _PARSED.get(text)
    if expr is None:
        expr = _PARSED[text] = parse_expr(text)
    return expr


def holder_of(ad: ClassAd) -> str | None:
    """Who holds a busy slot, in the order HTCondor's accountant looks."""
    for name in ("PreemptingAccountingGroup", "PreemptingUser", "AccountingGroup", "RemoteUser"):
        value = _string(ad, name)
        if value:
            return value
    return None


def slot_from_ad(ad: ClassAd, policy: Policy, index: int) -> Slot:
    """Decode one slot ad; raises AdProblem when it has no Name."""
    name = _string(ad, "Name")
    if not name:
        raise AdProblem("slot ad has no Name")
    kind = slot_kind(ad)
    state = _string(ad, "State") or "Unclaimed"
    busy = kind != "partitionable" and state.lower() in BUSY_STATES
    job = _string(ad, "JobId") if busy else None
    return Slot(
        name=name,
        index=index,
        ad=ad,
        state=state,
        activity=_string(ad, "Activity") or "Idle",
        kind=kind,
        weight=slot_weight(ad, policy),
        remote_user=holder_of(ad) if busy else None,
        remote_job=job,
        current_rank=adeval.as_float(adeval.eval_attr(ad, "CurrentRank")) or 0.0,
        machine=_string(ad, "Machine") or name.rsplit("@", 1)[-1],
    )
