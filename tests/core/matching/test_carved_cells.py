"""Less work per carved state: pairs run in the walk, no second program build for a
test on a slot's own literal.

* ``carved_lists.DIRECT``: a carved shape's pair is the class's program run in the
  walk and an unheld shape's kept entries are taken there (``MatchTable.fresh_pair``
  and ``ShapeEntries.add`` written out);
* ``pair_programs.REBUILD_GATED``: a program that is no box because a test reads the
  slot's own literal (a desktop's owner) is not built again with the requests bound.

Each case runs the cycle with the mechanism on and off, requires both to decide as
the plain reference cycle does and the mechanism to have done its work; the
``broken`` case checks that the reference comparison catches a wrong pair.
"""

from __future__ import annotations

from typing import NamedTuple

import pytest

from condorlite.core.classad.partial import Constant
from condorlite.core.matching import (
    carved_lists,
    carving,
    ordered_states,
    pair_programs,
    shape_entries,
)
from condorlite.core.matching.match_table import MatchTable
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import (
    pslot_text,
    run_both,
)
from tests.core.matching.test_own_literals import _desktop
from tests.core.matching.test_own_literals import _jobs as _desktop_jobs
from tests.core.negotiation.test_equivalence import _fingerprint

POLICY = Policy(uid_domain="example.org")
USERS = ("alice", "bob", "carol")
#: machine types: (Cpus, Memory)
TYPES = [(8, 16384), (16, 32768), (4, 8192)]
#: job Ranks that read the carved resources: one position, two, a branch that reads
#: another position in some states, and a constant (a box with one result)
RANKS = ["Memory", "TARGET.Cpus * 1000 + TARGET.Memory",
         "ifThenElse(TARGET.Cpus > 4, TARGET.Memory, TARGET.Disk)", "0.0"]


def _pslot(i: int) -> str:
    cpus, memory = TYPES[i % len(TYPES)]
    # (each slot its own Disk, as a startd reports its share of the free disk)
    return pslot_text(f"m{i:02d}", cpus, memory, 200000 + 977 * i)


def _jobs(per: int) -> list[str]:
    out = []
    for cluster in range(1, 9):
        attrs = dict(Owner=f'"{USERS[cluster % 3]}@example.org"', JobStatus=1, JobPrio=0,
                     QDate=1000 + cluster, RequestCpus=1 + cluster % 3,
                     RequestMemory=1024 * (1 + cluster % 4), RequestDisk=5000 * cluster,
                     Rank=RANKS[cluster % len(RANKS)],
                     Requirements="TARGET.Memory >= RequestMemory && TARGET.Disk >= RequestDisk")
        out.extend("\n".join(f"{k} = {v}" for k, v in dict(
            ClusterId=cluster, ProcId=proc, **attrs).items()) + "\n" for proc in range(per))
    return out


class _Calls:
    """How many times ``owner.name`` was called, counted through ``patch``."""

    def __init__(self, patch: pytest.MonkeyPatch, owner: object, name: str) -> None:
        self.count = 0
        called = getattr(owner, name)
        counts = self

        def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
            counts.count += 1
            return called(*args, **kwargs)

        patch.setattr(owner, name, counting)


class _OnAndOff(NamedTuple):
    """Two cycles of one pool, each checked against the reference (``run_both``):
    with a mechanism on and with it off, and how often the counted call ran in each."""

    on: object
    off: object
    calls_on: int
    calls_off: int


def _on_and_off(monkeypatch, calls: _Calls, switch: tuple, slots, jobs) -> _OnAndOff:
    """Run the pool as it is, then with ``switch`` = (module, name, value) set (the
    mechanism off); both allocations must be the same."""
    on, result = run_both(slots, jobs, POLICY)
    calls_on, calls.count = calls.count, 0
    with monkeypatch.context() as patch:
        patch.setattr(*switch)
        off, off_result = run_both(slots, jobs, POLICY)
    assert _fingerprint(off_result) == _fingerprint(result)
    return _OnAndOff(on, off, calls_on, calls.count)


@pytest.mark.parametrize("desktops", [False, True])
def test_pairs_run_in_the_walk_decide_as_the_reference(monkeypatch, desktops):
    if desktops:
        slots, jobs = [_desktop(i) for i in range(24)], _desktop_jobs(6)
    else:
        slots, jobs = [_pslot(i) for i in range(20)], _jobs(10)
    runs = _on_and_off(monkeypatch, _Calls(monkeypatch, MatchTable, "fresh_pair"),
                       (carved_lists, "DIRECT", False), slots, jobs)
    fast, plain = runs.on, runs.off
    # the walk ran the pairs the match table ran without it
    assert runs.calls_off > runs.calls_on
    # the same pair results, counted as the match table counts them
    assert plain.mm.evaluations == fast.mm.evaluations
    assert fast.mm.table.pairs == plain.mm.table.pairs


def test_a_wrong_pair_in_the_walk_is_caught(monkeypatch):
    """Broken on purpose: the walk's pairs without their job rank."""
    slots, jobs = [_pslot(i) for i in range(12)], _jobs(8)

    def rankless(outcome):  # type: ignore[no-untyped-def]
        return carving_pair(outcome)._replace(job_rank=0.0)

    carving_pair = carved_lists.make_pair
    monkeypatch.setattr(carved_lists, "make_pair", rankless)
    # (and where a static's entries are made from its order, ``ordered_states``)
    monkeypatch.setattr(ordered_states, "make_pair", rankless)
    with pytest.raises(AssertionError):
        run_both(slots, jobs, POLICY)


@pytest.mark.parametrize(("n_desktops", "per"), [(24, 6), (40, 10)])
def test_programs_gated_by_an_own_literal_are_built_once(monkeypatch, n_desktops, per):
    """Busy desktops' ``Requirements`` test the job's owner against the slot's own
    literal: no box with the requests free or bound, so one build is enough."""
    slots, jobs = [_desktop(i) for i in range(n_desktops)], _desktop_jobs(per)
    # (second builds included)
    runs = _on_and_off(monkeypatch, _Calls(monkeypatch, pair_programs, "_pair_program"),
                       (pair_programs, "REBUILD_GATED", True), slots, jobs)
    fast, plain = runs.on, runs.off
    assert runs.calls_off > runs.calls_on
    assert len(fast.mm.table.programs) == len(plain.mm.table.programs)


def test_gated_by_literal_reads_the_literal_position():
    """``gated_by_literal`` is true only for a test without bounds that reads a
    position of the slot's own literals."""
    owner = lambda vals: vals[2] == "alice"  # noqa: E731
    bound = lambda vals: vals[0] >= 4  # noqa: E731
    gated = carving.PairProgram([], [owner], Constant(0.0), Constant(0.0),
                                [], float, width=3, literals=1)
    assert pair_programs.gated_by_literal(gated, (8, 1024, "bob"))
    amounts = carving.PairProgram([], [bound], Constant(0.0), Constant(0.0),
                                  [], float, width=3, literals=1)
    assert not pair_programs.gated_by_literal(amounts, (8, 1024, "bob"))
    plain = carving.PairProgram([], [owner], Constant(0.0), Constant(0.0),
                                [], float, width=3, literals=0)
    assert not pair_programs.gated_by_literal(plain, (8, 1024, "bob"))


def test_a_state_of_one_offer_keeps_no_run(monkeypatch):
    """Every carved state of a partitionable slot nobody holds is one offer's: its
    entry is made into the list (``carved_lists``), no run of one entry is kept, and
    the cycle still decides as the reference does."""
    kept: list[int] = []
    made = shape_entries.ShapeEntries.kept

    def counting(self, shape, members, *args):  # type: ignore[no-untyped-def]
        kept.append(len(members))
        return made(self, shape, members, *args)

    monkeypatch.setattr(shape_entries.ShapeEntries, "kept", counting)
    fast, _ = run_both([_pslot(i) for i in range(20)], _jobs(10), POLICY)
    assert fast.mm.evaluations > 0
    assert all(n > 1 for n in kept)
    assert all(len(run) > 1 for runs in fast.mm.lists._entries._kept_entries.values()
               for _, run in runs.values())
