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

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any, NamedTuple

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd, Undefined
from condorlite.core.classad.ad import ClassAd as _AdClass
from condorlite.core.classad.ast import AttrRef, Literal
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
    (slotted: the pool holds hundreds of thousands; see ``_new_job``)."""

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


class AdProblem(Exception):
    """An ad that cannot take part in the cycle; reported and skipped, never fatal."""


# -- reading attributes -----------------------------------------------------------------
#
# Decoding reads a dozen attributes of every ad, and most of them are bound to literals
# (``ClusterId = 12``, ``Owner = "alice"``). A literal evaluates to its own value in
# any context, so ``_value`` answers it from the ad's table without the evaluator; an
# absent name in a top-level ad is undefined (none of the names read here is one the
# evaluator treats specially, such as ``MY`` or ``CurrentTime``). Anything else (an
# expression, a nested ad, a mapping that is not a ClassAd-lite ad) is evaluated as
# before. The coercions below are adeval's, with the common type answered first.


def _value(ad: ClassAd, table: dict | None, lname: str) -> object:
    """The value of attribute ``lname`` (lower-case) of ``ad``; ``table`` is
    ``adeval.table(ad)``."""
    if table is not None:
        entry = table.get(lname)
        if entry is None:
            if ad.parent is None:  # type: ignore[attr-defined]
                return Undefined
        else:
            expr = entry[1]
            if type(expr) is Literal:
                return expr.value
            if type(expr) is AttrRef:
                return _bare_ref_value(ad, table, expr)
    return adeval.eval_attr(ad, lname)


def _bare_ref_value(ad: ClassAd, table: dict, expr: AttrRef) -> object:
    """The value of ``expr``, an attribute reference, evaluated in ``ad``: read from
    the table when it is a bare name (no ``MY.``/``TARGET.`` scope) bound in ``ad``
    itself to a literal (``SlotWeight = Cpus``), as the evaluator resolves a bare name
    in the ad first; evaluated otherwise."""
    if expr.scope is None:
        entry = table.get(expr.name.lower())
        if entry is not None and type(entry[1]) is Literal:
            return entry[1].value
    return adeval.eval_expr(expr, ad, None)


def _values(ad: ClassAd, table: dict | None, lnames: tuple[str, ...]) -> list[object]:
    """``[_value(ad, table, n) for n in lnames]`` in one pass (evaluation is pure, so
    reading a value the caller may not need changes nothing)."""
    if table is None or ad.parent is not None:  # type: ignore[attr-defined]
        return [_value(ad, table, lname) for lname in lnames]
    # A plain loop: measured twice as fast as a comprehension over zip/map here.
    out: list[object] = []
    for lname in lnames:
        entry = table.get(lname)
        if entry is None:
            out.append(Undefined)
        else:
            expr = entry[1]
            out.append(expr.value if type(expr) is Literal else adeval.eval_attr(ad, lname))
    return out


def _as_int(value: object) -> int | None:
    """``adeval.as_int``: an integer goes through float as there (exact up to 2**53)."""
    return int(float(value)) if type(value) is int else adeval.as_int(value)  # type: ignore[arg-type]


def _as_float(value: object) -> float | None:
    """``adeval.as_float``, an int or a float answered first."""
    kind = type(value)
    if kind is int or (kind is float and value == value):  # NaN is not a number here
        return float(value)  # type: ignore[arg-type]
    return adeval.as_float(value)


def _as_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _string(ad: ClassAd, name: str) -> str | None:
    return _as_str(_value(ad, adeval.table(ad), name.lower()))


def job_id(ad: ClassAd) -> str:
    """``ClusterId.ProcId``; raises AdProblem when either is missing or not an integer."""
    cluster, proc = _cluster_proc(*_values(ad, adeval.table(ad), ("clusterid", "procid")))
    return f"{cluster}.{proc}"


def _cluster_proc(cluster_value: object, proc_value: object) -> tuple[int, int]:
    cluster = _as_int(cluster_value)
    proc = _as_int(proc_value)
    if cluster is None or proc is None:
        raise AdProblem("job ad has no integer ClusterId/ProcId")
    return cluster, proc


#: What ``submitter_of`` reads, in ``_submitter``'s argument order.
_SUBMITTER_NAMES = ("accountinggroup", "owner", "niceuser", "user")


#: Control characters (C0, DEL, C1): never part of a submitter name (accounting.CONTROL).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def submitter_of(ad: ClassAd, policy: Policy) -> str:
    """The accounting name a job is negotiated and charged under.

    ``AccountingGroup`` if set, else ``Owner``; then ``@`` and the domain of the job's
    ``User`` attribute (the part after its last ``@``), else ``UID_DOMAIN``. A name that
    already carries an ``@`` is kept whole. ``NiceUser = true`` prefixes ``nice-user.``.
    Raises AdProblem when the job has neither an accounting group nor an owner.
    """
    return _submitter(*_values(ad, adeval.table(ad), _SUBMITTER_NAMES), policy)


def _submitter(group: object, owner: object, nice: object, user: object,
               policy: Policy) -> str:
    """``submitter_of`` from the values of its four attributes."""
    base = (group if isinstance(group, str) else None) or (
        owner if isinstance(owner, str) else None)
    if not base:
        raise AdProblem("job ad has no Owner (and no AccountingGroup)")
    if _CONTROL.search(base):
        raise AdProblem(f"job's submitter name holds control characters: {base!r}")
    if nice is True and not base.startswith(NICE_USER_PREFIX):
        base = NICE_USER_PREFIX + base
    if "@" in base:
        return base
    user_name = _as_str(user)
    domain = (user_name.rsplit("@", 1)[1] if user_name and "@" in user_name
              else policy.uid_domain)
    return f"{base}@{domain}"


#: What ``job_from_ad`` reads: its five integers, then what ``_submitter`` takes.
_JOB_NAMES = ("clusterid", "procid", "jobstatus", "jobprio", "qdate", *_SUBMITTER_NAMES)
#: The attributes after ClusterId and ProcId: the ones a cluster's jobs share.
_SHARED_NAMES = _JOB_NAMES[2:]
#: Integers below this magnitude survive ``adeval.as_int``'s trip through float.
_EXACT = 1 << 53

_new = object.__new__
# The slots' setters: a Job is built by ``_new_job`` with these nine C calls instead
# of the frozen dataclass ``__init__`` (nine ``object.__setattr__`` calls through
# Python; measured two and a half times as slow), once per job of the pool.
_SET_JOB = tuple(getattr(Job, name).__set__ for name in Job.__dataclass_fields__)


def _new_job(ident: str, cluster: int, proc: int, index: int, ad: ClassAd, status: int,
             submitter: str, prio: int, qdate: int) -> Job:
    """``Job(ident, cluster, ..., qdate)``, the same object, built through its slots."""
    s_id, s_cluster, s_proc, s_index, s_ad, s_status, s_sub, s_prio, s_qdate = _SET_JOB
    job = _new(Job)
    s_id(job, ident)
    s_cluster(job, cluster)
    s_proc(job, proc)
    s_index(job, index)
    s_ad(job, ad)
    s_status(job, status)
    s_sub(job, submitter)
    s_prio(job, prio)
    s_qdate(job, qdate)
    return job


# What the shared attributes decode to: UID_DOMAIN -> (the id of each of their seven
# table entries, None's for an absent one) -> (the entries, the decoded (status, prio,
# qdate, submitter)), for entries that are all literals or absent: then the decoding
# depends on nothing else. The readers share one entry object between every ad holding the same line
# (``interning``), so a cluster's jobs, which repeat these lines, hit one key. Each
# value keeps its entries alive, so an id in a key cannot be reused by another object
# while the key is stored. A domain's table is cleared when full.
_SHARED: dict[str, dict[tuple[int, ...], tuple]] = {}
_SHARED_MAX = 4096
_NO_HITS: dict[tuple[int, ...], tuple] = {}


def job_from_ad(ad: ClassAd, policy: Policy, index: int) -> Job:
    """Decode one job ad; raises AdProblem for one that cannot be negotiated (checked
    in this order: ClusterId/ProcId, Requirements, submitter).

    Fast path (a top-level ClassAd-lite ad, literal integer ClusterId and ProcId
    below 2**53, a Requirements, shared attributes found in ``_SHARED``): two entry
    reads, one key, one build; anything else goes through ``_decode_job``, which
    gives the same Job for the same ad."""
    table = ad._attrs if type(ad) is _AdClass and ad.parent is None else None  # type: ignore[attr-defined]
    if table is None or "requirements" not in table:
        return _decode_job(ad, policy, index)
    get = table.get
    cluster_entry = get("clusterid")
    proc_entry = get("procid")
    if cluster_entry is None or proc_entry is None:
        return _decode_job(ad, policy, index)
    cluster = cluster_entry[1]
    proc = proc_entry[1]
    if type(cluster) is not Literal or type(proc) is not Literal:
        return _decode_job(ad, policy, index)
    cluster = cluster.value
    proc = proc.value
    if (type(cluster) is not int or type(proc) is not int
            or not -_EXACT < cluster < _EXACT or not -_EXACT < proc < _EXACT):
        return _decode_job(ad, policy, index)
    hit = _SHARED.get(policy.uid_domain, _NO_HITS).get(
        tuple(map(id, map(get, _SHARED_NAMES))))
    if hit is None:
        return _decode_job(ad, policy, index, tuple(map(get, _SHARED_NAMES)))
    return _new_job(f"{cluster}.{proc}", cluster, proc, index, ad, *hit[1])


def _decode_job(ad: ClassAd, policy: Policy, index: int, shared: tuple | None = None
                ) -> Job:
    """``job_from_ad`` for any ad: each attribute read by ``_values`` (literals from
    the table, the rest evaluated). ``shared`` is the table entries of
    ``_SHARED_NAMES`` when the caller has them: when they are all literals or absent,
    their decoding is stored in ``_SHARED`` (see there)."""
    table = adeval.table(ad)
    cluster, proc, status, prio, qdate, group, owner, nice, user = _values(
        ad, table, _JOB_NAMES)
    # _as_int, with the common case (an int) answered inline.
    cluster = int(float(cluster)) if type(cluster) is int else _as_int(cluster)  # type: ignore[arg-type]
    proc = int(float(proc)) if type(proc) is int else _as_int(proc)  # type: ignore[arg-type]
    if cluster is None or proc is None:
        raise AdProblem("job ad has no integer ClusterId/ProcId")
    ident = f"{cluster}.{proc}"
    if (table.get("requirements") if table is not None
            else adeval.attr(ad, "Requirements")) is None:
        raise AdProblem(f"job {ident} has no Requirements")
    status = int(float(status)) if type(status) is int else _as_int(status)  # type: ignore[arg-type]
    prio = int(float(prio)) if type(prio) is int else _as_int(prio)  # type: ignore[arg-type]
    qdate = int(float(qdate)) if type(qdate) is int else _as_int(qdate)  # type: ignore[arg-type]
    decoded = (IDLE if status is None else status,
               _submitter(group, owner, nice, user, policy), prio or 0, qdate or 0)
    if shared is not None and all(
            entry is None or type(entry[1]) is Literal for entry in shared):
        known = _SHARED.setdefault(policy.uid_domain, {})
        if len(known) >= _SHARED_MAX:
            known.clear()
        known[tuple(map(id, shared))] = (shared, decoded)
    return _new_job(ident, cluster, proc, index, ad, *decoded)


def slot_kind(ad: ClassAd) -> str:
    """``partitionable``, ``dynamic`` or ``static``."""
    return _slot_kind(ad, adeval.table(ad))


def _slot_kind(ad: ClassAd, table: dict | None) -> str:
    slot_type = (_as_str(_value(ad, table, "slottype")) or "").lower()
    if _value(ad, table, "partitionableslot") is True or slot_type == "partitionable":
        return "partitionable"
    if _value(ad, table, "dynamicslot") is True or slot_type == "dynamic":
        return "dynamic"
    return "static"


def slot_weight(ad: ClassAd, policy: Policy) -> float:
    """SlotWeight, else SLOT_WEIGHT evaluated in the slot, else 1 (never negative)."""
    return _slot_weight(ad, adeval.table(ad), policy)


#: The largest weight a slot may have: far past any machine (a weight is cores, by
#: default), and small enough that sums over a million slots stay exact enough.
MAX_SLOT_WEIGHT = 1e9


def _checked_weight(ad: ClassAd, table: dict | None, policy: Policy) -> float:
    """``_slot_weight`` of a slot ad being decoded: a NaN, infinite or absurd weight
    makes the slot a listed problem (it would break every share and limit of the
    cycle), never a failed cycle."""
    weight = _slot_weight(ad, table, policy)
    if not weight <= MAX_SLOT_WEIGHT:
        raise AdProblem(f"slot weight {weight!r} is not a finite number up to "
                        f"{MAX_SLOT_WEIGHT:g}")
    return weight


def _slot_weight(ad: ClassAd, table: dict | None, policy: Policy) -> float:
    if not policy.negotiator_use_slot_weights:
        return 1.0
    raw = _value(ad, table, "slotweight")
    if type(raw) is float and raw != raw:
        return raw  # NaN: ``_checked_weight`` makes the slot a problem, as for inf
    weight = _as_float(raw)
    if weight is None:
        expr = _policy_expr(policy.slot_weight)
        weight = adeval.as_float(
            _bare_ref_value(ad, table, expr) if table is not None and type(expr) is AttrRef
            else adeval.eval_expr(expr, ad, None))
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


#: Who holds a busy slot, in the order HTCondor's accountant looks.
_HOLDER_NAMES = ("preemptingaccountinggroup", "preemptinguser", "accountinggroup",
                 "remoteuser")


def holder_of(ad: ClassAd) -> str | None:
    """Who holds a busy slot, in the order HTCondor's accountant looks."""
    table = adeval.table(ad)
    for lname in _HOLDER_NAMES:
        value = _as_str(_value(ad, table, lname))
        if value:
            return value
    return None


def slot_from_ad(ad: ClassAd, policy: Policy, index: int) -> Slot:
    """Decode one slot ad; raises AdProblem when it has no Name."""
    table = adeval.table(ad)
    name = _as_str(_value(ad, table, "name"))
    if not name:
        raise AdProblem("slot ad has no Name")
    kind = _slot_kind(ad, table)
    state = _as_str(_value(ad, table, "state")) or "Unclaimed"
    busy = kind != "partitionable" and state.lower() in BUSY_STATES
    # Positional, in field order (see _new_slot).
    return _new_slot(
        name, index, ad, state,
        _as_str(_value(ad, table, "activity")) or "Idle",
        kind,
        _checked_weight(ad, table, policy),
        holder_of(ad) if busy else None,
        _as_str(_value(ad, table, "jobid")) if busy else None,
        _as_float(_value(ad, table, "currentrank")) or 0.0,
        _as_str(_value(ad, table, "machine")) or name.rsplit("@", 1)[-1],
    )


# As _SET_JOB: Slot's slot setters, in field order.
_SET_SLOT = tuple(getattr(Slot, name).__set__ for name in Slot.__dataclass_fields__)


def _new_slot(*values: object) -> Slot:
    """``Slot(*values)`` (all eleven fields, in order), built through its slots."""
    slot = _new(Slot)
    for setter, value in zip(_SET_SLOT, values, strict=True):
        setter(slot, value)
    return slot


#: ``make_match(values)``: the Match of a tuple of all its fields, in order (the
#: generated ``Match.__new__`` is a Python function; this is one C call).
make_match = partial(tuple.__new__, Match)
