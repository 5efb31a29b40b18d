"""Job ranks per offer, shared by every class with the same rank ("rank columns").

A slot attribute that differs on every slot (``KFlops``, ``Mips``, ``LoadAvg``) makes
every slot its own shape once any pair evaluation reads it, and then every class is
evaluated against every slot. When such a name is read only by jobs' ``Rank``
(HTCondor's textbook ``Rank = KFlops``), it need not split shapes at all: the match,
the slot's Rank, the policy ranks and what a piece takes never read it, so they are
evaluated per shape as before, and the job's Rank alone is read per offer.

**Rank-only names** (``rank_only_names``): the names some class's job ``Rank``
refers to, less every name anything else of a pair can read: the names the job's
other significant bindings refer to (all of the Rank's names when one of them reads
the job's ``Rank`` or the Rank reaches a ``Submitter*`` name), the resources and
requests, the negotiator's inserted names, and ``Requirements`` and ``Rank``
themselves. Policy expressions need no exclusion: a
policy rank that reads the job is walked with the pair's names (``slot_walks``), and
one that does not is evaluated per offer. Nothing is
rank-only when a binding of some slot or job refers to a name ``rank`` other than the
job's own Requirements chain (a slot's ``Requirements`` may read ``TARGET.Rank``),
or when the cycle does not know what bindings refer to. The matchmaker leaves these
names out of the names a slot's walk starts from, so slots that differ only in them
share a shape; a slot expression that reads one of them still walks to it and keeps
its slots apart.

**Columns** (``RankColumns``): a class whose job ``Rank`` refers (through the job's
own bindings) to a rank-only name gets a ``RankColumn``, shared by every class whose
Rank is the same expression with the same job bindings of everything it reaches (so
all ``Rank = TARGET.KFlops`` classes share one); the expression compared as it reads
the slot (``slot_spelled``: ``Rank = KFlops`` of a job that does not bind ``KFlops``
is ``TARGET.KFlops``). A column evaluates the Rank once per
(column, offer state): ``as_float(Rank) or 0.0``, as a pair evaluation does, kept per
offer ``seq`` with the offer's ``version`` (every state change stamps a new version).
Entries of a column's class take their job rank from the column, per offer
(``candidates.make_entries``); the class's pair results' own ``job_rank`` is not read.
A Rank that reaches a ``Submitter*`` name gets no column (it may differ between the
submitters of a class), and its names are never rank-only: every class whose Rank
reaches a rank-only name has a column.
"""

from __future__ import annotations

from collections.abc import Iterable

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import (
    AttrRef,
    Binary,
    Conditional,
    Elvis,
    Expr,
    Literal,
    Paren,
    Unary,
)
from condorlite.core.classad.partial import specialize_attribute
from condorlite.core.classad.refs import names as expr_names
from condorlite.core.classad.residuals import Residual
from condorlite.core.classad.scope import SPECIAL_NAMES
from condorlite.core.matching.autocluster import closure
from condorlite.core.matching.offers import SUBMITTER_PREFIXES, Offer
from condorlite.core.matching.slot_vectors import int_now

#: names no column may read per offer: what every pair evaluation reads
_NEVER = frozenset({"requirements", "rank"})
#: "no program made yet" (a layout's program may be None)
_MISSING = object()


def rank_only_names(rank_refs: Iterable[frozenset[str]], other_refs: Iterable[frozenset[str]],
                    excluded: Iterable[str], binding_refs: frozenset[str] | None
                    ) -> frozenset[str]:
    """The rank-only names (module doc): the union of ``rank_refs`` (each class's
    names its job ``Rank`` refers to, through the job's bindings) less the union of
    ``other_refs`` (the names each class's other significant bindings refer to) and
    ``excluded``; empty when ``binding_refs`` is unknown or names ``rank``."""
    if binding_refs is None or "rank" in binding_refs:
        return frozenset()
    ranked: set[str] = set()
    for refs in rank_refs:
        ranked |= refs
    for refs in other_refs:
        ranked -= refs
    ranked.difference_update(excluded)
    ranked -= _NEVER
    return frozenset(ranked)


def slot_spelled(expr: Expr, job_ad: ClassAd) -> Expr | None:
    """``expr`` (a job's ``Rank``) with the same value in any match of ``job_ad``,
    spelled so that Ranks that read the slot alike are equal trees: every
    unqualified name the job does not bind (and no special name) becomes
    ``TARGET.<name>``, as a top-level ad's lookup of a name it lacks is the other
    ad's (``scope.unscoped_miss``), and every name is lower-cased without its
    prefix's spelling (lookups ignore case). So ``Rank = KFlops`` and ``Rank =
    TARGET.KFlops`` of jobs that do not bind ``KFlops`` are one tree. None when
    ``expr`` holds a node other than literals, names, operators, parentheses and
    conditionals (a call, a list, a record, a selection or a subscript may read
    names in another scope): the Rank is then keyed as written."""
    kind = type(expr)
    if kind is Literal:
        return expr
    if kind is AttrRef:
        lname = expr.name.lower()  # type: ignore[attr-defined]
        scope = expr.scope  # type: ignore[attr-defined]
        if scope is None and lname not in SPECIAL_NAMES and adeval.attr(job_ad, lname) is None:
            scope = "target"
        return AttrRef(lname, scope)
    if kind is Paren:
        return slot_spelled(expr.inner, job_ad)  # type: ignore[attr-defined]
    if kind is Unary:
        inner = slot_spelled(expr.operand, job_ad)  # type: ignore[attr-defined]
        return None if inner is None else Unary(expr.op, inner)  # type: ignore[attr-defined]
    if kind is Binary or kind is Elvis:
        left = slot_spelled(expr.left, job_ad)  # type: ignore[attr-defined]
        right = slot_spelled(expr.right, job_ad)  # type: ignore[attr-defined]
        if left is None or right is None:
            return None
        return Binary(expr.op, left, right) if kind is Binary else Elvis(left, right)  # type: ignore[attr-defined]
    if kind is Conditional:
        parts = [slot_spelled(part, job_ad) for part in (
            expr.cond, expr.then, expr.otherwise)]  # type: ignore[attr-defined]
        return None if None in parts else Conditional(*parts)  # type: ignore[arg-type]
    return None


def rank_reach(ad: ClassAd) -> frozenset[str]:
    """Every name the job ad's ``Rank`` reaches: its names, and the names of the
    ad's own bindings of those, followed to the end (``autocluster.closure``)."""
    expr = adeval.attr(ad, "rank")
    return frozenset() if expr is None else closure(ad, expr_names(expr))


class RankColumn:
    """One Rank's values per offer state (module doc). ``job_ad`` is the ad of the
    first class that asked for it: every class sharing the column evaluates alike;
    ``reach`` what its Rank reaches (``rank_reach``), ``carved`` the names carving
    rebinds.

    A carved state differs from the slot's first state only in the carved names
    (``carving``), so when the Rank reaches none of them and the slot binds every
    name it reaches to a literal (or not at all), the value is the same in every
    state: it is read once, in whichever ad the offer holds (a carved state's ad
    is then not rebuilt to read it), and kept for every version.

    Then the evaluation reads, of the slot, only those literals (the job ad is the
    column's): the Rank is specialised once per *layout* (which reached names the
    slot binds) with the bound ones free (``classad.partial.specialize_attribute``,
    whose residual equals the full evaluation for any values of them), and each
    slot costs one run of the residual on its literal values."""

    __slots__ = ("_lower", "_negated", "_programs", "_values", "counts", "job_ad", "now",
                 "reach", "stateless")

    def __init__(self, job_ad: ClassAd, now: float | None, counts, reach: frozenset[str],
                 carved: frozenset[str]) -> None:
        self.job_ad = job_ad
        self.now = now
        self.counts = counts
        self.reach = tuple(sorted(reach))
        #: ``reach`` as the ad tables key it
        self._lower = tuple(name.lower() for name in self.reach)
        #: whether the Rank reaches no carved name (the offer's bindings decide the rest)
        self.stateless = not reach & carved
        #: offer seq -> (offer version, or None for every version; the Rank's value)
        self._values: dict[int, tuple[int | None, float]] = {}
        #: offer seq -> minus its value, for each value kept for every version
        #: (``negated``: an entry's job rank, made once per offer)
        self._negated: dict[int, float] = {}
        #: layout (which reached names the slot binds) -> residual, None: evaluate
        self._programs: dict[tuple[bool, ...], Residual | None] = {}

    def kept(self) -> dict[int, tuple[int | None, float]]:
        """The values found so far, to read only: offer seq -> (its version, or None
        for every version; the value). An offer ``same_in_every_state`` said yes of
        has its value here for good (``ordered_states`` reads them so, one look-up
        per entry); a value kept for the version an entry holds is that entry's
        offer's value (``shape_entries._column_derived`` reads them so)."""
        return self._values

    def negated(self) -> dict[int, float]:
        """Minus each value kept for every version, to read only: offer seq -> the
        job rank an entry of the offer holds (``candidates.make_entry`` negates the
        rank), in every state of the offer. Invariant: a seq is here exactly when
        ``kept`` holds (None, v) for it, and then with ``-v`` (``shape_entries``
        reads a run's ranks so, one look-up per entry, ``value`` asked of the
        others)."""
        return self._negated

    def value(self, offer: Offer) -> float:
        """The job's Rank of the offer in its current state (``as_float`` or 0.0)."""
        found = self._values.get(offer.seq)
        if found is not None and (found[0] is None or found[0] == offer.version):
            return found[1]
        self.counts.evaluations += 1
        ad = offer.state_ad
        if self.stateless and len(self._lower) == 1:
            # (the usual column, ``Rank = KFlops``, of a slot binding the name to a
            # literal whose layout's residual is made: its run on the literal, as
            # ``_literal_value`` works it out, without that call and
            # ``_literal_bindings``'; once per (column, offer): 20,640 at 10,000
            # partitionable slots with unique ranks)
            program = self._programs.get((True,))
            if program is not None:
                table = adeval.table(ad)
                entry = None if table is None else table.get(self._lower[0])
                if entry is not None and type(entry[1]) is Literal:
                    value = adeval.as_float(program([entry[1].value])) or 0.0
                    self._values[offer.seq] = (None, value)
                    self._negated[offer.seq] = -value
                    return value
        bound = self._literal_bindings(ad) if self.stateless else None
        if bound is not None:
            value = self._literal_value(ad, bound)
            version = None
        else:
            ad, version = offer.ad, offer.version
            value = adeval.as_float(adeval.eval_attr(self.job_ad, "Rank", ad, self.now))
        value = value or 0.0
        self._values[offer.seq] = (version, value)
        if version is None:
            self._negated[offer.seq] = -value
        return value

    def same_in_every_state(self, offer: Offer) -> bool:
        """Whether the offer's value is kept for every version (the Rank reaches no
        carved name and the slot binds what it reaches to literals, class doc): the
        value of every state the offer passes through."""
        if not self.stateless:
            return False
        self.value(offer)
        return self._values[offer.seq][0] is None

    def all_same_in_every_state(self, offers: Iterable[Offer]) -> bool:
        """``all(same_in_every_state(offer) for offer in offers)``, stopping at the
        same offer, with the same values kept and evaluations counted. The usual
        column (one reached name, ``Rank = KFlops``) takes an offer it has no value
        for, whose table binds the name to a literal, in this loop: the value is
        its layout's residual run on the literal, ``as_float`` or 0.0, as ``value``
        works it out, without ``value``'s and its helpers' calls (a carved list
        asks this of every offer of a static it orders: ~11,000 at 10,000 slots).
        Any other offer goes through ``same_in_every_state``."""
        if not self.stateless:
            return False
        if len(self._lower) != 1:
            return all(map(self.same_in_every_state, offers))
        name = self._lower[0]
        values, negated, programs, counts = (self._values, self._negated, self._programs,
                                             self.counts)
        table_of, as_float = adeval.table, adeval.as_float
        # (the layout where the slot binds the name: None until made, or when the
        # Rank is evaluated in full there; then ``same_in_every_state`` decides)
        program = programs.get((True,))
        for offer in offers:
            seq = offer.seq
            if program is not None and seq not in values:
                table = table_of(offer.state_ad)
                entry = None if table is None else table.get(name)
                if entry is not None and type(entry[1]) is Literal:
                    counts.evaluations += 1
                    value = as_float(program([entry[1].value])) or 0.0
                    values[seq] = (None, value)
                    negated[seq] = -value
                    continue
            if not self.same_in_every_state(offer):
                return False
            if program is None:
                program = programs.get((True,))
        return True

    def _literal_bindings(self, ad: ClassAd) -> list | None:
        """The ad's bindings of the names the Rank reaches (None where absent), or
        None when one is not a literal (it may lead on to a carved name)."""
        table = adeval.table(ad)
        if table is None:
            bound = [adeval.attr(ad, name) for name in self.reach]
        elif len(self._lower) == 1:
            # (the usual column, ``Rank = KFlops``: one look-up, no comprehension;
            # this runs for every slot of a column)
            entry = table.get(self._lower[0])
            expr = None if entry is None else entry[1]
            return [expr] if expr is None or type(expr) is Literal else None
        else:  # (one C-level pass of lookups)
            bound = [None if entry is None else entry[1]
                     for entry in map(table.get, self._lower)]
        for expr in bound:
            if expr is not None and type(expr) is not Literal:
                return None
        return bound

    def _literal_value(self, ad: ClassAd, bound: list) -> float | None:
        """The Rank in ``ad``, whose bindings of ``reach`` are ``bound`` (literals or
        None), by the residual of its layout."""
        layout = ((bound[0] is not None,) if len(bound) == 1
                  else tuple(expr is not None for expr in bound))
        program = self._programs.get(layout, _MISSING)
        if program is _MISSING:
            free = [(ad, name) for name, present in zip(self.reach, layout, strict=True)
                    if present]
            program = self._programs[layout] = specialize_attribute(
                self.job_ad, "Rank", ad, free, int_now(self.now))
        if program is None:
            return adeval.as_float(adeval.eval_attr(self.job_ad, "Rank", ad, self.now))
        if len(bound) == 1:
            return adeval.as_float(program([] if bound[0] is None else [bound[0].value]))
        return adeval.as_float(program([expr.value for expr in bound if expr is not None]))


class RankColumns:
    """A cycle's rank columns: each class's (or None), by class id. ``rank_names``:
    the cycle's rank-only names; ``carved``: the names carving rebinds (the
    matchmaker's ``resource_names``); ``key_of(ad, names)``: the numbers of an ad's
    bindings of ``names`` (``autocluster._Canon.key``), equal exactly when the
    bindings are the same expressions."""

    def __init__(self, rank_names: frozenset[str], key_of, now: float | None, counts,
                 carved: frozenset[str]) -> None:
        self.rank_names = rank_names
        self._carved = carved
        self._key_of = key_of
        self.now = now
        self.counts = counts
        #: class id -> its column or None
        self._of_class: dict[int, RankColumn | None] = {}
        #: (the Rank's reach, the job's bindings of it) -> column
        self._columns: dict[tuple, RankColumn] = {}

    def of_class(self, class_id: int, job_ad: ClassAd) -> RankColumn | None:
        """The class's column, or None when its Rank reads no rank-only name (or
        reaches a Submitter* name): its pair results' job rank then holds."""
        if class_id in self._of_class:
            return self._of_class[class_id]
        column = None
        if self.rank_names:
            reach = rank_reach(job_ad)
            if reach & self.rank_names and not any(
                    n.startswith(SUBMITTER_PREFIXES) for n in reach):
                # (keyed by the Rank spelled as it reads the slot, when it can be,
                # and the job's bindings of what it reaches: classes whose Ranks
                # differ only in spelling share the column)
                spelled = slot_spelled(adeval.attr(job_ad, "rank"), job_ad)
                names = tuple(sorted(reach)) if spelled is not None else (
                    "rank", *sorted(reach))
                key = (spelled, names, self._key_of(job_ad, names))
                column = self._columns.get(key)
                if column is None:
                    column = self._columns[key] = RankColumn(job_ad, self.now, self.counts,
                                                             reach, self._carved)
        self._of_class[class_id] = column
        return column
