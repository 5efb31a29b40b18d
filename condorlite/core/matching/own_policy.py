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

from operator import is_
from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.classad.ast import Expr, Literal
from condorlite.core.classad.folding import FoldMemo, fold_own
from condorlite.core.classad.refs import references
from condorlite.core.matching.offers import Offer

#: The slot policy expressions folded (lower-case).
POLICY_NAMES = ("start", "requirements")
#: What a dynamic slot's ad binds (``pieces._dynamic``), never folded.
DYNAMIC_NAMES = frozenset({"partitionableslot", "slottype"})


class _Plan(NamedTuple):
    """How one pair of policy entries (``Start``, ``Requirements``: the ad's entry
    objects, None when absent) is folded: ``reads`` are the names folding may look up
    in them (``_reads``); ``folds`` maps the ids of an ad's entries for ``reads`` to
    (those entries, held so their ids stay theirs; the changed policy entries)."""

    policy: tuple
    reads: tuple[str, ...]
    folds: dict[tuple, tuple[tuple, dict[str, tuple[str, Expr]]]]


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
        #: ids of an ad's policy entries -> their plan (``_fold_table``)
        self._plans: dict[tuple, _Plan] = {}

    def fold(self, offer: Offer) -> None:
        """Rebind the offer's ``Start`` and ``Requirements`` to their folded forms,
        when folding changes them (the ad is copied, never changed)."""
        ad = offer.ad
        table = adeval.table(ad) if getattr(ad, "parent", None) is None else None
        if table is not None:
            changes = self._fold_table(ad, table)
        else:
            changes = {}
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

    def _fold_table(self, ad: object, table: dict) -> dict[str, tuple[str, Expr]]:
        """The changed policy entries of a top-level ClassAd-lite ad, remembered by
        the ad's policy entries and its entries for the names folding may look up in
        them: ``fold_own`` step 1 reads, of the ad, only its bindings of the bare
        and ``MY.`` names of the expression not in ``keep`` (it follows no binding),
        and steps 2 and 3 only what step 1 gave; so slots holding the same entries
        for those names (the readers share entry objects between ads holding the
        same line) fold alike. Entries are held by the memo, so their ids stay
        theirs for the cycle."""
        get = table.get
        policy = tuple(map(get, POLICY_NAMES))
        plan = self._plans.get(tuple(map(id, policy)))
        if plan is None or not all(map(is_, plan.policy, policy)):
            plan = self._plans[tuple(map(id, policy))] = _Plan(
                policy, self._reads(policy), {})
        entries = tuple(map(get, plan.reads))
        found = plan.folds.get(tuple(map(id, entries)))
        if found is None:
            changes: dict[str, tuple[str, Expr]] = {}
            for name, entry in zip(POLICY_NAMES, policy, strict=True):
                if entry is None or type(entry[1]) is Literal:
                    continue
                out = fold_own(entry[1], ad, self._keep, self._memo)
                if out is not entry[1]:
                    new = (entry[0], out)
                    changes[name] = self._entries.setdefault(new, new)
            found = plan.folds[tuple(map(id, entries))] = (entries, changes)
        return found[1]

    def _reads(self, policy: tuple) -> tuple[str, ...]:
        """The names ``fold_own`` may look up in the ad while folding the policy
        entries' expressions: their bare and ``MY.`` names not in ``keep``."""
        read: set[str] = set()
        for entry in policy:
            if entry is not None and type(entry[1]) is not Literal:
                read.update(name for scope, name in references(entry[1])
                            if scope in (None, "my") and name not in self._keep)
        return tuple(sorted(read))
