"""A slot's START and Requirements with what the slot itself decides folded in.

A startd's ``START`` reads the machine's own numbers, which differ on every slot
(``KeyboardIdle > 15 * 60 || TARGET.Owner == "alice"``, ``LoadAvg < 0.3``). Matching
walks what a slot's Requirements reach, so each such slot would be a shape of its
own and every job class would be evaluated against it in full, although the numbers
only ever decide one boolean. ``OwnPolicy.fold`` rewrites an offer's ``Start`` and
``Requirements`` once, before its first shape is worked out, with
``classad.folding.fold_own``: references to the slot's own literal attributes become
those literals and what they decide is folded (``true`` on every idle desktop,
``false || TARGET.Owner == "alice"`` on alice's busy ones). The walks then no longer
reach the numbers, and slots that differ only in them share shapes, static parts and
programs.

What may change during the cycle is never folded (``keep``): the resources carving
rebinds, what a dynamic slot's ad binds (``PartitionableSlot``, ``SlotType``) and the
``Remote*`` attributes of a claimed slot. The folded expression has the value of the
original in the offer's ad for every job and ``now`` (``fold_own``'s invariant), so
every evaluation the cycle makes in that ad (both Requirements, the ranks,
PREEMPTION_REQUIREMENTS, a job's ``TARGET.Start``) gives what it gave before; the
slot's original ad (``Offer.slot.ad``) is untouched, for ``--explain`` and the
output. Equal folded expressions are one node for the cycle, so their compiled
closures and the shape keys' numbering are shared.
"""

from __future__ import annotations

from condorlite.core import adeval
from condorlite.core.classad.ast import Expr, Literal
from condorlite.core.classad.folding import FoldMemo, fold_own
from condorlite.core.matching.offers import Offer

#: The slot policy expressions folded (lower-case).
POLICY_NAMES = ("start", "requirements")
#: What a dynamic slot's ad binds (``pieces._dynamic``), never folded.
DYNAMIC_NAMES = frozenset({"partitionableslot", "slottype"})


class OwnPolicy:
    """Folds each offer's own policy once (module doc); ``keep`` are the lower-case
    names the cycle may rebind in a slot's ad."""

    def __init__(self, keep: frozenset[str]) -> None:
        self._keep = keep | DYNAMIC_NAMES
        #: (spelling, folded expression) -> the one entry that stands for it this
        #: cycle: slots folded alike hold the same entry (``first_states`` shares
        #: what it works out between slots holding the same entries)
        self._entries: dict[tuple[str, Expr], tuple[str, Expr]] = {}
        #: what folding decided by operator and literals, shared by every slot
        self._memo = FoldMemo()

    def fold(self, offer: Offer) -> None:
        """Rebind the offer's ``Start`` and ``Requirements`` to their folded forms,
        when folding changes them (the ad is copied, never changed)."""
        ad = offer.ad
        changes: dict[str, tuple[str, Expr]] = {}
        for name in POLICY_NAMES:
            expr = adeval.attr(ad, name)
            if expr is None or type(expr) is Literal:
                continue
            out = fold_own(expr, ad, self._keep, self._memo)
            if out is not expr:
                entry = (adeval.spelling(ad, name) or name, out)
                changes[name] = self._entries.setdefault(entry, entry)
        if changes:
            offer.ad = adeval.with_entries(ad, changes)
