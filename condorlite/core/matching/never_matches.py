"""Whether a job class's ``Requirements`` hold in no state of a partitionable slot
static, kept per what they read.

A class gets a program per vector static it meets (``match_table.MatchTable.program``),
or, for a static of one slot, full evaluations of its states. Many classes cannot
match a static at all, for a reason that has nothing to do with what tells statics
apart (an owner's name in ``Rank`` or ``START``, a machine's own literals): another
``Arch`` or ``OpSys``, no ``HasSingularity``. Such a verdict is worked out once and
shared between statics, keyed on what it read, and the class gets one program that
never matches instead of a program of its own per static.

For a (class, static) the job's ``Requirements`` is specialised against one state
with the vector's resources left free (``classad.partial``), as a program's first
part is. When it is a constant that does not hold, or never true (an ``&&`` with an
operand that never is, ``partial``'s ``never_true``), no state of the static can
match: the residual equals the full evaluation for every vector of resource values
(``partial``'s contract), and the states of a static differ only in those.

The verdict is a function of the job ad (fixed for the class and its Submitter*
bindings: the caller's key), of the resource names left free, and of the slot's
bindings of the names the specialisation read (``partial``'s ``reads``; a name the
slot does not bind is read too, and keyed as absent). The walk is the same walk on
any slot that binds those names to the same expressions (``expr_numbers``: numbered
with their types), so the verdict is kept under (class, resource names) -> the
names read -> their numbers, and a static of another slot that binds them alike gets
it without a specialisation: the statics of one machine type share one verdict per
class. Names read in the job ad are the class's and no part of the inner key; any
other ad's read names (the slot's, a record's) are keyed on the slot's bindings,
which keys more than it needs to, never less.
"""

from __future__ import annotations

from collections.abc import Callable

from condorlite.core.adeval import ClassAd
from condorlite.core.classad.partial import Constant, specialize_attribute
from condorlite.core.classad.residuals import Residual
from condorlite.core.matching.slot_vectors import SlotVector, free_pairs, holds, int_now

#: at most this many sets of read names per (class, resource names); a lookup tries
#: each (a class's verdicts read a few: where its Requirements stop)
_MAX_NAME_SETS = 32


class NeverMatches:
    """The cycle's verdicts (module doc). ``number(ad, names)``: the numbers of the
    ad's bindings of ``names`` (``expr_numbers.Canon.key``)."""

    def __init__(self, number: Callable[[ClassAd, tuple[str, ...]], tuple],
                 now: float | None) -> None:
        self._number = number
        self._now = int_now(now)
        #: (class key, resource names) -> read names -> their numbers -> verdict
        self._verdicts: dict[tuple, dict[tuple[str, ...], dict[tuple, bool]]] = {}
        #: how many specialisations were made (each counts as an evaluation)
        self.made = 0

    def never(self, klass: tuple, job_ad: ClassAd, slot_ad: ClassAd,
              vector: SlotVector, work_out: bool = True) -> bool:
        """Whether the class's job ``job_ad`` holds its ``Requirements`` in no state
        of the static of ``slot_ad`` (one state of a slot with resource vector
        ``vector``): then no state can match it. Without ``work_out``, only a verdict
        another static gave is used (none: False, nothing known)."""
        by_names = self._verdicts.get((klass, vector.names))
        if by_names is None:
            by_names = self._verdicts[(klass, vector.names)] = {}
        number = self._number
        for names, verdicts in by_names.items():
            found = verdicts.get(number(slot_ad, names))
            if found is not None:
                return found
        if not work_out:
            return False
        reads: set[tuple[int, str]] = set()
        never = self._work_out(job_ad, slot_ad, vector, reads)
        # (the job's names are the class's; the slot's free resources are read from
        # the vector, whatever their values)
        mine, slot, free = id(job_ad), id(slot_ad), set(vector.names)
        names = tuple(sorted({name for ad, name in reads
                              if ad != mine and (ad != slot or name not in free)}))
        if names in by_names or len(by_names) < _MAX_NAME_SETS:
            by_names.setdefault(names, {})[number(slot_ad, names)] = never
        return never

    def _work_out(self, job_ad: ClassAd, slot_ad: ClassAd, vector: SlotVector,
                  reads: set[tuple[int, str]]) -> bool:
        """The verdict by specialisation, the names read going into ``reads``."""
        self.made += 1
        return _never_holds(specialize_attribute(job_ad, "Requirements", slot_ad,
                                                 free_pairs(slot_ad, vector), self._now,
                                                 reads))


def _never_holds(residual: Residual | None) -> bool:
    """Whether a ``Requirements`` residual holds for no vector: a constant that does
    not hold, or one ``partial`` marked never true (None: it could not be made, so
    nothing is known)."""
    if residual is None:
        return False
    if type(residual) is Constant:
        return not holds(residual.value)
    return bool(getattr(residual, "never_true", False))
