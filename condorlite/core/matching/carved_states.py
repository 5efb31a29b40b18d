"""Carved states: what a match leaves of an offer with a resource vector, its ranks,
and the transitions remembered (one ``CarvedStates`` per cycle, owned by
``offer_shapes.OfferShapes``).

``carve`` moves an offer to the state a match leaves (``slot_vectors.rest_state``,
written out in ``_step`` with the new state's amounts left): its
vector's values, the job-independent policy ranks that read them (by their programs,
``slot_vectors.rank_program``), its pair shape and shape (numbered as
``OfferShapes.shape_of`` numbers them, in the step itself: a new shape's amounts,
``shape_left``, are the carved state's with the positions taken from replaced), and
its place among the members of its static's shapes. A transition (the offer's shape,
rank signature and the dict of amounts taken) is remembered with its outcome, so a
second offer making the same one does none of that work.
Where each slot's states are its own (every slot with statics of its own: the
partitionable mix, a free ``Disk`` share), no transition is ever met twice: after
``TRIES`` misses with fewer than one lookup in ``SHARE`` hitting, transitions are
neither looked up nor kept (a step is a function of the transition: only the work
of finding it again is lost). There a carved state's pair key is never met again
either: after ``NEW_STATES`` new states with fewer than one step in ``SHARE`` meeting
a known one, states are numbered without their keys (``keyed`` None): each step's
state gets the next pair shape and the next shape (``OfferShapes.pair_count``,
``shape_count``) and is in neither numbering table: the key (the static and the whole
typed state), its hash and its place in two tables of every state ever carved are not
made (the tables' stores cost as much as the keys: each grows by one entry a step, and
a dict of tens of thousands of entries that grows is resized now and then). Two equal
states may then have two numbers: a pair shape's results are functions of the state
its offers are in, so each number's are those of any state equal to it (worked out
once per number, never different), and shapes key on their pair shape, so a new pair
shape's shape is new too. With both given up nothing keys on a step (every carve
there, 61,062 on the 10,000-slot partitionable mix): ``_unkeyed_step`` puts the
outcome on the offer and places it in its new shape itself, with no transition's
tuple made and unpacked and, for a state without a float, no typed state (its kinds in
the ranks' memo key are the plan's ``plain`` zeros).

The ranks are remembered per (rank signature, the typed values at the vector
positions their programs read: ``RankPlan.reads``) and shared read-only by the slots
of one signature. Sound because a rank key fixes every binding the rank reaches but
the vector's names (``VectorKeys.rank_keys``), so its program (made from one slot
of the key, shared by all) reads only the positions of the names in that slot's
reach: states equal there, kinds included, give equal values. A rank evaluated on
the whole ad (no program) keys the signature's ranks by the whole typed state.

It owns the ranks' memo, plans and programs and the transitions; it reads and
advances the shapes' carving clock, numbers new states in the shapes' tables
(``pair_shapes``, ``shape_numbers``, ``pair_of_shape``, ``shape_left``) and places
the offer in them.
"""

from __future__ import annotations

from collections.abc import Callable
from math import copysign
from operator import itemgetter
from typing import TYPE_CHECKING

from condorlite.core import adeval
from condorlite.core.classad.partial import Constant
from condorlite.core.matching.candidates import as_rank
from condorlite.core.matching.carve_amounts import carve_amounts, python_carve_amounts
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.slot_vectors import SlotVector, moves_of, rank_program

if TYPE_CHECKING:  # (the owner, for its type: it makes this object)
    from condorlite.core.matching.offer_shapes import OfferShapes

#: "not in the table" (a rank's program may be None)
_MISSING = object()
#: transitions missed before their hit share is looked at, and the share they must
#: keep (at least one lookup in ``SHARE`` a hit) to go on being remembered
TRIES = 256
SHARE = 16
#: new carved states numbered by their keys before the share of known ones is looked
#: at (at least one in ``SHARE`` known to go on keying them: module doc)
NEW_STATES = 256


class CarvedStates:
    """A cycle's carved states (module doc). ``shapes``: the owner, whose tables a
    carve updates; ``rank_exprs``: the policy ranks by key (``candidates.PRE`` ...)."""

    def __init__(self, shapes: OfferShapes, rank_exprs: dict[str, object]) -> None:
        self._shapes = shapes
        self._rank_exprs = rank_exprs
        #: (rank signature, the typed values the ranks read, ``RankPlan.reads``) ->
        #: the independent ranks that read the vector (``_step``; the constant ones
        #: are each offer's, ``with_constants``)
        self._independent_memo: dict[tuple, dict[str, float]] = {}
        #: carving transitions (``carve``)
        self._transitions: dict[tuple, tuple] = {}
        #: [hits, misses] of the transitions, or None once given up (module doc)
        self.counts: list[int] | None = [0, 0]
        #: rank program key -> its residual program (``slot_vectors.rank_program``)
        self._rank_programs: dict[tuple, object] = {}
        #: rank signature -> its ranks' programs, as ``_carved_ranks`` runs them
        self._rank_plans: dict[int, RankPlan] = {}
        #: id(taken) -> (taken, the vector's names, ``slot_vectors.moves_of``): one
        #: ``taken`` dict serves the matches of a class on a shape, whose vectors have
        #: one names tuple (the vectors of one kind of slot share it); a names tuple
        #: other than the one kept makes the moves again (``_carve_vals``)
        self._moves: dict[int, tuple] = {}
        #: [steps whose state was numbered already, steps whose state was new], or
        #: None once states are numbered without their keys (module doc)
        self.keyed: list[int] | None = [0, 0]

    def carve(self, offer: Offer, taken: dict[str, float]) -> None:
        """Move ``offer`` to the state a match of ``taken`` leaves (module doc),
        remembered per transition: the outcome (the new vals, the ranks that read the
        vector, pair shape and shape) is a function of the vector's static and typed
        vals, of the holder and CurrentRank (all four fixed by the offer's shape,
        ``OfferShapes.reshape``), of the rank signature and of the amounts taken; the
        offer's constant ranks are its own (``with_constants``). ``taken`` is keyed by
        identity (pair results share one dict per class and shape) and held by the
        entry, so its id cannot be reused while the entry lives. The offer is stamped
        first (``OfferShapes.stamp``, written out)."""
        shapes = self._shapes
        clock = shapes.clock = shapes.clock + 1
        offer.version = clock
        offer.stamps.append(clock)
        vector = offer.vector
        counts = self.counts
        if counts is None:  # (given up: every step its own)
            if self.keyed is None:
                # (states numbered without their keys too, module doc: nothing keys on
                # the step, which puts its outcome on the offer and places it itself)
                self._unkeyed_step(offer, vector, taken)  # type: ignore[arg-type]
                return
            found = self._step(offer, vector, taken)  # type: ignore[arg-type]
        else:
            key = (offer.shape, vector.rank_sig, id(taken))  # type: ignore[union-attr]
            found = self._transitions.get(key)
            if found is None or found[0] is not taken:
                found = self._transitions[key] = self._step(offer, vector, taken)  # type: ignore[arg-type]
                counts[1] += 1
                if counts[1] >= TRIES and counts[0] * SHARE < counts[1]:
                    self.counts = None
                    self._transitions.clear()
            else:
                counts[0] += 1
        _, vector.vals, computed, offer.pair_shape, shape, tail = found  # type: ignore[union-attr]
        constants = vector.constants  # type: ignore[union-attr]
        if not constants:
            offer.independent = computed
        elif tail:  # (``with_constants``: the constant ranks come last, one merge)
            offer.independent = {**computed, **constants}
        else:
            offer.independent = with_constants(computed, vector)  # type: ignore[arg-type]
        # ``OfferShapes.place`` for an offer with a vector, written out (one per match): it stays
        # in its static's box (``_groups``) and moves from its shape to ``shape``.
        box, seq, before = offer.box, offer.seq, offer.shape
        members = box[before]  # type: ignore[index]
        offer.shape = shape
        joins = shapes.joins
        joins[shape] = joins.get(shape, 0) + 1
        if len(members) == 1 and shape not in box:  # type: ignore[operator]
            # (the offer alone leaves a shape for a new one, every carve where each
            # slot's states are its own: its one-member dict moves with it; no list
            # holds a members dict past its build)
            del box[before]  # type: ignore[union-attr]
            box[shape] = members  # type: ignore[index]
        else:
            del members[seq]
            if not members:
                del box[before]  # type: ignore[union-attr]
            members = box.get(shape)  # type: ignore[union-attr]
            if members is None:
                members = box[shape] = {}  # type: ignore[index]
            members[seq] = None
        if shapes.moved is not None:
            shapes.moved.append(offer)

    def _step(self, offer: Offer, vector: SlotVector, taken: dict[str, float]) -> tuple:
        """A transition's outcome, worked out (``carve``): (taken, the new vals, the
        ranks that read the vector, pair shape, shape, ``RankPlan.tail``). The ranks come from their
        programs, remembered per (rank signature, the typed values of the positions
        they read: ``RankPlan.reads``), shared read-only by the slots of the
        signature; the shapes from the vector, numbered as ``OfferShapes.shape_of``
        does (the carved state's ``shape_left`` gives the new one's)."""
        _, new_left, plain = self._carve_vals(offer, vector, taken)
        vals = vector.vals
        # (``typed``, written out: a call less per state)
        state = ((vals, (0,) * len(vals)) if plain else
                 (vals, tuple([0 if type(v) is not float
                               else 1 if v or copysign(1.0, v) > 0  # type: ignore[arg-type]
                               else -1 for v in vals])))
        plan = self._rank_plans.get(vector.rank_sig) or self._plan_of(offer, vector)
        computed = self._ranks_of(offer, vector, plan, state, plain)
        shapes = self._shapes
        shape_left = shapes.shape_left
        # ``OfferShapes.shape_of`` for the new state, its ``lefts`` made above
        # (``OfferShapes.pair_number`` and ``shape_number`` written out: one step per
        # carve where each slot's states are its own). A step's state is mostly new
        # (every one where each slot's states are its own), so each number is given
        # by one ``setdefault`` (one hash of the key, one probe) rather than a miss
        # and a store: the numbers run from 1 in order of first sight, so the next
        # one is no number already given, and a key given it is new.
        fresh = shapes.pair_count + 1
        keyed = self.keyed
        if keyed is None:
            # (numbered without the keys, module doc: the next numbers, in no table)
            shapes.pair_count = fresh
            shape = shapes.shape_count = shapes.shape_count + 1
            shapes.pair_of_shape[shape] = fresh
            shape_left[shape] = new_left
            return (taken, vals, computed, fresh, shape, plan.tail)
        pair_shape = shapes.pair_shapes.setdefault(("vector", vector.static, state), fresh)
        holder = offer.holder
        numbers = shapes.shape_numbers
        if pair_shape == fresh:
            shapes.pair_count = fresh
            keyed[1] += 1
            if keyed[1] >= NEW_STATES and keyed[0] * SHARE < keyed[1]:
                self.keyed = None
            # (a new pair shape: its shape is new too, as shapes key on it)
            shape = shapes.shape_count = shapes.shape_count + 1
            numbers[(pair_shape, holder, None if holder is None
                     else offer.current_rank)] = shape
            shapes.pair_of_shape[shape] = pair_shape
            shape_left[shape] = new_left
        else:
            keyed[0] += 1
            fresh = shapes.shape_count + 1
            shape = numbers.setdefault(
                (pair_shape, holder, None if holder is None else offer.current_rank), fresh)
            if shape == fresh:
                shapes.shape_count = fresh
                shapes.pair_of_shape[shape] = pair_shape
            if shape not in shape_left:
                shape_left[shape] = new_left
        return (taken, vals, computed, pair_shape, shape, plan.tail)

    def _unkeyed_step(self, offer: Offer, vector: SlotVector, taken: dict[str, float]
                      ) -> None:
        """``carve``'s step once transitions are not remembered and states are numbered
        without their keys (module doc): ``_step``'s outcome put on the offer (its
        vector's vals, ``independent``, ``pair_shape``) rather than made a transition's
        tuple, and the offer placed in its new shape, which is new (in no box, never
        joined: its ``joins`` count 1). No table keys on the typed state here, so it is
        made only for the ranks' memo key of a state with a float value (``_step``)."""
        _, new_left, plain = self._carve_vals(offer, vector, taken)
        plan = self._rank_plans.get(vector.rank_sig) or self._plan_of(offer, vector)
        computed = self._ranks_of(offer, vector, plan, None, plain)
        constants = vector.constants
        if not constants:
            offer.independent = computed
        elif plan.tail:  # (``with_constants``: the constant ranks come last, one merge)
            offer.independent = {**computed, **constants}
        else:
            offer.independent = with_constants(computed, vector)
        shapes = self._shapes
        pair_shape = offer.pair_shape = shapes.pair_count = shapes.pair_count + 1
        shape = shapes.shape_count = shapes.shape_count + 1
        shapes.pair_of_shape[shape] = pair_shape
        shapes.shape_left[shape] = new_left
        # (``carve``'s placing, for a shape never numbered before: in no box, never
        # joined)
        box, before = offer.box, offer.shape
        members = box[before]  # type: ignore[index]
        offer.shape = shape
        shapes.joins[shape] = 1
        if len(members) == 1:
            del box[before]  # type: ignore[union-attr]
            box[shape] = members  # type: ignore[index]
        else:
            del members[offer.seq]
            box[shape] = {offer.seq: None}  # type: ignore[index]
        if shapes.moved is not None:
            shapes.moved.append(offer)

    def _carve_vals(self, offer: Offer, vector: SlotVector, taken: dict[str, float]
                    ) -> tuple[tuple, tuple[float, ...], bool]:
        """A step's new values, set as ``vector.vals``, with the new state's ``lefts``
        and whether no new value is a float, as ``carve_amounts`` gives them (in one C
        call where built): ``slot_vectors.rest_state`` with the ``lefts`` made in the
        same pass; what a position had left is the carved shape's ``shape_left``
        (``lefts`` of its vals: a shape fixes its typed vals), so ``left`` is not
        worked out again, and the new amounts are the old ones with the positions
        taken from replaced. The positions ``taken`` names in the vector's names are
        looked up once (``_moves``)."""
        names = vector.names
        moves = self._moves.get(id(taken))
        if moves is None or moves[0] is not taken or moves[1] is not names:
            moves = self._moves[id(taken)] = (taken, names, moves_of(vector, taken))
        had = self._shapes.shape_left[offer.shape]
        found = carve_amounts(vector.vals, had, moves[2])
        if found is None:  # (off the C pass's fast path)
            found = python_carve_amounts(vector.vals, had, moves[2])
        vector.vals = found[0]  # (``Offer.ad`` follows)
        return found

    def _plan_of(self, offer: Offer, vector: SlotVector) -> RankPlan:
        """The ``RankPlan`` of the vector's rank signature, made and kept (callers
        look it up in ``_rank_plans`` first: a step saves the call)."""
        plan = self._rank_plans[vector.rank_sig] = self._rank_plan(offer)
        return plan

    def _ranks_of(self, offer: Offer, vector: SlotVector, plan: RankPlan,
                  state: tuple | None, plain: bool) -> dict[str, float]:
        """The ranks of the new state (``vector.vals``; ``state`` its typed state,
        or None: made here only when its kinds are read and a value is a float;
        ``plain``: no value is a float), remembered per memo key (module doc):
        (signature, the typed state) when ``plan.reads`` is None, else (signature,
        ``reads`` of the values, ``reads`` of the kinds: ``plan.plain`` when
        ``plain``)."""
        sig, vals = vector.rank_sig, vector.vals
        reads = plan.reads
        if reads is not None and plain:
            memo_key = (sig, reads(vals), plan.plain)
        else:
            if state is None:
                state = (vals, tuple([0 if type(v) is not float
                                      else 1 if v or copysign(1.0, v) > 0  # type: ignore[arg-type]
                                      else -1 for v in vals]))
            memo_key = ((sig, state) if reads is None else
                        (sig, reads(vals), reads(state[1])))
        computed = self._independent_memo.get(memo_key)
        if computed is None:
            computed = self._independent_memo[memo_key] = self._carved_ranks(offer, plan, vals)
        return computed

    def _carved_ranks(self, offer: Offer, plan: RankPlan, vals: tuple) -> dict[str, float]:
        """The job-independent policy ranks of a carved state that read the vector,
        by their programs (one evaluation each); the constant ones are the offer's
        (``vector.constants``), added by ``with_constants``."""
        ranks = plan.ranks
        self._shapes.counts.evaluations += len(ranks)
        independent: dict[str, float] = {}
        for rank, program, value in ranks:
            if value is None:
                if program is None:
                    value = as_rank(adeval.eval_expr(self._rank_exprs[rank], offer.ad, None,
                                                     self._shapes.now))
                else:
                    value = as_rank(program(vals))  # type: ignore[operator]
            independent[rank] = value
        return independent

    def _rank_plan(self, offer: Offer) -> RankPlan:
        """The ``RankPlan`` of a vector's rank signature: (rank, its program or None,
        its value when the program is a constant) for each independent rank that is
        not one of the offer's constants, and the positions of the vector those
        programs read (the vector's names in the ranks' reaches, ``OfferShapes.walked``:
        the programs of a rank key are shared, as its reach is)."""
        vector = offer.vector
        reaches = self._shapes.walked[id(offer)][2][2]
        ranks = []
        read: set[int] | None = set()
        for rank, key in vector.rank_keys.items():  # type: ignore[union-attr]
            if rank in vector.constants:  # type: ignore[union-attr]
                continue
            program = self._rank_programs.get(key, _MISSING)
            if program is _MISSING:
                program = self._rank_programs[key] = rank_program(
                    self._rank_exprs[rank], offer.ad, vector, self._shapes.now)  # type: ignore[arg-type]
            value = as_rank(program.value) if type(program) is Constant else None
            ranks.append((rank, program, value))
            if value is not None:
                continue
            if program is None or read is None:
                read = None  # (evaluated on the whole ad: keyed by the whole state)
            else:
                reach = reaches[rank]
                read.update(pos for pos, name in enumerate(vector.names)  # type: ignore[union-attr]
                            if name in reach)
        order = list(vector.rank_keys)  # type: ignore[union-attr]
        return RankPlan(ranks, read, order[:len(ranks)] == [rank for rank, _, _ in ranks])


class RankPlan:
    """How a rank signature's carved states get the ranks that read the vector
    (``CarvedStates._carved_ranks``): ``ranks``, (rank, its program or None, its value
    when the program is a constant); ``reads(values)``, the values at the positions
    those programs read (sorted), or None when one of the ranks is evaluated on the
    whole ad (then a state's ranks are keyed by the whole typed state). States that
    agree at those positions, kinds included, get the same ranks. ``tail``: the
    signature's constant ranks all come after these in the policy's order, so
    ``with_constants`` is one merge of the two dicts. ``plain``: what ``reads`` gives
    of a state's kinds (``slot_vectors.typed``) when no value is a float (zeros),
    made once: the ranks' memo key is (signature, ``reads`` of the values, ``reads``
    of the kinds), and a state without a float need not make its kinds."""

    __slots__ = ("plain", "ranks", "reads", "tail")

    def __init__(self, ranks: list[tuple[str, object, float | None]],
                 read: set[int] | None, tail: bool) -> None:
        self.ranks = ranks
        self.tail = tail
        self.reads: Callable[[tuple], object] | None
        self.plain: object = None
        if read is None:
            self.reads = None
        elif read:
            self.reads = itemgetter(*sorted(read))
            self.plain = self.reads((0,) * (max(read) + 1))
        else:
            self.reads = _nothing
            self.plain = ()


def _nothing(_values: tuple) -> tuple:
    """``RankPlan.reads`` when no program reads the vector."""
    return ()


def with_constants(computed: dict[str, float], vector: SlotVector) -> dict[str, float]:
    """An offer's independent ranks in a carved state: ``computed`` (the ranks that
    read the vector, shared read-only by the slots of one signature) with the
    vector's constant ranks, in the order of ``vector.rank_keys`` (the policy's);
    ``computed`` itself when there are none."""
    constants = vector.constants
    if not constants:
        return computed
    return {rank: constants[rank] if rank in constants else computed[rank]
            for rank in vector.rank_keys}
