"""Pieces of partitionable slots: what a piece weighs and what carving it leaves.

A match in a partitionable offer takes a *piece*: the amounts ``taken`` of its
resources (``offers.Fits``). The match is charged the slot weight of the dynamic slot
holding exactly that piece (``piece_weight``: the offer's ad with the amounts taken in
place of the resources, ``PartitionableSlot = false``, ``SlotType = "Dynamic"``; by the
weight expressions' residuals for an offer with a resource vector,
``vector_piece_weight``), and the offer keeps what is left (``carve``). A piece's weight
is remembered per offer under the bindings that fix it (``piece_weight``'s doc);
``weight_names`` and ``weight_reads`` say which names those are.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Call, Expr, Literal
from condorlite.core.classad.parser import parse_expr
from condorlite.core.classad.partial import specialize, specialize_attribute
from condorlite.core.classad.refs import children
from condorlite.core.classad.refs import names as expr_names
from condorlite.core.classad.residuals import Residual
from condorlite.core.entry_keys import entry_key
from condorlite.core.matching import slot_vectors
from condorlite.core.matching.autocluster import closure, same_walks
from condorlite.core.matching.offers import BASE_RESOURCES, Offer, with_attrs
from condorlite.core.matching.slot_vectors import SlotVector
from condorlite.core.model import slot_weight
from condorlite.core.policy import Policy


def piece_weight(offer: Offer, taken: dict[str, float], policy: Policy) -> float:
    """The weight charged for ``taken``: the slot weight of the dynamic slot ad, the
    offer's ad with the amounts taken bound in place of the resources (and
    ``PartitionableSlot = false``, ``SlotType = "Dynamic"``).

    Remembered per offer, under the bindings that fix it: when the slot's weight
    expressions (``SlotWeight``, ``SLOT_WEIGHT``) reach a known set of names in every
    state of the slot (no ``eval``, carving only swapped literals), the key is the
    dynamic ad's bindings of those names; otherwise it is everything the cycle changed
    in the slot's ad plus the amounts taken."""
    if not policy.negotiator_use_slot_weights:
        return 1.0  # what slot_weight answers, whatever the ad
    plan = weight_names(offer, policy)
    if not offer.changes or offer.changes[0] is not offer.ad:
        raw = adeval.changed(offer.ad, offer.slot.ad)
        diff = tuple(sorted((name, _literal_key(expr)) for name, expr in raw))
        bound = None
        if plan is not None and same_walks(offer.ad, offer.slot.ad, raw):
            # this state's bindings of the names the weight reaches
            bound = tuple((name, _literal_key(adeval.attr(offer.ad, name))) for name in plan)
        offer.changes = (offer.ad, diff, bound, {})
    bound = offer.changes[2]
    if bound is not None:
        key: tuple = ("names", _bound_key(offer.changes, taken))
    else:
        overridden = {r.lower() for r in taken}
        others = tuple(item for item in offer.changes[1] if item[0] not in overridden)
        key = (tuple(sorted((r.lower(), r, v) for r, v in taken.items())), others)
    found = offer.weights.get(key)
    if found is None:
        found = offer.weights[key] = slot_weight(_dynamic(offer, taken), policy)
    return found


#: Functions that look attributes up by a computed name: a walk cannot see what they read.
_DYNAMIC_CALLS = frozenset({"eval"})


def _parsed_weight(policy: Policy) -> Expr:
    """SLOT_WEIGHT parsed, once per policy (``Policy.derived``)."""
    return parse_expr(policy.slot_weight)


#: What a dynamic slot binds whatever it holds, as ``_value_key`` writes them.
_PIECE_CONSTANTS = {"partitionableslot": ("bool", False), "slottype": ("str", "Dynamic")}


def _bound_key(changes: tuple, taken: dict[str, float]) -> tuple:
    """The dynamic ad's bindings of the weight's names: the state's binding, except
    a taken resource's amount and the two constants of a dynamic slot (which win).

    The layout (which positions a taken resource fills) depends only on the state and
    the resources' names, so it is worked out once per (state, names) and each piece
    fills in its amounts."""
    bound, layouts = changes[2], changes[3]
    names = tuple(taken)
    layout = layouts.get(names)
    if layout is None:
        lowered = {r.lower(): r for r in names}  # a later spelling wins, as in a dict
        template, holes = [], []
        for pos, (name, value) in enumerate(bound):
            if name in _PIECE_CONSTANTS:
                value = _PIECE_CONSTANTS[name]
            elif name in lowered:
                holes.append((pos, lowered[name]))
            template.append(value)
        layout = layouts[names] = (template, tuple(holes))
    template, holes = layout
    if not holes:
        return tuple(template)
    values = list(template)
    for pos, res in holes:
        values[pos] = _value_key(slot_vectors.number(taken[res]))
    return tuple(values)


def weight_names(offer: Offer, policy: Policy) -> tuple[str, ...] | None:
    """Every name the weight expressions reach in the slot's original ad (sorted), or
    None when one of them calls a function that reads names it computes."""
    if offer.weight_names and offer.weight_names[0] == policy.slot_weight:
        return offer.weight_names[1]
    plan = _weight_walk(offer.slot.ad, policy)[1]
    offer.weight_names = (policy.slot_weight, plan)
    return plan


def _weight_walk(ad: ClassAd, policy: Policy) -> tuple[tuple[str, ...], tuple[str, ...] | None]:
    """(every name the weight expressions reach in ``ad``, sorted; the same, or None
    when one of them calls a function that reads names it computes)."""
    fallback = policy.derived(_parsed_weight)
    walk = tuple(sorted(closure(ad, {"slotweight"} | expr_names(fallback))))
    exprs = [fallback] + [adeval.attr(ad, name) for name in walk]
    dynamic = any(e is not None and _calls_dynamic(e) for e in exprs)
    return walk, None if dynamic else walk


class WeightWalks:
    """``weight_names`` of a cycle's offers, one walk shared by the slots whose ads
    bind every name it visits to the same table entries (one object per binding:
    slots of one machine type share them, ``autocluster._walks``). Exact: a walk
    reads nothing but those bindings, so equal bindings walk alike; the cost is one
    lookup per name visited instead of a walk per slot. One per cycle (the tables
    it keeps alive, and so the ids it compares, are the cycle's slots')."""

    def __init__(self, policy: Policy) -> None:
        self._policy = policy
        #: the names every walk starts from (the weight expressions' own), sorted
        self._start = tuple(sorted({"slotweight"} | expr_names(policy.derived(_parsed_weight))))
        #: the ``entry_key`` of an ad's entries of the start names -> [(the names a
        #: walk visited, the ``entry_key`` of its ad's entries of them, the walk's
        #: ``weight_names``, that ad's table (held: the keys stay its entries'))]
        self._walks: dict[Hashable, list[tuple]] = {}

    def fill(self, offer: Offer) -> None:
        """Give ``offer`` its ``weight_names`` (``Offer.weight_names``), from a walk
        of equal bindings when one is known."""
        policy = self._policy
        if offer.weight_names and offer.weight_names[0] == policy.slot_weight:
            return
        ad = offer.slot.ad
        entries = adeval.table(ad)
        if entries is None:
            weight_names(offer, policy)
            return
        key = entry_key(entries, self._start)
        known = self._walks.get(key)
        if known is None:
            known = self._walks[key] = []
        for visited, ids, plan, _ in known:
            if entry_key(entries, visited) == ids:
                offer.weight_names = (policy.slot_weight, plan)
                return
        visited, plan = _weight_walk(ad, policy)
        known.append((visited, entry_key(entries, visited), plan, entries))
        offer.weight_names = (policy.slot_weight, plan)


def _calls_dynamic(expr: Expr) -> bool:
    """Whether ``expr`` calls a function of ``_DYNAMIC_CALLS`` anywhere in its tree.
    (Asked once per offer, when its weight's names are first needed: no memo pays.)"""
    stack = [expr]
    while stack:
        node = stack.pop()
        if type(node) is Call and node.name.lower() in _DYNAMIC_CALLS:
            return True
        stack.extend(children(node))
    return False


def _value_key(value: object) -> tuple:
    return (type(value).__name__, value)


def _literal_key(expr: Expr | None) -> object:
    # A literal by type and value (1, 1.0 and True are equal Python values but not the
    # same ClassAd value); any other expression as itself (compared by structure).
    if type(expr) is Literal:
        return _value_key(expr.value)
    return expr


def _dynamic(offer: Offer, taken: dict[str, float]) -> ClassAd:
    pieces: dict[str, object] = {r: slot_vectors.number(v) for r, v in taken.items()}
    pieces.update(PartitionableSlot=False, SlotType="Dynamic")
    return with_attrs(offer.ad, pieces)


def carve(offer: Offer, taken: dict[str, float], policy: Policy, now: float | None):
    """Return ``(cost, dynamic_ad, rest_ad)``: the weight charged for ``taken``, an ad
    of the dynamic slot holding it, and the partitionable slot's ad with it removed."""
    cost = piece_weight(offer, taken, policy)
    rest_values = {}
    for res, amount in taken.items():
        left = adeval.as_float(adeval.attr_value(offer.ad, res, None, now)) or 0.0
        rest_values[res] = slot_vectors.number(left - amount)
    return cost, _dynamic(offer, taken), with_attrs(offer.ad, rest_values)


def vector_piece_weight(offer: Offer, taken: dict[str, float], policy: Policy) -> float:
    """``piece_weight`` of an offer with a resource vector: the same value, remembered
    per combined vector and computed by residuals of the weight expressions
    (``_vector_weight``)."""
    if not policy.negotiator_use_slot_weights:
        return 1.0
    vector = offer.vector
    assert vector is not None

    def weight_exprs(ad: ClassAd) -> tuple:
        free = slot_vectors.free_pairs(ad, vector)
        return (specialize_attribute(ad, "SlotWeight", None, free, None),
                specialize(policy.derived(_parsed_weight), ad, None, free, None))

    weight_reads(offer, policy)  # (the caller keys weights by their amounts, if any)
    return _vector_weight(vector, taken, lambda: _dynamic(offer, taken),
                                lambda ad: slot_weight(ad, policy), weight_exprs)


def weight_reads(offer: Offer, policy: Policy) -> tuple[str, ...]:
    """``SlotVector.weight_reads`` of an offer with a resource vector, worked out once."""
    vector = offer.vector
    assert vector is not None
    if vector.weight_reads is None:
        vector.weight_reads = _base_reads(offer, vector, policy)
    return vector.weight_reads


def _base_reads(offer: Offer, vector: SlotVector, policy: Policy) -> tuple[str, ...]:
    """The spellings (as ``taken`` keys them) of the resources the weight expressions
    reach, when those are all among Cpus, Memory and Disk (every piece takes those);
    () when they reach another resource or the reach is unknown (``eval``)."""
    plan = weight_names(offer, policy)
    if plan is None:
        return ()
    spelled = {r.lower(): r for r in BASE_RESOURCES}
    reads = [name for name in plan if name in vector.index]
    if not reads or any(name not in spelled for name in reads):
        return ()
    return tuple(spelled[name] for name in reads)


def _vector_weight(vector: SlotVector, taken: dict[str, float],
                 dynamic: Callable[[], ClassAd], weigh: Callable[[ClassAd], float],
                 weight_exprs: Callable[[ClassAd], tuple[Residual | None, Residual | None]],
                 ) -> float:
    """The weight of a piece holding ``taken``: the dynamic slot's ad is the state's ad
    with the taken amounts in place of the resources (and the dynamic slot's
    constants), so its weight is a function of those combined values. Remembered per
    typed combined vector; ``dynamic()`` builds the ad and ``weigh(ad)`` weighs it in
    full when no residual can be made; ``weight_exprs(ad)`` makes the residuals of
    ``SlotWeight`` and ``SLOT_WEIGHT`` in a dynamic ad."""
    vals = list(vector.vals)
    for res, amount in taken.items():
        vals[vector.index[res.lower()]] = slot_vectors.number(amount)
    key = slot_vectors.typed(vals)
    found = vector.weights.get(key)
    if found is not None:
        return found
    if not vector.weight:
        vector.weight = weight_exprs(dynamic())
    own, fallback = vector.weight
    if own is None or fallback is None:
        found = weigh(dynamic())
    else:
        weight = adeval.as_float(own(vals))
        if weight is None:
            weight = adeval.as_float(fallback(vals))
        found = max(1.0 if weight is None else weight, 0.0)
    vector.weights[key] = found
    return found
