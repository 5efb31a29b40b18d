"""Partial evaluation (``partial.specialize``) against full evaluation.

For every expression of the generated corpus, in both directions (MY = slot, TARGET =
job and the other way round), the residual with the slot's ``Memory``, ``Cpus`` and
``Disk`` free must give, for each of several value tuples, exactly the value the
reference walker gives in the slot ad with those values bound (reals bit for bit).
An expression the residual cannot reproduce must be refused (None), never answered
wrongly; the test also checks that most of the corpus is specialised, so a walk that
refuses everything cannot pass.
"""

from __future__ import annotations

import pytest

from condorlite.core.classad import reference
from condorlite.core.classad.ad import ClassAd
from condorlite.core.classad.evaluator import evaluate
from condorlite.core.classad.parser import parse_expr
from condorlite.core.classad.partial import specialize, specialize_attribute
from condorlite.core.classad.residuals import FreeRef, bound_test, compare_numbers
from condorlite.core.classad.values import Error, Undefined

from .gen_exprs import JOB_AD, SLOT_AD, generate
from .test_evaluator import ad, canonical

FREE = ("Memory", "Cpus", "Disk")
#: value tuples for (Memory, Cpus, Disk): the slot's own, smaller, zero, reals, odd types
STATES = [
    (4096, 8, 1000000),
    (2048, 1, 0),
    (0, 0, 0),
    (1536.5, 3, 1e9),
    (-1, 64, 5),
    (True, "x", Undefined),
]


def rebound(slot: ClassAd, vals: tuple) -> ClassAd:
    out = slot.copy()
    for name, value in zip(FREE, vals, strict=True):
        out[name] = value
    return out


def _check(texts: list[str], slot_is_my: bool) -> tuple[int, int]:
    job, slot = ad(JOB_AD), ad(SLOT_AD)
    done = refused = 0
    for text in texts:
        node = parse_expr(text)
        my, target = (slot, job) if slot_is_my else (job, slot)
        residual = specialize(node, my, target, [(slot, n) for n in FREE], now=1700000000)
        if residual is None:
            refused += 1
            continue
        for vals in STATES:
            state = rebound(slot, vals)
            pair = (state, job) if slot_is_my else (job, state)
            want = reference.evaluate(node, *pair, now=1700000000)
            assert canonical(residual(vals)) == canonical(want), (text, vals)
        done += 1
    return done, refused


@pytest.mark.parametrize("slot_is_my", [True, False], ids=["my-slot", "my-job"])
def test_corpus_residuals_agree_with_full_evaluation(slot_is_my: bool) -> None:
    texts = generate(seed=11, count=1500)
    done, refused = _check(texts, slot_is_my)
    assert done >= 0.6 * len(texts), (done, refused)


NAMED = [
    # (expression, MY side) -- the shapes the negotiator specialises most
    ("MY.Requirements", "slot"),
    ("TARGET.Requirements", "slot"),
    ("Requirements", "job"),
    ("TARGET.Memory >= RequestMemory && TARGET.Cpus >= RequestCpus", "job"),
    ("ifThenElse(Memory > 3000, Memory, Cpus * 2)", "slot"),
    ("Memory > 2000 ? Cpus : Disk", "slot"),
    ("(Cpus ?: 1) + time()", "slot"),
    ("{ Memory, Cpus, Disk }[1]", "slot"),
    ("Memory || false", "slot"),
    ("Cpus && undefined", "slot"),
    ("- 100000 * Cpus - Memory", "slot"),
    ("debug(Disk / 3)", "slot"),
    ("TARGET.Rank", "job"),
]


@pytest.mark.parametrize(("text", "side"), NAMED)
def test_named_shapes_specialise_and_agree(text: str, side: str) -> None:
    done, refused = _check([text], slot_is_my=side == "slot")
    assert (done, refused) == (1, 0)


def test_attribute_residual_follows_the_slot_requirements() -> None:
    job, slot = ad(JOB_AD), ad(SLOT_AD)
    residual = specialize_attribute(slot, "Requirements", job,
                                    [(slot, n) for n in FREE], now=None)
    assert residual is not None
    assert residual((4096, 8, 10)) is True
    assert residual((1024, 8, 10)) is False  # RequestMemory 2048 no longer fits
    assert residual((Undefined, 8, 10)) is Undefined


@pytest.mark.parametrize("text", [
    "eval(\"Memory\")",            # text computed at run time
    "[ a = Memory ].a",            # a record literal
    "size(MY)",                    # an ad given to a function
    "Ad.Inner",                    # reaches a nested record
])
def test_what_cannot_be_reproduced_is_refused(text: str) -> None:
    job, slot = ad(JOB_AD), ad(SLOT_AD)
    assert specialize(parse_expr(text), slot, job, [(slot, n) for n in FREE], now=None) is None


def test_a_free_attribute_that_is_not_a_literal_is_refused() -> None:
    job, slot = ad(JOB_AD), ad(SLOT_AD)
    slot["Memory"] = parse_expr("Cpus * 512")
    assert specialize(parse_expr("Memory"), slot, job, [(slot, "Memory")], now=None) is None


def test_known_parts_are_computed_once() -> None:
    """The residual of a slot-side test against a fixed job calls no evaluator: it
    gives the same as evaluate() in a fresh ad for many states."""
    job, slot = ad(JOB_AD), ad(SLOT_AD)
    residual = specialize_attribute(slot, "Requirements", job,
                                    [(slot, n) for n in FREE], now=None)
    assert residual is not None
    for memory in range(0, 5000, 250):
        want = evaluate(parse_expr("MY.Requirements"), rebound(slot, (memory, 8, 1)), job)
        assert residual((memory, 8, 1)) == want
    assert Error is not Undefined


def test_reads_name_every_lookup_the_residual_depends_on() -> None:
    """The slot's Requirements read the job's RequestMemory (and nothing of the job's
    Owner); a job binding what was read alike gets the same residual values."""
    job, slot = ad(JOB_AD), ad(SLOT_AD)
    reads: set[tuple[int, str]] = set()
    residual = specialize_attribute(slot, "Requirements", job, [(slot, n) for n in FREE],
                                    now=None, reads=reads)
    assert residual is not None
    job_names = {name for ad_id, name in reads if ad_id == id(job)}
    assert "requestmemory" in job_names and "owner" not in job_names
    other = job.copy()
    other["Owner"] = "bob"  # not read: the same residual answers for this job too
    again = specialize_attribute(slot, "Requirements", other, [(slot, n) for n in FREE],
                                 now=None)
    for vals in STATES:
        assert canonical(residual(vals)) == canonical(again(vals))


#: numeric states only: the bounds (``fn.atoms``) speak for integer and real values
NUMERIC_STATES = [vals for vals in STATES if all(type(v) in (int, float) for v in vals)]


def _atoms_agree(texts: list[str], slot_is_my: bool) -> int:
    """For each residual carrying bounds: each atom reads one free value against a
    number, is boolean, and their conjunction is the residual's value. Returns how
    many residuals carried bounds."""
    job, slot = ad(JOB_AD), ad(SLOT_AD)
    carried = 0
    for text in texts:
        my, target = (slot, job) if slot_is_my else (job, slot)
        residual = specialize(parse_expr(text), my, target, [(slot, n) for n in FREE],
                              now=1700000000)
        atoms = getattr(residual, "atoms", None)
        if atoms is None:
            continue
        carried += 1
        for vals in [*NUMERIC_STATES, (3.0, 2, 7.5), (10**6, 0.5, -3)]:
            values = [test(vals) for _, _, _, test in atoms]
            assert all(type(v) is bool for v in values), (text, vals)
            assert residual(vals) is all(values), (text, vals)
            for (index, op, operand, _), value in zip(atoms, values, strict=True):
                assert op in ("<", "<=", ">", ">=", "==", "!=") and 0 <= index < len(FREE)
                number = vals[operand.index] if type(operand) is FreeRef else operand
                assert type(number) in (int, float)
                want = {"<": vals[index] < number, "<=": vals[index] <= number,
                        ">": vals[index] > number, ">=": vals[index] >= number,
                        "==": vals[index] == number, "!=": vals[index] != number}[op]
                assert value is want, (text, vals, op, number)
                assert compare_numbers(op, vals[index], number) is value
    return carried


@pytest.mark.parametrize("slot_is_my", [True, False], ids=["my-slot", "my-job"])
def test_bounds_are_the_residual_for_numbers(slot_is_my: bool) -> None:
    texts = generate(seed=11, count=1500)
    texts += ["Memory >= 2048 && Cpus > 0 && 100 <= Disk",
              "true && (Cpus >= 1) && Memory < 1e9 && true",
              "Cpus >= 1.5 && 2 < Cpus && Disk != 0 && Memory == 3.0 && Cpus <= 64",
              "(false || Cpus >= 2) && (TARGET.RequestGPUs =?= undefined || Memory > 1)",
              "Memory >= Disk && Cpus < Memory && true"]
    # the corpus has a few conjunctions of bounds, the five above always carry them
    assert _atoms_agree(texts, slot_is_my) >= 8


def test_the_slot_requirements_are_bounds() -> None:
    """``START && WithinResourceLimits`` against a job: lower bounds on each resource,
    the request folded in (what ``carving`` checks a fit with)."""
    job, slot = ad(JOB_AD), ad(SLOT_AD)
    residual = specialize_attribute(slot, "Requirements", job,
                                    [(slot, n) for n in FREE], now=None)
    atoms = getattr(residual, "atoms", None)
    assert atoms is not None
    assert ("Memory".lower(), ">=", 2048) in {(FREE[i].lower(), op, n) for i, op, n, _ in atoms}
    assert _atoms_agree(["MY.Requirements"], slot_is_my=True) == 1


def test_a_disjunction_carries_no_bounds() -> None:
    job, slot = ad(JOB_AD), ad(SLOT_AD)
    for text in ("Memory > 10 || Cpus > 1", "ifThenElse(Cpus > 1, true, false)",
                 "Memory > Cpus * 2", "1 && Memory > 2"):
        residual = specialize(parse_expr(text), slot, job, [(slot, n) for n in FREE], now=None)
        assert getattr(residual, "atoms", None) is None, text


def test_a_bound_test_is_the_comparison_residual() -> None:
    """``bound_test`` gives what the residual of ``Cpus op n`` gives, and its atom."""
    job, slot = ad(JOB_AD), ad(SLOT_AD)
    for op in ("<", "<=", ">", ">=", "==", "!="):
        for number in (2, 2.0, 0, -1.5):
            made = bound_test(1, op, number)
            want = specialize(parse_expr(f"Cpus {op} {number!r}"), slot, job,
                              [(slot, n) for n in FREE], now=None)
            assert made.atoms[0][:3] == (1, op, number)  # type: ignore[attr-defined]
            for vals in [*NUMERIC_STATES, (0, 2.0, 0), (0, 2, 0)]:
                assert made(vals) is want(vals), (op, number, vals)


def _never_true_agrees(texts: list[str], slot_is_my: bool) -> int:
    """How many of ``texts`` give a residual marked ``never_true``; for each such one,
    no state's full evaluation is ``true`` or a number (what a ``Requirements``
    test would hold on), and the residual still equals the full evaluation."""
    job, slot = ad(JOB_AD), ad(SLOT_AD)
    marked = 0
    for text in texts:
        node = parse_expr(text)
        my, target = (slot, job) if slot_is_my else (job, slot)
        residual = specialize(node, my, target, [(slot, n) for n in FREE], now=1700000000)
        if residual is None or not getattr(residual, "never_true", False):
            continue
        marked += 1
        for vals in STATES:
            state = rebound(slot, vals)
            pair = (state, job) if slot_is_my else (job, state)
            want = reference.evaluate(node, *pair, now=1700000000)
            assert canonical(residual(vals)) == canonical(want), (text, vals)
            assert want is not True and type(want) not in (int, float), (text, vals, want)
    return marked


@pytest.mark.parametrize("slot_is_my", [True, False], ids=["my-slot", "my-job"])
def test_a_junction_that_can_never_be_true_is_marked(slot_is_my: bool) -> None:
    never = ["Memory >= 2048 && NoSuchName", "NoSuchName && Cpus > 1",
             "(Cpus > 1 && error) && Memory > 2", "Memory > 2 && \"text\"",
             "(Memory > 2 && undefined) || (Cpus > 1 && false)", "undefined && Cpus > 1",
             "Cpus > 1 && Memory > 2 && (Disk > 3 && NoSuchName)"]
    maybe = ["Memory >= 2048 && 1", "NoSuchName || Cpus > 1",
             "(Memory > 2 && undefined) || Cpus > 1", "Memory > 2 && Cpus > 1",
             "!(Memory > 2 && undefined)", "ifThenElse(Memory > 2 && undefined, true, true)"]
    assert _never_true_agrees(never, slot_is_my) == len(never)
    assert _never_true_agrees(maybe, slot_is_my) == 0
    # on the generated corpus, every marked residual keeps both promises
    _never_true_agrees(generate(seed=12, count=1500), slot_is_my)


def _check_given(texts: list[str]) -> int:
    """``_check`` with the slot's ``Rank`` given (``specialize``'s ``given``): the
    residual gets the value of the Rank's own residual after the free values, and
    must give what the reference walker gives; the count of residuals that read it."""
    job, slot = ad(JOB_AD), ad(SLOT_AD)
    free = [(slot, n) for n in FREE]
    rank = specialize_attribute(slot, "Rank", job, free, now=1700000000)
    assert rank is not None and not hasattr(rank, "value")  # (it reads Memory)
    read = 0
    for text in texts:
        node = parse_expr(text)
        residual = specialize(node, slot, job, free, now=1700000000,
                              given=[(slot, "Rank")])
        if residual is None:
            assert specialize(node, slot, job, free, now=1700000000) is None, text
            continue
        read += getattr(residual, "reads_given", False)
        for vals in STATES:
            want = reference.evaluate(node, rebound(slot, vals), job, now=1700000000)
            assert canonical(residual((*vals, rank(vals)))) == canonical(want), (text, vals)
    return read


def test_a_given_attribute_agrees_with_full_evaluation() -> None:
    texts = [*generate(seed=12, count=600),
             "10000000 * MY.Rank + 1000000 * (RemoteOwner =?= UNDEFINED)"
             " - 100000 * Cpus - Memory",
             "Rank", "MY.Rank + MY.Rank", "Ref + Rank"]
    assert _check_given(texts) >= 4


def test_a_given_attribute_is_read_only_where_its_own_walk_would_be() -> None:
    """Read straight from the expression, the given value stands in for the Rank (a
    wrong one shows); reached through another attribute (depth 1), the Rank is
    walked as ever and the given value is not read."""
    job, slot = ad(JOB_AD), ad(SLOT_AD)
    free = [(slot, n) for n in FREE]
    slot["Via"] = parse_expr("MY.Rank * 2")
    direct = specialize(parse_expr("10000000 * MY.Rank - Memory"), slot, job, free, None,
                        given=[(slot, "Rank")])
    assert direct is not None and direct.reads_given  # type: ignore[attr-defined]
    assert direct((4096, 8, 1, 7)) == 10000000 * 7 - 4096
    via = specialize(parse_expr("Via - Memory"), slot, job, free, None,
                     given=[(slot, "Rank")])
    assert via is not None and not getattr(via, "reads_given", False)
    assert via((4096, 8, 1, 7)) == 2 * (4096 - 2048) - 4096  # (RequestMemory 2048)


@pytest.mark.parametrize("text", [
    "Memory * 4611686018427387904",      # integers wrapped to 64 bits
    "9223372036854775807 + Cpus",
    "Cpus - Memory - Disk",
    "Memory * 1e308 * 10.0",             # an infinite real is an error
    "1e308 * Memory",
    "Memory - 1.5",                      # mixed: the general path
    "2.5 + Cpus",
    "Memory + \"x\"",
    "undefined - Cpus",
    "10000000 * MY.Rank + 1000000 * (RemoteOwner =?= UNDEFINED) - 100000 * Cpus - Memory",
])
def test_arithmetic_residuals_agree_at_the_edges(text: str) -> None:
    """``residuals.arithmetic``'s written-out steps against the reference walker, at
    states of integers, reals and other values (``STATES``) and at the integer and
    real edges."""
    job, slot = ad(JOB_AD), ad(SLOT_AD)
    node = parse_expr(text)
    residual = specialize(node, slot, job, [(slot, n) for n in FREE], now=None)
    assert residual is not None
    for vals in [*STATES, (2**62, 2**62, -(2**63)), (1e308, 2.0, -1e308), (7, 2.5, 1)]:
        want = reference.evaluate(node, rebound(slot, vals), job, now=None)
        assert canonical(residual(vals)) == canonical(want), (text, vals)


#: states of booleans mixed with integers and reals, at the edges (``_mixed_fn``)
MIXED_STATES = [
    (True, 3, 2.5),
    (False, True, -1),
    (2**63 - 1, True, 1e308),
    (-(2**63), True, False),
    (True, False, True),
    (1e308, True, -(2**62)),
    (7, -1.5, Undefined),
    (Error, True, 3),
]


@pytest.mark.parametrize("text", [
    "10000000 * Memory",                 # an integer constant times a boolean
    "Memory * 10000000",
    "Memory - 1",
    "1 - Cpus",
    "Memory + Cpus",                     # boolean with integer, boolean with boolean
    "Memory - Cpus - Disk",
    "Memory * Cpus * Disk",
    "9223372036854775807 + Cpus",        # wrapped after a boolean's 1
    "-9223372036854775807 - Cpus - Cpus",
    "2.5 * Memory",                      # a real with a boolean or an integer
    "Memory - 1.5",
    "Disk * 1e308 * 10",                 # an infinite real is an error
    "Memory * Disk",
    "true * Memory",                     # a boolean constant
    "Cpus + false",
    "10000000 * MY.Rank + 1000000 * (RemoteOwner =?= UNDEFINED) - 100000 * Cpus - Memory",
])
def test_arithmetic_residuals_of_mixed_types_agree(text: str) -> None:
    """The mixed pairs (a boolean with an integer, an integer or a boolean with a
    real) that ``residuals._mixed_fn`` answers without the general path, against the
    reference walker: a boolean not taken as 0 or 1, a missing wrap or a missing
    infinity check fails it."""
    job, slot = ad(JOB_AD), ad(SLOT_AD)
    node = parse_expr(text)
    residual = specialize(node, slot, job, [(slot, n) for n in FREE], now=None)
    assert residual is not None
    for vals in [*STATES, *MIXED_STATES]:
        want = reference.evaluate(node, rebound(slot, vals), job, now=None)
        assert canonical(residual(vals)) == canonical(want), (text, vals)
