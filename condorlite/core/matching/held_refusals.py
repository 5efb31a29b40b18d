"""Held groups a submitter's lists can never list, known before any pair is asked.

With priority preemption on, a class's list walks every held group the class matches
(``held_walks``), and then settles the reason of each of their shapes
(``held_lists``). On a pool of claimed desktops the usual policy,
``RemoteUserPrio > SubmitterUserPrio * 1.2``, refuses every offer of a holder whose
priority is good enough, whatever the job: about a third of the groups a class matches
there (and every one, for the submitters of the best priority) are walked and run only
to be refused. What decides it is known without the pair:

* a group whose slot ``Rank`` is a literal ``r`` with ``not r > CurrentRank`` of its
  lowest offer gives no entry by rank to any job (``Reasons.reason``; the group only
  loses offers once the cycle's offers are prepared, so its lowest ``CurrentRank``
  only rises);
* when all of the group's offers have one holder ``h`` and bind the names
  ``PREEMPTION_REQUIREMENTS`` reads alike, to literals (``PreqVerdicts.slot_key``),
  they give no entry by priority to submitter ``s`` when ``h == s`` (its own) or when
  the policy refuses the job's numbers of those names against the slot's
  (``PreqVerdicts.static_allowed``, by those numbers alone: one verdict per
  holder's key, shared by every class of equal numbers).

Such a group is given a *policy key* (``key_of``: a small number for (holder, the
slot's numbers)); a group of one holder and literal numbers that may be listed by rank
has the same number as its *preq key* alone (``GroupKeys.preq``): the walk cannot pass
over it, but the list's verdict of the key settles its offers not listed by rank
without asking the policy per shape (``held_lists``). And a list key's *refusals*
(``refusals``: one ``Refusals`` per submitter and job numbers) tell, a key at a time
as a walk meets it, the keys whose groups it can never list. A walk passes over the
groups of refused keys without their pair (``HeldWalks.matching``); they can only
count, for a rejection, as offers ``PREEMPTION_REQUIREMENTS`` refused, and only if
their pair matches: exactly the preemption-off lists' deferred groups
(``Reasons.settle_deferred``, which evaluates them at a rejection until one
matches). So the lists decide and count as before.

A refusals' verdict of a key other than the submitter's own is, for the usual
policy, one comparison: the residual of the job's numbers is ``RemoteUserPrio > p``
(``PreqVerdicts.static_bound``, made at the refusals' first such key), so a key whose
offer binds that name alone, to a number of ``p``'s type, is answered by comparing
its value (kept with the key, ``KeyStanding``), and the verdict is kept as the
static table's (``PreqVerdicts.static_known``: counted as before); any other key, or
a residual that is not one bound, asks ``PreqVerdicts.static_allowed`` as before.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Literal
from condorlite.core.matching.candidates import HeldGroup
from condorlite.core.matching.held_groups import HeldGroups
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.preq_verdicts import PreqBound, PreqVerdicts

#: a policy key's verdict (``Refusals.verdicts``): its groups may be listed; refused
#: by the policy (they may count for a rejection); the submitter's own (never listed,
#: never counted: a submitter's own offers are no refusal)
ALLOWED, REFUSED, OWN = 0, 1, 2

#: a refusals' bound not yet worked out for a set of names
UNKNOWN = object()


class KeyStanding(NamedTuple):
    """A policy key's holder and the offer that stands for its groups, with that
    offer's numbers of the policy's names (``PreqVerdicts.slot_key``) and the names
    it binds with their values (``PreqVerdicts.slot_side``)."""

    holder: str
    offer: Offer
    numbers: tuple
    side: tuple[tuple[str, ...], tuple]


class GroupKeys(NamedTuple):
    """A held group's keys (``HeldRefusals.key_of``)."""

    #: its policy key: the walk may pass over the group when its list refuses it
    policy: int | None
    #: the same numbering, for the policy's verdict alone (its offers may still be
    #: listed by rank): the key of one holder and numbers of the policy's names
    preq: int | None


#: the keys of a group of several holders, or of names bound to non-literals
NO_KEYS = GroupKeys(None, None)


class Refusals:
    """Which policy keys a submitter's job (of given numbers of the names the policy
    reads) can never take a group of (module doc), worked out a key at a time: the
    submitter's own, and those the policy refuses. ``allowed(offer)``: the policy's
    verdict for the job against an offer of the key (``PreqVerdicts.static_allowed``,
    by the numbers alone); ``bound(offer)``: the job's verdicts as one comparison
    (``PreqVerdicts.static_bound``), asked once per set of names the keys' offers
    bind; ``known(numbers, verdict)``: keeps a verdict of the bound
    (``PreqVerdicts.static_known``); ``standing``: each key's ``KeyStanding``."""

    __slots__ = ("_allowed", "_bounds", "_known", "_make_bound", "_standing",
                 "_submitter", "verdicts")

    def __init__(self, submitter: str, allowed: Callable[[Offer], bool],
                 bound: Callable[[Offer], PreqBound | None],
                 known: Callable[[tuple, bool], bool], standing: list[KeyStanding]) -> None:
        self._submitter = submitter
        self._allowed = allowed
        self._make_bound = bound
        #: the static names a key's offer binds -> the job's bound for such offers
        #: (``PreqBound``), or None
        self._bounds: dict[tuple[str, ...], PreqBound | None] = {}
        self._known = known
        self._standing = standing
        #: policy key -> ``ALLOWED``, ``REFUSED`` or ``OWN`` (true when refused)
        self.verdicts: dict[int, int] = {}

    def refuses(self, key: int) -> int:
        """Whether the groups of ``key`` can never be listed, and why: ``ALLOWED``
        (false), ``REFUSED`` or ``OWN`` (kept per key)."""
        found = self.verdicts.get(key)
        if found is None:
            standing = self._standing[key]
            if standing.holder == self._submitter:
                found = self.verdicts[key] = OWN
                return found
            names, values = standing.side
            bound = self._bounds.get(names, UNKNOWN)
            if bound is UNKNOWN:
                bound = self._bounds[names] = self._make_bound(standing.offer)
            if bound is not None and type(values[0]) is bound.kind:  # type: ignore[union-attr]
                allowed = self._known(standing.numbers, bound.compare(  # type: ignore[union-attr]
                    values[0], bound.number))  # type: ignore[union-attr]
            else:
                allowed = self._allowed(standing.offer)
            found = self.verdicts[key] = ALLOWED if allowed else REFUSED
        return found


class HeldRefusals:
    """The policy keys of the held groups and the refused keys of each submitter
    (module doc). ``held``: the held groups (read only); ``registry``: the offers by
    seq; ``preq``: ``PREEMPTION_REQUIREMENTS`` by what it reads."""

    def __init__(self, held: HeldGroups, registry: list[Offer], preq: PreqVerdicts) -> None:
        self._held = held
        self._registry = registry
        self._preq = preq
        #: pair shape -> (``HeldGroups.added`` when worked out, its keys)
        self._keys: dict[int, tuple[int, GroupKeys]] = {}
        #: (holder, the slot's numbers) -> policy key; policy key -> its ``KeyStanding``
        #: (an offer of the key stands for all, the verdict reading those numbers alone)
        self._numbering: dict[tuple, int] = {}
        self._standing: list[KeyStanding] = []
        #: (submitter, the job's numbers) -> its refusals
        self._refusals: dict[tuple, Refusals] = {}

    def key_of(self, pair_shape: int, group: HeldGroup, first: Offer) -> GroupKeys:
        """The group's keys (``GroupKeys``): its policy key (module doc), or None:
        its offers may be listed by rank, have several holders, or bind the
        policy's names otherwise than to literals alike; and its key for the policy
        alone, whatever its Rank. Worked out once per pair shape while no group
        gains an offer (``HeldGroups.added``)."""
        added = self._held.added
        found = self._keys.get(pair_shape)
        if found is not None and found[0] == added:
            return found[1]
        keys = self._work_out(group, first)
        self._keys[pair_shape] = (added, keys)
        return keys

    def _work_out(self, group: HeldGroup, first: Offer) -> GroupKeys:
        preq = self._preq
        registry, slot_key = self._registry, preq.slot_key
        found: tuple | None = None
        stands: Offer | None = None
        for members in group.shapes.values():
            for seq in members:
                offer = registry[seq]
                numbers = slot_key(offer)
                if numbers is None:
                    return NO_KEYS
                mine = (offer.holder, numbers)
                if found is None:
                    found, stands = mine, offer
                elif mine != found:
                    return NO_KEYS
        if found is None or stands is None:
            return NO_KEYS  # (no offer left: the walk passes over it anyway)
        key = self._numbering.get(found)
        if key is None:
            key = self._numbering[found] = len(self._standing)
            side = preq.slot_side(stands)
            assert side is not None  # (``slot_key`` is not None: literals or unbound)
            self._standing.append(KeyStanding(found[0], stands, found[1], side))
        expr = adeval.attr(first.ad, "Rank")
        if type(expr) is not Literal or adeval.slot_rank(expr.value) > group.lowest_rank():
            return GroupKeys(None, key)  # (listed by rank for some job, or it may be)
        return GroupKeys(key, key)

    def refusals(self, class_id: int, job_ad: ClassAd, submitter: str, signature: tuple
                 ) -> Refusals | None:
        """The refusals of the class's lists of ``submitter`` (module doc), shared
        by every job of the same numbers of the policy's names (the verdicts read
        nothing else: ``class_id`` and ``signature``, which the policy's fallback
        evaluation would read, are not needed); None when the job binds one of them
        to anything but a literal (then nothing is known before the pair)."""
        preq = self._preq
        jobs: dict = {}  # (the job ad's numbers, ``PreqVerdicts.job_key``)
        numbers = preq.job_key(job_ad, jobs)
        if numbers is None:
            return None
        cache_key = (submitter, numbers)
        found = self._refusals.get(cache_key)
        if found is None:
            # (a key's offer binds the policy's names to literals, as the job does:
            # the static table's verdict, ``PreqVerdicts.static_allowed``)
            found = self._refusals[cache_key] = Refusals(
                submitter, partial(preq.static_allowed, job_ad, numbers),
                partial(preq.static_bound, job_ad, numbers),
                partial(preq.static_known, numbers), self._standing)
        return found
