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

A fold is remembered by the ad's entries for the names it reads (``_fold_table``),
except a name it reads only to compare with integer constants (``KeyboardIdle >
15 * 60``: ``folding.decisions``): bound to an integer literal, that name is keyed
on what the comparisons give (``folding.outcomes``), so the desktops of one owner,
each idle for its own number of seconds, are folded twice (idle or not), not once
each (``DECIDED``). Exact: the fold of such an ad is that of any other ad with the
same entries and outcomes but for the integer, which the fold compares and drops
(``folding``'s module doc), and equal folds are the one entry.
"""

from __future__ import annotations

from typing import NamedTuple

from condorlite.core import adeval
from condorlite.core.classad.ast import (
    AttrRef,
    Binary,
    Call,
    Conditional,
    Expr,
    Literal,
    Paren,
    Unary,
)
from condorlite.core.classad.folding import (
    Decision,
    FoldMemo,
    decisions,
    fold_own,
    outcomes,
)
from condorlite.core.classad.refs import references
from condorlite.core.matching.offers import Offer

#: The slot policy expressions folded (lower-case).
POLICY_NAMES = ("start", "requirements")
#: "not in the memo" (a memo's value may be None)
_UNSEEN = object()
#: What a dynamic slot's ad binds (``pieces._dynamic``), never folded.
DYNAMIC_NAMES = frozenset({"partitionableslot", "slottype"})
#: a name a fold only compares with integer constants is keyed on the comparisons'
#: outcomes (module doc); off: on its entry, as every other name
DECIDED = True
#: folded expressions deeper than this are taken as deciding something
#: (``decides_nothing``)
_MAX_DEPTH = 200


class _Plan(NamedTuple):
    """How one policy entry (the ad's ``Start`` or ``Requirements`` entry object) is
    folded: ``reads`` are the names folding may look up in it (``reads``); ``folds``
    maps the ids of an ad's entries for ``reads`` to (those entries, held so their
    ids stay theirs; the folded entry, or None when folding changes nothing).
    ``tests``: per name of ``reads``, its ``folding.decisions`` (None: keyed on its
    entry), or None for none at all; a key then holds, for such a name bound to an
    integer literal, the ``outcomes`` in place of the entry's id. ``decided``: the
    names of ``tests`` that have some, with them ({} for none: ``decided``)."""

    policy: tuple
    reads: tuple[str, ...]
    folds: dict[tuple, tuple[tuple, tuple[str, Expr] | None]]
    tests: tuple[tuple[Decision, ...] | None, ...] | None
    decided: dict[str, tuple[Decision, ...]]


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
        #: (policy name, id of an ad's entry for it) -> its plan (``_fold_table``)
        self._plans: dict[tuple[str, int], _Plan] = {}
        #: id(a policy entry) -> (the entry, ``reads`` of it)
        self._reads: dict[int, tuple[tuple, tuple[str, ...]]] = {}

    def fold(self, offer: Offer) -> None:
        """Rebind the offer's ``Start`` and ``Requirements`` to their folded forms,
        when folding changes them (the ad is copied, never changed)."""
        changes = self.changes(offer)
        if changes:
            offer.ad = adeval.with_entries(offer.ad, changes)

    def changes(self, offer: Offer) -> dict[str, tuple[str, Expr]]:
        """The (lower-case name -> entry) rebindings ``fold`` makes in the offer's ad,
        the ad left as it is: ``Matchmaker.prepare`` copies the ad once for these
        and ``own_literals``'s together."""
        ad = offer.ad
        table = adeval.table(ad) if getattr(ad, "parent", None) is None else None
        if table is not None:
            return self._fold_table(ad, table)
        changes = {}
        for name in POLICY_NAMES:
            expr = adeval.attr(ad, name)
            if expr is None or type(expr) is Literal:
                continue
            out = fold_own(expr, ad, self._keep, self._memo)
            if out is not expr:
                entry = (adeval.spelling(ad, name) or name, out)
                changes[name] = self._entries.setdefault(entry, entry)
        return changes

    def _fold_table(self, ad: object, table: dict) -> dict[str, tuple[str, Expr]]:
        """The changed policy entries of a top-level ClassAd-lite ad, each remembered
        by the policy entry and the ad's entries for the names folding may look up
        in it: ``fold_own`` step 1 reads, of the ad, only its bindings of the bare
        and ``MY.`` names of the expression not in ``keep`` (it follows no binding),
        and steps 2 and 3 only what step 1 gave; so slots holding the same entries
        for those names (the readers share entry objects between ads holding the
        same line) fold alike. Each policy entry is keyed on its own names, so a
        ``Requirements`` that reads ``START`` is not folded again for every slot
        whose ``START`` reads a number of its own (``KeyboardIdle``). Entries are
        held by the memo, so their ids stay theirs for the cycle."""
        get = table.get
        changes: dict[str, tuple[str, Expr]] = {}
        for name in POLICY_NAMES:
            entry = get(name)
            if entry is None or type(entry[1]) is Literal:
                continue
            plan = self._plan_of(name, entry)
            entries = tuple(map(get, plan.reads))
            key = (tuple(map(id, entries)) if plan.tests is None
                   else _decided_key(entries, plan.tests))
            found = plan.folds.get(key, _UNSEEN)
            if found is _UNSEEN:
                out = fold_own(entry[1], ad, self._keep, self._memo)
                if out is not entry[1]:
                    new = (entry[0], out)
                    found = self._entries.setdefault(new, new)
                else:
                    found = None
                plan.folds[key] = (entries, found)
            else:
                found = found[1]
            if found is not None:
                changes[name] = found
        return changes

    def decided(self, name: str, entry: tuple) -> dict[str, tuple[Decision, ...]]:
        """The names whose entries the fold of the policy entry ``entry`` (bound to
        ``name``) is keyed on by what its comparisons decide (``_Plan.tests``), each
        with its ``Decision`` s; {} for none, and for a literal entry (never folded).
        ``own_rewrites`` keys a whole rewrite on them (its ``_decided_key``)."""
        if type(entry[1]) is Literal:
            return {}
        return self._plan_of(name, entry).decided

    def _plan_of(self, name: str, entry: tuple) -> _Plan:
        """The plan of the policy entry ``entry`` bound to ``name``, made once."""
        plan = self._plans.get((name, id(entry)))
        if plan is None or plan.policy is not entry:
            plan = self._plans[(name, id(entry))] = self._plan(entry)
        return plan

    def _plan(self, entry: tuple) -> _Plan:
        """A new plan for the policy entry: its ``reads`` and, when ``DECIDED`` and
        some of them are only compared with integer constants, their ``tests``."""
        reads = self.reads(entry)
        tests = None
        decided: dict[str, tuple[Decision, ...]] = {}
        if DECIDED and reads:
            found = decisions(entry[1], self._keep, self._memo)
            if found:
                tests = tuple(found.get(name) for name in reads)
                decided = {read: tests for read, tests in zip(reads, tests, strict=True)
                           if tests is not None}
        return _Plan(entry, reads, {}, tests, decided)

    def reads(self, entry: tuple) -> tuple[str, ...]:
        """The names ``fold_own`` may look up in the ad while folding the policy
        entry's expression: its bare and ``MY.`` names not in ``keep`` (remembered
        per entry: ``own_rewrites`` asks again for every set of policy entries)."""
        found = self._reads.get(id(entry))
        if found is None or found[0] is not entry:
            found = self._reads[id(entry)] = (entry, tuple(sorted(
                {name for scope, name in references(entry[1])
                 if scope in (None, "my") and name not in self._keep})))
        return found[1]


def _decided_key(entries: tuple, tests: tuple) -> tuple:
    """A fold's key (``_Plan.tests``): per name, the outcomes of its tests when the
    ad binds it to an integer literal they decide, else its entry's id (``tests``:
    per name its ``Decision`` s, or None: keyed on the entry). Whoever keeps the
    key holds the entries, so the ids in it stay theirs."""
    key = []
    for entry, found in zip(entries, tests, strict=True):
        if found is not None and entry is not None and type(entry[1]) is Literal:
            decided = outcomes(found, entry[1].value)
            if decided is not None:
                key.append(decided)
                continue
        key.append(id(entry))
    return tuple(key)


def decides_nothing(ad: adeval.ClassAd, changes: dict[str, tuple]) -> bool:
    """Whether each of the fold's rebindings (``OwnPolicy.changes`` of a ClassAd-lite
    ad) is the ad's entry with some references replaced by literals that are not
    strings, and nothing else changed: a fold that inlined literal bindings and
    decided nothing. (A string might be hoisted by ``own_literals`` once inlined:
    such a fold is made; ``own_rewrites.INLINED`` drops the others.)"""
    table = adeval.table(ad)
    if table is None:
        return False
    for name, after in changes.items():
        before = table.get(name)
        if before is None or before[0] != after[0] or not _only_inlined(
                before[1], after[1], 0):
            return False
    return True


def _only_inlined(before: Expr, after: Expr, depth: int) -> bool:
    """``decides_nothing`` of two expressions (False for kinds of node not looked
    into, and past ``_MAX_DEPTH``)."""
    if before is after:
        return True
    kind = type(before)
    if kind is AttrRef:
        if type(after) is Literal:
            return type(after.value) is not str  # type: ignore[attr-defined]
        return before == after
    if kind is not type(after) or depth > _MAX_DEPTH:
        return False
    depth += 1
    if kind is Binary:
        return (before.op == after.op  # type: ignore[attr-defined]
                and _only_inlined(before.left, after.left, depth)  # type: ignore[attr-defined]
                and _only_inlined(before.right, after.right, depth))  # type: ignore[attr-defined]
    if kind is Paren:
        return _only_inlined(before.inner, after.inner, depth)  # type: ignore[attr-defined]
    if kind is Unary:
        return (before.op == after.op  # type: ignore[attr-defined]
                and _only_inlined(before.operand, after.operand, depth))  # type: ignore[attr-defined]
    if kind is Conditional:
        return all(_only_inlined(b, a, depth) for b, a in (
            (before.cond, after.cond), (before.then, after.then),  # type: ignore[attr-defined]
            (before.otherwise, after.otherwise)))  # type: ignore[attr-defined]
    if kind is Call:
        return (before.name == after.name  # type: ignore[attr-defined]
                and len(before.args) == len(after.args)  # type: ignore[attr-defined]
                and all(_only_inlined(b, a, depth)
                        for b, a in zip(before.args, after.args, strict=True)))  # type: ignore[attr-defined]
    return before == after
