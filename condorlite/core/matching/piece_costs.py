"""What a match costs the submitter, and the least any entry of a class can cost.

A static offer costs its weight. A piece of a partitionable offer costs the weight of
the dynamic slot it makes (``pieces.piece_weight``), worked out as cheaply as the slot
allows (``cost``). ``floor`` is what lets a scan stop early: when the submitter limit
refuses an entry and the class's floor too, every entry left is refused
(``list_scan.ListWalk.pick``).
"""

from __future__ import annotations

import math

from condorlite.core import adeval
from condorlite.core.entry_keys import entry_key
from condorlite.core.matching.matchmaker import Matchmaker
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.pieces import (
    WeightWalks,
    piece_weight,
    vector_piece_weight,
    weight_names,
    weight_reads,
)
from condorlite.core.policy import Policy


class PieceCosts:
    """The costs of one cycle's offers, with what is remembered between matches."""

    def __init__(self, offers: list[Offer], mm: Matchmaker, policy: Policy) -> None:
        self.offers, self.mm, self.policy = offers, mm, policy
        #: (position, version, piece) -> weight, for offers without a vector
        self._piece_costs: dict[tuple, float] = {}
        #: (Matchmaker.weight_key, amounts read) -> piece weight (``cost``)
        self._shared_weights: dict[tuple, float] = {}
        #: class (with the signature when it matters) -> (the representatives of
        #: the statics it has programs for, the least cost of its pieces in them)
        #: (``floor``); the representatives once worked out
        self._floors: dict[object, tuple[tuple[int, ...], float]] = {}
        #: ((class, Submitter* bindings or ()), pair-static) -> the class's program
        #: (``MatchTable.programs``, read only: which statics a class has met)
        self._programs = mm.table.programs
        self._floor_reps: tuple[float, float, list[int] | None] | None = None
        #: the names each offer's weight reaches, walked once per kind of slot
        #: (``pieces.WeightWalks``: asked of every partitionable offer)
        self._walks = WeightWalks(policy)
        #: (id of an offer's weight names, its vector's names) -> (those weight names,
        #: held; ``weight_reads``; the names its weight key reads) (``_weight_facts``)
        self._facts: dict[tuple, tuple] = {}
        #: (id of weight names, vector names, ``entry_key`` of the ad's entries of the
        #: key's names) -> (``Matchmaker.weight_key``, those entries, held) (``_weight_key``)
        self._keys: dict[tuple, tuple] = {}

    def floor(self, klass: int, signature: tuple, listed_static: float | None = None, *,
              held: bool = True) -> float:
        """A lower bound on the cost of every entry a list of the class made so far
        can hold, in any state of the cycle (0 when none is known).

        A static offer costs its weight, which never changes. ``listed_static``: the
        least weight of the unheld static offers the list was made with
        (``Candidates.static_floor``; None: any static offer of the pool may be
        listed). A held static offer is listed by preemption: by rank it ignores the
        limit (the scan never cuts a list holding one), by priority only when
        PREEMPTION_REQUIREMENTS is not the literal false, so then the held offers'
        least weight bounds them. A piece of a slot with a resource vector costs the
        weight of what the class takes; that is the same in every state when the
        class's requests are constants (``PairProgram.fixed``) and the weight reads
        only amounts every piece takes (``weight_reads``), and the same for slots
        binding the weight alike (``Matchmaker.weight_key``), over the statics the
        class has a program for (``MatchTable.programs``); kept per class (and
        signature when it matters) while those are the same. Exact: a list of the
        class holds an entry of a slot with a vector only by the class's program for
        the slot's static (every pair of such a slot runs it, ``MatchTable.pair``;
        ``carved_lists`` makes it before it lists a static, for every static it does
        not pass over for good), so a list made before the floor is asked holds
        none of a static without one, nor ever will (its later entries are of slots
        it holds: ``list_scan``); the class's lists pass over the others (10,000-slot
        partitionable mix: 548 programs made for the floor alone, none ever run,
        when the floor was over every static). Any other partitionable offer (no vector,
        requests that read the slot, a weight reading the whole vector, a holder)
        leaves the floor unknown: 0. ``held`` False: the held static offers left out,
        a bound on the entries by no preemption alone (``list_scan`` bounds those by
        priority from the list itself)."""
        if self._floor_reps is None:
            self._floor_reps = self._floor_representatives()
        any_static, held_static, reps = self._floor_reps
        if reps is None:
            return 0.0
        if listed_static is None:
            static = any_static
        else:
            static = listed_static if self.mm.preemption_off or not held else min(
                listed_static, held_static)
        # (the signature only when programs are kept per signature: hashing its
        # literals on every refusal costs more than the floor saves)
        per_submitter = self.mm.per_submitter
        key = (klass, signature) if per_submitter else klass
        # (the representatives of the statics the class has met: a few per pool)
        klass_part, offers, programs = ((klass, signature if per_submitter else ()),
                                        self.offers, self._programs)
        met = tuple([idx for idx in reps
                     if (klass_part, offers[idx].vector.static) in programs])  # type: ignore[union-attr]
        found = self._floors.get(key)
        if found is None or found[0] != met:
            found = self._floors[key] = (met, self._piece_floor(klass_part, met))
        return min(static, found[1])

    def _piece_floor(self, klass_part: tuple, reps: tuple[int, ...]) -> float:
        """The least cost of a piece the class (with its Submitter* bindings or ())
        can take from the offers ``reps``, of statics it has programs for (inf: none
        can match; 0: unknown)."""
        floor = math.inf
        program_of = self._programs
        for idx in reps:
            offer = self.offers[idx]
            program = program_of[(klass_part, offer.vector.static)]  # type: ignore[union-attr]
            if program is None or program.requests:
                return 0.0
            if program.never:
                continue
            taken = {res: amount for res, amount, _ in program.fixed}
            cost = self.cost(idx, offer, taken)
            if not offer.vector.weight_reads:  # type: ignore[union-attr]
                return 0.0
            floor = min(floor, cost)
        return floor

    def _floor_representatives(self) -> tuple[float, float, list[int] | None]:
        """(the least weight of the static offers, of the held ones among them, one
        partitionable offer per (pair static, weight key)), or (.., .., None) when
        some partitionable offer cannot be bounded (``floor``)."""
        any_static = held_static = math.inf
        reps: dict[tuple, int] = {}
        fill = self._walks.fill
        for idx, offer in enumerate(self.offers):
            if not offer.partitionable:
                any_static = min(any_static, offer.weight)
                if offer.holder is not None:
                    held_static = min(held_static, offer.weight)
                continue
            vector = offer.vector
            if vector is None or offer.holder is not None:
                return any_static, held_static, None
            fill(offer)
            reps.setdefault((vector.static, self._weight_key(offer)), idx)
        return any_static, held_static, sorted(reps.values())

    def _weight_facts(self, offer: Offer) -> tuple:
        """(the names the weight of ``offer`` reaches, ``weight_reads``, those of the
        names not in its vector: what ``Matchmaker.weight_key`` reads), once per walk
        (``WeightWalks``: slots binding alike share one names object) and vector
        names: each is a function of those two alone. Sets ``weight_reads``."""
        vector = offer.vector
        plan = weight_names(offer, self.policy)
        key = (id(plan), vector.names)  # type: ignore[union-attr]
        found = self._facts.get(key)
        if found is None:
            index = vector.index  # type: ignore[union-attr]
            found = self._facts[key] = (plan, weight_reads(offer, self.policy),
                                        tuple([n for n in plan or () if n not in index]))
        elif vector.weight_reads is None:  # type: ignore[union-attr]
            vector.weight_reads = found[1]  # type: ignore[union-attr]
        return found

    def _weight_key(self, offer: Offer) -> tuple:
        """``Matchmaker.weight_key`` of ``offer`` (``vector.weight_key``), shared by
        offers of one walk and vector names whose ads hold the same entries for the
        names it reads (``entry_key``: the readers share an entry between ads holding
        the same line): it is their numbers. A slot's other state ads bind those names
        alike (carving rebinds only the vector's), so the state ad at hand keys it."""
        vector = offer.vector
        found = vector.weight_key  # type: ignore[union-attr]
        if found is not None:
            return found
        plan, _, names = self._weight_facts(offer)
        table = adeval.table(offer.state_ad)
        if table is None:
            return self.mm.weight_key(offer, self.policy)
        key = (id(plan), vector.names, entry_key(table, names))  # type: ignore[union-attr]
        known = self._keys.get(key)
        if known is None:
            known = self._keys[key] = (self.mm.weight_key(offer, self.policy),
                                       tuple(map(table.get, names)))
        else:
            vector.weight_key = known[0]  # type: ignore[union-attr]
        return known[0]

    def cost(self, idx: int, offer: Offer, taken: dict[str, float]) -> float:
        """The weight charged for ``taken`` from a partitionable offer.

        With a resource vector whose weight reads only resources every piece takes
        (``weight_reads``), the weight is a function of the slot's weight bindings and
        those amounts: kept per offer by amounts (the quick lookup of the scan) and
        shared between offers binding the weight alike. Otherwise it is asked per
        (slot state, piece), ``offers`` remembering what it can."""
        vector = offer.vector
        if vector is not None:
            reads = vector.weight_reads
            if reads is None:
                # (worked out without weighing: the first piece of each slot would
                # otherwise specialise its weight expressions)
                self._walks.fill(offer)
                reads = self._weight_facts(offer)[1]
            if reads:
                # (one resource read, as with SlotWeight = Cpus: its amount is the key)
                amounts = taken[reads[0]] if len(reads) == 1 else tuple([taken[n] for n in reads])
                found = vector.weights.get(amounts)
                if found is not None:
                    return found
                # Slots whose weight expressions bind alike weigh a piece alike: the
                # weight is a function of those bindings and the amounts it reads.
                shared = (self._weight_key(offer), amounts)
                found = self._shared_weights.get(shared)
                if found is None:
                    found = self._shared_weights[shared] = vector_piece_weight(
                        offer, taken, self.policy)
                vector.weights[amounts] = found
                return found
            return vector_piece_weight(offer, taken, self.policy)
        key = (idx, offer.version, tuple(sorted(taken.items())))
        cost = self._piece_costs.get(key)
        if cost is None:
            cost = self._piece_costs[key] = piece_weight(offer, taken, self.policy)
        return cost
