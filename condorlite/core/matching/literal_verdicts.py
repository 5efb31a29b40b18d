"""A literal probe's answer shared by every program of the same tests that would read
the same values: a probe per (class, group of literals) is one per values read.

A static part's program that is no box is probed once per group of the part's shapes
with equal own literals (``literal_tests.fails_on_literals``, ``StaticLists._sieved``),
for every class: at 10,000 x 100,000 (static mix) 5,814 probes, a Python-level read
per position each. The classes' programs of one part share their tests (the part's
residuals, ``ResidualCache``); what differs between them is the params (the class's
literal requests and its ``Owner``), and a failing owner test reads one literal and
one param.

Exactness: a residual is a pure function of the values it reads (``partial``:
residuals read their free values as ``vals[index]`` only; ``box_reads`` and
``literal_tests`` rely on the same). A probe runs the tests in order, each on
``(*vals, *params)``; at another vector whose values at every position the probe
read are the same, each test reads the same positions in the same order, gets the
same values, raises or returns the same (a test that raised counts the positions
it read before), so the probe answers the same. The answers are kept per (the
tests, by identity; the positions the probe read) and looked up by the values at
those positions, typed (``1``, ``1.0`` and ``true`` are one Python key but three
ClassAd values; a real zero, whose sign ClassAds tell apart, and a value of any
other type are not kept). At most ``MOST_READS`` sets of positions are
kept per tests: a test whose reads depend on the values read reads other positions
elsewhere.

Counts: a probe answered here is counted as one evaluation by the caller, as a run
one is: the count stands for the groups asked, whatever answers them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter

from condorlite.core.matching.carving import PairProgram
from condorlite.core.matching.literal_tests import fails_on_literals

#: the most sets of positions kept per tests (``box_reads.MOST_READS``' reason)
MOST_READS = 4
#: the value types whose Python equality is ClassAd identity, with the type keyed
#: (``bool`` apart from ``int``); a real zero is left out (``_key``)
_PLAIN = frozenset({str, int, bool, float})


class TestVerdicts:
    """The kept answers of the probes of one tuple of tests (module doc)."""

    __slots__ = ("by_reads", "tests")

    def __init__(self, tests: list) -> None:
        #: the tests (held: their ids key this record)
        self.tests = tests
        #: positions read, sorted -> (their values' getter, typed values -> answer)
        self.by_reads: dict[tuple[int, ...], tuple[Callable[[Sequence[object]], object],
                                                   dict[tuple, bool]]] = {}


class LiteralVerdicts:
    """``fails_on_literals`` answered once per (tests, values read) for a cycle's
    static lists (module doc)."""

    __slots__ = ("_known",)

    def __init__(self) -> None:
        #: ids of a program's tests -> their kept answers
        self._known: dict[tuple[int, ...], TestVerdicts] = {}

    def of(self, program: PairProgram) -> TestVerdicts:
        """The kept answers of ``program``'s tests (asked once per program)."""
        key = tuple(map(id, program.tests))
        found = self._known.get(key)
        if found is None:
            found = self._known[key] = TestVerdicts(list(program.tests))
        return found

    def fails(self, program: PairProgram, kept: TestVerdicts, vals: Sequence[object]
              ) -> bool:
        """``fails_on_literals(program, vals)``, from ``kept`` (``of(program)``) when
        a probe of the same tests read the same values."""
        full = (*vals, *program.params)
        by_reads = kept.by_reads
        for get, answers in by_reads.values():
            key = _key(get(full))
            if key is not None:
                answer = answers.get(key)
                if answer is not None:
                    return answer
        seen: set = set()
        answer = fails_on_literals(program, vals, seen)
        read = _positions(seen, len(full))
        if read is None:
            return answer
        found = by_reads.get(read)
        if found is None:
            if len(by_reads) >= MOST_READS:
                return answer
            found = by_reads[read] = (_getter(read), {})
        key = _key(found[0](full))
        if key is not None:
            found[1][key] = answer
        return answer


def _positions(seen: set, width: int) -> tuple[int, ...] | None:
    """The positions ``seen`` sorted, or None when one is no index of the vector
    (a negative or a non-integer index: not keyed)."""
    if not all(type(index) is int and 0 <= index < width for index in seen):
        return None
    return tuple(sorted(seen))


def _getter(read: tuple[int, ...]) -> Callable[[Sequence[object]], tuple]:
    """The values at the positions ``read``, always as a tuple."""
    if len(read) == 1:
        index = read[0]
        return lambda full: (full[index],)
    if not read:
        return lambda full: ()
    return itemgetter(*read)


def _key(values: tuple) -> tuple | None:
    """``values`` with their types, or None when one is not ``_PLAIN`` or is a real
    zero (module doc)."""
    types = tuple(map(type, values))
    if not _PLAIN.issuperset(types) or (float in types and 0.0 in values):
        return None
    return (values, types)
