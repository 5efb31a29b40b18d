"""Residuals made for their free values' types (``residual_types``) against the general
residual, the reference walker and classad2.

For every expression of the generated corpus and every value tuple of a generated set
(integers, reals that overflow, signed zeros, booleans, strings, undefined, error),
the residual made for the tuple's types (``specialize(..., kinds=...)``, the type
tuples ``specialisable``) must give exactly (reals bit for bit) what the general
residual and the reference walker give; so must ``typed_runner``, which picks the
residual per type tuple (the general one for a tuple holding undefined or error).
The policy ranks are checked the same way over slots binding their names to every
such value, and against classad2 where it is installed.
"""

from __future__ import annotations

import itertools
import random

import pytest

from condorlite.core.classad import reference
from condorlite.core.classad.ad import ClassAd
from condorlite.core.classad.parser import parse_expr
from condorlite.core.classad.partial import specialize
from condorlite.core.classad.residual_types import (
    Typed,
    compiled,
    specialisable,
    typed_runner,
)
from condorlite.core.classad.values import Error, Undefined
from condorlite.core.policy import (
    DEFAULT_POST_JOB_RANK,
    DEFAULT_PRE_JOB_RANK,
    DEFAULT_PREEMPTION_RANK,
)

from .conftest import oracle_expr
from .gen_exprs import JOB_AD, SLOT_AD, generate
from .test_evaluator import ad, canonical

FREE = ("Memory", "Cpus", "Disk")
NOW = 1700000000
#: values of every kind a literal binding may hold: the ranks' usual ones, the ends
#: of the integers, reals whose arithmetic overflows, signed zeros, booleans, strings
VALUES = (0, 1, -7, 123456, 9223372036854775807, -9223372036854775808, 0.0, -0.0, 2.5,
          -1e300, 1.7e308, True, False, "x", "", Undefined, Error)
#: value tuples for (Memory, Cpus, Disk), of many type tuples
STATES = [vals for i, vals in enumerate(itertools.product(VALUES, repeat=3)) if i % 37 == 0]


def rebound(slot: ClassAd, names: tuple[str, ...], vals: tuple) -> ClassAd:
    out = slot.copy()
    for name, value in zip(names, vals, strict=True):
        out[name] = value
    return out


def _kinds(vals: tuple) -> tuple:
    return tuple(map(type, vals))


def _check(texts: list[str], slot_is_my: bool) -> int:
    job, slot = ad(JOB_AD), ad(SLOT_AD)
    typed = 0
    for text in texts:
        node = parse_expr(text)
        my, target = (slot, job) if slot_is_my else (job, slot)
        free = [(slot, n) for n in FREE]
        general = specialize(node, my, target, free, now=NOW)
        if general is None:
            continue
        runner = typed_runner(general, lambda kinds, node=node, my=my, target=target,
                              free=free: specialize(node, my, target, free, NOW,
                                                    kinds=kinds))
        for vals in STATES:
            state = rebound(slot, FREE, vals)
            pair = (state, job) if slot_is_my else (job, state)
            want = canonical(reference.evaluate(node, *pair, now=NOW))
            assert canonical(general(vals)) == want, (text, vals)
            assert canonical(runner(vals)) == want, (text, vals)
            if specialisable(_kinds(vals)):
                residual = compiled(specialize(node, my, target, free, NOW,
                                               kinds=_kinds(vals)))
                assert residual is not None, text
                assert canonical(residual(vals)) == want, (text, vals)
                typed += 1
    return typed


@pytest.mark.parametrize("slot_is_my", [True, False], ids=["my-slot", "my-job"])
def test_corpus_typed_residuals_agree_with_general_and_full_evaluation(
        slot_is_my: bool) -> None:
    texts = generate(seed=23, count=400)
    assert _check(texts, slot_is_my) > 1000


ARITHMETIC = [
    "Memory + Cpus", "Memory - Cpus * Disk", "(Memory * 1000000) - Cpus",
    "true * (Memory - Cpus - 1.0e10 * (Disk =?= true))", "1.0e300 * Memory * Cpus",
    "-Memory - 0.0", "Memory * false + Cpus", "isUndefined(Memory) ? Cpus : Disk",
    "ifThenElse(isInteger(Memory), Memory, 0) - ifThenElse(isReal(Cpus), Cpus, 1)",
    "(Memory =?= undefined) * Cpus - (Disk isnt error)", "isString(Memory) + isBoolean(Cpus)",
    "isError(Memory) || Cpus > Disk",
]


@pytest.mark.parametrize("text", ARITHMETIC)
def test_typed_arithmetic_agrees(text: str) -> None:
    assert _check([text], slot_is_my=True) > 0


RANKS = [DEFAULT_POST_JOB_RANK, DEFAULT_PRE_JOB_RANK, DEFAULT_PREEMPTION_RANK]
#: the names the ranks read, each bound to a literal in the slots below
RANK_NAMES = ("RemoteOwner", "KFlops", "SlotID", "Offline", "Rank", "Cpus", "Memory",
              "RemoteUserPrio", "TotalJobRunTime")
RANK_VALUES = (0, 3, -5, 2147483647, 9223372036854775807, 0.0, -0.0, 1.5, 1e308, True,
               False, "u1", Undefined, Error)


#: a usual slot's values of ``RANK_NAMES``
USUAL = ("u1", 1234567, 2, False, 0.0, 8, 4096, 1.5, 600)


def _rank_states() -> list[tuple]:
    rng = random.Random(36)
    rows = [tuple(rng.choice(RANK_VALUES) for _ in RANK_NAMES) for _ in range(3000)]
    # every value at every place, the others the usual slot's
    for at, value in itertools.product(range(len(RANK_NAMES)), RANK_VALUES):
        rows.append((*USUAL[:at], value, *USUAL[at + 1:]))
    return rows


def _rank_slot() -> tuple[ClassAd, list]:
    """A slot binding every name the policy ranks read (``RANK_NAMES``) to 0, and
    those names as the free attributes of a residual of it."""
    slot = ad("[ Name = \"slot1@host\" ]")
    for name in RANK_NAMES:
        slot[name] = 0
    return slot, [(slot, n) for n in RANK_NAMES]


@pytest.mark.parametrize("text", RANKS, ids=["post", "pre", "preemption"])
def test_policy_ranks_typed_agree(text: str) -> None:
    node = parse_expr(text)
    slot, free = _rank_slot()
    general = specialize(node, slot, None, free, NOW)
    assert general is not None
    def make(kinds: tuple) -> object:
        return specialize(node, slot, None, free, NOW, kinds=kinds)

    runner = typed_runner(general, make)
    # as ``literal_ranks`` makes it: guarded for the usual slot's types
    guarded = typed_runner(general, make, _kinds(USUAL))
    for vals in _rank_states():
        want = canonical(reference.evaluate(node, rebound(slot, RANK_NAMES, vals), None,
                                            now=NOW))
        assert canonical(general(vals)) == want, vals
        assert canonical(runner(vals)) == want, vals
        assert canonical(guarded(vals)) == want, vals
    assert len(runner.by_types) > 20  # type: ignore[attr-defined]


def test_the_post_job_rank_of_integers_calls_no_residual() -> None:
    """``KFlops`` and ``SlotID`` integers, ``RemoteOwner`` and ``Offline`` absent: the
    type tests are folded, the residual is one function reading ``vals`` (no other
    residual called by name)."""
    node = parse_expr(DEFAULT_POST_JOB_RANK)
    slot = ad("[ KFlops = 1000; SlotID = 3 ]")
    free = [(slot, "KFlops"), (slot, "SlotID")]
    made = specialize(node, slot, None, free, NOW, kinds=(int, int))
    assert type(made) is Typed
    residual = compiled(made)
    assert not [n for n in residual.__code__.co_names if n.startswith("_f")]
    assert residual((1000, 3)) == 997.0 and type(residual((1000, 3))) is float
    assert residual((9223372036854775807, -1)) == float(-9223372036854775808)


def test_policy_ranks_agree_with_classad2(classad2) -> None:
    states = [("u1", 1234567, 2, False, 1.0, 8, 4096, 1.5, 600),
              (Undefined, 7, 1, True, 0.0, 1, 512, 0.5, 9223372036854775807),
              ("u2", 2.5, 9223372036854775807, Undefined, True, 2, 1e308, 1e308, 1.5),
              (Undefined, Undefined, -1, False, False, True, -0.0, 3, Undefined)]
    for text in RANKS:
        node = parse_expr(text)
        slot, free = _rank_slot()
        general = specialize(node, slot, None, free, NOW)
        runner = typed_runner(general, lambda kinds, node=node, slot=slot, free=free:
                              specialize(node, slot, None, free, NOW, kinds=kinds))
        for vals in states:
            expr = oracle_expr(classad2, text)
            assert expr is not None
            oracle = classad2.ClassAd()
            for name, value in zip(RANK_NAMES, vals, strict=True):
                if value is Undefined:
                    oracle[name] = classad2.Value.Undefined
                elif value is Error:
                    oracle[name] = classad2.Value.Error
                else:
                    oracle[name] = value
            oracle["e"] = expr
            want = oracle.eval("e")
            got = runner(vals)
            if want is classad2.Value.Undefined:
                assert got is Undefined, (text, vals)
            elif want is classad2.Value.Error:
                assert got is Error, (text, vals)
            else:
                assert got == want and type(got) is type(want), (text, vals, got, want)


def test_a_residual_too_deep_for_pythons_compiler_runs_as_the_general_one() -> None:
    """A slot's own expression of 150 nested sums of a literal (the ClassAd parser
    allows it; Python's refuses a source nested that deep) read by a policy rank: the
    typed runner falls back to the general residual instead of failing the cycle."""
    depth = 150
    deep = "(" * depth + "Mips" + " + Mips)" * depth
    slot = ad(f"[ Mips = 7; KFlops = {deep}; SlotID = 1 ]")
    expr = parse_expr("KFlops - SlotID - 1.0")
    free = [(slot, "mips"), (slot, "slotid")]
    general = specialize(expr, slot, None, free, 0)
    assert general is not None
    run = typed_runner(general, lambda kinds: specialize(expr, slot, None, free, 0,
                                                         kinds=kinds), (int, int))
    assert run((7, 1)) == general((7, 1)) == 7.0 * (depth + 1) - 2.0
    assert run((2, 5)) == general((2, 5)) == 2.0 * (depth + 1) - 6.0
