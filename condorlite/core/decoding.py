"""Reading the attributes the negotiator decodes from slot and job ads.

The few facts ``core.model`` keeps next to each ad are read here (``model`` builds
its Slot and Job from them):

* a slot's kind is ``partitionable`` (``PartitionableSlot`` true or ``SlotType ==
  "Partitionable"``), ``dynamic`` (``DynamicSlot`` true or ``SlotType == "Dynamic"``)
  or ``static``;
* the user holding a busy slot is, as in HTCondor's accountant, the first of
  ``PreemptingAccountingGroup``, ``PreemptingUser``, ``AccountingGroup``, ``RemoteUser``;
* a slot's weight is its ``SlotWeight`` attribute, else the ``SLOT_WEIGHT`` expression
  evaluated in the slot (default ``Cpus``), else 1; with
  ``NEGOTIATOR_USE_SLOT_WEIGHTS = False`` every slot weighs 1;
* a job's identity is ``ClusterId.ProcId``; its submitter is ``submitter_of``.
"""

from __future__ import annotations

import re
from typing import Any

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd, Undefined
from condorlite.core.classad.ast import AttrRef, Literal
from condorlite.core.classad.parser import parse_expr
from condorlite.core.policy import Policy

NICE_USER_PREFIX = "nice-user."


class AdProblem(Exception):
    """An ad that cannot take part in the cycle; reported and skipped, never fatal."""


# -- reading attributes -----------------------------------------------------------------
#
# Decoding reads a dozen attributes of every ad, and most of them are bound to literals
# (``ClusterId = 12``, ``Owner = "alice"``). A literal evaluates to its own value in
# any context, so ``value_of`` answers it from the ad's table without the evaluator; an
# absent name in a top-level ad is undefined (none of the names read here is one the
# evaluator treats specially, such as ``MY`` or ``CurrentTime``). Anything else (an
# expression, a nested ad, a mapping that is not a ClassAd-lite ad) is evaluated as
# before. The coercions below are adeval's, with the common type answered first.


def value_of(ad: ClassAd, table: dict | None, lname: str) -> object:
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
                return bare_ref_value(ad, table, expr)
    return adeval.eval_attr(ad, lname)


def bare_ref_value(ad: ClassAd, table: dict, expr: AttrRef) -> object:
    """The value of ``expr``, an attribute reference, evaluated in ``ad``: read from
    the table when it is a bare name (no ``MY.``/``TARGET.`` scope) bound in ``ad``
    itself to a literal (``SlotWeight = Cpus``), as the evaluator resolves a bare name
    in the ad first; evaluated otherwise."""
    if expr.scope is None:
        entry = table.get(expr.name.lower())
        if entry is not None and type(entry[1]) is Literal:
            return entry[1].value
    return adeval.eval_expr(expr, ad, None)


def values_of(ad: ClassAd, table: dict | None, lnames: tuple[str, ...]) -> list[object]:
    """``[value_of(ad, table, n) for n in lnames]`` in one pass (evaluation is pure, so
    reading a value the caller may not need changes nothing)."""
    if table is None or ad.parent is not None:  # type: ignore[attr-defined]
        return [value_of(ad, table, lname) for lname in lnames]
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


def as_int(value: object) -> int | None:
    """``adeval.as_int``: an integer goes through float as there (exact up to 2**53)."""
    return int(float(value)) if type(value) is int else adeval.as_int(value)  # type: ignore[arg-type]


def as_float(value: object) -> float | None:
    """``adeval.as_float``, an int or a float answered first."""
    kind = type(value)
    if kind is int or (kind is float and value == value):  # NaN is not a number here
        return float(value)  # type: ignore[arg-type]
    return adeval.as_float(value)


def as_str(value: object) -> str | None:
    return value if isinstance(value, str) else None


def job_id(ad: ClassAd) -> str:
    """``ClusterId.ProcId``; raises AdProblem when either is missing or not an integer."""
    cluster, proc = _cluster_proc(*values_of(ad, adeval.table(ad), ("clusterid", "procid")))
    return f"{cluster}.{proc}"


def _cluster_proc(cluster_value: object, proc_value: object) -> tuple[int, int]:
    cluster = as_int(cluster_value)
    proc = as_int(proc_value)
    if cluster is None or proc is None:
        raise AdProblem("job ad has no integer ClusterId/ProcId")
    return cluster, proc


#: What ``submitter_of`` reads, in ``submitter_from``'s argument order.
SUBMITTER_NAMES = ("accountinggroup", "owner", "niceuser", "user")


#: Control characters (C0, DEL, C1): never part of a submitter name (accounting.CONTROL).
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def submitter_of(ad: ClassAd, policy: Policy) -> str:
    """The accounting name a job is negotiated and charged under.

    ``AccountingGroup`` if set, else ``Owner``; then ``@`` and the domain of the job's
    ``User`` attribute (the part after its last ``@``), else ``UID_DOMAIN``. A name that
    already carries an ``@`` is kept whole. ``NiceUser = true`` prefixes ``nice-user.``.
    Raises AdProblem when the job has neither an accounting group nor an owner.
    """
    return submitter_from(*values_of(ad, adeval.table(ad), SUBMITTER_NAMES), policy)


def submitter_from(group: object, owner: object, nice: object, user: object,
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
    user_name = as_str(user)
    domain = (user_name.rsplit("@", 1)[1] if user_name and "@" in user_name
              else policy.uid_domain)
    return f"{base}@{domain}"


def slot_kind(ad: ClassAd) -> str:
    """``partitionable``, ``dynamic`` or ``static``."""
    return kind_of(ad, adeval.table(ad))


def kind_of(ad: ClassAd, table: dict | None) -> str:
    slot_type = (as_str(value_of(ad, table, "slottype")) or "").lower()
    if value_of(ad, table, "partitionableslot") is True or slot_type == "partitionable":
        return "partitionable"
    if value_of(ad, table, "dynamicslot") is True or slot_type == "dynamic":
        return "dynamic"
    return "static"


def slot_weight(ad: ClassAd, policy: Policy) -> float:
    """SlotWeight, else SLOT_WEIGHT evaluated in the slot, else 1 (never negative)."""
    return _slot_weight(ad, adeval.table(ad), policy)


#: The largest weight a slot may have: far past any machine (a weight is cores, by
#: default), and small enough that sums over a million slots stay exact enough.
MAX_SLOT_WEIGHT = 1e9


def checked_weight(ad: ClassAd, table: dict | None, policy: Policy) -> float:
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
    raw = value_of(ad, table, "slotweight")
    if type(raw) is float and raw != raw:
        return raw  # NaN: ``checked_weight`` makes the slot a problem, as for inf
    weight = as_float(raw)
    if weight is None:
        expr = policy.derived(parsed_slot_weight)
        weight = adeval.as_float(
            bare_ref_value(ad, table, expr) if table is not None and type(expr) is AttrRef
            else adeval.eval_expr(expr, ad, None))
    if weight is None:
        weight = 1.0
    return max(weight, 0.0)


def parsed_slot_weight(policy) -> Any:
    """The policy's ``SLOT_WEIGHT`` parsed (the config loader validated it): kept on
    the policy (``Policy.derived``), since every piece carved from a partitionable
    slot is weighed through ``slot_weight(ad, policy)``."""
    return parse_expr(policy.slot_weight)


#: Who holds a busy slot, in the order HTCondor's accountant looks.
_HOLDER_NAMES = ("preemptingaccountinggroup", "preemptinguser", "accountinggroup",
                 "remoteuser")


def holder_of(ad: ClassAd) -> str | None:
    """Who holds a busy slot, in the order HTCondor's accountant looks."""
    table = adeval.table(ad)
    for lname in _HOLDER_NAMES:
        value = as_str(value_of(ad, table, lname))
        if value:
            return value
    return None


