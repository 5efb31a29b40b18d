"""What the ads of a match are told about submitters: ``Remote*`` and ``Submitter*``.

``PREEMPTION_REQUIREMENTS``, ``PREEMPTION_RANK`` and the ranks may read the priority and
usage of the slot's holder (on the slot ad, ``remote_attrs``) and of the submitter
whose job is being matched (on the job ad, ``submitter_attrs``), as HTCondor's
negotiator inserts them:

    RemoteUserPrio = EUP(holder)            SubmitterUserPrio = SubmittorPrio = EUP(submitter)
    RemoteUserResourcesInUse = usage(holder)  SubmitterUserResourcesInUse = usage(submitter)
    RemoteGroup = group(holder)              SubmitterGroup = group(submitter)
                                             SubmitterNegotiatingGroup, SubmitterAutoregroup:
                                             the group turn under way (<none>, false outside)

With accounting groups, ``RemoteGroupQuota``/``RemoteGroupResourcesInUse`` and
``SubmitterGroupQuota``/``SubmitterGroupResourcesInUse`` are the group's quota and
usage fixed at the start of the cycle (``GroupFacts``; HTCondor's
PREEMPTION_REQUIREMENTS_STABLE). A holder unknown to the accountant has EUP 0.5 and
usage 0. The usage a ``Submitter*`` attribute reads is the submitter's at the time the
job ad is made (once per class and submitter turn,
``submitter_turn.TurnNegotiator._start_walk``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from condorlite.core.groups.quotas import ROOT
from condorlite.core.matching.matchmaker import REMOTE_ATTRS


@dataclass(frozen=True)
class GroupFacts:
    """What a grouped cycle knows of the groups at its start: each submitter's group
    (``group_of``), each group's quota (``assign_quotas``) and its usage (the sum of its
    own submitters' usage, as HTCondor's group record). These feed the Remote*/Submitter*
    group attributes of PREEMPTION_REQUIREMENTS."""

    group_of: Callable[[str], str]
    quota: Mapping[str, float]
    usage: Mapping[str, float]


class GroupTurn:
    """The group turn under way (``negotiator.Cycle.run_turn``): the negotiating group,
    whether it is the autoregroup turn, and the room left (the turn limit less the
    group's usage, less every match of the turn since: ``submitter_turn``)."""

    __slots__ = ("autoregroup", "group", "room")

    def __init__(self, group: str, autoregroup: bool, room: float) -> None:
        self.group, self.autoregroup, self.room = group, autoregroup, room


def group_of(name: str, groups: GroupFacts | None) -> str:
    """The group of submitter ``name`` (``<none>`` without groups)."""
    return ROOT if groups is None else groups.group_of(name)


def remote_attrs(holder: str, eup: Mapping[str, float], usage: Mapping[str, float],
                 groups: GroupFacts | None) -> dict[str, object]:
    """The ``Remote*`` attributes of a slot held by ``holder`` (module doc)."""
    group = group_of(holder, groups)
    values = dict(zip(REMOTE_ATTRS, (eup.get(holder, 0.5), usage.get(holder, 0.0), group),
                      strict=True))
    if groups is not None:
        values["RemoteGroupQuota"] = groups.quota[group]
        values["RemoteGroupResourcesInUse"] = groups.usage[group]
    return values


def submitter_attrs(name: str, eup: Mapping[str, float], usage: Mapping[str, float],
                    groups: GroupFacts | None,
                    group_turn: GroupTurn | None) -> dict[str, object]:
    """The ``Submitter*`` attributes of submitter ``name``'s job ad (module doc);
    ``group_turn`` the group turn under way."""
    prio = eup[name]
    negotiating, autoregroup = ROOT, False
    if group_turn is not None:
        negotiating, autoregroup = group_turn.group, group_turn.autoregroup
    group = group_of(name, groups)
    values: dict[str, object] = {
        "SubmitterUserPrio": prio, "SubmittorPrio": prio,
        "SubmitterUserResourcesInUse": usage[name],
        "SubmitterGroup": group,
        "SubmitterNegotiatingGroup": negotiating, "SubmitterAutoregroup": autoregroup}
    if groups is not None:
        values["SubmitterGroupQuota"] = groups.quota[group]
        values["SubmitterGroupResourcesInUse"] = groups.usage[group]
    return values
