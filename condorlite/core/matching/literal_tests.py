"""Whether a program fails on a slot's own literals alone: one probe stands for every
shape that has them.

A static part's program (``MatchTable.static_program``) that is no box is run on every
unheld shape of the part (``static_parts.Part.within``). On desktop parts most of
those runs fail on the slot's own literals (``own_literals``: the owner named in the
slot's ``START``, hoisted out of the ad so that desktops share a part), which the
shapes of a part share a few at a time: at 10,000 x 100,000 (static mix) 51,199 runs
in 5,814 distinct literal tuples, 362 matching.

``fails_on_literals`` runs each of the program's tests once at one shape's vector,
recording the positions it reads (``carving.ReadPositions``: residuals read their
free values as ``vals[index]`` only). A test that read nothing but the vector's
literals (positions ``width - literals`` to ``width``) and the program's params, and
does not hold, fails at every vector with the same literals: a residual is a pure
function of what it reads, so a run at such a vector reads the same positions, gets
the same values and takes the same steps. ``PairProgram.run`` answers no match
wherever one of its tests fails, so every shape with those literals can be passed
over without its run: exact. A test that read a number proves nothing (the run
decides).

``LiteralSieve`` passes over most groups without a probe: a static desktop part's
``Requirements`` reach the hoisted owner test (``TARGET.Owner == MY.<hidden>``), split
as ``literal_matches`` splits a carved static's (``literal_orders.literal_tests``,
``LiteralSplit``), and the tests' values ``sigma`` at a group are worked out from its
literal and the job's bindings alone (``LiteralSplit.sigmas_of``, no ad evaluated;
at 10,000 x 100,000 static mix the 5,814 probes cost ~27 k instructions each). A
group whose ``sigma`` makes the ``Requirements`` a constant that does not hold, with
every name of the vector left free and nothing of the job read, is *dead* for the
class: no state of it can match, as ``literal_matches`` argues (a part's shapes bind
alike every name but the vector's, ``static_programs``; the residual holds at every
vector, ``partial``'s contract). The program equals the full evaluation, so it
fails there too: the group is passed over unprobed, and the probe (then the runs)
decides the others as before. The verdict is kept per (part, ``sigma``): most groups
of a class share one ``sigma`` (owner not the job's).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from condorlite.core.adeval import ClassAd
from condorlite.core.matching.carving import PairProgram, ReadPositions
from condorlite.core.matching.literal_matches import REQUIREMENTS, DeadSigmas
from condorlite.core.matching.literal_orders import LiteralSplit, literal_tests
from condorlite.core.matching.slot_vectors import StaticVector, holds


def fails_on_literals(program: PairProgram, vals: Sequence[object]) -> bool:
    """Whether one of ``program``'s tests, run at ``vals`` (a vector of the program's
    width), reads only the vector's literals and the params and does not hold: then
    the program fails at every vector with ``vals``' literals (module doc)."""
    first = program.width - program.literals
    full = (*vals, *program.params)
    for test in program.tests:
        reads = ReadPositions(full)
        try:
            value = test(reads)
        except (AttributeError, TypeError):
            return False  # (a residual that wants more of a tuple: the runs decide)
        if not holds(value) and all(type(index) is int and index >= first
                                    for index in reads.seen):
            return True
    return False


class _Standing(NamedTuple):
    """What ``literal_orders`` reads of an offer to split a static: the ad of a part's
    first shape and its vector (``StaticVector``: names, index and literals as a
    ``SlotVector`` holds them)."""

    ad: ClassAd
    vector: StaticVector


class LiteralSieve:
    """The cycle's splits of static desktop parts' ``Requirements`` on their literal
    tests and the groups dead for a class there (module doc). ``static_lists`` asks
    ``alive`` once per (class, part) it sieves."""

    def __init__(self, now: float | None) -> None:
        self._now = now
        #: part (``StaticVector.static``) -> its split, None when its Requirements
        #: reach no literal test
        self._splits: dict[int, LiteralSplit | None] = {}
        #: whether Requirements cannot hold at a sigma, per part
        self._dead = DeadSigmas(now)
        #: the tests' values by (form, the job's binding) then literal
        #: (``LiteralSplit.sigmas_of``)
        self._known: dict = {}
        #: (id of a part's groups, the job's bindings) -> (those groups, the alive)
        self._alive: dict[tuple, tuple[list[list[int]], list[list[int]]]] = {}

    def alive(self, ad: ClassAd, vector: StaticVector, job_ad: ClassAd,
              groups: list[list[int]], vals: dict[int, tuple]) -> list[list[int]] | None:
        """The groups (``Part.by_literals``' list, shapes whose ``vals`` share their
        own literals) not dead for the class of ``job_ad``, in their order (``ad``
        and ``vector``: the part's first shape's), or None when nothing can be told:
        the part's Requirements reach no literal test, or the job binds a name a
        test reads to something other than a literal. Kept per (groups, the job's
        bindings): the classes of one owner ask it once."""
        part = vector.static
        split = self._splits.get(part, self)
        if split is self:
            found = literal_tests(_Standing(ad, vector), REQUIREMENTS)  # type: ignore[arg-type]
            split = self._splits[part] = None if found is None else LiteralSplit(
                _Standing(ad, vector), REQUIREMENTS, self._now, *found)  # type: ignore[arg-type]
        if split is None:
            return None
        bindings = split.bindings(job_ad)
        if bindings is None:
            return None
        key = (id(groups), bindings)
        known = self._alive.get(key)
        if known is not None and known[0] is groups:
            return known[1]
        # (a group's shapes share their literals: its first stands for it, left or not)
        group = split.group
        sigmas = split.sigmas_of(bindings, [group(vals[shapes[0]]) for shapes in groups],
                                 self._known)
        out = self._dead.alive(part, split, groups, sigmas)
        # (the groups kept with the answer: their id names them while they live)
        self._alive[key] = (groups, out)
        return out
