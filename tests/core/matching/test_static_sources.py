"""Static lists made as deep as their walks read them (``static_sources``).

``StaticSource.grow`` is checked on its own: whatever the groups and the eager run,
every growth leaves each view a prefix of the whole sorted list, and growing to the
end gives the whole list. Whole cycles of many one-offer static shapes (every slot
its own ``Disk``), with job ranks, pre job ranks that differ per slot or come from
the job, and few jobs per class (the walks read a few entries of long lists), must
decide as the plain reference does with lazy lists and without them, and the lazy
lists must make fewer entries.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core.matching import static_lists, static_sources
from condorlite.core.matching.static_lists import StaticLists
from condorlite.core.matching.static_sources import LazyGroup, StaticSource
from condorlite.core.policy import Policy
from tests.core.matching._against_reference import ad_text, run_both

USERS = ("alice", "bob", "carol")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.integers(0, 6), max_size=90), min_size=1, max_size=5),
       st.lists(st.integers(0, 6), max_size=40), st.integers(1, 8))
def test_a_source_hands_out_the_sorted_list_a_chunk_at_a_time(groups, eager, first):
    """Entries (key, seq) with keys of few values (ties across groups and the eager
    run, which the seq breaks): after each growth every view is the same prefix of
    the whole sorted list, and the whole list once grown to the end."""
    seq = iter(range(10**6))
    by_seq: dict[int, tuple] = {}
    lazy = []
    for keys in groups:
        entries = sorted((key, next(seq)) for key in keys)
        by_seq.update((e[1], e) for e in entries)
        if entries:
            lazy.append(LazyGroup([e[1] for e in entries], None))  # type: ignore[arg-type]
    made = sorted((key, next(seq)) for key in eager)
    whole = sorted([*by_seq.values(), *made])
    views: list[list[tuple]] = [[]]
    asked: list[int] = []

    def make(seqs, pe):  # type: ignore[no-untyped-def]
        asked.extend(seqs)
        return [by_seq[k] for k in seqs]

    old = static_sources.FIRST
    static_sources.FIRST = first
    try:
        source = StaticSource(made, lazy, make, views)
        for _ in range(len(whole) + 1):
            before = len(views[0])
            source.grow()
            if len(views) == 1:
                views.append(list(views[0]))  # (a compaction's copy grows alike)
            assert views[0] == views[1] == whole[:len(views[0])]
            assert len(views[0]) > before or before == len(whole)
    finally:
        static_sources.FIRST = old
    assert views[0] == whole
    assert sorted(asked) == sorted(by_seq)  # (each offer's entry made once)


def _slot(i: int) -> str:
    attrs = dict(Name=f'"slot{i}@m{i // 4}"', Machine=f'"m{i // 4}"', State='"Unclaimed"',
                 Activity='"Idle"', Cpus=1, Memory=2048 + 1024 * (i % 3),
                 Disk=40000 + 1000 * i, KFlops=1000 + 37 * (i % 11), Arch='"X86_64"',
                 OpSys='"LINUX"', Requirements="START",
                 START="TARGET.RequestMemory <= MY.Memory", Rank="0.0",
                 CurrentRank="0.0", SlotWeight="Cpus")
    return ad_text(attrs)


def _job(cluster: int, proc: int, requirements: str, **extra: object) -> str:
    attrs = dict(ClusterId=cluster, ProcId=proc, Owner=f'"{USERS[cluster % 3]}@example.org"',
                 JobStatus=1, JobPrio=0, QDate=1000 + cluster, RequestCpus=1,
                 RequestMemory=1024, RequestDisk=1000, Requirements=requirements)
    attrs.update(extra)
    return ad_text(attrs)


#: classes of constant job ranks (lazy groups) and of ranks that read the slot (a
#: rank column, or a pair result per shape: eager)
CLASSES = [
    ("TARGET.Disk >= 41000", {}),
    ("TARGET.Disk >= 60000", {"Rank": "10"}),
    ("TARGET.Disk < 150000", {"Rank": "TARGET.KFlops"}),
    ("TARGET.Memory >= 3072", {}),
    ("TARGET.Disk % 2 == 0", {"Rank": "TARGET.Memory > 3000"}),
]

#: pre job ranks given by the slot (one float per slot), by the job (one per pair),
#: and the default
PRE_RANKS = ["MY.Disk / 1000 + MY.KFlops", "TARGET.JobPrio + 3", None]


def _cycle(monkeypatch, lazy: bool, pre: str | None, jobs: list[str]) -> tuple:
    made = []
    entries = StaticLists._make

    def counted(self, seqs, pe, column=None):  # type: ignore[no-untyped-def]
        made.append(len(seqs))
        return entries(self, seqs, pe, column)

    sources = []
    init = StaticSource.__init__

    def spied(self, *args):  # type: ignore[no-untyped-def]
        sources.append(self)
        init(self, *args)

    policy = (Policy(uid_domain="example.org") if pre is None else
              Policy(uid_domain="example.org", negotiator_pre_job_rank=pre))
    with monkeypatch.context() as patch:
        patch.setattr(static_lists, "LAZY", lazy)
        patch.setattr(StaticLists, "_make", counted)
        patch.setattr(StaticSource, "__init__", spied)
        _, result = run_both([_slot(i) for i in range(160)], jobs, policy)
    return list(result.matches), sum(made), len(sources)


def test_lazy_lists_decide_as_eager_ones_and_make_fewer_entries(monkeypatch):
    """Each pre job rank, few jobs per class: lazy and eager lists match the same
    jobs to the same slots (and both as the reference), and the lazy ones make
    fewer entries."""
    jobs = [_job(c, p, req, **extra) for c, (req, extra) in enumerate(CLASSES, start=1)
            for p in range(6)]
    for pre in PRE_RANKS:
        lazy, made_lazy, sources = _cycle(monkeypatch, True, pre, jobs)
        eager, made_eager, none = _cycle(monkeypatch, False, pre, jobs)
        assert lazy == eager
        assert sources and not none
        assert made_lazy < made_eager


def test_lazy_lists_read_to_their_end_decide_as_eager_ones(monkeypatch):
    """More jobs than slots: the walks read the lists to their end (every entry
    made), the lazy lists' growth shared between classes and their compactions."""
    jobs = [_job(c, p, req, **extra) for c, (req, extra) in enumerate(CLASSES, start=1)
            for p in range(60)]
    for pre in PRE_RANKS[:2]:
        lazy, _, sources = _cycle(monkeypatch, True, pre, jobs)
        eager, _, _ = _cycle(monkeypatch, False, pre, jobs)
        assert lazy == eager and sources
