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
recording the positions read (``carving.RankReads``); a slot's Rank given to the
dependent ranks is put after the params and derives from positions recorded. At
another vector with the same values at those positions, ``passed`` reads the same
positions in the same order, gets the same values and gives the same outcome. The
params (after the vector) are the program's own, the same at every shape. (Until
session 35 the positions were found by a second run of the ranks after ``passed``.)

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
    on its own."""
    vals, passed = part.vals, program.passed
    #: positions read -> (their values' key, the pair results by those values)
    known: dict[tuple[int, ...], tuple[Callable[[Sequence[object]], object],
                                       dict[object, PairEval]]] = {}
    runs = 0
    for shape in shapes:
        if shape not in members:
            continue
        runs += 1
        at = vals[shape]
        pe = None
        for key, results in known.values():
            pe = results.get(key(at))
            if pe is not None:
                break
        if pe is None:
            out, read = (positions(program, at) if len(known) < MOST_READS
                         else (passed(at, as_rank), None))
            pe = make_pair((True, out[1], out[2], out[3], None))
            if read is not None and all(map(part.plain, read)):
                found = known.get(read)
                if found is None:
                    found = known[read] = (key_of(read), {})
                found[1][found[0](at)] = pe
        matched.append((shape, pe))
    return runs


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
