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
  (``PreqVerdicts.allowed``, by those numbers alone: one verdict per holder's key,
  shared by every class of equal numbers).

Such a group is given a *policy key* (``key_of``: a small number for (holder, the
slot's numbers)), and a list key's *refused keys* (``refused``) are the keys whose
groups it can never list. A walk passes over the groups of refused keys without their
pair (``HeldWalks.matching``); they can only count, for a rejection, as offers
``PREEMPTION_REQUIREMENTS`` refused, and only if their pair matches: exactly the
preemption-off lists' deferred groups (``Reasons.settle_deferred``, which evaluates
them at a rejection until one matches). So the lists decide and count as before.
"""

from __future__ import annotations

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Literal
from condorlite.core.matching.candidates import HeldGroup
from condorlite.core.matching.held_groups import HeldGroups
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.preq_verdicts import PreqVerdicts

#: the refused keys of a list key whose verdicts cannot be keyed by numbers
NONE_REFUSED: frozenset[int] = frozenset()


class HeldRefusals:
    """The policy keys of the held groups and the refused keys of each submitter
    (module doc). ``held``: the held groups (read only); ``registry``: the offers by
    seq; ``preq``: ``PREEMPTION_REQUIREMENTS`` by what it reads."""

    def __init__(self, held: HeldGroups, registry: list[Offer], preq: PreqVerdicts) -> None:
        self._held = held
        self._registry = registry
        self._preq = preq
        #: pair shape -> (``HeldGroups.added`` when worked out, its policy key or None)
        self._keys: dict[int, tuple[int, int | None]] = {}
        #: (holder, the slot's numbers) -> policy key; policy key -> (holder, an offer
        #: of the key: it stands for all, the verdict reading those numbers alone)
        self._numbering: dict[tuple, int] = {}
        self._standing: list[tuple[str, Offer]] = []
        #: (submitter, the job's numbers) -> (how many keys there were, refused keys)
        self._refused: dict[tuple, tuple[int, frozenset[int]]] = {}

    def key_of(self, pair_shape: int, group: HeldGroup, first: Offer) -> int | None:
        """The group's policy key (module doc), or None: its offers may be listed by
        rank, have several holders, or bind the policy's names otherwise than to
        literals alike. Worked out once per pair shape while no group gains an
        offer (``HeldGroups.added``)."""
        added = self._held.added
        found = self._keys.get(pair_shape)
        if found is not None and found[0] == added:
            return found[1]
        key = self._work_out(group, first)
        self._keys[pair_shape] = (added, key)
        return key

    def _work_out(self, group: HeldGroup, first: Offer) -> int | None:
        expr = adeval.attr(first.ad, "Rank")
        if type(expr) is not Literal or adeval.slot_rank(expr.value) > group.lowest_rank():
            return None  # (listed by rank for some job, or it cannot be told here)
        registry, slot_key = self._registry, self._preq.slot_key
        found: tuple | None = None
        stands: Offer | None = None
        for members in group.shapes.values():
            for seq in members:
                offer = registry[seq]
                numbers = slot_key(offer)
                if numbers is None:
                    return None
                mine = (offer.holder, numbers)
                if found is None:
                    found, stands = mine, offer
                elif mine != found:
                    return None
        if found is None or stands is None:
            return None  # (no offer left: the walk passes over it anyway)
        key = self._numbering.get(found)
        if key is None:
            key = self._numbering[found] = len(self._standing)
            self._standing.append((found[0], stands))
        return key

    def refused(self, class_id: int, job_ad: ClassAd, submitter: str, signature: tuple,
                jobs: dict) -> frozenset[int]:
        """The policy keys whose groups the class's lists of ``submitter`` can never
        list (module doc): the submitter's own, and those the policy refuses the
        job. ``jobs``: the caller's table of the job ad's numbers
        (``PreqVerdicts.allowed``). Kept per (submitter, the job's numbers of the
        policy's names) while no key is added; none when the job binds one of them
        to anything but a literal."""
        preq = self._preq
        numbers = preq.job_key(job_ad, jobs)
        if numbers is None:
            return NONE_REFUSED
        standing = self._standing
        cache_key = (submitter, numbers)
        found = self._refused.get(cache_key)
        if found is not None and found[0] == len(standing):
            return found[1]
        allowed = preq.allowed
        out = frozenset(
            key for key, (holder, offer) in enumerate(standing)
            if holder == submitter or not allowed(class_id, job_ad, offer, signature, jobs))
        self._refused[cache_key] = (len(standing), out)
        return out
