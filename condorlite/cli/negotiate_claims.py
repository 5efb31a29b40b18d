"""The claims of ``condorlite negotiate``: as the store keeps them, after a cycle, and
the in-use no claim backs (``Unbacked``).

A claim row's ``extra`` (``claim_to_row``) holds ``observed``, and for a piece of a
partitionable slot ``partitionable`` and ``resources`` (a name -> amount object), and
``preempted_user`` while a match by preemption is pending; the store writes it as
``json.dumps(extra, sort_keys=True)``.

A cycle ends with every claim rewritten (tens of thousands after a big one), so the
rows of ``LiveClaims.row_values`` are made without building a ``Claim`` per match and
their extra text by ``ExtraText``, which composes that same JSON text from parts
encoded once each.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from condorlite.core.accounting import AccountantState, ClaimRow
from condorlite.core.model import Claim, Match

#: A claim's fields in ``Claim`` order: slot, job, submitter, weight, start_time,
#: partitionable, resources, observed, preempted_user.
ClaimFields = tuple[str, str | None, str, float, float, str | None,
                    tuple[tuple[str, float], ...], bool, str | None]


#: partitionable, resources, observed, preempted_user of a claim, from its extra.
ExtraFields = tuple[str | None, tuple[tuple[str, float], ...], bool, str | None]


def claim_to_row(claim: Claim) -> ClaimRow:
    """A core Claim as a store row: ``partitionable``, ``resources`` (a name -> amount
    object), ``observed`` and ``preempted_user`` (only while a preemption is pending) go
    into ``extra``; a claim with no job id stores ``""``."""
    extra: dict[str, Any] = {"observed": claim.observed}
    if claim.partitionable is not None:
        extra["partitionable"] = claim.partitionable
        extra["resources"] = dict(claim.resources)
    if claim.preempted_user is not None:
        extra["preempted_user"] = claim.preempted_user
    return ClaimRow(claim.slot, claim.job or "", claim.submitter, claim.weight,
                    claim.start_time, extra)


def claim_from_row(row: ClaimRow) -> Claim:
    """The inverse of ``claim_to_row`` (rows written by other commands have no extra)."""
    return Claim(row.slot, row.job or None, row.submitter, row.weight, row.start_time,
                 *_extra_fields(row.extra))


def claims_from_values(values: Iterable[tuple[str, str, str, float, float, str]]
                       ) -> list[Claim]:
    """``claim_from_row`` of each stored row given as (slot, job, submitter, weight,
    start_time, extra as JSON text) (``Transaction.load_claim_values``), each distinct
    extra text parsed once."""
    known: dict[str, ExtraFields] = {}
    out = []
    for slot, job, submitter, weight, start, text in values:
        extra = known.get(text)
        if extra is None:
            extra = known[text] = _extra_fields(json.loads(text))
        out.append(Claim(slot, job or None, submitter, weight, start, *extra))
    return out


def _extra_fields(extra: dict[str, Any] | None) -> ExtraFields:
    extra = extra or {}
    resources = extra.get("resources")
    amounts = tuple(sorted((str(k), float(v)) for k, v in resources.items())) \
        if resources else ()
    return (extra.get("partitionable"), amounts, bool(extra.get("observed", False)),
            extra.get("preempted_user") or None)


class ExtraText:
    """``json.dumps(claim_to_row(claim).extra, sort_keys=True)`` from a claim's fields.

    The object's keys in sorted order are observed, partitionable, preempted_user,
    resources; each string value and each resources object is encoded by ``json.dumps``
    once per distinct value (one instance per save), and the texts are joined with the
    separators ``json.dumps`` uses (``", "`` and ``": "``).
    """

    def __init__(self) -> None:
        self._strings: dict[str, str] = {}
        self._resources: dict[tuple[tuple[str, float], ...], str] = {}

    def _string(self, value: str) -> str:
        text = self._strings.get(value)
        if text is None:
            text = self._strings[value] = json.dumps(value)
        return text

    def __call__(self, observed: bool, partitionable: str | None,
                 resources: tuple[tuple[str, float], ...], preempted_user: str | None) -> str:
        parts = ['{"observed": ', "true" if observed else "false"]
        if partitionable is not None:
            parts += [', "partitionable": ', self._string(partitionable)]
        if preempted_user is not None:
            parts += [', "preempted_user": ', self._string(preempted_user)]
        if partitionable is not None:
            amounts = self._resources.get(resources)
            if amounts is None:
                amounts = self._resources[resources] = json.dumps(dict(resources),
                                                                  sort_keys=True)
            parts += [', "resources": ', amounts]
        parts.append("}")
        return "".join(parts)


def preempted_user(match: Match, live: Mapping[str, Claim]) -> str | None:
    """The user a match by preemption waits for the slot ad to stop showing: the one it
    preempted, or, when it preempted a claim still pending itself, the user that claim
    was waiting on (the ad still shows that one). None for a match that preempts none.
    ``live`` holds the claims at the start of the cycle by slot."""
    if match.preempting is None:
        return None
    before = live.get(match.slot)
    if before is not None and before.preempted_user is not None:
        return before.preempted_user
    return match.preempting


def _claim_slot(match: Match) -> str:
    if match.partitionable is not None:
        return f"{match.partitionable}#{match.job}"
    return match.slot


def _fields_of(claim: Claim) -> ClaimFields:
    return (claim.slot, claim.job, claim.submitter, claim.weight, claim.start_time,
            claim.partitionable, claim.resources, claim.observed, claim.preempted_user)


@dataclass
class LiveClaims:
    """The claims after the cycle: those live at its start (``before``, by slot) less
    the preempted, plus one per match at ``now`` (a piece of a partitionable slot is
    ``<slot>#<job>``; a match by preemption waits for the slot ad to stop showing the
    preempted user, ``core.negotiation.claims``: pending). The match claims are built only when
    asked for: a dry run without ``--explain`` needs their number only, a real run
    their rows only."""

    before: dict[str, Claim]
    matches: list[Match]
    preempted: list[Claim]
    now: float
    _built: list[Claim] | None = field(default=None, init=False, repr=False)

    def _kept(self) -> dict[str, Claim]:
        kept = dict(self.before)
        for gone in self.preempted:
            kept.pop(gone.slot, None)
        return kept

    def count(self) -> int:
        """How many claims ``claims()`` holds (a match's claim replaces a kept one of
        the same slot): the slots of the kept claims and of the matches' claims
        (``_claim_slot``, written out: a dry run counts every match of a large cycle)."""
        kept = self.before.keys() - {gone.slot for gone in self.preempted}
        return len(kept.union(
            [m.slot if m.partitionable is None else f"{m.partitionable}#{m.job}"
             for m in self.matches]))

    def _match_fields(self, match: Match) -> ClaimFields:
        if match.partitionable is not None:
            return (_claim_slot(match), match.job, match.submitter, match.weight, self.now,
                    match.partitionable, match.resources, False, None)
        return (match.slot, match.job, match.submitter, match.weight, self.now, None, (),
                False, preempted_user(match, self.before))

    def _all_fields(self) -> list[ClaimFields]:
        fields = {slot: _fields_of(c) for slot, c in self._kept().items()}
        for match in self.matches:
            fields[_claim_slot(match)] = self._match_fields(match)
        return [fields[k] for k in sorted(fields)]

    def claims(self) -> list[Claim]:
        """Every claim, in slot order (built once)."""
        if self._built is None:
            self._built = [Claim(*f) for f in self._all_fields()]
        return self._built

    def row_values(self) -> list[tuple[str, str, str, float, float, str]]:
        """The store's values of every claim in slot order: what ``claim_to_row`` gives
        (slot, job or "", submitter, weight, start_time) and its extra as JSON text
        (``Transaction.save_claim_values``)."""
        extra = ExtraText()
        return [(slot, job or "", submitter, weight, start,
                 extra(observed, partitionable, resources, pending))
                for (slot, job, submitter, weight, start, partitionable, resources,
                     observed, pending) in self._all_fields()]


@dataclass(frozen=True)
class Unbacked:
    """A submitter's in-use that no live claim holds (an import of ``condor_userprio
    -l`` brings "in use" without its claims): ended at the cycle's time, as ``count``
    claims of ``weight`` in all would be, so it stops accruing usage."""

    submitter: str
    count: int
    weight: float

    @property
    def moves(self) -> list[tuple[str, int, float]]:
        return [(self.submitter, -1, self.weight / self.count)] * self.count

    def row(self) -> dict[str, Any]:
        return {"slot": "-", "job": None, "submitter": self.submitter,
                "reason": f"in use without a claim: {self.count} slots, weight "
                          f"{self.weight:g} (imported)"}


def unbacked_in_use(state: AccountantState, live: Iterable[Claim]) -> list[Unbacked]:
    """Submitters whose ResourcesUsed exceeds their live claims (module doc of Unbacked);
    group records follow their submitters through ``charge_moves``."""
    held: dict[str, tuple[int, float]] = {}
    for claim in live:
        count, weight = held.get(claim.submitter, (0, 0.0))
        held[claim.submitter] = (count + 1, weight + claim.weight)
    out = []
    for name in sorted(state.records):
        record = state.records[name]
        if "@" not in name:
            continue
        count, weight = held.get(name, (0, 0.0))
        extra = record.resources_used - count
        if extra > 0 and record.weighted_resources_used - weight > 0:
            out.append(Unbacked(name, extra, record.weighted_resources_used - weight))
    return out
