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
from condorlite.core.classad.refs import references
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
        #: id(expression) -> (the expression, the names folding may look up in it,
        #: {ids of an ad's entries for them -> (the entries, the folded expression)})
        self._folds: dict[int, tuple[Expr, tuple[str, ...], dict[tuple, tuple]]] = {}

    def fold(self, offer: Offer) -> None:
        """Rebind the offer's ``Start`` and ``Requirements`` to their folded forms,
        when folding changes them (the ad is copied, never changed)."""
        ad = offer.ad
        table = adeval.table(ad) if getattr(ad, "parent", None) is None else None
        changes: dict[str, tuple[str, Expr]] = {}
        for name in POLICY_NAMES:
            expr = adeval.attr(ad, name)
            if expr is None or type(expr) is Literal:
                continue
            out = (fold_own(expr, ad, self._keep, self._memo) if table is None
                   else self._fold(expr, ad, table))
            if out is not expr:
                entry = (adeval.spelling(ad, name) or name, out)
                changes[name] = self._entries.setdefault(entry, entry)
        if changes:
            offer.ad = adeval.with_entries(ad, changes)

    def _fold(self, expr: Expr, ad: object, table: dict) -> Expr:
        """``fold_own(expr, ad, ...)`` for a top-level ClassAd-lite ad, remembered by
        the ad's entries for the names folding may look up in ``expr``: step 1 reads,
        of the ad, only its bindings of the bare and ``MY.`` names of ``expr`` not in
        ``keep`` (it follows no binding), and steps 2 and 3 only what step 1 gave; so
        slots holding the same entries for those names (the readers share entry
        objects between ads holding the same line) fold ``expr`` alike. The entries
        are held, so their ids stay theirs for the cycle."""
        plan = self._folds.get(id(expr))
        if plan is None or plan[0] is not expr:
            read = sorted({name for scope, name in references(expr)
                           if scope in (None, "my") and name not in self._keep})
            plan = self._folds[id(expr)] = (expr, tuple(read), {})
        entries = tuple(map(table.get, plan[1]))
        key = tuple(map(id, entries))
        found = plan[2].get(key)
        if found is None:
            found = plan[2][key] = (entries, fold_own(expr, ad, self._keep, self._memo))
        return found[1]
