"""Pair programs made and shared: the residuals of a (job class, slot static) pair.

``carving.PairProgram`` runs a pair at a state's vector; this module makes it. Each
part (the two ``Requirements``, the two ``Rank``s, the job's requests of the vector's
resources, the policy ranks that read the job) is specialised against the static's
bindings with the resources left free (``classad.partial``), and the parts are
shared between classes through the static's ``ResidualCache``:

* a single part is kept under the job names its specialisation read and their
  expressions' numbers (``ResidualCache.get``), so classes that bind those alike
  share it;
* a whole program's parts are kept the same way (``ResidualCache.parts``), with the
  job's literal requests of the vector's resources left free as parameters
  (``job_params``): classes that differ only in those numbers share every part, and
  each settles them with its own values (``PairProgram``);
* but the job's ``Rank``, kept as a single part: classes that differ only in their
  Rank (``Rank = KFlops`` against ``Rank = Memory``) share the rest;
* a desktop's static (its own owner literal in the vector, ``own_literals``) leaves
  the job's ``Owner`` free too (``_with_owner``): its START and Rank compare the two,
  and the jobs of every owner share its parts (at 10k x 100k of the static mix,
  1,596 parts built of 3,039 programs with the Owner bound, 143 free).

A held verdict's residual run alone with a class's params (``held_verdicts``) is a
one-test program; its shape is made once per residual (``ResidualPrograms``).

Exactness rests on ``partial``'s contract (a residual equals the full evaluation for
every vector) and on the keys: a part is reused only by a job ad that binds every
name it read to an expression of the same number.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from condorlite.core import adeval
from condorlite.core.adeval import ClassAd
from condorlite.core.classad.ast import Expr, Literal
from condorlite.core.classad.partial import Constant, specialize, specialize_attribute
from condorlite.core.classad.residuals import FreeRef, Residual
from condorlite.core.matching.carving import PairProgram, ReadPositions
from condorlite.core.matching.program_shapes import ProgramShape
from condorlite.core.matching.slot_vectors import SlotVector, free_pairs, holds, int_now

#: whether a program that is no box for a test on the slot's own literal is built
#: again with the requests bound all the same (``pair_program``; the tests switch it)
REBUILD_GATED = False

#: whether a program of a vector with the slot's own literals runs the slot's
#: Requirements before the job's (``_pair_program``; the tests switch it)
SLOT_FIRST = True

#: whether the policy ranks read the slot's Rank as ``PairProgram._ranked`` has just
#: worked it out (``_program_parts``; the tests switch it)
GIVEN_RANK = True

#: "not in the table" (a residual may be None: cannot be specialised)
_MISSING = object()


class ResidualCache:
    """The residuals of one slot static, shared between job classes.

    A residual depends on the static's bindings (fixed here), the free resources and
    the job bindings its walk looked up (``partial``'s ``reads``). So each residual is
    kept under (part, the names of the job it read, their expressions' numbers) and
    is reused by a class whose job ad binds those names alike: classes that differ
    only in what a part does not read share it (the slot's Requirements read only the
    job's ``Request*``, for instance)."""

    def __init__(self, number: Callable[[ClassAd, tuple[str, ...]], tuple]) -> None:
        #: ``number(ad, names)``: the numbers of the ad's bindings of ``names``
        self.number = number
        #: part -> names -> numbers -> residual (or None: cannot be specialised)
        self._parts: dict[tuple, dict[tuple[str, ...], dict[tuple, Residual | None]]] = {}
        #: the same for the parts of whole programs (``parts``)
        self._programs: dict[tuple, dict[tuple[str, ...], dict[tuple, object]]] = {}
        #: the one program that never matches, for every class whose parts rule every
        #: state of the static out (``_pair_program``; made when first needed)
        self.never: PairProgram | None = None
        #: (id of a program's parts, the tests' order) -> (the parts, their
        #: ``ProgramShape``): the value-free set-up of the programs of every class
        #: those parts serve (``shape``; the entry keeps the parts its id names)
        self._shapes: dict[tuple, tuple[object, ProgramShape]] = {}

    def get(self, part: tuple, job_ad: ClassAd,
            build: Callable[[set[tuple[int, str]]], Residual | None],
            params: tuple[str, ...] = (), used: set[str] | None = None) -> Residual | None:
        """The residual of ``part`` for ``job_ad``, built by ``build(reads)`` unless a
        class binding what it read alike built it; ``params``: the job names left
        free (their values are read from the vals, so they are no part of the key;
        ``part`` must name them). ``used`` gets the job names the residual is kept
        under: a job ad binding them alike gets the same residual."""
        by_names = self._parts.setdefault(part, {})
        for names, table in by_names.items():
            found = table.get(self.number(job_ad, names), _MISSING)
            if found is not _MISSING:
                if used is not None:
                    used.update(names)
                return found  # type: ignore[return-value]
        reads: set[tuple[int, str]] = set()
        residual = build(reads)
        mine = id(job_ad)
        names = tuple(sorted({name for ad, name in reads if ad == mine and name not in params}))
        if used is not None:
            used.update(names)
        if len(by_names) < 64:
            by_names.setdefault(names, {})[self.number(job_ad, names)] = residual
        return residual

    def shape(self, parts: tuple, slot_first: bool, build: Callable[[], ProgramShape]
              ) -> ProgramShape:
        """The ``ProgramShape`` of a program made of ``parts`` (``parts``' answer),
        its tests reversed when ``slot_first``: made by ``build()`` for the first
        class they serve, and shared by the rest (which differ at most in the
        params' values and their Rank: ``program_shapes``)."""
        key = (id(parts), slot_first)
        found = self._shapes.get(key)
        if found is None or found[0] is not parts:
            found = self._shapes[key] = (parts, build())
        return found[1]

    def parts(self, rest: tuple, job_ad: ClassAd, build: Callable[[set[str]], object],
              params: tuple[str, ...]) -> object:
        """All the residuals of one pair program but the job's Rank
        (``_program_parts``), kept as
        ``get`` keeps one: under the job names ``build(used)`` put in ``used`` (less
        ``params``) and ``rest``, what else the parts depend on (the resources, the
        dependent ranks and the params' names). Classes that differ only in the
        values of their literal requests (the params) share them all, and only the
        program's own set-up is left to do per class."""
        by_names = self._programs.setdefault(rest, {})
        for names, table in by_names.items():
            found = table.get(self.number(job_ad, names), _MISSING)
            if found is not _MISSING:
                return found
        used: set[str] = set()
        found = build(used)
        names = tuple(sorted(used.difference(params)))
        if len(by_names) < 64:
            by_names.setdefault(names, {})[self.number(job_ad, names)] = found
        return found


class ResidualPrograms:
    """One-test programs: a residual of the free names run alone, with a class's
    params (a held verdict, ``held_verdicts``: no requests, both ranks ``zero``). The
    ``ProgramShape`` of a residual is made once and shared by the programs of every
    class's values (at 1,000 x 10,000 of the static mix, 390 programs of 11
    residuals); each program settles only its values (``PairProgram.of``)."""

    def __init__(self, zero: Residual, as_rank: Callable[[object], float]) -> None:
        self._zero, self._as_rank = zero, as_rank
        #: (id(residual), width, literals) -> (the residual, its shape): the entry
        #: keeps the residual its id names
        self._shapes: dict[tuple, tuple[Residual, ProgramShape]] = {}

    def program(self, test: Residual, width: int, literals: int, params: tuple
                ) -> PairProgram:
        """``PairProgram([], [test], zero, zero, [], as_rank, width, params,
        literals)``, its shape shared."""
        key = (id(test), width, literals)
        found = self._shapes.get(key)
        if found is None or found[0] is not test:
            found = self._shapes[key] = (test, ProgramShape(
                [], [test], self._zero, [], self._as_rank, width, literals))
        return PairProgram.of(found[1], self._zero, params)


def pair_program(
    job_ad: ClassAd,
    slot_ad: ClassAd,
    vector: SlotVector,
    resources: Sequence[str],
    dependent: Sequence[tuple[str, Expr]],
    now: float | None,
    as_rank: Callable[[object], float],
    cache: ResidualCache,
    params: tuple[tuple[str, ...], tuple] | None = None,
) -> PairProgram | None:
    """The program of ``job_ad`` against ``slot_ad`` (one state of the vector's slot);
    ``resources``: ``offers.resource_names`` of the pair; ``dependent``: the policy
    ranks that read the job, (key, expression); ``cache``: the residuals of the
    slot's static; ``params``: ``job_params(job_ad, vector)`` when the caller has it.
    None when something cannot be specialised.

    The job's requests of the vector's resources that are number literals are left
    free too (``job_params``): the residuals then serve every class that differs
    only in those numbers, and the program settles them with this class's values.
    When that gives no box (a test computes with a request, say ``Memory >= 2 *
    RequestMemory``) the program is made again with the requests bound, as the
    bounds of a box must compare with numbers; not when a test without bounds reads
    the slot's own literal at the state at hand (a desktop's ``TARGET.Owner ==
    MY.<owner>``, ``gated_by_literal``): no binding makes that a box, and
    on the 1k partitionable mix 602 of 656 such second builds were of that kind."""
    pair = (job_ad, slot_ad, vector, resources, dependent, now, as_rank, cache)
    if params is None:
        params = job_params(job_ad, vector)
    program = _pair_program(pair, _with_owner(job_ad, vector, params))
    if program is None or program.box or program.never or not program.params:
        return program
    if not REBUILD_GATED and gated_by_literal(program, vector.vals):
        return program  # (a test on the slot's own literal: no box either way)
    return _pair_program(pair, ((), ()))


def _pair_program(pair: tuple, free_requests: tuple[tuple[str, ...], tuple],
                  ) -> PairProgram | None:
    """``pair_program`` of ``pair`` (its arguments, in order) with the job names of
    ``free_requests`` (names, values) left free: its parts (``_program_parts``,
    shared between classes through the static's ``ResidualCache.parts``) and the
    job's ``Rank`` (a part of its own, ``_attribute``: classes that differ only in
    their Rank share the rest), then the program of this class's values."""
    job_ad, _, vector, resources, dependent, _, as_rank, cache = pair
    params, values = free_requests
    rest = (tuple(resources), tuple(key for key, _ in dependent), params)
    parts = cache.parts(rest, job_ad, lambda used: _program_parts(pair, params, used),
                        params)
    if parts is None:
        return None
    if parts[0] is None:  # type: ignore[index]
        # a Requirements that holds for no vector (``_never``)
        # (a program that never matches runs nothing and reads none of its parts:
        # one per static serves every class, ``PairProgram.run``)
        if cache.never is None:
            false = Constant(False)
            cache.never = PairProgram([], [false], false, false, [], as_rank)
        return cache.never
    job_rank = _attribute(pair, params, job_ad, "Rank", set())
    if job_rank is None:
        return None
    # A slot that compares literals of its own with the job (a desktop's START naming
    # its owner) fails most classes on its own test: it goes first, as
    # ``MatchTable._evaluate_pair`` orders the full evaluation (the outcome is the
    # same in either order: tests have no side effects).
    slot_first = bool(vector.literals) and SLOT_FIRST
    shape = cache.shape(parts, slot_first,  # type: ignore[arg-type]
                        lambda: _shape(parts, slot_first, len(vector.names),  # type: ignore[arg-type]
                                       vector.literals, as_rank))
    return PairProgram.of(shape, job_rank, values)


def _shape(parts: tuple, slot_first: bool, width: int, literals: int,
           as_rank: Callable[[object], float]) -> ProgramShape:
    """The ``ProgramShape`` of a program of ``parts`` (``_program_parts``' answer),
    its tests reversed when ``slot_first``."""
    requests, tests, slot_rank, ranks = parts
    return ProgramShape(requests, tests[::-1] if slot_first else tests, slot_rank, ranks,
                        as_rank, width, literals)


def _program_parts(pair: tuple, params: tuple[str, ...], used: set[str]) -> tuple | None:
    """The residuals of a program but the job's ``Rank``, ``(requests, tests,
    slot_rank, ranks)`` as ``PairProgram`` takes them, or None when a part cannot be
    specialised. When the job's ``Requirements`` holds for no vector (``_never``), or
    the slot's does once the job's and its requests could be specialised, no state
    can match: ``requests`` is None, that residual stands in for every other part
    and the parts after it are not made (the program never matches, as no state's
    full evaluation does: ``PairProgram._settle``). The job names each residual is
    kept under, and the names of the job's own parts, go into ``used``."""
    job_ad, slot_ad, vector, resources, dependent, now, _, cache = pair
    job_requirements = _attribute(pair, params, job_ad, "Requirements", used)
    if _never(job_requirements):
        # No state can match (another OpSys, say): nothing else needs specialising.
        return (None, [job_requirements], job_requirements, [])
    requests = []
    for res in resources:
        pos = vector.index.get(res.lower())
        fn = _attribute(pair, params, job_ad, "Request" + res, used)
        if pos is None or fn is None:
            return None
        requests.append((res, fn, pos, 1.0 if res == "Cpus" else 0.0))
    slot_requirements = _attribute(pair, params, slot_ad, "Requirements", used)
    if job_requirements is not None and _never(slot_requirements):
        # (the slot's Requirements rule every state out, a START that needs a
        # machine attribute the job lacks, say: nor need the ranks be specialised)
        return (None, [slot_requirements], slot_requirements, [])
    parts = [
        job_requirements,
        slot_requirements,
        _attribute(pair, params, slot_ad, "Rank", used),
    ]
    # The slot's Rank, when it reads the vector, is worked out by ``PairProgram._ranked``
    # before the policy ranks, which read it again (the default pre-job rank's
    # ``10000000 * My.Rank``): they are given its value (``partial.specialize``'s
    # ``given``) instead of running it once more.
    given = ((slot_ad, "Rank"),) if GIVEN_RANK and parts[2] is not None and type(
        parts[2]) is not Constant else ()
    ranks = [(key, cache.get(("policy", key, params, bool(given)), job_ad,
                             lambda reads, e=expr: specialize(
                                 e, slot_ad, job_ad, _free(pair, params), int_now(now), reads,
                                 given), params, used))
             for key, expr in dependent]
    if any(p is None for p in parts) or any(fn is None for _, fn in ranks):
        return None
    return (requests, parts[:2], parts[2], ranks)


def _never(residual: Residual | None) -> bool:
    """Whether a ``Requirements`` residual holds for no vector: a constant that does
    not hold, or one ``partial`` marked never true (``residual_logic.never_true``);
    ``PairProgram._settle`` finds such a test never holding all the same."""
    if type(residual) is Constant:
        return not holds(residual.value)
    return bool(getattr(residual, "never_true", False))


def _attribute(pair: tuple, params: tuple[str, ...], ad: ClassAd, name: str,
               used: set[str]) -> Residual | None:
    """The residual of ``ad``'s ``name`` (one ad of ``pair``, against the other),
    kept in the static's cache (``ResidualCache.get``): a job-side part under the
    job's binding of the name too, so the classes sharing a part are looked up
    among those that bind it alike. The job names it is kept under go into
    ``used``."""
    job_ad, slot_ad, _, _, _, now, _, cache = pair
    other = slot_ad if ad is job_ad else job_ad
    own = None
    if ad is job_ad:
        low = name.lower()
        own = cache.number(job_ad, (low,))
        used.add(low)
    return cache.get((name, ad is job_ad, own, params), job_ad,
                     lambda reads: specialize_attribute(ad, name, other, _free(pair, params),
                                                        int_now(now), reads),
                     params, used)


def _free(pair: tuple, params: tuple[str, ...]) -> list[tuple[ClassAd, str]]:
    """The names left free in a program of ``pair``: the slot's vector's and the
    job's ``params``."""
    job_ad, slot_ad, vector = pair[0], pair[1], pair[2]
    return [*free_pairs(slot_ad, vector), *((job_ad, name) for name in params)]


def job_params(job_ad: ClassAd, vector: SlotVector) -> tuple[tuple[str, ...], tuple]:
    """The job's ``Request<R>`` bindings, R a resource of the vector, that are integer
    or real literals: their lower-case names (in the vector's order) and values."""
    names, values = [], []
    # (asked for every held group a class's walk meets: the ad's table read directly,
    # ``adeval.attr`` written out)
    table = adeval.table(job_ad)
    for resource in vector.names:
        name = "request" + resource
        if table is None:
            expr = adeval.attr(job_ad, name)
        else:
            entry = table.get(name.lower())
            expr = None if entry is None else entry[1]
        if type(expr) is Literal and type(expr.value) in (int, float):
            names.append(name)
            values.append(expr.value)
    return tuple(names), tuple(values)


def _with_owner(job_ad: ClassAd, vector: SlotVector, params: tuple[tuple[str, ...], tuple]
                ) -> tuple[tuple[str, ...], tuple]:
    """``params`` and, for a vector with the slot's own literals (a desktop's owner
    made free, ``own_literals``), the job's ``Owner`` when it is a string literal:
    what the slot compares its own literal with (``TARGET.Owner == MY.<owner>``) is
    then left free as well, so the parts of a desktop's static serve the jobs of
    every owner (a string param bounds nothing: ``PairProgram`` runs its tests as
    they are)."""
    if not vector.literals:
        return params
    expr = adeval.attr(job_ad, "owner")
    if type(expr) is not Literal or type(expr.value) is not str:
        return params
    names, values = params
    return (*names, "owner"), (*values, expr.value)


def gated_by_literal(program: PairProgram, vals: Sequence[object]) -> bool:
    """Whether a test of ``program`` that is no conjunction of bounds (no ``atoms``)
    reads one of the slot's own literals at the state ``vals``, or one whose atoms
    compare one (the job's Owner left free against the slot's, ``_with_owner``): a
    bound on an own literal makes no box (``box_bounds.settled_atom``), so
    binding the job's requests would not make the program a box either and
    ``pair_program`` does not build it again. A heuristic for that choice only: both
    programs give the same outcomes."""
    if not program.literals:
        return False
    first, width = program.width - program.literals, program.width
    for test in program.tests:
        atoms = getattr(test, "atoms", None)
        if atoms is None:
            reads = ReadPositions((*vals, *program.params))
            test(reads)
            if any(first <= index < width for index in reads.seen):
                return True
        elif any(first <= index < width
                 or (type(operand) is FreeRef and first <= operand.index < width)
                 for index, _, operand, _ in atoms):
            return True
    return False
