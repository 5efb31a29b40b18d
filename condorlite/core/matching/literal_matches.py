"""A slot ``Requirements`` that reads the job through the slot's own literal tests:
the groups of a static's offers where it cannot hold for a class, passed over.

A busy desktop's ``START = false || TARGET.Owner == "alice"`` is hoisted
(``own_literals``) to ``TARGET.Owner == MY.<hidden>``, the owner a literal of the
vector, so the desktops of many owners share one static; every list walked all of
them (or all of their order, ``ordered_states``) to find its owner's few, one program
run per state (10,000-slot partitionable mix: static 6, 143 desktops, 467 lists,
66,781 states read for 604 entries). The literal tests the slot's ``Requirements``
reaches (``literal_orders.literal_tests``) take, for a class, values ``sigma`` that
depend only on the job's bindings of the names they read (each a literal, or unbound:
checked per class) and the offer's hidden literals they read (its *group*); for each
``sigma`` the ``Requirements`` with the tests replaced by ``sigma`` is specialised once
per static (the vector free, the job an empty ad): when that is a constant that does
not hold and the walk read nothing of the job, the group is *dead* for every class
with that ``sigma`` there, and ``LiteralMatches.live`` leaves its shapes out of the
class's walk (``carved_lists``; a static whose groups are all dead for a class is
passed over for good before its program is made). A static's offers are grouped once,
at its first list (a static never gains an offer, nor an offer its literals), and a
class's live groups once per (static, the job's bindings the tests read): a list
takes the shapes of those groups' available offers and reads no other. For one
equality test on string literals (the hoisted owner test) the groups are indexed by
their literal (``equal_literals``): the groups whose literal equals the job's value
and all the others have one ``sigma`` each, so two verdicts decide every group.

Exactness: the pair matches only if the slot's ``Requirements`` holds with MY the
state's ad and TARGET the job (``requirements_hold``, as ``MatchTable`` and the pair
programs test it). A test's value is a pure function of what it reads (the job's
literal binding and the offer's hidden literal, which carving keeps), so replacing
it by that value changes no value of ``Requirements``; every offer of a static binds
alike every name ``Requirements`` reaches but the vector's (a static's offers share
one program, made from its first offer), so the residual made at the first offer
holds at every state of every offer (``partial``'s contract); a residual that read
no name of the target has the same value for every job. So a dead group's states
never match the class: the walk over them makes no entry (a pair that does not match
makes none, held or not) and needs no pair. A class for which no group is dead, or
whose tests read more than a literal of the job, walks the static as before.
"""

from __future__ import annotations

from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ad import ClassAd as EmptyAd
from condorlite.core.classad.ast import AttrRef
from condorlite.core.classad.partial import Constant, specialize
from condorlite.core.matching.equal_literals import EqualGroups, classes, equal_groups
from condorlite.core.matching.literal_orders import LiteralSplit, exact, literal_tests
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.slot_vectors import free_pairs, holds, int_now

#: the slot's side of a match, as the tests' finder reaches it
REQUIREMENTS = AttrRef("Requirements", "my", "MY")

class LiteralMatches:
    """The cycle's splits of the slots' ``Requirements`` on their literal tests, per
    static, and which groups are dead for which class (module doc). ``registry``:
    the offers by position (``OfferShapes.registry``); ``known``: the tests' values
    by (the test's form, the job's binding) then the literal, shared with
    ``literal_orders`` (``LiteralSplit.sigmas_of``)."""

    def __init__(self, registry: list[Offer], known: dict, now: float | None) -> None:
        self._registry, self._known, self._now = registry, known, now
        #: static -> its split, None when its Requirements reach no literal test
        self._splits: dict[int, LiteralSplit | None] = {}
        #: the statics whose Requirements reach no literal test (``live`` answers None:
        #: read by ``carved_lists`` to pass over the call)
        self.unsplit: set[int] = set()
        #: whether Requirements cannot hold at a sigma, per static
        self._dead = DeadSigmas(now)
        #: static -> its offers by group, as they were at its first list (a static
        #: never gains an offer, an offer's literals never change)
        self._members: dict[int, dict[object, list[int]]] = {}
        #: static -> its groups by their literal's equality with a job's binding,
        #: None when its split has no such index (``equal_literals``)
        self._equal: dict[int, EqualGroups | None] = {}
        #: (static, the job's bindings the tests read) -> the groups where some state
        #: may match, or None when none is dead
        self._live: dict[tuple, list[object] | None] = {}

    def live(self, static: int, first: Offer, job_ad: ClassAd,
             shapes: dict[int, dict[int, None]]) -> dict[int, dict[int, None]] | None:
        """``shapes`` (shape -> its offers, of the static of ``first``) with only the
        shapes of the groups not dead for the class of ``job_ad`` (made from those
        groups' offers: their order is not ``shapes``', and the list sorts what the
        walk adds); None when no group is dead (or the class's tests read more than
        literals)."""
        split = self._splits.get(static, self)
        if split is self:
            split = self._split(static, first, shapes)
        if split is None:
            return None
        bindings = split.bindings(job_ad)
        if bindings is None:
            return None
        key = (static, bindings)
        alive = self._live.get(key, self)
        if alive is self:
            alive = self._live[key] = self._alive(static, split, bindings, job_ad)
        if alive is None:
            return None
        registry, members = self._registry, self._members[static]
        out = {}
        for group in alive:
            for seq in members[group]:
                shape = registry[seq].shape
                found = shapes.get(shape)
                if found is not None and seq in found:
                    out[shape] = found
        return out

    def _split(self, static: int, first: Offer, shapes: dict[int, dict[int, None]]
               ) -> LiteralSplit | None:
        """The static's split (``literal_orders.literal_tests`` of ``Requirements``)
        and its offers by group, at its first list."""
        found = literal_tests(first, REQUIREMENTS)
        split = self._splits[static] = None if found is None else LiteralSplit(
            first, REQUIREMENTS, self._now, *found)
        if split is None:
            self.unsplit.add(static)
        else:
            registry, group = self._registry, split.group
            by_group: dict[object, list[int]] = {}
            for offers in shapes.values():
                for seq in offers:
                    by_group.setdefault(group(registry[seq].vector.vals), []).append(seq)  # type: ignore[union-attr]
            self._members[static] = by_group
            self._equal[static] = equal_groups(split.tests, list(by_group))
        return split

    def _alive(self, static: int, split: LiteralSplit, bindings: tuple, job_ad: ClassAd
               ) -> list[object] | None:
        """The groups of the static where ``Requirements`` may hold for a class whose
        jobs bind the tests' names to ``bindings``, None when that is every group.
        With the static's groups indexed by their literal (``equal_literals``), the
        groups whose literal equals the job's value and every other group have one
        sigma each: two verdicts, and no group read but those matched."""
        equal = self._equal[static]
        if equal is not None:
            return self._alive_by_equality(static, split, equal, bindings)
        members = self._members[static]
        groups = list(members)
        sigmas = split.sigmas_of(bindings, groups, self._known)
        alive = self._dead.alive(static, split, groups, sigmas)
        return None if len(alive) == len(members) else alive

    def _alive_by_equality(self, static: int, split: LiteralSplit, equal: EqualGroups,
                           bindings: tuple) -> list[object] | None:
        """``_alive`` by the static's index (``equal_literals.classes``): the same
        groups, in the same order."""
        found = classes(split.sigmas_of, equal, bindings, self._known)
        matched_dead = (found.matched_sigma is not None
                        and self._dead.dead(static, split, found.matched_sigma))
        other_dead = (found.other_sigma is not None
                      and self._dead.dead(static, split, found.other_sigma))
        if not (matched_dead or other_dead):
            return None
        groups = equal.groups
        if other_dead:
            return [] if matched_dead else [groups[at] for at in found.matched]
        matched = set(found.matched)
        return [group for at, group in enumerate(groups) if at not in matched]


class DeadSigmas:
    """Whether ``Requirements`` cannot hold for any job where a slot's literal tests
    give a sigma (``never_for_any_job``), kept per (the slots' static or part, the
    exact sigma), for ``LiteralMatches`` and ``literal_tests.LiteralSieve``."""

    __slots__ = ("_dead", "_empty", "_now")

    def __init__(self, now: float | None) -> None:
        self._now = now
        #: (static or part, exact sigma) -> whether Requirements cannot hold there
        self._dead: dict[tuple, bool] = {}
        #: the job of the specialisation: an ad that binds nothing (its reads tell
        #: whether a residual depends on the job)
        self._empty = EmptyAd()

    def dead(self, static: int, split: LiteralSplit, sigma: tuple) -> bool:
        """Whether ``Requirements`` of ``static`` with the tests replaced by ``sigma``
        is a constant that does not hold and read nothing of the job."""
        key = (static, exact(sigma))
        found = self._dead.get(key)
        if found is None:
            found = self._dead[key] = never_for_any_job(split, sigma, self._empty, self._now)
        return found

    def alive(self, static: int, split: LiteralSplit, items: list, sigmas: list) -> list:
        """The items (each with its sigma, in order) whose sigma is not ``dead``. A
        verdict per sigma met here is keyed by its values' identities: they are the
        objects of the cycle's table of test values, alive while this runs, so equal
        identities are equal values; most items share one sigma."""
        verdicts: dict[tuple, bool] = {}
        alive = []
        for item, sigma in zip(items, sigmas, strict=True):
            ids = tuple(map(id, sigma))
            dead = verdicts.get(ids)
            if dead is None:
                dead = verdicts[ids] = self.dead(static, split, sigma)
            if not dead:
                alive.append(item)
        return alive


def never_for_any_job(split: LiteralSplit, sigma: tuple, empty: EmptyAd,
                      now: float | None) -> bool:
    """Whether ``Requirements`` with the split's tests replaced by ``sigma`` is a
    constant that does not hold and read nothing of the job (``empty``, an ad that
    binds nothing, stands for it): then no job matches a slot whose tests give
    ``sigma`` (``LiteralMatches``, ``literal_tests.LiteralSieve``)."""
    ad = split.replaced(sigma)
    reads: set[tuple[int, str]] = set()
    residual = specialize(REQUIREMENTS, ad, empty, free_pairs(ad, split.vector),
                          int_now(now), reads)
    return (type(residual) is Constant and not holds(residual.value)  # type: ignore[attr-defined]
            and not any(ad_id == id(empty) for ad_id, _ in reads))
