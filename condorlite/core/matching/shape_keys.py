"""Slot shape keys: a slot's bindings of the names a walk visited, as the key of its
pair shape (one ``ShapeKeys`` per cycle, owned by ``offer_shapes.OfferShapes``).

Slots whose ads bind the names matchmaking reads to the same expressions are one
*pair shape* (``autocluster``'s module doc); ``ShapeKeys.key`` tells them apart by
``expr_numbers.Canon`` numbers (equal numbers, equal expressions), ``slot_key`` by
the same numbers for what is not a literal and by the values' ``repr`` for the
literals (a slot's own numbers are keyed without a number each; ``kind_records``
makes the same key from a record's plan). Invariant: two slots have equal keys of
either kind exactly when they bind the names alike (NaN payloads aside for
``slot_key``, which no evaluation tells apart).
"""

from __future__ import annotations

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Literal
from condorlite.core.matching.expr_numbers import Canon


class ShapeKeys:
    """Slot shape keys for one cycle: a slot's bindings of its walked names, as
    expression numbers (equal numbers = equal expressions), absent names left out.

    ``slot_key`` is the key of an offer's pair shape, pair-static part and rank
    programs (``offer_shapes``, ``vector_keys``): the same partition, with the
    literals keyed by their values' ``repr`` after the numbers (0 in their places),
    a fourth part, where the slot binds any. A slot's own numbers (every static
    slot's ``Disk`` and ``KFlops`` its own) are then keyed without a ``Canon`` number
    each, and a slot that shares a ``kind_records`` record makes its key from the
    record's plan with no number at all (``KindRecords.pair_key``): the two ways give
    equal keys for equal bindings. ``repr`` tells apart what ``Canon`` does (``1``,
    ``1.0``, ``true``; ``0.0`` and ``-0.0``; ``literal_ranks.typed_values``) but NaN
    payloads, which no evaluation tells apart."""

    def __init__(self) -> None:
        self.canon = Canon()
        #: id(numbers) -> (numbers, bound names, non-zero numbers). A numbers tuple
        #: from ``entry_key`` is one object per (walked names, bindings), held here.
        self._packed: dict[int, tuple[tuple, tuple, tuple]] = {}
        #: the same for ``slot_key``: (numbers, bound names, their numbers with 0
        #: for a literal, the names bound to literals)
        self._slot_packed: dict[int, tuple[tuple, tuple, tuple, tuple]] = {}

    def key(self, ad: ClassAd, walked: tuple[str, ...], extra: tuple) -> tuple:
        numbers = self.canon.entry_key(ad, walked)
        packed = self._packed.get(id(numbers))
        if packed is None or packed[0] is not numbers:
            bound = tuple(n for n, k in zip(walked, numbers, strict=True) if k)
            packed = (numbers, bound, tuple(k for k in numbers if k))
            self._packed[id(numbers)] = packed
        return (extra, packed[1], packed[2])

    def slot_key(self, ad: ClassAd, names: tuple[str, ...], extra: tuple) -> tuple:
        """``key``'s partition of slots by their bindings of ``names``, the
        literals keyed by value (class doc)."""
        numbers = self.canon.entry_key(ad, names)
        packed = self._slot_packed.get(id(numbers))
        if packed is None or packed[0] is not numbers:
            bound = tuple(n for n, k in zip(names, numbers, strict=True) if k)
            literal = [type(adeval.attr(ad, name)) is Literal for name in bound]
            packed = (numbers, bound, literal_numbers(numbers, literal),
                      tuple(n for n, lit in zip(bound, literal, strict=True) if lit))
            self._slot_packed[id(numbers)] = packed
        if not packed[3]:
            return (extra, packed[1], packed[2])
        return (extra, packed[1], packed[2], literal_reprs(ad, packed[3]))


def literal_numbers(numbers: tuple[int, ...], literal: list[bool]) -> tuple[int, ...]:
    """A slot key's numbers (``ShapeKeys.slot_key``): the non-zero ``numbers``, 0 in
    place of each that ``literal`` (one flag per non-zero number) marks."""
    return tuple([0 if lit else k
                  for k, lit in zip([k for k in numbers if k], literal, strict=True)])


def literal_reprs(ad: ClassAd, names: tuple[str, ...]) -> tuple[str, ...]:
    """The ``repr`` of the values of the literals ``ad`` binds ``names`` to."""
    table = adeval.table(ad)
    if table is None:
        return tuple([repr(adeval.attr(ad, name).value)  # type: ignore[union-attr]
                      for name in names])
    # (a comprehension: faster on 3.11 than ``map`` over ``itemgetter`` and
    # ``attrgetter``, measured for 3 and 10 names)
    return tuple([repr(table[name][1].value) for name in names])
