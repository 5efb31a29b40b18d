"""A program's value-free set-up is shared (``program_shapes.ProgramShape``): a program
made of a shape another class's values made (``PairProgram.of``) has every field the
set-up of the same residuals, Rank and values works out on its own, written out here
as ``carving`` did it before the shapes (``_reference``); and the classes whose
programs share their parts share one shape, whatever their requests' values and Rank."""

from __future__ import annotations

import random

import pytest

from condorlite.core import adeval
from condorlite.core.classad.partial import Constant
from condorlite.core.classad.residuals import Atom, FreeRef
from condorlite.core.classad.values import Undefined
from condorlite.core.matching import pair_programs, program_shapes
from condorlite.core.matching.box_bounds import box_tests, settled_atom
from condorlite.core.matching.candidates import as_rank
from condorlite.core.matching.carving import PairProgram
from condorlite.core.matching.expr_numbers import Canon
from condorlite.core.matching.offers import resource_names
from condorlite.core.matching.pair_programs import ResidualCache, pair_program
from condorlite.core.matching.slot_vectors import holds, vector_of
from tests.core._pool import ad

from .test_carving_boxes import GRID, JOB, SLOT

#: the vector's width and how many of its last values are the slot's own literals
WIDTH, LITERALS = 4, 1


def _reference(requests, tests, job_rank, slot_rank, dependent, params) -> dict:
    """The fields ``PairProgram``'s set-up gave before the shapes, worked out from the
    residuals and the params alone (its ``_settle``, ranks and ``_boxed``)."""
    out: dict = {"never": False, "fixed": [], "requests": [], "tests": []}
    for res, fn, pos, default in requests:
        if type(fn) is Constant:
            value = fn.value
        elif getattr(fn, "free_index", None) is not None and fn.free_index >= WIDTH:
            value = params[fn.free_index - WIDTH]
        else:
            out["requests"].append((res, fn, pos, default))
            continue
        amount = adeval.as_float(value)
        if amount is None and value is not Undefined:
            out["never"] = True
        amount = default if amount is None else amount
        if amount < 0:
            out["never"] = True
        out["fixed"].append((res, amount, pos))
    for fn in tests:
        if type(fn) is Constant:
            out["never"] = out["never"] or not holds(fn.value)
        elif getattr(fn, "never_true", False):
            out["never"] = True
        else:
            out["tests"].append(fn)

    def settle(fn, convert):
        return float(convert(fn.value)) if type(fn) is Constant else fn

    out["job_rank"] = settle(job_rank, lambda v: adeval.as_float(v) or 0.0)
    out["slot_rank"] = settle(slot_rank, adeval.slot_rank)
    out["dependent"] = [(key, settle(fn, as_rank)) for key, fn in dependent]
    out["box"], out["bounds"], out["taken"], out["result"] = False, [], {}, None
    atoms: list = []
    for fn in out["tests"]:
        found = getattr(fn, "atoms", None)
        if found is None:
            return out
        for atom in found:
            settled = settled_atom(atom, WIDTH, params, LITERALS)
            if settled is None:
                return out
            if settled is False:
                out["never"] = True
            elif settled is not True:
                atoms.append(settled)
    if out["never"] or out["requests"]:
        return out
    out["bounds"] = box_tests(atoms, {pos: amount for _, amount, pos in out["fixed"]})
    out["taken"] = {res: amount for res, amount, _ in out["fixed"]}
    out["box"] = True
    if (type(out["job_rank"]) is float and type(out["slot_rank"]) is float
            and all(type(fn) is float for _, fn in out["dependent"])):
        out["result"] = (True, out["job_rank"], out["slot_rank"], dict(out["dependent"]),
                         out["taken"])
    return out


def _fields(program: PairProgram) -> dict:
    return {name: getattr(program, name) for name in (
        "never", "fixed", "requests", "tests", "job_rank", "slot_rank", "dependent", "box",
        "taken", "result")} | {"bounds": _bound_keys(program.bounds)}


def _bound_keys(bounds: list) -> list:
    """A box's bound tests by what they test (``bound_test`` makes a new one per
    program): (index, op, operand) of its one atom."""
    return [tuple(("ref", x.index) if type(x) is FreeRef else x for x in test.atoms[0][:3])
            for test in bounds]


def _free(index: int):
    def fn(vals):  # type: ignore[no-untyped-def]
        return vals[index]
    fn.free_index = index  # type: ignore[attr-defined]
    return fn


def _test(atoms: list | None, never_true: bool = False):
    def fn(vals):  # type: ignore[no-untyped-def]
        return True
    if atoms is not None:
        fn.atoms = tuple(Atom(i, op, operand, fn) for i, op, operand in atoms)  # type: ignore[attr-defined]
    if never_true:
        fn.never_true = True  # type: ignore[attr-defined]
    return fn


def _random_parts(rng: random.Random, n_params: int) -> tuple:
    """Residuals of every kind ``PairProgram`` sorts: constant, param and read
    requests; constant, never-true, atom-less tests and atoms on the vector's
    amounts, its literal, the params, against numbers, the vector or a param."""
    requests = []
    for pos, res in enumerate(("Cpus", "Memory", "Disk")):
        kind = rng.randrange(6)
        fn = (Constant(rng.choice([1, 2.5, 0, -1, "x", Undefined])) if kind == 0 else
              _free(pos) if kind == 1 else _free(WIDTH + rng.randrange(n_params)))
        requests.append((res, fn, pos, 1.0 if res == "Cpus" else 0.0))
    tests = []
    for _ in range(rng.randrange(1, 4)):
        kind = rng.randrange(12)
        if kind == 0:
            tests.append(Constant(rng.choice([True, False, 0, 1])))
        elif kind == 1:
            tests.append(_test([(0, ">=", 1)], never_true=True))
        elif kind == 2:
            tests.append(_test(None))
        else:
            atoms = []
            for _ in range(rng.randrange(1, 4)):
                index = rng.randrange(WIDTH + n_params)
                operand = rng.choice([0, 1, 2, 4, 2.0, -3, FreeRef(rng.randrange(WIDTH)),
                                      FreeRef(WIDTH + rng.randrange(n_params))])
                atoms.append((index, rng.choice([">=", ">", "<", "<=", "==", "!="]), operand))
            tests.append(_test(atoms))
    slot_rank = rng.choice([Constant(0), Constant(3.5), _free(0)])
    dependent = [("pre", rng.choice([Constant(1), _free(1)]))][:rng.randrange(2)]
    return requests, tests, slot_rank, dependent


def _random_params(rng: random.Random, n_params: int) -> tuple:
    return tuple(rng.choice([0, 1, 2, 3, 4, 2.5, -1, "alice"]) for _ in range(n_params))


def test_a_shared_shape_sets_a_program_up_as_its_own_set_up_does() -> None:
    rng = random.Random(34)
    boxes = nevers = 0
    for _ in range(3000):
        n_params = rng.randrange(1, 3)
        requests, tests, slot_rank, dependent = _random_parts(rng, n_params)
        shape = program_shapes.ProgramShape(requests, tests, slot_rank, dependent, as_rank,
                                            WIDTH, LITERALS)
        for _ in range(4):  # (classes of other values and Ranks sharing the shape)
            params = _random_params(rng, n_params)
            job_rank = rng.choice([Constant(2), Constant("x"), _free(1)])
            program = PairProgram.of(shape, job_rank, params)
            expected = _reference(requests, tests, job_rank, slot_rank, dependent, params)
            expected["bounds"] = _bound_keys(expected["bounds"])
            assert _fields(program) == expected, (requests, tests, params)
            alone = PairProgram(requests, tests, job_rank, slot_rank, dependent, as_rank,
                                WIDTH, params, LITERALS)
            assert _fields(alone) == expected
            boxes += program.box
            nevers += program.never
    assert boxes > 300 and nevers > 300  # (both kinds drawn often)


@pytest.fixture
def shapes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many ``ProgramShape``s ``pair_programs`` made."""
    count = [0]
    real = pair_programs._shape

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        count[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(pair_programs, "_shape", counted)
    return count


def test_classes_differing_in_requests_and_rank_share_one_shape(shapes: list[int]) -> None:
    """Twelve classes (requests and Rank apart) through one static's cache: one shape,
    and each program runs every state as the class's program made alone does."""
    slot_ad = ad(**SLOT)
    vector = vector_of(slot_ad, frozenset({"cpus", "memory", "disk"}))
    assert vector is not None
    cache = ResidualCache(Canon().key)
    jobs = [ad(**{**JOB, "RequestCpus": cpus, "RequestMemory": memory, "Rank": rank})
            for cpus in (1, 4) for memory in (1024, 8192) for rank in ("Memory", "Cpus", "0")]
    programs = [pair_program(job_ad, slot_ad, vector, resource_names(slot_ad, job_ad), [],
                             None, as_rank, cache) for job_ad in jobs]
    assert shapes[0] == 1
    assert len({id(p) for p in programs}) == len(programs)
    matched = 0
    for job_ad, program in zip(jobs, programs, strict=True):
        alone = pair_program(job_ad, slot_ad, vector, resource_names(slot_ad, job_ad), [],
                             None, as_rank, ResidualCache(Canon().key))
        assert program is not None and alone is not None
        apart = {"tests": None, "job_rank": None}  # (residuals of two caches: run below)
        assert _fields(program) | apart == _fields(alone) | apart
        for cpus, memory, disk in GRID:
            vals = (cpus, disk, memory)
            got = program.run(vals, as_rank)
            assert got == alone.run(vals, as_rank), vals
            matched += got[0]
    assert 0 < matched < len(GRID) * len(jobs)


def test_a_box_walk_leaves_out_repeated_bounds_and_those_on_its_own_request() -> None:
    """The partitionable slot's shape: the job's ``Memory >= RequestMemory`` and the
    slot's ``WithinResourceLimits`` (``RequestMemory <= Memory``, ``Memory > 0``) read
    the request left free. The walk keeps one bound per request, marked ``own``, and
    the known ``Memory > 0``; a class of a positive request tests nothing (the fit
    implies every bound), one of a zero request tests its bound as the set-up of
    every atom does, and one whose request is no number makes no box."""
    memory, cpus = 2, 0
    requests = [("Cpus", _free(WIDTH), cpus, 1.0), ("Memory", _free(WIDTH + 1), memory, 0.0)]
    job = _test([(memory, ">=", FreeRef(WIDTH + 1)), (cpus, ">=", FreeRef(WIDTH))])
    slot = _test([(WIDTH + 1, "<=", FreeRef(memory)), (memory, ">", 0),
                  (WIDTH, "<=", FreeRef(cpus)), (cpus, ">", 0)])
    shape = program_shapes.ProgramShape(requests, [job, slot], Constant(0), [], as_rank,
                                        WIDTH, LITERALS)
    bounds = [step for step in shape.walk if step.kind is program_shapes.BOUND]
    assert [(step.atom, step.param, step.own) for step in bounds] == [
        ((memory, ">="), 1, True), ((cpus, ">="), 0, True)]
    for params in ((4, 2048), (1, 0), (0, 0), (2.5, 100.0), (1, "x")):
        program = PairProgram.of(shape, Constant(1), params)
        expected = _reference(requests, [job, slot], Constant(1), Constant(0), [], params)
        assert program.box == expected["box"]
        assert sorted(_bound_keys(program.bounds), key=repr) == sorted(
            _bound_keys(expected["bounds"]), key=repr), params
    assert PairProgram.of(shape, Constant(1), (4, 2048)).bounds == []
    # (no memory taken: ``Memory > 0`` is tested, the slot's test of that atom)
    assert PairProgram.of(shape, Constant(1), (1, 0)).bounds == [slot]
    assert not PairProgram.of(shape, Constant(1), (1, "x")).box


def test_one_test_programs_share_a_shape_per_residual(monkeypatch: pytest.MonkeyPatch
                                                     ) -> None:
    """``pair_programs.ResidualPrograms``: the one-test programs of a held verdict's
    residual for classes of other values share one shape (one made per residual),
    and each has every field ``PairProgram(...)`` of the same residual and values
    gives."""
    zero = Constant(0.0)
    programs = pair_programs.ResidualPrograms(zero, as_rank)
    rng = random.Random(35)
    cases = []
    for _ in range(200):
        n_params = rng.randrange(1, 3)
        test = _random_parts(rng, n_params)[1][0]
        cases.append((test, [_random_params(rng, n_params) for _ in range(3)]))
    made = [0]
    real = program_shapes.ProgramShape.__init__

    def counted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        made[0] += 1
        real(self, *args, **kwargs)

    monkeypatch.setattr(program_shapes.ProgramShape, "__init__", counted)
    for test, values in cases:
        for params in values:
            program = programs.program(test, WIDTH, LITERALS, params)
            alone = PairProgram([], [test], zero, zero, [], as_rank, WIDTH, params, LITERALS)
            assert _fields(program) == _fields(alone)
    # (one shape per residual for the programs, one for each program made alone)
    assert made[0] == len(cases) + 3 * len(cases)
