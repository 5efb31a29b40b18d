"""A static list's groups of known order, made as the list's merge reads them
(``static_groups``): the run's invariant, and whole cycles against the plain
reference with the groups made on demand and made with the list."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core.matching import static_groups, static_lists
from condorlite.core.matching.candidates import Candidates
from condorlite.core.matching.static_groups import LazyGroup, kind
from tests.core.matching._against_reference import run_both
from tests.core.matching.test_static_parts import POLICY, _job, _slot


class _Offer:
    __slots__ = ("available",)

    def __init__(self, available: bool) -> None:
        self.available = available


def _make(seqs: list[int]) -> list[tuple]:
    # (an entry's sort key is everything before its position, ``ENTRY_IDX``)
    return [(0.0, 0.0, 0.0, 0.0, 0.0, f"s{k:04d}", k, 0, "x") for k in seqs]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), min_size=0, max_size=80), st.integers(1, 20),
       st.lists(st.integers(0, 90), max_size=12))
def test_a_group_grows_past_each_count_in_order(alive, chunk, counts):
    """``grow(count)`` leaves more than ``count`` entries made or every available
    offer's, in order, an offer that had left getting none; ``skip`` finds the
    first available; merged with another run, the merge gives the whole sorted
    list of available entries."""
    registry = [_Offer(a) for a in alive]
    seqs = list(range(len(alive)))
    group = LazyGroup(registry, seqs, _make)  # type: ignore[arg-type]
    whole = _make([k for k in seqs if alive[k]])
    for count in counts:
        group.grow(count)
        made = group.entries
        assert made == whole[:len(made)]
        assert len(made) > count or (group.done and made == whole)
    # a list's merge of the group (from its first available) with another run
    other = [(0.0, 0.0, 0.0, 0.0, 0.0, f"s{k:04d}b", -1, 0, "x") for k in range(0, 90, 7)]
    group = LazyGroup(registry, seqs, _make)  # type: ignore[arg-type]
    cands = Candidates([], chunk=chunk)
    cands.pending = [[other, 0], [group.entries, group.skip(), group, None]]
    while cands.pending:
        cands.merge_more()
    assert cands.entries == sorted(whole + other)


def test_a_kind_is_none_for_no_number():
    assert kind({"pre": 1.0, "post": 2.0}, "pre", "post") == (True, True)
    assert kind({"post": 2.0}, "pre", "post") == (False, True)
    assert kind({"pre": float("nan")}, "pre", "post") is None
    assert kind({"pre": 1}, "pre", "post") is None


def _cycle(monkeypatch, lazy: bool, slots: list[str], jobs: list[str]) -> tuple[list, int]:
    made = []
    init = LazyGroup.__init__

    def counted(self, *args):  # type: ignore[no-untyped-def]
        made.append(self)
        init(self, *args)

    monkeypatch.setattr(static_groups.LazyGroup, "__init__", counted)
    monkeypatch.setattr(static_lists, "LAZY", lazy)
    _, result = run_both(slots, jobs, POLICY)
    return list(result.matches), len(made)


def test_cycles_with_groups_made_on_demand_agree_with_the_reference(monkeypatch):
    """One-offer shapes (every slot its own Disk) in groups of more than
    ``ORDERED``: made as the merge reads them, the allocation is the reference's
    and the eager lists'; with a POST_JOB_RANK of the slot's own (its order known)
    and with classes of few and many jobs."""
    slots = [_slot(i, KFlops=1000 + 37 * (i % 11)) for i in range(120)]
    jobs = ([_job(c, p, "TARGET.Disk >= 41000") for c in (1, 2, 3) for p in range(40)]
            + [_job(c, p, "TARGET.Disk >= 90000", Rank="2.5") for c in (4, 5) for p in range(3)])
    lazy, groups = _cycle(monkeypatch, True, slots, jobs)
    assert groups  # (the groups were made on demand)
    eager, none = _cycle(monkeypatch, False, slots, jobs)
    assert not none and lazy == eager


def test_a_rank_column_keeps_its_group_eager(monkeypatch):
    """A class whose job rank is a rank column (``Rank = KFlops``): its group's order
    is not known before its entries are made, so it is made with the list."""
    slots = [_slot(i, KFlops=1000 + 37 * (i % 11)) for i in range(120)]
    jobs = [_job(c, p, "TARGET.Disk >= 41000", Rank="TARGET.KFlops")
            for c in (1, 2) for p in range(30)]
    lazy, groups = _cycle(monkeypatch, True, slots, jobs)
    eager, _ = _cycle(monkeypatch, False, slots, jobs)
    assert lazy == eager
    assert not groups
