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
"""

from __future__ import annotations

from collections.abc import Sequence

from condorlite.core.matching.carving import PairProgram, ReadPositions
from condorlite.core.matching.slot_vectors import holds


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
