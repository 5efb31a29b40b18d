"""Static slots that differ only in their resource numbers, evaluated by programs.

Real startds report numbers that differ on every slot: a static slot's ``Disk`` is
its share of the machine's free disk, its ``Memory`` what the machine has left. Such
a slot is its own shape as soon as a job's ``Requirements`` reads the number
(``TARGET.Disk >= RequestDisk``), so every class is evaluated against it in full.
Partitionable slots have long been evaluated by residual programs over their
resource vector (``carving``); a static slot can be too: its *static part* is its
walked bindings other than the resources (``Cpus``, ``Memory``, ``Disk`` and every
requested ``R``), and a (class, static part) program answers every slot of the part
at its own numbers (a box: a few bound tests).

A program only pays when its part is shared: a slot whose static part no other
slot has is evaluated in full as before. A desktop whose ``START`` names its owner
shares its machine type's part: the owner is one of its own literals
(``own_literals``), in the vector after the resources. A held slot's holder
(``RemoteOwner``), which the default ``NEGOTIATOR_PRE_JOB_RANK`` reads wherever it
reads the job (a desktop's ``Rank`` names its owner), is left free the same way
(``HOLDER``): the held desktops of one machine type share a part whoever holds
them, not one part per holder (the pair shape still keys the holder).
``StaticNumbers`` decides once per cycle, over every prepared static offer, which
parts hold at least ``SHARED`` pair shapes, ``SHARED_LITERALS`` for a part of
desktops (a pair is evaluated once per shape, so a part whose slots share one shape
gains nothing); a desktop of a smaller part gets its ad back as it was before the
rewrite (``OwnLiterals.unhoist``), which a full evaluation reads faster. The pair result is the one
``match_table.MatchTable._evaluate_pair`` gives, without ``taken`` (a static slot is
never carved): the program's parts are specialised with the same ``partial``
contract (a residual equals the full evaluation for every vector), and a program
that cannot be made falls back to the full evaluation.

The vectors are made, the parts numbered and their pair shapes counted as each
static offer is first placed, while its prepare reads its ad (``static_vectors``,
which also holds ``HOLDER``); the shares are decided here, at the first pair asked.
"""

from __future__ import annotations

from collections.abc import Callable

from condorlite.core.matching.offer_shapes import OfferShapes
from condorlite.core.matching.offers import Offer
from condorlite.core.matching.slot_vectors import SlotVector

#: the least number of pair shapes a static part must hold for its programs to be
#: made (below it, full evaluations, one per shape, cost less than the programs)
SHARED = 16
#: the same for a part whose vector holds a slot's own literals (desktops of one
#: machine type, ``own_literals``): their programs cost more to make (the folded
#: ``START`` and ``Rank`` read the owner) and most classes fail the owner test early
#: in a full evaluation, so such a part pays only from more shapes (measured: 16-30
#: shapes a part on the 1k static mix cost +4 % instructions, a few hundred at 10k
#: saved 5.5 %; session 18, the vectors worked out per pair shape: 32 against 64
#: saved 3.3 % of the 10k owner-start cycle and 0.8 % of the 10k static mix, the
#: same at 1k; 16 cost 1-2 % at 1k)
SHARED_LITERALS = 32


class StaticNumbers:
    """Which static offers are evaluated by programs, and their vectors (module doc).
    ``shapes`` is the cycle's ``offer_shapes.OfferShapes`` (its registry, walks and
    shape keys are read, never changed); ``resource_names`` the names a vector
    holds; ``unhoist(offer)`` puts back the ad of a desktop whose part gets no
    programs (``own_literals.OwnLiterals.unhoist``)."""

    def __init__(self, shapes: OfferShapes, resource_names: frozenset[str],
                 unhoist: Callable[[Offer], None] = lambda offer: None) -> None:
        self._shapes = shapes
        self._resource_names = resource_names
        self._unhoist = unhoist
        #: offer seq -> its vector (``SlotVector.static``: the part's id), for the
        #: offers of shared parts only; None until worked out (first ``of``)
        self._vectors: dict[int, SlotVector] | None = None

    def of(self, offer: Offer) -> SlotVector | None:
        """The vector of a static offer whose part is shared, else None (evaluate
        in full). Worked out for every static offer at the first call, when the
        cycle's offers are all prepared (static offers are never prepared again)."""
        vectors = self._vectors
        if vectors is None:
            vectors = self._vectors = self._work_out()
            self._shapes.static_vectors.done()
        return vectors.get(offer.seq)

    def _work_out(self) -> dict[int, SlotVector]:
        shapes = self._shapes
        statics = shapes.static_vectors
        if not statics.all_available():
            # (never in a cycle: a static offer leaves only by a match, which its
            # pair precedes; the parts are those of the offers still here)
            statics.recount(shapes.walked)
        shapes_of = statics.shapes_of
        kept: dict[int, SlotVector] = {}
        for offer, vector in statics.found:
            # (the threshold of desktops is for their own literals: a part whose only
            # literal is the holder is one of plain held slots)
            if len(shapes_of[vector.static]) >= (SHARED_LITERALS if offer.literals
                                                 else SHARED):
                kept[offer.seq] = vector
            elif offer.literals:
                self._unhoist(offer)  # (evaluated in full: the literal is cheaper)
        return kept
