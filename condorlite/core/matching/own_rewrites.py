"""A slot's own policy folded and its own literals hoisted, worked out once per set of
entries they read (one ``OwnRewrites`` per cycle, owned by ``matchmaker.Matchmaker``).

Before its first shape every offer's ad is rewritten twice: ``own_policy`` folds the
slot's own numbers into its ``Start`` and ``Requirements``, ``own_literals`` hoists
the string literals its ``Rank``, ``Start`` and ``Requirements`` compare with the job
(one copy of the ad for both). What the two rebind is a function of the ad's entries
for a few names only:

* folding a policy entry reads its own entry and the ad's entries for the names it
  may look up (``OwnPolicy.reads``: its bare and ``MY.`` names not kept);
* hoisting reads the entries of ``Rank``, ``Start`` and ``Requirements`` after the
  folding, and records, for a static offer, the entries it replaced (``unhoist``).

So an offer whose ad holds, for ``Rank``, ``Start``, ``Requirements`` and every name
folding may read in the last two, the very entry objects of an earlier offer of the
same kind (partitionable or not) gets the earlier offer's rebindings, and its ad is
the same copy of its own with them made (made in the ad itself when the ad is a copy
the offer alone holds and nothing has read, ``Offer.private``: a held slot's with its
holder's ``Remote*``; the readers share entry objects between
ads holding the same line, so the slots of a machine type find theirs with one pass
of lookups). The first offer of each set of entries is rewritten as before
(``OwnPolicy.changes``, ``OwnLiterals.hoist``) and its rebindings are read off the
copy it got: the entries it holds that the original did not, the new names in the
order they were added. ``rewrite_all`` (the cycle's set-up, every offer in order)
keeps, per ``Start`` entry, what the last offer with it read and got (``_Run``), and
looks up no plan for an offer that holds the very entries that offer held, for the
three names and the plan's ``reads``: a hit of the same result (the plain slots of
a pool, one plan and one result, even where desktops come between them; a plan
keyed on outcomes, below, keeps none: each desktop holds its own number).

A fold that decides nothing is not made (``INLINED``, ``own_policy.decides_nothing``):
when it only puts, in place of references to names the ad binds to literals (not
strings), those literals
(``Requirements = START && WithinResourceLimits`` with ``START = true`` becomes
``true && WithinResourceLimits``), its rebindings are dropped, and an offer with
nothing else to rewrite (no literal to hoist) keeps its ad as it is: the offers of
its set too, with no 160-name copy each.
Every evaluation gives what it gave (the fold has the original's value in the ad,
``own_policy``), and no sharing is lost: the offers of the set hold the very same
entries for the names the fold read, so their walks visit those names with one
binding and split them no more than the folded expression did (a fold that
decides something, ``KeyboardIdle > 900`` made ``true`` for every idle desktop,
joins slots the unfolded walks would part, and is made as before).

A name that folding reads only to compare with integer constants (a desktop's
``KeyboardIdle > 15 * 60``: ``OwnPolicy.decided``) keys the fold on what the
comparisons give, not on its entry (``own_policy``'s ``DECIDED``). Where every
policy entry whose fold reads such a name keys it so, the rewrite is keyed so too
(``DECIDED``, ``_Plan.tests``: the comparisons of all of them, their outcomes in
place of the entry's id): equal outcomes give each fold its key, hence the very
same folded entries, and the rest of the rewrite reads those and the plan's three
entries. The outcomes are not worked out per offer: they are the same for every
integer of a region between the tests' constants, so the key takes each region's,
worked out once per plan (``folding.regions``, ``_decided_key``: two bisections).
The desktops of one owner then share two sets (idle or not): a desktop's rewrite
is a lookup, no fold. Such a plan counts its hits and misses alone (below): a miss
per owner and outcome is no sign that the next desktop misses.

A slot whose policy reads numbers of its own otherwise (a real, or a number read
outside a comparison with an integer) shares its set with no other slot: after
``MISSES`` misses of the sets of policy entries that read the same names (the
desktops of every owner) with fewer than one hit in ``SHARE`` lookups, their
offers go the way they went before, without the lookups.
Their folds are still few (``FOLDED``): a desktop's ``KeyboardIdle > 15 * 60 ||
TARGET.Owner == "alice"`` folds to one of two entries (``OwnPolicy`` makes equal
folds one entry), so each given-up plan remembers its rewrites by the ids of the
folded ``Start`` and ``Requirements`` entries: what the rest of the rewrite reads
(``own_policy.decides_nothing`` the plan's entries and the folded ones,
``OwnLiterals.hoist`` the three entries after folding) is then the same, and a hit
costs the fold alone, no hoisting and no comparing. A plan whose folds keep missing (``MISSES``,
``SHARE``: every slot folds to its own expression) is given up in turn.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from itertools import islice
from operator import is_
from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.classad.ast import Literal
from condorlite.core.classad.folding import Regions, regions
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.own_literals import NAMES, OwnLiterals
from condorlite.core.matching.own_policy import POLICY_NAMES, OwnPolicy, decides_nothing

#: misses of one set of policy entries before its hit rate is looked at
MISSES = 16
#: a set of policy entries is looked up while at least one lookup in this many hits
SHARE = 4
#: a fold that only inlines literals is dropped (module doc); off: made as any other
INLINED = True
#: a given-up plan's offers are rewritten per the entries their fold gave (module
#: doc); off: each in full
FOLDED = True
#: a name every fold of the plan keys on what its comparisons decide keys the
#: rewrite so too (module doc); off: on its entry, as every other name
DECIDED = True


class _Plan:
    """One (kind, ``Rank``, ``Start``, ``Requirements`` entries): the names folding
    may read, the rebindings per their entries' ids, and the hit and miss counts
    of every plan with those names (shared: the desktops of many owners)."""

    __slots__ = ("counts", "decided", "entries", "folded", "folded_counts", "reads",
                 "results", "tests")

    def __init__(self, entries: tuple, reads: tuple[str, ...], tests: tuple | None,
                 decided: tuple[tuple[int, Regions], ...] | None,
                 counts: list[int]) -> None:
        #: the three entries (held, so their ids stay theirs)
        self.entries = entries
        self.reads = reads
        #: per name of ``reads``, the comparisons every fold reading it keys it on
        #: (``OwnPolicy.decided``, all of them in turn), or None: keyed on its
        #: entry; None for no such name (``_tests``)
        self.tests = tests
        #: ``tests`` as the rewrite reads them: per name with tests, (its index in
        #: ``reads``, their ``Regions``); None for no such name (``_decided_key``)
        self.decided = decided
        #: the key of the ad's entries for ``reads`` (their ids, or for a name of
        #: ``tests`` bound to an integer literal they decide, their outcomes:
        #: ``_decided_key``) -> (those entries, held; the rebindings,
        #: empty for none; the hidden names; what ``unhoist`` puts back)
        self.results: dict[tuple, tuple] = {}
        #: [hits, misses] of the plans with these ``reads`` (with ``tests``: this
        #: plan's alone); misses is -1 once they are given up
        self.counts = counts
        #: once ``counts`` are given up (``FOLDED``): ids of the folded ``Start`` and
        #: ``Requirements`` entries (``OwnPolicy.changes``, None for unchanged) ->
        #: (those entries, held; then as in ``results``)
        self.folded: dict[tuple, tuple] = {}
        #: [hits, misses] of ``folded``, this plan's alone; misses -1: given up
        self.folded_counts = [0, 0]


class OwnRewrites:
    """The cycle's rewrites of offers' own policy and literals (module doc)."""

    def __init__(self, policy: OwnPolicy, literals: OwnLiterals) -> None:
        self._policy = policy
        self._literals = literals
        #: (partitionable, ids of the Rank, Start, Requirements entries) -> ``_Plan``
        self._plans: dict[tuple, _Plan] = {}
        #: the names folding may read -> [hits, misses] of the plans with them
        self._counts: dict[tuple[str, ...], list[int]] = {}
        #: one name's tests (``_Plan.tests``) -> their ``Regions`` (the desktops of
        #: every owner compare ``KeyboardIdle`` with the same constants)
        self._regions: dict[tuple, Regions] = {}

    def rewrite(self, offer: Offer) -> None:
        """Fold and hoist the offer's ad and set ``Offer.literals``: what
        ``OwnLiterals.hoist(offer, OwnPolicy.changes(offer))`` makes of it."""
        self._rewrite(offer)

    def rewrite_all(self, offers: list[Offer]) -> None:
        """``rewrite`` of each of ``offers`` not yet prepared (``seq < 0``), in order,
        the same outcome. An offer holding the very entries an offer rewritten
        before it held for ``Rank``, ``Start``, ``Requirements`` and the plan's
        ``reads`` (the plain slots of a pool: the readers share entry objects) is a
        hit of the same plan's same result: the last such result is kept by its
        ``Start`` entry (``_Run``, only for a plan keyed on the entries' ids), and
        the offer gets its rebindings with no key made and no plan looked up."""
        planned = self._planned
        #: id(a Start entry) -> the last ``_Run`` with it (which holds the entry,
        #: so the id stays its own)
        runs: dict[int, _Run] = {}
        for offer in offers:
            if offer.seq >= 0:
                continue
            ad = offer.state_ad
            table = adeval.table(ad)
            if table is None or ad.parent is not None or offer.vector is not None:  # type: ignore[union-attr]
                self._rewrite(offer)
                continue
            get = table.get
            start = get("start")
            run = runs.get(id(start))
            if (run is not None and get("rank") is run.rank
                    and get("requirements") is run.requirements
                    and offer.partitionable is run.partitionable
                    and run.counts[1] >= 0
                    and all(map(is_, map(get, run.reads), run.entries))):
                run.counts[0] += 1
                found = run.found
                if found[1]:
                    private = offer.private
                    offer.private = False
                    self._apply(offer, ad, table, private, found)
                else:  # (nothing rebound: the ad read as it is)
                    offer.private = False
                    offer.literals = found[2]
                continue
            private = offer.private
            offer.private = False
            run = planned(offer, ad, table, private, start)
            if run is not None:
                runs[id(start)] = run

    def _rewrite(self, offer: Offer) -> _Run | None:
        """``rewrite``; the ``_Run`` an offer holding the same entries would hit, when
        the offer was a hit or a miss of its plan's ``results`` (not given up), keyed
        on the entries' ids (not ``_Plan.decided``)."""
        # (an offer not yet prepared has no vector: its ad is ``state_ad`` itself,
        # read and set without ``Offer.ad``'s property calls)
        ad = offer.state_ad
        # (whether the ad is the offer's own unread copy: read from here on)
        private = offer.private
        offer.private = False
        table = adeval.table(ad)
        if table is None or ad.parent is not None or offer.vector is not None:  # type: ignore[union-attr]
            self._direct(offer)
            return None
        get = table.get
        return self._planned(offer, ad, table, private, get("start"))

    def _planned(self, offer: Offer, ad: adeval.ClassAd, table: dict, private: bool,
                 start: tuple | None) -> _Run | None:
        """``_rewrite`` of an offer whose ad is a top-level ClassAd-lite ad (``table``
        its table, ``start`` its ``Start`` entry; ``private`` read and cleared)."""
        get = table.get
        rank, requirements = get("rank"), get("requirements")
        partitionable = offer.partitionable
        key = (partitionable, id(rank), id(start), id(requirements))
        # (a plan and a result hold the entries their keys are the ids of: while
        # they live, no other object has those ids, so a hit is those entries)
        plan = self._plans.get(key)
        if plan is None:
            plan = self._plans[key] = self._plan(rank, start, requirements)
        counts = plan.counts
        if counts[1] < 0:
            if not FOLDED:
                self._direct(offer)
                return None
            found = self._folded(offer, table, plan)
            if found is not None:
                self._apply(offer, ad, table, private, found)
            return None
        entries = tuple(map(get, plan.reads))
        ids = (tuple(map(id, entries)) if plan.decided is None
               else _decided_key(entries, plan.decided))
        found = plan.results.get(ids)
        if found is None:
            counts[1] += 1
            found = plan.results[ids] = (entries, *self._first(offer, table))
            if counts[1] >= MISSES and counts[0] * SHARE < counts[1]:
                counts[1] = -1  # (the offers that read these names share nothing)
                return None
        else:
            counts[0] += 1
            self._apply(offer, ad, table, private, found)
        if plan.decided is not None:
            return None  # (a desktop's own number: the next holds another entry)
        return _Run(rank, start, requirements, partitionable, plan.reads, entries, found,
                    counts)

    def _apply(self, offer: Offer, ad: adeval.ClassAd, table: dict, private: bool,
               found: tuple) -> None:
        """Make a remembered rewrite ``found`` (entries, rebindings, hidden names,
        what ``unhoist`` puts back) in the offer's ad (``table`` its table; ``private``:
        the offer's own unread copy)."""
        changes = found[1]
        if changes:
            if private:
                # the offer's own copy, unread (``offers``): ``with_entries``'s table
                # made in it (the same names in the same order, the same entries)
                table.update(changes)
            else:
                offer.state_ad = adeval.with_entries(ad, changes)
            if found[3] is not None:
                self._literals.remember(offer, found[3])
        offer.literals = found[2]

    def _plan(self, rank: tuple | None, start: tuple | None,
              requirements: tuple | None) -> _Plan:
        """A new plan for the three entries: its ``reads`` (the names folding may
        look up for either policy entry, ``OwnPolicy.reads``, sorted), ``tests``
        (``_tests``) and counts."""
        policy = self._policy
        folds = [(policy.reads(entry), policy.decided(name, entry) if DECIDED else {})
                 for name, entry in zip(POLICY_NAMES, (start, requirements), strict=True)
                 if entry is not None]
        reads = tuple(sorted({name for names, _ in folds for name in names}))
        tests = self._tests(reads, folds)
        if tests is None:
            counts = self._counts.get(reads)
            if counts is None:
                counts = self._counts[reads] = [0, 0]
            return _Plan((rank, start, requirements), reads, None, None, counts)
        # (keyed on outcomes, a plan misses once per outcome, not once per slot: its
        # hits and misses its own, not those of every owner's)
        decided = []
        for index, found in enumerate(tests):
            if found is not None:
                known = self._regions.get(found)
                if known is None:
                    known = self._regions[found] = regions(found)
                decided.append((index, known))
        return _Plan((rank, start, requirements), reads, tests, tuple(decided), [0, 0])

    def _folded(self, offer: Offer, table: dict, plan: _Plan) -> tuple | None:
        """The rewrite of an offer of a given-up plan, remembered by the entries the
        fold gave (module doc, ``FOLDED``): a hit's (entries, rebindings, hidden
        names, what ``unhoist`` puts back), or None once the offer is rewritten in
        full (a miss, or this plan's folds given up too)."""
        counts = plan.folded_counts
        if counts[1] < 0:
            self._direct(offer)
            return None
        folded = self._policy.changes(offer)
        entries = (folded.get("start"), folded.get("requirements"))
        ids = (id(entries[0]), id(entries[1]))
        found = plan.folded.get(ids)
        if found is None:
            counts[1] += 1
            plan.folded[ids] = (entries, *self._first(offer, table, folded))
            if counts[1] >= MISSES and counts[0] * SHARE < counts[1]:
                counts[1] = -1  # (every slot folds to its own expression)
            return None
        counts[0] += 1
        return found

    def _direct(self, offer: Offer, folded: dict[str, tuple] | None = None) -> None:
        """The rewrite as the two modules make it, nothing remembered; a fold that
        decides nothing left out (``INLINED``, module doc). ``folded``: the offer's
        ``OwnPolicy.changes`` when already made."""
        changes = self._policy.changes(offer) if folded is None else folded
        if INLINED and changes and decides_nothing(offer.ad, changes):
            changes = {}
        offer.literals = self._literals.hoist(offer, changes)

    def _first(self, offer: Offer, table: dict, folded: dict | None = None) -> tuple:
        """Rewrite an offer in full and read off its rebindings: (the entries its new
        ad holds that ``table`` did not, in the order ``with_entries`` makes them,
        the hidden names, what ``unhoist`` would put back or None)."""
        before_ad = offer.ad
        self._direct(offer, folded)
        new = adeval.table(offer.ad)
        if offer.ad is before_ad or new is None:
            return {}, offer.literals, None
        changes: dict[str, tuple] = {}
        for name in (*POLICY_NAMES, *NAMES):
            entry = new.get(name)
            if entry is not None and entry is not table.get(name):
                changes[name] = entry
        # (names the copy added come last, in the order they were added)
        added = len(new) - len(table)
        for name in reversed(list(islice(reversed(new), added))):
            changes[name] = new[name]
        return changes, offer.literals, self._literals.replaced(offer)

    @staticmethod
    def _tests(reads: tuple[str, ...], folds: list[tuple[tuple[str, ...], dict]]
               ) -> tuple | None:
        """``_Plan.tests`` (``DECIDED``): per name of ``reads``, the ``Decision`` s
        of every policy entry whose fold reads it, one after the other, when each
        keys it on them (``folds``: per policy entry, its ``OwnPolicy.reads`` and
        ``OwnPolicy.decided``), else None; None when no name is.
        Equal outcomes of them all give each fold its key, hence the same folded
        entries (``OwnPolicy`` makes equal folds one entry), and the rest of the
        rewrite reads those and the plan's three entries only (module doc)."""
        # (only a name some fold decides can have tests: the others are None)
        names = {name for _, decided in folds for name in decided}
        if not names:
            return None
        tests: dict[str, tuple | None] = dict.fromkeys(reads)
        for name in names:
            mine: tuple | None = ()
            for reading, decided in folds:
                if name in reading:
                    found = decided.get(name)
                    if found is None:
                        mine = None
                        break
                    mine += found  # type: ignore[operator]
            tests[name] = mine
        found_any = tuple(tests.values())
        return found_any if any(found_any) else None


class _Run(NamedTuple):
    """What an offer's rewrite read and gave (``OwnRewrites.rewrite_all``): an offer
    holding the very same ``rank``, ``start`` and ``requirements`` entries, of the
    same kind, and the very ``entries`` for ``reads`` is a hit of ``found`` (the
    plan's result: entries, rebindings, hidden names, what ``unhoist`` puts back),
    counted in ``counts``."""

    rank: tuple | None
    start: tuple | None
    requirements: tuple | None
    partitionable: bool
    reads: tuple[str, ...]
    entries: tuple
    found: tuple
    counts: list[int]


def _decided_key(entries: tuple, decided: tuple[tuple[int, Regions], ...]) -> tuple:
    """A result's key where the plan has ``tests`` (``_Plan.decided``): the entries'
    ids, but for a name with tests bound to an integer literal within 64 bits, the
    outcomes of its tests (``Regions``: two bisections, no comparison made); equal
    to ``own_policy``'s key of the outcomes, ``folding.outcomes``."""
    key = list(map(id, entries))
    for index, (cuts, outcomes, bound) in decided:
        entry = entries[index]
        if entry is not None and type(entry[1]) is Literal:
            value = entry[1].value
            if type(value) is int and -bound < value < bound:
                key[index] = outcomes[bisect_left(cuts, value) + bisect_right(cuts, value)]
    return tuple(key)
