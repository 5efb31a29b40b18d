"""Which slot names a pair evaluation can read, found once per kind of slot.

For a slot ad, ``SlotWalks.walk`` answers: which policy ranks read the job in this slot
(``flags``), every slot name a pair evaluation can reach (``walked``, sorted), and the
slot names each policy rank that reads nothing from the job reaches (``reaches``). The
matchmaker keys its slot shapes by the bindings of those names.

A walk only follows references and notes which names are bound, so it is shared by
every slot whose bindings of the names it visited have the same references: the values
of literals, which tell slots of one machine type or the holders of claimed slots apart,
do not change it.
"""

from __future__ import annotations

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Expr, Literal
from condorlite.core.classad.refs import references
from condorlite.core.matching.autocluster import closure


def reads_job(slot_ad: ClassAd, expr: Expr, job_defined: frozenset[str]) -> tuple[bool, set[str]]:
    """Whether ``expr`` evaluated in this slot can read anything from a job, and the
    names it reaches in the slot. A ``TARGET.`` reference reads the job; so does a name
    the slot does not define that some job defines (the alternate scope)."""
    seen: set[str] = set()
    todo = list(references(expr))
    reads = False
    while todo:
        scope, name = todo.pop()
        if scope == "target":
            reads = True
            continue
        if name in seen:
            continue
        seen.add(name)
        bound = adeval.attr(slot_ad, name)
        if bound is not None:
            todo.extend(references(bound))
        elif name in job_defined:
            reads = True
    return reads, seen


#: A name's place in a structure when the ad does not bind it.
UNBOUND = "unbound"
_NO_REFS: frozenset = frozenset()


class SlotWalks:
    """The walks of one cycle (see the module doc)."""

    def __init__(self, slot_names: frozenset[str], exprs, job_defined: frozenset[str],  # type: ignore[no-untyped-def]
                 preemption_off: bool) -> None:
        self.slot_names = slot_names
        self.slot_names_sorted = tuple(sorted(slot_names))
        #: the policy expressions (``matchmaker.PolicyExprs``)
        self.exprs = exprs
        self.job_defined = job_defined
        self.preemption_off = preemption_off
        #: busy -> names a walk visited -> {their structure in an ad -> the walk}
        self._walk_memo: dict[bool, dict[tuple[str, ...], dict[tuple, tuple]]] = {
            False: {}, True: {}}
        #: id(expr) -> (expr, its references), for ``_structure``
        self._refs: dict[int, tuple[Expr, frozenset]] = {}
        #: id(table entry) -> the references of its expression (``UNBOUND`` for the
        #: id of None: a name the ad does not bind); ``_entries`` holds the entries, so
        #: that their ids stay theirs
        self._entry_refs: dict[int, frozenset | str] = {id(None): UNBOUND}
        self._entries: list[tuple] = []

    def walk(self, ad: ClassAd, busy: bool) -> tuple:
        """``_walk``, reused from an earlier slot whose ad binds every name that walk
        visited to expressions with the same references (a walk only follows
        references and notes which names are bound: the values of literals, which
        tell slots of one machine type or the holders of claimed slots apart, do not
        change it)."""
        # Walks are kept by the names they visited (a few sets in a cycle: every walk
        # visits the slot names at least), then by the structure of those names.
        memo = self._walk_memo[busy]
        for visited, by_structure in memo.items():
            found = by_structure.get(self._structure(ad, visited))
            if found is not None:
                return found
        result = self._walk(ad, busy)
        names = set(result[1])
        for reach in result[2].values():
            names |= reach
        ordered = tuple(sorted(names))
        known = memo.get(ordered)
        if known is None and len(memo) < 16:
            known = memo[ordered] = {}
        if known is not None:
            known[self._structure(ad, ordered)] = result
        return result

    def _structure(self, ad: ClassAd, names: tuple[str, ...]) -> tuple:
        """For each of ``names``: ``UNBOUND`` when the ad does not bind it, else the
        references of its binding (``refs.references``, remembered per expression)."""
        table = adeval.table(ad)
        if table is not None:
            # Ads read from files share their entry objects: C-level passes of lookups
            # find each entry's references, worked out once per entry (a literal's
            # are empty whatever its value, so slots differing only in values share).
            entries = tuple(map(table.get, names))
            refs_of = self._entry_refs
            try:
                return tuple(map(refs_of.__getitem__, map(id, entries)))
            except KeyError:
                pass
            # Entries met for the first time (a held slot's own RemoteUserPrio, say):
            # found by C-level scans, so only they cost a Python step.
            structure = list(map(refs_of.get, map(id, entries)))
            at = structure.index(None)
            while True:
                entry = entries[at]
                self._entries.append(entry)
                expr = entry[1]
                # (a literal refers to nothing: no walk over it)
                structure[at] = refs_of[id(entry)] = (
                    _NO_REFS if type(expr) is Literal else self._references(expr))
                try:
                    at = structure.index(None, at + 1)
                except ValueError:
                    return tuple(structure)
        return self._structure_of(ad, names)

    def _references(self, expr: Expr) -> frozenset:
        """``refs.references(expr)``, remembered per expression."""
        refs = self._refs
        found = refs.get(id(expr))
        if found is None or found[0] is not expr:
            found = refs[id(expr)] = (expr, references(expr))
        return found[1]

    def _structure_of(self, ad: ClassAd, names: tuple[str, ...]) -> tuple:
        out = []
        for name in names:
            expr = adeval.attr(ad, name)
            out.append(UNBOUND if expr is None else self._references(expr))
        return tuple(out)

    def pair_names(self, ad: ClassAd, busy: bool) -> tuple[str, ...]:
        """The slot names a pair evaluation (both Requirements, both Ranks, the
        policy ranks that read the job) can reach, sorted: ``walk``'s ``walked``
        less what only PREEMPTION_REQUIREMENTS reaches (a held slot's
        ``RemoteUserPrio``, say), which is evaluated per shape, not per pair."""
        names = set(self.slot_names)
        for _, expr in self.exprs.ranks(busy):
            reads, reach = reads_job(ad, expr, self.job_defined)
            if reads:
                names |= reach
        return tuple(sorted(closure(ad, names)))

    def _walk(self, ad: ClassAd, busy: bool) -> tuple:
        """The policy ranks that read the job in this slot (``flags``), every slot
        name a pair evaluation can reach (sorted), and the slot names each policy rank
        that does not read the job reaches."""
        names = set(self.slot_names)
        flags = []
        reaches: dict[str, set[str]] = {}
        for key, expr in self.exprs.ranks(busy):
            reads, reach = reads_job(ad, expr, self.job_defined)
            if reads:
                names |= reach
                flags.append(key)
            else:
                reaches[key] = reach
        if busy and not self.preemption_off:
            names |= reads_job(ad, self.exprs.preemption_requirements, self.job_defined)[1]
        return tuple(flags), tuple(sorted(closure(ad, names))), reaches
