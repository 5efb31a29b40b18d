"""Grid Engine's urgency policy: a job's static urgency and its normalised value.

For a job submitted at ``t_sub`` with deadline ``t_dl`` (0 for none), at time ``now``::

    wtcontr = weight_waiting_time * (now - t_sub)
    dlcontr = weight_deadline / max(t_dl - now, 1)        (0 without a deadline)
    rrcontr = sum over the implicit slots request and every hard -l request r of
              urgency(r) * amount(r) * slots   for numeric complexes (INT, DOUBLE,
                                               MEMORY, TIME, BOOL: amount is the
                                               request's double value, true = 1)
              urgency(r)                       for STRING, CSTRING, RESTRING, HOST
    urg     = rrcontr + wtcontr + dlcontr

``slots`` is 1 for a sequential job; for a PE job it is the PE range's only value, or,
for a range, the PE's ``urgency_slots``: ``min`` the first id, ``max`` the last (the
PE's ``slots`` for an open range), ``avg`` the average of the ids (every range capped
at the PE's ``slots``), or a fixed number. Requests naming no complex, and every soft
request, contribute nothing. A job whose cell lacks the ``slots`` complex gets no
urgency at all (the real scheduler skips it, leaving 0).

``nurg`` is min-max normalised over every pending and running job of the run:
``(urg - min) / (max - min)``, or 0.5 when ``max - min < 1e-6`` (``sge_normalize_value``).
"""

from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatchcase

from condorlite.core.sge.jobs import Job, SlotRange, construct
from condorlite.core.sge.objects import Complex, ParallelEnvironment

#: Grid Engine's SGE_EPSILON: a value range narrower than this normalises to 0.5.
EPSILON = 0.000001
#: The largest task or slot id Grid Engine stores (an open range ``n-`` ends here).
RANGE_INFINITY = 9999999
NUMERIC_TYPES = frozenset({"INT", "DOUBLE", "MEMORY", "TIME", "BOOL"})
STRING_TYPES = frozenset({"STRING", "CSTRING", "RESTRING", "HOST"})


@dataclass(frozen=True)
class UrgencyTerm:
    """One resource's contribution to ``rrcontr``: ``weight * amount * slots`` for a
    numeric complex, ``weight`` for a string one (``amount`` is then None)."""

    resource: str
    amount: float | None
    slots: int
    weight: float
    contribution: float


@dataclass(frozen=True)
class Urgency:
    """A job's static urgency with its three parts and the resource terms."""

    rrcontr: float
    wtcontr: float
    dlcontr: float
    slots: int
    terms: tuple[UrgencyTerm, ...]

    @property
    def urg(self) -> float:
        return self.wtcontr + self.dlcontr + self.rrcontr


def normalize(value: float, low: float, high: float) -> float:
    """``sge_normalize_value``: ``(value - low) / (high - low)``, 0.5 on a flat range."""
    if high - low < EPSILON:
        return 0.5
    return (value - low) / (high - low)


def _range_ids(ranges: tuple[SlotRange, ...]) -> int:
    return sum(len(r.values()) for r in ranges)


def _average(ranges: tuple[SlotRange, ...], pe_slots: int) -> int:
    """``range_list_get_average``: the integer average of every id, every range
    capped at the PE's ``slots`` (``-pe p 3-9`` in a PE of 8 slots averages 3..8, 5;
    a fresh random scenario of the real scheduler showed it: rnd_1795663496)."""
    total = count = 0
    for r in ranges:
        high = pe_slots if r.max >= RANGE_INFINITY else r.max
        if pe_slots:
            high = min(high, pe_slots)
        for n in range(r.min, high + 1, max(1, r.step)):
            total += n
            count += 1
    return total // count if count else 0


def urgency_slots(job: Job, pes: dict[str, ParallelEnvironment]) -> int:
    """The slot count the urgency policy assumes for ``job`` (module doc)."""
    if job.pe is None:
        return 1
    ranges = job.pe_range
    if _range_ids(ranges) == 1:
        return ranges[0].min
    pe = pes.get(job.pe) or _first_matching(job.pe, pes)
    if pe is None or not ranges:
        return 1
    setting = pe.urgency_slots.lower()
    if setting == "min":
        return ranges[0].min
    if setting == "max":
        last = ranges[-1].max
        return pe.slots if last >= RANGE_INFINITY else last
    if setting == "avg":
        return _average(ranges, pe.slots)
    if setting[:1].isdigit():
        digits = "".join(c for c in setting if c.isdigit()) or "1"
        return int(digits)
    return 1


def _first_matching(
    pattern: str, pes: dict[str, ParallelEnvironment]
) -> ParallelEnvironment | None:
    """A wildcard PE request (``-pe 'mpi*' 4-8``) uses the first PE that matches it."""
    for name in sorted(pes):
        if fnmatchcase(name, pattern):
            return pes[name]
    return None


def _term(name: str, amount: float, slots: int, centry: Complex) -> UrgencyTerm | None:
    if centry.type in NUMERIC_TYPES:
        contribution = amount * centry.urgency * slots
        return UrgencyTerm(name, amount, slots, centry.urgency, contribution)
    if centry.type in STRING_TYPES:
        return UrgencyTerm(name, None, slots, centry.urgency, centry.urgency)
    return None


def resource_terms(
    job: Job, complexes: dict[str, Complex], pes: dict[str, ParallelEnvironment]
) -> tuple[int, tuple[UrgencyTerm, ...]]:
    """The slot count and the ``rrcontr`` terms of ``job`` (module doc); they depend
    only on its PE request and hard requests."""
    slots = urgency_slots(job, pes)
    slot_entry = complexes.get("slots")
    if slot_entry is None:
        return slots, ()
    terms: list[UrgencyTerm] = []
    implicit = _term("slots", 1.0, slots, slot_entry)
    if implicit is not None:
        # Every job asks for one slot per slot it will hold.
        terms.append(implicit)
    for request in job.hard_requests:
        centry = complexes.get(request.name) or _by_shortcut(complexes, request.name)
        if centry is None:
            continue
        term = _term(centry.name, request.amount, slots, centry)
        if term is not None:
            terms.append(term)
    return slots, tuple(terms)


@dataclass(frozen=True)
class _Resources:
    """The resource part of a job's urgency, shared by the jobs of one request."""

    slots: int
    terms: tuple[UrgencyTerm, ...]
    rrcontr: float


def _resources(slots: int, terms: tuple[UrgencyTerm, ...]) -> _Resources:
    return _Resources(slots, terms, sum(t.contribution for t in terms))


class Urgencies:
    """Urgency for the jobs of one run. Like the real scheduler's job categories, jobs
    with the same PE request and hard requests share their resource terms, worked out
    once for the run (the object lives no longer than the run)."""

    def __init__(
        self,
        complexes: dict[str, Complex],
        pes: dict[str, ParallelEnvironment],
        weight_waiting_time: float,
        weight_deadline: float,
    ) -> None:
        self._complexes = complexes
        self._pes = pes
        self._weight_waiting_time = weight_waiting_time
        self._weight_deadline = weight_deadline
        self._terms: dict[tuple, _Resources] = {}
        # The reader gives jobs with equal ranges and requests the same tuples, so most
        # are found by identity before their (slower) hash by value is taken; the
        # tuples are kept alive in the entry so that no identity is reused meanwhile.
        self._same: dict[tuple[str | None, int, int], tuple[_Resources, tuple, tuple]] = {}

    def of(self, job: Job, now: int) -> Urgency:
        same = (job.pe, id(job.pe_range), id(job.hard_requests))
        entry = self._same.get(same)
        if entry is None:
            key = (job.pe, job.pe_range, job.hard_requests)
            found = self._terms.get(key)
            if found is None:
                found = self._terms[key] = _resources(
                    *resource_terms(job, self._complexes, self._pes))
            entry = self._same[same] = (found, job.pe_range, job.hard_requests)
        resources = entry[0]
        # _urgency inlined (the same operations): one call a job, 100,000 on a large cell
        wtcontr = self._weight_waiting_time * (now - job.submission_time)
        deadline = job.deadline
        dlcontr = self._weight_deadline / max(deadline - now, 1) if deadline else 0.0
        return construct(Urgency, {
            "rrcontr": resources.rrcontr,
            "wtcontr": wtcontr,
            "dlcontr": dlcontr,
            "slots": resources.slots,
            "terms": resources.terms,
        })


def _by_shortcut(complexes: dict[str, Complex], name: str) -> Complex | None:
    for centry in complexes.values():
        if centry.shortcut == name:
            return centry
    return None
