"""Why an offer is a candidate for a request, and the counts behind a rejection.

``Reasons.reason`` is HTCondor's rule for one offer (``matchmaker``'s module doc): an
offer nobody holds, by no preemption; a held one by rank when the slot's ``Rank`` of
the job beats its ``CurrentRank``, else by priority when the holder is another
submitter, ``PREEMPTION_REQUIREMENTS`` holds and the Rank is at least
``CurrentRank``; each refusal counted for the rejection reason. ``slot_rank`` is the
slot's Rank of a class's job, kept per rank key (``rank_key``: the slot's bindings of
what its Rank reaches, shared by many pair shapes), and ``settle_deferred`` counts the
held groups whose pair a list left unevaluated (``held_groups``): a static group of a
shared static part by the class key's program of the part (``_by_part``), which
answers as its pair does. One per cycle,
owned by the request lists (``request_lists.RequestLists``); it asks the match table
(``pair``, ``preemption_allowed``) and never the lists.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from operator import attrgetter, itemgetter

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import AttrRef, Binary, Expr, Literal, Paren
from condorlite.core.matching.autocluster import closure
from condorlite.core.matching.candidates import Candidates, PairEval, RejectCounts, as_rank
from condorlite.core.matching.evaluation_count import EvaluationCount
from condorlite.core.matching.held_counts import DeferredList
from condorlite.core.matching.match_table import MatchTable
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.own_literals import HIDDEN
from condorlite.core.matching.own_literals import NAMES as REWRITTEN
from condorlite.core.matching.shape_keys import ShapeKeys
from condorlite.core.matching.slot_ranks import SharedRanks, StringRows
from condorlite.core.model import NO_PREEMPTION, PRIO_PREEMPTION, RANK_PREEMPTION

_FIRST = itemgetter(0)
_PAIR_SHAPE = attrgetter("pair_shape")
#: "not looked up yet" (a program may be None)
_MISSING = object()
#: ``unhoisted`` walks no deeper (``own_literals`` rewrites no deeper than 200 either)
MAX_DEPTH = 200
#: whether ``_matching_count`` asks a static group by the class key's program of its
#: shared static part (``_by_part``) rather than by its pair (the tests switch it)
BY_PART = True


class Reasons:
    """A cycle's reasons and rejection counts (see the module doc)."""

    def __init__(self, table: MatchTable, counts: EvaluationCount, shape_keys: ShapeKeys
                 ) -> None:
        self.now = table.now
        self.per_submitter = table.per_submitter
        self._counts = counts
        self._pair, self._preemption_allowed = table.pair, table.preemption_allowed
        #: a static offer's vector when its part is shared, and the class key's
        #: program of that part (``_by_part``)
        self._vector_of, self._program_of = table.static_vector, table.static_program
        #: (class, bindings, id(deferred list)) -> (the list, what it adds to
        #: ``rej_policy``), for ``settle_deferred``
        self._settled: dict[tuple, tuple[list, int]] = {}
        #: held pair shape -> how many classes ``settle_deferred`` found it matching
        self._held_hits: dict[int, int] = {}
        #: id(a deferred list but a ``DeferredList``) -> (the list, pair shape ->
        #: position), for ``_matching_count``
        self._lists: dict[int, tuple[list, dict[int, int]]] = {}
        #: (class, bindings, rank key) -> the slot's Rank of the class (``slot_rank``)
        self._slot_ranks: dict[tuple, float] = {}
        #: pair shape -> its rank key; the slot's bindings of what its Rank reaches ->
        #: rank key (``rank_key``)
        self._rank_keys: dict[int, int] = {}
        self._rank_numbers: dict[tuple, int] = {}
        self._shape_keys = shape_keys
        #: the slot Ranks shared between classes by what they read (``slot_ranks``)
        self._shared = SharedRanks(shape_keys.canon.key)
        #: a plan's slot Ranks as one row, where they are string tests (``slot_ranks``)
        self._rows = StringRows(self._shared)

    def slot_rank(self, class_id: int, part: tuple, job_ad: ClassAd, offer: Offer) -> float:
        """The slot's ``Rank`` of the class's job in the offer's pair shape, as
        ``_evaluate_pair`` computes it (whether or not the pair matches): kept per
        rank key (``rank_key``), which held slots of many pair shapes share, and
        shared between classes by what it reads of the job (``slot_ranks``)."""
        expr = adeval.attr(offer.ad, "Rank")
        if type(expr) is Literal:
            return adeval.slot_rank(expr.value)  # the same for every job
        rank_key = self.rank_key(offer)
        key = (class_id, part, rank_key)
        found = self._slot_ranks.get(key)
        if found is None:
            # (shared between the classes that bind alike what the Rank reads of
            # the job, where that is known: ``slot_ranks``)
            shared = self._shared.key((class_id, part), job_ad, offer, expr, rank_key)
            found = None if shared is None else self._shared.values.get(shared)
            if found is None:
                self._counts.evaluations += 1
                found = adeval.slot_rank(adeval.eval_attr(offer.ad, "Rank", job_ad, self.now))
                if shared is not None:
                    self._shared.values[shared] = found
            self._slot_ranks[key] = found
        return found

    def walk_ranks(self, class_id: int, part: tuple, job_ad: ClassAd) -> WalkRanks:
        """The class key's slot Ranks by rank key for one held walk (``WalkRanks``)."""
        return WalkRanks(self._shared, job_ad, partial(self.slot_rank, class_id, part, job_ad))

    def slot_row(self, job_ad: ClassAd, keys: tuple[int, ...],
                 firsts: Callable[[], list[Offer]], ask: Callable[[Offer], float]
                 ) -> tuple | None:
        """The class's slot Ranks of the rank keys ``keys`` (first offers
        ``firsts()``) as ``slot_rank`` gives them (``ask``: the class's), in one row
        when they are string tests on a name the job binds to a string
        (``slot_ranks.StringRows``), else None."""
        return self._rows.row(job_ad, keys, firsts, ask)

    def rank_key(self, offer: Offer) -> int:
        """A small number standing for the slot's bindings of every name its ``Rank``
        reaches (``closure`` of ``Rank``, absent names included): equal numbers, an
        equal Rank of every job, since the evaluation reads nothing else of the slot.
        A pair shape keys more (a held dynamic slot's own ``Disk``, say), and all of
        its offers bind those names alike (they are walked): worked out once per
        pair shape. A desktop whose own literals were hoisted (``own_literals``) is
        keyed by its bindings with them put back (``unhoisted``): the same Rank of
        every job, and the key of a desktop of the same owner left as it was."""
        found = self._rank_keys.get(offer.pair_shape)
        if found is None:
            ad = offer.ad
            names = tuple(sorted(closure(ad, ("rank",))))
            if offer.literals:
                ad = unhoisted(ad, names)
                names = tuple(sorted(closure(ad, ("rank",))))
            bindings = self._shape_keys.key(ad, names, ())
            found = self._rank_numbers.setdefault(bindings, len(self._rank_numbers) + 1)
            self._rank_keys[offer.pair_shape] = found
        return found

    def settle_deferred(self, cands: Candidates, class_id: int, job_ad: ClassAd) -> None:
        """Add to ``cands.rej_policy`` the held offers whose pair with the class was left
        unevaluated when the list was made (see ``_by_shape``): a group counts if its
        pair matches. A rejection reads only whether the count is positive, so the
        groups are evaluated until one matches (which one is left open: the count
        added is that group's). Call before reading ``rej_policy``."""
        signature, deferred = cands.signature, cands.deferred
        # The answer is a function of the class and the list: remembered per (class,
        # list object), the lists being shared between a submitter's lists of a
        # class (``HeldGroups.deferred_counts``); the entry holds the list, so its
        # id stays its own.
        key = (class_id, signature if self.per_submitter else (), id(deferred))
        found = self._settled.get(key)
        if found is None or found[0] is not deferred:
            found = (deferred, self._matching_count(class_id, job_ad, signature, deferred))
            self._settled[key] = found
        cands.rej_policy += found[1]
        cands.deferred = []  # (the list may be shared: ``HeldGroups.deferred_counts``)

    def _matching_count(self, class_id: int, job_ad: ClassAd, signature: tuple,
                        deferred: list[tuple[Offer, int]]) -> int:
        """The count of the first group of ``deferred`` whose pair with the class
        matches, 0 when none does. A rejection only asks whether any offer was
        refused by the policy: any matching group will do, so the groups that
        matched other classes are tried first, most hits first, ties in the list's
        order (classes that run on the same machines match the same groups), then
        the rest in the list's order, each evaluation being a full one. The hit
        groups are found by pair shape (a few hundred hits; a disk-share list holds
        a group per held slot, and ordering the whole list by hits was a Python
        call per group on every rejection): a ``DeferredList`` through its
        source's positions, made once for every submitter's list of it (a 10k
        disk-share cycle: 88 lists of ~1,770 groups, one source), another list
        through its own (``_positions``)."""
        hits = self._held_hits
        pair = self._pair
        if hits:
            if type(deferred) is DeferredList:
                # (positions in the list's source, shared by every submitter's list
                # of it: ``held_groups.DeferredList``)
                at, entry = deferred.positions(), deferred.entry
            else:
                at, entry = self._positions(deferred), deferred.__getitem__
            tried = sorted([(i, shape) for shape in hits
                            if (i := at.get(shape)) is not None])
            for i, shape in sorted(tried, key=lambda t: -hits[t[1]]):
                found = entry(i)
                if found is not None and pair(class_id, job_ad, found[0], signature).match:
                    hits[shape] += 1
                    return found[1]
        if BY_PART:
            return self._by_part(class_id, job_ad, signature, deferred)
        for offer, group_count in deferred:
            if offer.pair_shape not in hits and pair(class_id, job_ad, offer,
                                                     signature).match:
                hits[offer.pair_shape] = 1
                return group_count
        return 0

    def _by_part(self, class_id: int, job_ad: ClassAd, signature: tuple,
                 deferred: list[tuple[Offer, int]]) -> int:
        """``_matching_count``'s loop over the groups of no hit, in the list's order,
        a static group of a shared static part asked by the class key's program of
        the part (``MatchTable.static_program``, one look-up per part and call):
        none at all where that program never matches (most groups of a class that
        matches none: a 10k disk-share cycle has 9 such rejections of ~1,770 groups
        each), else run at the group's numbers, which is the pair's answer
        (``MatchTable.run_part``; the result is not kept in the table: only whether
        it matches is read here). Any other group by its pair, as before."""
        hits, pair = self._held_hits, self._pair
        vector_of, program_of = self._vector_of, self._program_of
        klass = (class_id, signature if self.per_submitter else ())
        #: static part -> the class key's program of it, or None (by its pair)
        programs: dict[int, object] = {}
        runs = 0
        found = 0
        for offer, group_count in deferred:
            if offer.pair_shape in hits:
                continue
            vector = None if offer.vector is not None or offer.partitionable else \
                vector_of(offer)
            if vector is None:
                if not pair(class_id, job_ad, offer, signature).match:
                    continue
            else:
                program = programs.get(vector.static, _MISSING)
                if program is _MISSING:
                    program = programs[vector.static] = program_of(klass, job_ad, offer)
                if program is None:
                    if not pair(class_id, job_ad, offer, signature).match:
                        continue
                elif program.never:  # type: ignore[attr-defined]
                    continue
                else:
                    runs += 1
                    if not program.run(vector.vals, as_rank)[0]:  # type: ignore[attr-defined]
                        continue
            hits[offer.pair_shape] = 1
            found = group_count
            break
        self._counts.evaluations += runs
        return found

    def _positions(self, deferred: list[tuple[Offer, int]]) -> dict[int, int]:
        """Each group's position in ``deferred`` by its pair shape, made once per
        list (C-level passes; the lists are shared and never changed in place:
        ``HeldGroups.deferred_counts``)."""
        found = self._lists.get(id(deferred))
        if found is None or found[0] is not deferred:
            found = self._lists[id(deferred)] = (deferred, dict(zip(
                map(_PAIR_SHAPE, map(_FIRST, deferred)), range(len(deferred)), strict=True)))
        return found[1]

    def reason(self, class_id: int, job_ad: ClassAd, offer: Offer, submitter: str,
               signature: tuple, pe: PairEval, only_rank: bool,
               out: Candidates | RejectCounts) -> str | None:
        """Why ``offer`` is a candidate for the request (``matchmaker``'s module doc):
        no preemption, rank or priority, or None; a refusal by
        PREEMPTION_REQUIREMENTS is counted in ``out`` (a rejection's reason reads it)."""
        if offer.holder is None:
            return None if only_rank else NO_PREEMPTION
        if pe.slot_rank > offer.current_rank:
            return RANK_PREEMPTION
        if only_rank or offer.holder == submitter:
            return None
        if not self._preemption_allowed(class_id, job_ad, offer, signature):
            out.rej_policy += 1
            return None
        # (a slot whose Rank of the job is below its CurrentRank is not preempted for
        # priority: left out, no rejection reason counts it)
        return PRIO_PREEMPTION if pe.slot_rank >= offer.current_rank else None


def unhoisted(ad: ClassAd, names: tuple[str, ...]) -> ClassAd:
    """``ad`` with each of ``names`` that ``own_literals`` rewrote bound again to its
    form before the rewrite: every hidden reference (``MY.<hidden name>``, made only
    as an operand of a comparison, inside comparisons and parentheses) put back as
    the literal the ad binds it to. Evaluated, the two forms give the same value
    everywhere (``own_literals``' exactness); put back, the expression is the one the
    slot's ad held (equal by structure: ``expr_numbers.Canon``)."""
    changes: dict[str, tuple[str, Expr]] = {}
    for name in names:
        if name not in REWRITTEN:
            continue
        expr = adeval.attr(ad, name)
        if expr is None:
            continue
        back = _put_back(expr, ad, 0)
        if back is not expr:
            changes[name] = (adeval.spelling(ad, name) or name, back)
    return adeval.with_entries(ad, changes) if changes else ad


def _put_back(node: Expr, ad: ClassAd, depth: int) -> Expr:
    """``node`` with its hidden references replaced by the ad's literals (the
    rewrite's inverse: the forms ``own_literals._Hoister`` walks)."""
    kind = type(node)
    if kind is AttrRef:
        name = node.name  # type: ignore[attr-defined]
        if name.startswith(HIDDEN):
            bound = adeval.attr(ad, name)
            if type(bound) is Literal:
                return bound
        return node
    if depth > MAX_DEPTH:
        return node
    if kind is Paren:
        inner = _put_back(node.inner, ad, depth + 1)  # type: ignore[attr-defined]
        return node if inner is node.inner else Paren(inner)  # type: ignore[attr-defined]
    if kind is Binary:
        left = _put_back(node.left, ad, depth + 1)  # type: ignore[attr-defined]
        right = _put_back(node.right, ad, depth + 1)  # type: ignore[attr-defined]
        if left is node.left and right is node.right:  # type: ignore[attr-defined]
            return node
        return Binary(node.op, left, right)  # type: ignore[attr-defined]
    return node


class WalkRanks:
    """A class key's slot Ranks by rank key for one held walk (``held_walks``), each
    ``Reasons.slot_rank``'s value: a Rank that tests one name of the job with ``==``
    against an ASCII string (``slot_ranks.StringTest``), of a job that binds the name
    to an ASCII string, is taken from the cycle's shared values by that comparison's
    answer (``SharedRanks.values``, as ``StringRows`` takes a row: ``==`` on ASCII
    strings is ``str.lower`` equality) without the call, the job's string read once
    per name; any other, or a value not known yet, is asked of the class (``ask``:
    ``Reasons.slot_rank``, which evaluates and keeps it as ever). ``ranks``: those
    worked out, by rank key (the walk reads it first)."""

    __slots__ = ("_ask", "_job_ad", "_jobs", "_shared", "ranks")

    def __init__(self, shared: SharedRanks, job_ad: ClassAd, ask: Callable[[Offer], float]
                 ) -> None:
        self._shared, self._job_ad, self._ask = shared, job_ad, ask
        #: a name a Rank tests -> the job's string of it lower-cased, or None (not an
        #: ASCII string literal: asked)
        self._jobs: dict[str, str | None] = {}
        #: rank key -> the class key's slot Rank of its offers
        self.ranks: dict[int, float] = {}

    def of(self, rank_key: int, offer: Offer) -> float:
        """The class key's slot Rank of ``offer`` (whose rank key is ``rank_key``),
        kept in ``ranks``."""
        shared = self._shared
        test = shared.test(rank_key, offer)
        if test is not None and test.op == "==" and test.text.isascii():
            name = test.name
            job = self._jobs.get(name, _MISSING)
            if job is _MISSING:
                bound = adeval.attr(self._job_ad, name)
                job = self._jobs[name] = (
                    bound.value.lower() if type(bound) is Literal  # type: ignore[union-attr]
                    and type(bound.value) is str and bound.value.isascii() else None)
            if job is not None:
                value = shared.values.get((rank_key, test.text.lower() == job))
                if value is not None:
                    self.ranks[rank_key] = value
                    return value
        value = self.ranks[rank_key] = self._ask(offer)
        return value
