"""The ranks of a box's sure shapes, worked out once per values they read.

A class's program of a static part (``static_programs``) that is a box gives every
shape the box surely passes (``box_ranges.split``) its ranks alone
(``PairProgram.passed``). When the ranks are constants that is one result for every
shape; when they read the vector (``Rank = TARGET.Memory``, or the default
``NEGOTIATOR_PRE_JOB_RANK``'s ``- Memory`` and ``My.Rank`` where the slot's Rank reads
the job) each shape was run on its own, though the ranks read one or two of the
vector's numbers and the shapes of a box hold a few values of them (10k static mix:
27,208 runs, 2,408 distinct values read).

Exactness: a residual is a pure function of the values it reads (``partial``:
residuals read their free values as ``vals[index]`` only; ``literal_tests`` relies on
the same). A new key's one run (``PairProgram.passed_reads``, through ``positions``)
runs every rank part of the program that is no constant at one shape's vector,
recording the positions read (``carving.ReadPositions``); a slot's Rank given to the
dependent ranks is put after the params and derives from positions recorded. At
another vector with the same values at those positions, ``passed`` reads the same
positions in the same order, gets the same values and gives the same outcome. The
params (after the vector) are the program's own, the same at every shape. (The run
that records is the one whose outcome is kept: no second run of the ranks to find
the positions.)

Most boxes' ranks read one set of positions at every shape (``Rank = TARGET.Memory``):
``_one_read`` keys all the shapes at the positions read at the first one in C passes
(``key_of``'s ``itemgetter`` mapped over their vectors) and runs the ranks once at the
first vector of each key, where they must read those same positions again; else
(an ``ifThenElse`` reading other positions at other values) ``_each`` takes the box
a shape at a time, keyed by up to ``MOST_READS`` sets of positions.

The values are dict keys, so equal keys must be values no residual can tell apart:
``1`` and ``1.0``, ``0.0`` and ``-0.0`` are equal in Python, not in ClassAds
(``string``, ``=?=``, integer division). A position is used only where every shape of
the part holds values of one type there, and no real zero (``Part.plain``); else
every shape is run, as before.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from operator import itemgetter

from condorlite.core.matching.candidates import PairEval, as_rank, make_pair
from condorlite.core.matching.carving import PairProgram
from condorlite.core.matching.static_parts import Part

#: the most sets of positions one box's shapes are keyed by (a rank whose reads depend
#: on the values read, an ``ifThenElse``, may read other positions at other shapes)
MOST_READS = 4


def by_reads(part: Part, program: PairProgram, shapes: Sequence[int],
             members: dict[int, dict[int, None]], matched: list[tuple[int, PairEval]]
             ) -> int:
    """Add to ``matched`` each of ``shapes`` still in ``members``, which the box
    ``program`` of ``part`` surely passes (its ranks no constants), with its pair
    result: ``passed`` run once per values its ranks read, the result shared by every
    shape of those values (module doc); the number of such shapes, each counted as
    one evaluation. A shape whose positions read are not all ``Part.plain`` is run
    on its own.

    Most boxes' ranks read one set of positions at every shape (``_one_read``): the
    shapes are then keyed and their results handed out in C passes, a Python step
    per values read only; else a step per shape (``_each``)."""
    alive = list(filter(members.__contains__, shapes))
    if not alive:
        return 0
    at_of = list(map(part.vals.__getitem__, alive))
    first = positions(program, at_of[0])
    found = _one_read(part, program, at_of, first)
    if found is None:
        found = _each(part, program, at_of, first)
    matched.extend(zip(alive, found, strict=True))
    return len(alive)


def _one_read(part: Part, program: PairProgram, at_of: list[Sequence[object]],
              first: tuple[tuple, tuple[int, ...] | None]) -> list[PairEval] | None:
    """The pair result at each vector of ``at_of`` (``first``: ``positions`` at the
    first one), or None when the ranks read there positions that are not all
    ``Part.plain``, or other positions at the first vector of another key. The
    vectors are keyed by their values at the positions read at the first; the
    ranks run once at the first vector of each key, where they must read the same
    positions: then every vector of the key gets that result (module doc)."""
    head_out, read = first
    if read is None or not all(map(part.plain, read)):
        return None
    keys = list(map(key_of(read), at_of))
    head = at_of[0]
    # (each key's first vector: reversed, the earlier ones are written last)
    results: dict[object, PairEval] = {}
    for key, at in dict(zip(reversed(keys), reversed(at_of), strict=True)).items():
        out = head_out
        if at is not head:
            out, found = positions(program, at)
            if found != read:
                return None
        results[key] = _pair(out)
    return list(map(results.__getitem__, keys))


def _each(part: Part, program: PairProgram, at_of: list[Sequence[object]],
          first: tuple[tuple, tuple[int, ...] | None]) -> list[PairEval]:
    """The pair result at each vector of ``at_of`` a vector at a time (``first``:
    ``positions`` at the first): looked up by the values at each set of positions
    read so far (up to ``MOST_READS`` sets), else the ranks run there."""
    passed = program.passed
    #: positions read -> (their values' key, the pair results by those values)
    known: dict[tuple[int, ...], tuple[Callable[[Sequence[object]], object],
                                       dict[object, PairEval]]] = {}
    pes: list[PairEval] = []
    for at in at_of:
        pe = None
        for key, results in known.values():
            pe = results.get(key(at))
            if pe is not None:
                break
        if pe is None:
            if first is not None:
                (out, read), first = first, None
            elif len(known) < MOST_READS:
                out, read = positions(program, at)
            else:
                out, read = passed(at, as_rank), None
            pe = _pair(out)
            if read is not None and all(map(part.plain, read)):
                found = known.get(read)
                if found is None:
                    found = known[read] = (key_of(read), {})
                found[1][found[0](at)] = pe
        pes.append(pe)
    return pes


def _pair(out: tuple) -> PairEval:
    """The pair result of a static shape whose box surely passes it, of the ranks'
    outcome ``out`` (no fit: a static slot is never carved)."""
    return make_pair((True, out[1], out[2], out[3], None))


def positions(program: PairProgram, vals: Sequence[object]
              ) -> tuple[tuple, tuple[int, ...] | None]:
    """``program.passed(vals, as_rank)`` (a box whose ranks are not all constants)
    and the positions of the vector ``vals`` its ranks read there, sorted, from one
    run (``PairProgram.passed_reads``); None for the positions when a residual does
    more than read positions (module doc)."""
    out, seen = program.passed_reads(vals, as_rank)
    if seen is None:
        return out, None
    width = len(vals)
    return out, tuple(sorted(index for index in seen if index < width))


def key_of(read: tuple[int, ...]) -> Callable[[Sequence[object]], object]:
    """A vector's values at the positions ``read``, as a key (one value alone, a
    tuple of several, () for none)."""
    if not read:
        return _nothing
    return itemgetter(*read)


def _nothing(vals: Sequence[object]) -> tuple:
    return ()
