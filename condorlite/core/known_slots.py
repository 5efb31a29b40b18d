"""Slots of a known layout and known entries decoded with one key: the screen's and
the facts' names together (``KnownSlots``), for ``negotiate``'s reading pass.

A slot ad that passes is read twice per name set in the ad-by-ad way: the screen
(``ad_screen.AdScreen``: a key of the root names, a key of the level below, the
layout of that level's entries) and the decoder (``ad_decoder.AdDecoder.slot``: a
key of ``SLOT_FACT_NAMES``, then Name, the weight, the holder and JobId when busy,
Machine, each through ``decoding.value_of``). A pool's slots hold a few dozen sets of
the entries of ``KNOWN_NAMES`` (the screen's root names, the facts' names, SlotWeight
and the holder names before RemoteUser), so ``KnownSlots`` keeps, per ``entry_key`` of
those entries, what they settle (a ``_Known``):

* the screen's ``Route``: the ad is screened plain when it has no level below the
  root, or when its layout there (``ad_screen._layout``, worked out from the ad) is
  one of the level's shared leaves and that leaf is plain;
* the ``SlotFacts`` (kind, State, Activity, busy, CurrentRank), all literals;
* the weight: a constant (weights off, or a literal SlotWeight that is a number), or
  the bare name whose literal number it is (``SlotWeight = Cpus``, or SlotWeight
  absent and the policy's ``SLOT_WEIGHT`` a bare name);
* the holder, when busy: a constant (the first keyed holder name that is a literal
  non-empty string), or RemoteUser's, read per slot.

Each slot then reads only what is its own: Name, the layout's entries, the weight's
name, Machine, and RemoteUser and JobId when busy, and each must be a literal (or
absent) of the type the ad-by-ad way takes without evaluating or failing; for
anything else ``slot`` answers None, having done nothing, and the caller takes the
ad-by-ad way (which gives the problem, in its order). So ``slot``'s Slot is the one
``AdDecoder.slot`` gives after a plain screening: the same fields, the same ad.

Only what is read from literals or absent names is kept (no evaluation), the
entries of each key are held (their ids stay theirs), and the memo is cleared at
``MAX`` keys and goes with the reading pass.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import NamedTuple

from condorlite.core.ad_decoder import EXACT, SLOT_FACT_NAMES, SlotFacts, new_slot, slot_facts
from condorlite.core.ad_screen import ROOT, AdScreen, Route
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import AttrRef, Literal
from condorlite.core.decoding import MAX_SLOT_WEIGHT, checked_weight, parsed_slot_weight
from condorlite.core.entry_keys import entry_key
from condorlite.core.model import Slot
from condorlite.core.policy import Policy

#: The holder names (``decoding.holder_of``'s order) that are keyed: a pool's slots
#: share their (mostly absent) entries; RemoteUser, each user's, is read per slot.
KEYED_HOLDERS = ("preemptingaccountinggroup", "preemptinguser", "accountinggroup")

#: What a ``_Known`` is keyed by (module doc).
KNOWN_NAMES = (*ROOT["slot"], *SLOT_FACT_NAMES, "slotweight", *KEYED_HOLDERS)


class _Known(NamedTuple):
    """What the entries of one key of ``KNOWN_NAMES`` settle (module doc)."""

    entries: tuple  # held, so that the key's ids stay theirs
    route: Route
    facts: SlotFacts
    #: the weight when it is the key's alone, else None (then ``weight_name``'s)
    weight: float | None
    weight_name: str | None
    #: the holder when a keyed name gives it, else None (then RemoteUser's, if busy)
    holder: str | None


class KnownSlots:
    """The memo of one reading pass of slot ads under ``policy`` (module doc)."""

    __slots__ = ("_known", "policy")

    MAX = 4096

    def __init__(self, policy: Policy) -> None:
        self.policy = policy
        self._known: dict[Hashable, _Known] = {}

    def slot(self, ad: ClassAd, table: dict, index: int) -> Slot | None:
        """The Slot of ``ad`` (a top-level ClassAd-lite ad, ``table`` its table) at
        place ``index`` when its key is known and what it reads of its own is
        plain (module doc), else None. (One function, read top to bottom: it runs
        once per slot of the pool, and each call it would split into costs about as
        much as a line it reads.)"""
        known = self._known.get(entry_key(table, KNOWN_NAMES))
        if known is None:
            return None
        get = table.get
        names, shared = known.route
        if names:
            # ``ad_screen._layout`` of the level's entries
            layout = tuple([0 if (entry := get(name)) is None
                            else 1 if type(entry[1]) is Literal else id(entry)
                            for name in names])
            leaf = shared.get(layout)
            if leaf is None or not leaf[1].plain:
                return None
        entry = get("name")
        if entry is None or type(expr := entry[1]) is not Literal:
            return None
        name = expr.value
        if not isinstance(name, str) or not name:
            return None
        weight = known.weight
        if weight is None:
            entry = get(known.weight_name)
            if entry is None or type(expr := entry[1]) is not Literal:
                return None
            value = expr.value
            kind = type(value)
            if kind is int:
                if not -EXACT < value < EXACT:
                    return None
            elif kind is not float or value != value:
                return None
            weight = max(float(value), 0.0)
            if not weight <= MAX_SLOT_WEIGHT:
                return None
        facts = known.facts
        holder = job_id = None
        if facts.busy:
            holder = known.holder
            if holder is None:
                entry = get("remoteuser")
                if entry is not None:
                    if type(expr := entry[1]) is not Literal:
                        return None
                    value = expr.value
                    holder = value if isinstance(value, str) and value else None
            entry = get("jobid")
            if entry is not None:
                if type(expr := entry[1]) is not Literal:
                    return None
                value = expr.value
                job_id = value if isinstance(value, str) else None
        entry = get("machine")
        if entry is None:
            machine = name.rsplit("@", 1)[-1]
        else:
            if type(expr := entry[1]) is not Literal:
                return None
            value = expr.value
            machine = value if isinstance(value, str) and value else name.rsplit("@", 1)[-1]
        return new_slot(name, index, ad, facts.state, facts.activity, facts.kind, weight,
                        holder, job_id, facts.current_rank, machine)

    def learn(self, ad: ClassAd, table: dict, screen: AdScreen) -> None:
        """Keep what the ``KNOWN_NAMES`` entries of ``ad`` (a top-level ClassAd-lite
        slot ad just decoded, screened by ``screen``; ``table`` its table) settle,
        when they settle all of it (module doc). Whether a later ad's screening is
        plain is ``slot``'s to check (its route's leaf), so ``ad``'s need not be."""
        key = entry_key(table, KNOWN_NAMES)
        known = self._known
        if key in known:
            return  # (a slot of a known key that ``slot`` leaves to the ad-by-ad way)
        route = screen.route(table)
        if route is None:
            return
        entries = tuple(map(table.get, KNOWN_NAMES))
        if not all(entry is None or type(entry[1]) is Literal
                   for entry in map(table.get, SLOT_FACT_NAMES)):
            return
        weight, weight_name = self._weight(ad, table)
        if weight is None and weight_name is None:
            return
        holder = None
        for name in KEYED_HOLDERS:
            entry = table.get(name)
            if entry is None:
                continue
            if type(entry[1]) is not Literal:
                return
            value = entry[1].value
            if isinstance(value, str) and value:
                holder = value
                break
        if len(known) >= self.MAX:
            known.clear()
        known[key] = _Known(
            entries, route, slot_facts(ad, table), weight, weight_name, holder)

    def _weight(self, ad: ClassAd, table: dict) -> tuple[float | None, str | None]:
        """The weight of the slots of ``ad``'s key, or the bare name whose literal
        number is their weight (``decoding._slot_weight``'s cases that read no other
        name), or (None, None)."""
        policy = self.policy
        if not policy.negotiator_use_slot_weights:
            return 1.0, None
        entry = table.get("slotweight")
        if entry is None:
            expr = policy.derived(parsed_slot_weight)
        else:
            expr = entry[1]
            if type(expr) is Literal:
                value = expr.value
                if type(value) in (int, float) and value == value:
                    # the key's alone; the ad was decoded, so it is within bounds
                    return checked_weight(ad, table, policy), None
                return None, None
        if type(expr) is AttrRef and expr.scope is None:
            return None, expr.name.lower()
        return None, None

