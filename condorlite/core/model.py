"""The values the negotiation cycle passes around.

Slots and jobs keep their ClassAd (matchmaking evaluates it) next to the few facts the
negotiator reads on every step, decoded once by ``core.ad_decoder`` from the
attributes ``core.decoding`` reads (kinds, holders, weights, submitters: see there):

* a slot's identity is its ``Name``; it is *busy* when its ``State`` is Claimed or
  Preempting (a partitionable slot never is: it keeps offering what it has left);
* a job's identity is ``ClusterId.ProcId``; its state is ``JobStatus`` (1 idle, 2
  running, 3 removed, 4 completed, 5 held; absent means idle, so hand-written ads
  work).

The types here are frozen and slotted; ``Match`` is a named tuple built by
``make_match`` in one C call.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, NamedTuple

from condorlite.core.adeval import ClassAd
from condorlite.core.decoding import (
    MAX_SLOT_WEIGHT,
    NICE_USER_PREFIX,
    AdProblem,
    holder_of,
    job_id,
    slot_kind,
    slot_weight,
    submitter_of,
)

#: Names ``core.decoding`` defines, kept importable from here (callers read the data
#: model and its decoding from one place).
__all__ = [
    "BUSY_STATES", "COMPLETED", "HELD", "IDLE", "JOB_STATUS_NAMES", "MAX_SLOT_WEIGHT",
    "NICE_USER_PREFIX", "NO_PREEMPTION", "PRIO_PREEMPTION", "RANK_PREEMPTION",
    "REASON_ORDER", "REMOVED", "RUNNING", "AdProblem", "Claim", "CycleResult", "Job",
    "Match", "Rejection", "Slot", "Submitter", "SubmitterReport", "holder_of", "job_id",
    "make_match", "slot_kind", "slot_weight", "submitter_of",
]

IDLE, RUNNING, REMOVED, COMPLETED, HELD = 1, 2, 3, 4, 5
JOB_STATUS_NAMES = {
    IDLE: "idle", RUNNING: "running", REMOVED: "removed", COMPLETED: "completed", HELD: "held",
}
BUSY_STATES = frozenset({"claimed", "preempting"})

#: Reasons a match is made, best first (HTCondor's PreemptState, reversed).
NO_PREEMPTION, RANK_PREEMPTION, PRIO_PREEMPTION = "no preemption", "rank", "priority"
REASON_ORDER = {NO_PREEMPTION: 2, RANK_PREEMPTION: 1, PRIO_PREEMPTION: 0}


@dataclass(frozen=True, slots=True)
class Slot:
    """One slot ad as the negotiator sees it (slotted: the pool holds thousands)."""

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


@dataclass(frozen=True, slots=True)
class Job:
    """One job ad: identity, submitter and the keys of HTCondor's queue order
    (slotted: the pool holds hundreds of thousands; see ``ad_decoder.new_job``)."""

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
    slot from, until the slot ad shows the claim's own user (``core.negotiation.claims``).
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


class Match(NamedTuple):
    """A job given a slot in this cycle: an immutable record of named fields (a named
    tuple, so that the cycle builds its hundreds of thousands by one C call,
    ``make_match``; a frozen dataclass cost several times as much)."""

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
    #: job id -> autocluster id, for every idle job negotiated (read-only).
    autocluster_of: Mapping[str, int] = field(default_factory=dict)
    #: job id -> what happened to it last (for --explain; read-only).
    notes: Mapping[str, str] = field(default_factory=dict)


#: ``make_match(values)``: the Match of a tuple of all its fields, in order (the
#: generated ``Match.__new__`` is a Python function; this is one C call).
make_match = partial(tuple.__new__, Match)
