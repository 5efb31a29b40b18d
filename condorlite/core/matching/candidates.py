"""Candidate lists: pair results, the ordered entries of a request, negotiator ranks.

An *entry* is one offer in one request's candidate list, flat so that sorting compares a
single level of tuple: (-PRE_JOB_RANK, -job Rank, -POST_JOB_RANK, -reason order,
-PREEMPTION_RANK, slot Name, position, offer version, reason). Sorting ascending puts
the best candidate first, ties broken by slot Name (then position, which is unique).
"""

from __future__ import annotations

import struct
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.matching.carving import PairProgram
from condorlite.core.matching.lazy_runs import reach
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.rank_columns import RankColumn
from condorlite.core.model import NO_PREEMPTION, REASON_ORDER

FLT_MAX = 3.4028234663852886e38

PRE, POST, PRANK = "pre", "post", "prank"
#: an ordered static's item's post-job rank when it reads the job (``static_orders``:
#: the entry takes the pair result's)
DEPENDENT = object()


def as_rank(value: object) -> float:
    """A negotiator rank: a number rounded to single precision, else -FLT_MAX."""
    kind = type(value)
    if kind is float or kind is int:  # (``adeval.as_float`` of a plain number, inline)
        number = float(value)  # type: ignore[arg-type]
        if number != number:
            return -FLT_MAX
    else:
        number = adeval.as_float(value)  # type: ignore[assignment]
        if number is None:
            return -FLT_MAX
    if abs(number) > FLT_MAX:
        return FLT_MAX if number > 0 else -FLT_MAX
    return _unpack(_pack(number))[0]


_SINGLE = struct.Struct("f")
_pack, _unpack = _SINGLE.pack, _SINGLE.unpack


#: the dependent ranks of a pair without any (shared: a pair's dicts are only read)
_NO_RANKS: dict[str, float] = {}


class PairEval(NamedTuple):
    """A job class evaluated against a slot shape (a named tuple: one is made for
    every pair evaluated, ``make_pair`` makes one of a program's outcome in one C
    call). Its dicts are shared and only read."""

    match: bool
    job_rank: float = 0.0
    slot_rank: float = 0.0  # NaN when the slot's Rank is no number (adeval.slot_rank)
    dependent: dict[str, float] = _NO_RANKS
    #: what a job of the class takes from a partitionable slot of the shape
    taken: dict[str, float] | None = None


#: ``PairEval(*outcome)`` of a 5-tuple (match, job rank, slot rank, dependent, taken)
make_pair = partial(tuple.__new__, PairEval)

NO_MATCH = PairEval(False)


class HeldGroup:
    """The available held offers of one pair shape (without a resource vector), by
    shape, with what ``Matchmaker._by_shape`` needs to settle the whole group at once:
    how many there are, how many each holder holds and their ``CurrentRank`` values."""

    __slots__ = ("by_holder", "ranks", "shapes", "total")

    def __init__(self) -> None:
        self.shapes: dict[int, dict[int, None]] = {}
        self.total = 0
        self.by_holder: dict[str, int] = {}
        self.ranks: dict[float, int] = {}

    def add(self, offer: Offer) -> None:
        self.total += 1
        self.by_holder[offer.holder] = self.by_holder.get(offer.holder, 0) + 1  # type: ignore[index]
        self.ranks[offer.current_rank] = self.ranks.get(offer.current_rank, 0) + 1

    def remove(self, offer: Offer) -> None:
        self.total -= 1
        self.by_holder[offer.holder] -= 1  # type: ignore[index]
        self.ranks[offer.current_rank] -= 1
        if not self.ranks[offer.current_rank]:
            del self.ranks[offer.current_rank]

    def lowest_rank(self) -> float:
        return min(self.ranks) if self.ranks else FLT_MAX


class RejectCounts:
    """The rejection counts of one look at one offer (``Reasons.reason`` adds to
    them); a plain object, made for every shape of every list."""

    __slots__ = ("rej_policy",)

    def __init__(self) -> None:
        self.rej_policy = 0


@dataclass
class Candidates:
    """The ordered candidates of one request, consumed from the front (HTCondor's
    MatchList), with the counts behind a rejection reason."""

    #: flat entries (``make_entry``), sorted
    entries: list[tuple]
    #: a second sorted list of entries, consumed from ``spos`` alongside ``entries``
    #: (the smaller head first): the unheld static offers' entries, shared between
    #: lists and never changed in place (``static_lists.StaticLists``)
    static: list[tuple] = field(default_factory=list)
    spos: int = 0
    #: the carving clock when the list was made (``Matchmaker.stamp``): a changed
    #: entry made with the list is evaluated again if its offer had that state then
    #: (``Offer.stamps``), else passed over; one added since is evaluated again
    built: int = 0
    rej_policy: int = 0
    rej_limit: int = 0
    position: int = 0
    #: indexes of partitionable offers this list handed out (see ``list_scan.ListWalk``)
    carved: list[int] = field(default_factory=list)
    #: (offer, count): held groups whose PREEMPTION_REQUIREMENTS count waits for the
    #: pair's match (``Matchmaker.settle_deferred``; the list may be shared between
    #: lists, so it is replaced, never changed in place), and the request's signature
    deferred: list[tuple[Offer, int]] = field(default_factory=list)
    signature: tuple = ()
    #: the class's pair results by pair shape, when ``fit`` may read them (else None)
    pairs: dict | None = None
    #: whether an entry by rank preemption was ever added (such an entry ignores the
    #: submitter limit, so a scan cannot give up on the limit while one may remain)
    has_rank: bool = False
    #: the class's cost floor (``PieceCosts.floor``), looked up at the list's first
    #: refusal by the limit and kept: a scan may refuse thousands of entries
    floor: float | None = None
    #: the least weight of the unheld static offers the list was made with (inf: none),
    #: or None when the list does not know it (``PieceCosts.floor`` then bounds every
    #: static offer of the pool)
    static_floor: float | None = None
    #: sorted runs not merged into ``entries`` yet, as [run, start] (``merge_more``):
    #: every entry of ``entries`` sorts before every entry left in them
    pending: list[list] = field(default_factory=list)
    #: the next ``merge_more`` merges at least this many entries (of the run whose
    #: ``chunk``-th entry bounds it), or everything left; it doubles at each merge
    #: (grows by a quarter when ``lazy_runs``: ``merge_more``)
    chunk: int = 64
    #: how many of the pending runs are made on demand (``merge_more``), when the
    #: list was made: their share of a chunk
    lazy_runs: int = 0
    #: whether a pending run may be a ``lazy_runs.LazyRun`` not made yet (a held
    #: list's entries by priority, ``held_lists``): made as the merge reaches it
    lazy_held: bool = False

    def merge_more(self) -> None:
        """Merge the next part of the pending runs onto the end of ``entries``.

        The bound is the smallest ``chunk``-th entry left of any run longer than
        ``chunk`` (none: everything left): every run gives up its entries up to the
        bound, which then sort together after ``entries``, and every entry left
        sorts after them, so ``entries`` stays the sorted prefix of the whole list.
        A scan usually takes only the first few entries of a list of thousands:
        the rest is never merged. The chunk doubles at each call, but grows by a
        quarter on a list with lazy runs: what it merges past the walk's last read
        was made for nothing (10,000-slot partitionable mix: 28,724 of 156,958
        entries merged were never read when it doubled, 15,010 of 141,589 so, and
        entries made 121,987 -> 109,166, for 1,440 lazy merges instead of 1,020).

        A run made on demand (``ordered_states.OrderedStates``, as [its entries,
        start, itself; ``lazy_runs`` of them) first makes more than its share of the
        chunk past its start (the chunk over ``lazy_runs``, at least 1; or all it has),
        its mark the last entry of that share, yet no group whose first key is over
        the bound found so far (entries past it are not merged now, and a list may
        be left before its next merge), then every entry whose first key is at most
        the bound's: its entries are the sorted prefix of its whole run, and every
        entry it has not made sorts after them. (Any bound keeps the merged entries
        the sorted prefix; the chunk only says how far a merge goes.)

        A ``lazy_runs.LazyRun`` not made yet (``lazy_held``) is made once the merge
        could pass its head, and otherwise left pending, whole (``lazy_runs.reach``:
        every entry it will hold sorts after the entries merged)."""
        pending, chunk, lazy_runs = self.pending, self.chunk, self.lazy_runs
        share = max(1, chunk // lazy_runs) if lazy_runs else chunk
        bound = None
        for item in pending:
            run, start = item[0], item[1]
            size = chunk
            if lazy_runs and len(item) > 2:
                size = share
                item[2].grow(start + size, None if bound is None else bound[0])
            if len(run) - start > size:
                mark = run[start + size - 1]
                if bound is None or mark < bound:
                    bound = mark
        waiting: list[list] = []
        items = pending
        if self.lazy_held:
            bound, waiting = reach(pending, self.entries, bound, chunk)
            if waiting:
                items = [item for item in pending if all(item is not w for w in waiting)]
            else:
                self.lazy_held = False
        merged: list[tuple] = []
        left = []
        for item in items:
            run, start = item[0], item[1]
            lazy = lazy_runs and len(item) > 2
            if lazy and bound is not None:
                item[2].through(bound[0])
            cut = len(run) if bound is None else bisect_right(run, bound, start)
            merged.extend(run[start:cut])
            if cut < len(run) or (lazy and not item[2].done):
                item[1] = cut
                left.append(item)
        if not merged and waiting:
            pending[:] = left + waiting  # (a sentinel added, nothing merged: the
            return                       # chunk stays)
        merged.sort()
        self.entries.extend(merged)
        pending[:] = left + waiting  # (in place: a scan holds the list)
        # (a lazy run's entries cost their making: a list's last merge overshoots
        # its walk by less when the chunk grows slowly)
        self.chunk = chunk + max(1, chunk >> 2) if lazy_runs else chunk * 2


#: Where an entry holds its offer's position, the offer's version and the reason (the
#: sort key is everything before ``ENTRY_IDX``).
ENTRY_IDX, ENTRY_VERSION, ENTRY_REASON = 6, 7, 8


def make_entry(offer: Offer, idx: int, pe: PairEval, reason: str,
               column: RankColumn | None = None) -> tuple:
    """A candidate list entry, flat so that sorting compares one level of tuple:
    (-pre, -job rank, -post, -reason order, -preemption rank, slot Name, position,
    offer version, reason). One offer's ``make_entries``, written out: the scan makes
    one for every offer changed since its list was made. With ``column`` the job rank
    is the column's value for the offer (``rank_columns``), else the pair's."""
    values, dependent = offer.independent, pe.dependent
    pre = values[PRE] if PRE in values else dependent[PRE]
    post = values[POST] if POST in values else dependent[POST]
    prank = (-FLT_MAX if reason == NO_PREEMPTION
             else values[PRANK] if PRANK in values else dependent[PRANK])
    job_rank = pe.job_rank if column is None else column.value(offer)
    return (-pre, -job_rank, -post, -REASON_ORDER[reason], -prank, offer.name, idx,
            offer.version, reason)


def make_entries(registry: list[Offer], members, pe: PairEval, reason: str,
                 column: RankColumn | None = None) -> list[tuple]:
    """``make_entry`` for each offer ``registry[k]``, k in ``members`` (offers of one shape,
    so one pair result and reason; ``column``: the job ranks, per offer, read from its
    row of negated values, ``RankColumn.negated``, where it holds them). Offers whose
    independent ranks are one dict (states that share them, see ``carved_states``)
    share the key's prefix."""
    dependent = pe.dependent
    job_rank, order = -pe.job_rank, -REASON_ORDER[reason]
    free = reason == NO_PREEMPTION
    out: list[tuple] = []
    append = out.append
    last_values: dict | None = None
    pre = post = prank = 0.0
    # (the key's varying parts as locals: a tuple display of locals builds the entry
    # in one step, about half the cost of unpacking a prefix tuple into it; the loop
    # is written twice so that the usual one, without a column, tests nothing more)
    if column is None:
        for k in members:
            offer = registry[k]
            values = offer.independent
            if values is not last_values:
                last_values = values
                pre = -(values[PRE] if PRE in values else dependent[PRE])
                post = -(values[POST] if POST in values else dependent[POST])
                prank = -(-FLT_MAX if free
                          else values[PRANK] if PRANK in values else dependent[PRANK])
            append((pre, job_rank, post, order, prank, offer.name, k, offer.version, reason))
        return out
    # (an offer's job rank from the column's row of negated values, kept for every
    # version: one look-up, ``value`` asked of the others only)
    get, value = column.negated().get, column.value
    for k in members:
        offer = registry[k]
        values = offer.independent
        if values is not last_values:
            last_values = values
            pre = -(values[PRE] if PRE in values else dependent[PRE])
            post = -(values[POST] if POST in values else dependent[POST])
            prank = -(-FLT_MAX if free
                      else values[PRANK] if PRANK in values else dependent[PRANK])
        rank = get(k)
        append((pre, -value(offer) if rank is None else rank, post, order, prank,
                offer.name, k, offer.version, reason))
    return out


def make_free_entries(registry: list[Offer], members, known: dict[int, PairEval],
                      fresh_pair: Callable[[Offer], PairEval],
                      column: RankColumn | None = None) -> list[tuple]:
    """``make_entries(registry, [k], pe, NO_PREEMPTION, column)`` for each k in
    ``members`` whose offer is available, in order, ``pe`` the pair result of its
    pair shape, those that do not match left out: the entries of offers nobody holds
    (``list_scan``'s take-back). ``known``: the class's pair results by pair shape
    (``MatchTable.class_pairs``); a shape not there is ``fresh_pair(offer)`` (its
    result is a function of the shape), kept in ``known``, as ``MatchTable.pair``
    keeps it. On a pool whose slots' states are their own each carved slot is a shape
    of its own, so a group and a ``make_entries`` call per slot cost more than its
    entry; offers that share their independent ranks and pair result (states of one
    shape) share the key's prefix, as in ``make_entries``."""
    order = -REASON_ORDER[NO_PREEMPTION]
    prank = FLT_MAX  # (``make_entries``' -(-FLT_MAX): no preemption)
    out: list[tuple] = []
    append = out.append
    get = value = None
    if column is not None:
        get, value = column.negated().get, column.value
    last_values: dict | None = None
    last_pe: PairEval | None = None
    pre = post = job_rank = 0.0
    for k in members:
        offer = registry[k]
        if not offer.available:  # (one carved whole has left the pool)
            continue
        pe = known.get(offer.pair_shape)
        if pe is None:
            pe = known[offer.pair_shape] = fresh_pair(offer)
        if not pe.match:
            continue
        values = offer.independent
        if values is not last_values or pe is not last_pe:
            last_values, last_pe, dependent = values, pe, pe.dependent
            pre = -(values[PRE] if PRE in values else dependent[PRE])
            post = -(values[POST] if POST in values else dependent[POST])
            job_rank = -pe.job_rank
        if get is not None:
            rank = get(k)
            job_rank = -value(offer) if rank is None else rank  # type: ignore[misc]
        append((pre, job_rank, post, order, prank, offer.name, k, offer.version,
                NO_PREEMPTION))
    return out


class SharedEntries:
    """Entries made once per (reason, where the job rank comes from, offer) and
    shared by every list that lists the offer so: an entry of a pair result without
    dependent ranks is a function of its offer (its independent ranks, name,
    version), its reason and its job rank alone, and that rank is the class's
    column's value for the offer (``rank_columns``), else the pair's job rank. So
    the classes of one rank column, or of one constant job rank, take the same
    tuples. An entry is made again when its offer's version has moved. One per
    cycle's lists (held by ``held_lists`` and ``static_lists``)."""

    __slots__ = ("_made", "_registry")

    def __init__(self, registry: list[Offer]) -> None:
        self._registry = registry
        #: (reason, the column or the job rank) -> offer seq -> its entry
        self._made: dict[tuple, dict[int, tuple]] = {}

    def entries(self, seqs: list[int], pe: PairEval, reason: str,
                column: RankColumn | None) -> list[tuple]:
        """``make_entries(registry, seqs, pe, reason, column=column)`` for a pair
        result ``pe`` without dependent ranks, the entries made before reused."""
        key = (reason, column if column is not None else pe.job_rank)
        made = self._made.get(key)
        if made is None:
            made = self._made[key] = {}
        registry = self._registry
        fresh = []
        for k in seqs:
            entry = made.get(k)
            if entry is None or entry[ENTRY_VERSION] != registry[k].version:
                fresh.append(k)
        if fresh:
            for k, entry in zip(fresh, make_entries(registry, fresh, pe, reason,
                                                    column=column), strict=True):
                made[k] = entry
        return [made[k] for k in seqs]


def box_pair(program: PairProgram) -> PairEval:
    """The one pair result of a box program with constant ranks (``carving``), made
    once per program."""
    if program.pair is None:
        program.pair = make_pair(program.result)
    return program.pair  # type: ignore[return-value]
