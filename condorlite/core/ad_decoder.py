"""How slot and job ads become the data model's ``Slot`` and ``Job`` (``core.model``).

Each fact is read by ``core.decoding`` (literals from the ad's table, the rest
evaluated); this module builds the values from them:

* a job: ``ClusterId`` and ``ProcId`` integers (else ``AdProblem``), a
  ``Requirements`` (else ``AdProblem``), ``JobStatus`` (absent: idle), ``JobPrio`` and
  ``QDate`` (absent: 0), its submitter (``decoding.submitter_from``);
* a slot: a ``Name`` (else ``AdProblem``), its kind, ``State`` (absent: Unclaimed),
  ``Activity`` (absent: Idle), weight, and, when busy, its holder and ``JobId``.

A pass that decodes many ads uses one ``AdDecoder`` (``job_from_ad`` and
``slot_from_ad`` decode one ad each): its memos (a cluster's decoded attributes, a
slot's ``SlotFacts``), keyed by the identities of the entries they are read from, live
as long as the decoder, never past the pass that made it. A memo keeps only what is
read from literals or absent names (no evaluation), so what it answers is what
decoding the ad would give, and in the same order of errors. Values are built through the
types' slots (``new_job``, ``new_slot``), in one C call where ``_oldscan`` is built:
the same objects as the dataclasses' constructors give.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable
from functools import partial
from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ad import ClassAd as _AdClass
from condorlite.core.classad.ad import LazyClassAd as _LazyAd
from condorlite.core.classad.ast import Literal
from condorlite.core.classad.oldscan import slotted as _slotted  # None: not built
from condorlite.core.decoding import (
    SUBMITTER_NAMES,
    AdProblem,
    as_float,
    as_int,
    as_str,
    checked_weight,
    holder_of,
    kind_of,
    submitter_from,
    value_of,
    values_of,
)
from condorlite.core.entry_keys import entry_key
from condorlite.core.model import BUSY_STATES, IDLE, Job, Slot
from condorlite.core.policy import Policy

#: What ``job_from_ad`` reads: its five integers, then what ``submitter_from`` takes.
_JOB_NAMES = ("clusterid", "procid", "jobstatus", "jobprio", "qdate", *SUBMITTER_NAMES)
#: The attributes after ClusterId and ProcId: the ones a cluster's jobs share.
_SHARED_NAMES = _JOB_NAMES[2:]
#: What ``AdDecoder``'s memo keys: everything a job decodes from but its ProcId (a
#: cluster's jobs share their ClusterId line too), and Requirements, whose presence
#: the fast path needs.
CLUSTER_NAMES = ("clusterid", "requirements", *_SHARED_NAMES)
#: Integers below this magnitude survive ``adeval.as_int``'s trip through float.
EXACT = 1 << 53

_new = object.__new__
#: Job's slots (member descriptors), in field order.
_JOB_MEMBERS = tuple(getattr(Job, name) for name in Job.__dataclass_fields__)
# The slots' setters: a Job is built by ``new_job`` with these nine C calls instead
# of the frozen dataclass ``__init__`` (nine ``object.__setattr__`` calls through
# Python; measured two and a half times as slow), once per job of the pool; with the
# compiled ``slotted`` (``_oldscan``), in one C call (six times as fast again).
_SET_JOB = tuple(member.__set__ for member in _JOB_MEMBERS)


def _set_job(ident: str, cluster: int, proc: int, index: int, ad: ClassAd, status: int,
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


#: ``new_job(ident, cluster, ..., qdate)``: ``_set_job``, or the same in one C call
#: (``_oldscan.slotted``) where it is built and ``CONDORLITE_PURE_PYTHON`` is unset.
new_job: Callable[..., Job] = (
    _set_job if _slotted is None or os.environ.get("CONDORLITE_PURE_PYTHON")
    else partial(_slotted, _JOB_MEMBERS, Job))


class Cluster(NamedTuple):
    """What the jobs of one cluster share once decoded (``AdDecoder``'s memo): all of
    a Job but its ProcId, its id and its place."""

    prefix: str  #: ``f"{cluster}."``, the id's start
    cluster: int
    status: int
    submitter: str
    prio: int
    qdate: int


def job_of_cluster(cluster: Cluster, ad: ClassAd, table: dict, index: int) -> Job | None:
    """The Job of ``ad`` (``table`` its table) decoded from its cluster's decoding,
    when its ProcId is a literal integer below 2**53 (else None: ``AdDecoder.job``
    decodes it). The caller knows ``cluster`` to be that of the ad's ``CLUSTER_NAMES``
    entries."""
    proc_entry = table.get("procid")
    if proc_entry is None:
        return None
    proc = proc_entry[1]
    if type(proc) is not Literal:
        return None
    proc = proc.value
    if type(proc) is not int or not -EXACT < proc < EXACT:
        return None
    prefix, number, status, submitter, prio, qdate = cluster
    return new_job(f"{prefix}{proc}", number, proc, index, ad, status, submitter, prio,
                    qdate)


class AdDecoder:
    """Decodes the ads of one pass (a read of the job and slot ads) under one policy.

    It keeps what a cluster's jobs share: the table entries of ``CLUSTER_NAMES``
    (ClusterId, Requirements and the shared attributes) -> the cluster's decoded
    (``ClusterId.`` as text, cluster, status, submitter, prio, qdate), for entries
    that are all literals or absent, with a literal integer ClusterId below 2**53 and
    a Requirements (then the decoding depends on nothing else but the ProcId). Keys
    are the entries' ``entry_key`` (their identities): the readers share one entry
    object between every ad holding the same line (``interning``), so a cluster's
    jobs, which repeat these lines, hit one key. Each value keeps its entries alive,
    so an identity in a key cannot be reused by another object while the key is
    stored; the memo is cleared when it holds ``SHARED_MAX`` keys, and goes with the
    decoder."""

    __slots__ = ("_shared", "_slots", "policy")

    SHARED_MAX = 4096

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self._shared: dict[Hashable, tuple[tuple, Cluster]] = {}
        #: ``entry_key`` of a slot's ``SLOT_FACT_NAMES`` entries, all literals or
        #: absent -> (the entries, held; their ``SlotFacts``): ``slot``'s memo
        self._slots: dict[Hashable, tuple[tuple, SlotFacts]] = {}

    def job(self, ad: ClassAd, index: int) -> Job:
        """Decode one job ad; raises AdProblem for one that cannot be negotiated
        (checked in this order: ClusterId/ProcId, Requirements, submitter).

        Fast path (a top-level ClassAd-lite ad whose ``CLUSTER_NAMES`` entries are in
        the memo, a literal integer ProcId below 2**53): one key, one entry read, one
        build; anything else goes through ``_learn``, which gives the same Job for the
        same ad."""
        # (a lazy ad is ClassAd-lite too: reading its table makes it a ClassAd)
        lite = (type(ad) is _AdClass or type(ad) is _LazyAd) and ad.parent is None  # type: ignore[attr-defined]
        table = ad._attrs if lite else None  # type: ignore[attr-defined]
        if table is None:
            return self._decode(ad, index)
        key = entry_key(table, CLUSTER_NAMES)
        hit = self._shared.get(key)
        if hit is not None:
            job = job_of_cluster(hit[1], ad, table, index)
            if job is not None:
                return job
        return self._learn(ad, index, table, key)

    def cluster(self, table: dict) -> Cluster | None:
        """The memo's decoding of the cluster of the ad whose table is ``table`` (a
        top-level ClassAd-lite ad's), None when it holds none: what ``job``'s fast
        path builds from (``job_of_cluster``)."""
        hit = self._shared.get(entry_key(table, CLUSTER_NAMES))
        return None if hit is None else hit[1]

    def _learn(self, ad: ClassAd, index: int, table: dict, key: Hashable) -> Job:
        """``_decode`` of a top-level ad, its cluster's decoding remembered under
        ``key`` (the ``entry_key`` of its ``CLUSTER_NAMES``) when the fast path may
        take it (the class docstring)."""
        entries = tuple(map(table.get, CLUSTER_NAMES))
        cluster_entry, requirements = entries[0], entries[1]
        if cluster_entry is None or requirements is None:
            return self._decode(ad, index)
        cluster = cluster_entry[1]
        if type(cluster) is not Literal:
            return self._decode(ad, index)
        cluster = cluster.value
        if type(cluster) is not int or not -EXACT < cluster < EXACT:
            return self._decode(ad, index)
        job = self._decode(ad, index)
        if all(entry is None or type(entry[1]) is Literal for entry in entries[2:]):
            known = self._shared
            if len(known) >= self.SHARED_MAX:
                known.clear()
            known[key] = (entries, Cluster(f"{cluster}.", cluster, job.status,
                                           job.submitter, job.prio, job.qdate))
        return job

    def _decode(self, ad: ClassAd, index: int) -> Job:
        """``job`` for any ad: each attribute read by ``values_of`` (literals from the
        table, the rest evaluated)."""
        table = adeval.table(ad)
        cluster, proc, status, prio, qdate, group, owner, nice, user = values_of(
            ad, table, _JOB_NAMES)
        # as_int, with the common case (an int) answered inline.
        cluster = int(float(cluster)) if type(cluster) is int else as_int(cluster)  # type: ignore[arg-type]
        proc = int(float(proc)) if type(proc) is int else as_int(proc)  # type: ignore[arg-type]
        if cluster is None or proc is None:
            raise AdProblem("job ad has no integer ClusterId/ProcId")
        ident = f"{cluster}.{proc}"
        if (table.get("requirements") if table is not None
                else adeval.attr(ad, "Requirements")) is None:
            raise AdProblem(f"job {ident} has no Requirements")
        status = int(float(status)) if type(status) is int else as_int(status)  # type: ignore[arg-type]
        prio = int(float(prio)) if type(prio) is int else as_int(prio)  # type: ignore[arg-type]
        qdate = int(float(qdate)) if type(qdate) is int else as_int(qdate)  # type: ignore[arg-type]
        return new_job(ident, cluster, proc, index, ad, IDLE if status is None else status,
                        submitter_from(group, owner, nice, user, self.policy), prio or 0,
                        qdate or 0)

    def slot(self, ad: ClassAd, index: int) -> Slot:
        """``slot_from_ad`` under the decoder's policy: the same Slot, or the same
        AdProblem. A top-level ClassAd-lite ad whose ``SLOT_FACT_NAMES`` entries are
        all literals or absent takes its ``SlotFacts`` from the memo (``SLOT_FACTS``:
        a pool's slots hold a few dozen sets of these entries), and reads only what
        is its own: Name, weight, holder and JobId when busy, Machine."""
        # (a lazy ad is ClassAd-lite too: reading its table makes it a ClassAd)
        lite = (type(ad) is _AdClass or type(ad) is _LazyAd) and ad.parent is None  # type: ignore[attr-defined]
        table = ad._attrs if lite else None  # type: ignore[attr-defined]
        if table is None or not SLOT_FACTS:
            return slot_from_ad(ad, self.policy, index)
        key = entry_key(table, SLOT_FACT_NAMES)
        known = self._slots.get(key)
        if known is None:
            entries = tuple(map(table.get, SLOT_FACT_NAMES))
            if not all(entry is None or type(entry[1]) is Literal for entry in entries):
                return slot_from_ad(ad, self.policy, index)
            # (literals only: no evaluation, so reading these first changes nothing)
            if len(self._slots) >= self.SHARED_MAX:
                self._slots.clear()
            known = self._slots[key] = (entries, slot_facts(ad, table))
        name = as_str(value_of(ad, table, "name"))
        if not name:
            raise AdProblem("slot ad has no Name")
        kind, state, activity, busy, current_rank = known[1]
        return new_slot(
            name, index, ad, state, activity, kind,
            checked_weight(ad, table, self.policy),
            holder_of(ad) if busy else None,
            as_str(value_of(ad, table, "jobid")) if busy else None,
            current_rank,
            as_str(value_of(ad, table, "machine")) or name.rsplit("@", 1)[-1],
        )


#: Whether ``AdDecoder.slot`` keeps a slot's ``SlotFacts`` per the entries they are
#: read from (its docstring); a module flag so that the tests run both ways.
SLOT_FACTS = True

#: What ``SlotFacts`` are read from (``kind_of``'s three, State, Activity, CurrentRank).
SLOT_FACT_NAMES = ("slottype", "partitionableslot", "dynamicslot", "state", "activity",
                   "currentrank")


class SlotFacts(NamedTuple):
    """What ``slot_from_ad`` reads of a slot from ``SLOT_FACT_NAMES`` alone."""

    kind: str
    state: str
    activity: str
    busy: bool
    current_rank: float


def slot_facts(ad: ClassAd, table: dict | None) -> SlotFacts:
    """The ``SlotFacts`` of ``ad`` (``table``: ``adeval.table(ad)``), as
    ``slot_from_ad`` reads them."""
    kind = kind_of(ad, table)
    state = as_str(value_of(ad, table, "state")) or "Unclaimed"
    return SlotFacts(kind, state, as_str(value_of(ad, table, "activity")) or "Idle",
                     kind != "partitionable" and state.lower() in BUSY_STATES,
                     as_float(value_of(ad, table, "currentrank")) or 0.0)


def job_from_ad(ad: ClassAd, policy: Policy, index: int) -> Job:
    """Decode one job ad (``AdDecoder.job``, with a decoder of its own)."""
    return AdDecoder(policy).job(ad, index)


def slot_from_ad(ad: ClassAd, policy: Policy, index: int) -> Slot:
    """Decode one slot ad; raises AdProblem when it has no Name."""
    table = adeval.table(ad)
    name = as_str(value_of(ad, table, "name"))
    if not name:
        raise AdProblem("slot ad has no Name")
    kind = kind_of(ad, table)
    state = as_str(value_of(ad, table, "state")) or "Unclaimed"
    busy = kind != "partitionable" and state.lower() in BUSY_STATES
    # Positional, in field order (see new_slot).
    return new_slot(
        name, index, ad, state,
        as_str(value_of(ad, table, "activity")) or "Idle",
        kind,
        checked_weight(ad, table, policy),
        holder_of(ad) if busy else None,
        as_str(value_of(ad, table, "jobid")) if busy else None,
        as_float(value_of(ad, table, "currentrank")) or 0.0,
        as_str(value_of(ad, table, "machine")) or name.rsplit("@", 1)[-1],
    )


# As _JOB_MEMBERS and _SET_JOB: Slot's slots and their setters, in field order.
_SLOT_MEMBERS = tuple(getattr(Slot, name) for name in Slot.__dataclass_fields__)
_SET_SLOT = tuple(member.__set__ for member in _SLOT_MEMBERS)


def _set_slot(*values: object) -> Slot:
    """``Slot(*values)`` (all eleven fields, in order), built through its slots."""
    slot = _new(Slot)
    for setter, value in zip(_SET_SLOT, values, strict=True):
        setter(slot, value)
    return slot


#: ``new_slot(*values)``: ``_set_slot``, or the same in one C call, as ``new_job``.
new_slot: Callable[..., Slot] = (
    _set_slot if _slotted is None or os.environ.get("CONDORLITE_PURE_PYTHON")
    else partial(_slotted, _SLOT_MEMBERS, Slot))
