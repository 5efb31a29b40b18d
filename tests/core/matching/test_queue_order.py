"""The cycle's queue order, found by blocks of rows (``queue_blocks``), is the stable
sort by ``(Job.queue_key(), index)`` of each submitter's jobs in input order."""

from __future__ import annotations

from itertools import chain

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core.classad import oldscan
from condorlite.core.matching import queue_blocks
from condorlite.core.matching.queue_blocks import QueueBlocks, chunk_heads, queue_key
from condorlite.core.model import Job


@pytest.fixture(autouse=True, params=[False, True], ids=["python", "compiled"])
def compiled(request, monkeypatch) -> bool:
    """``queue_blocks.COMPILED`` off and on (on only where ``_oldscan`` is built)."""
    if request.param and oldscan.descents is None:
        pytest.skip("the compiled module is not built")
    monkeypatch.setattr(queue_blocks, "COMPILED", request.param)
    return request.param


small = st.integers(min_value=-2, max_value=2)
#: (submitter, prio, qdate, cluster, proc, index): few values, so runs, ties, equal
#: job numbers and interleaved clusters all show up
fields = st.tuples(st.sampled_from(["a", "b", "c"]), small, small, small, small,
                   st.integers(0, 6))


def _jobs(keys) -> list[Job]:
    return [Job(f"{c}.{p}.{row}", c, p, index, None, 1, sub, prio, qdate)  # type: ignore[arg-type]
            for row, (sub, prio, qdate, c, p, index) in enumerate(keys)]


def _plain(jobs: list[Job]) -> dict[str, list[int]]:
    """Each submitter's rows by a stable sort of its jobs in input order."""
    out: dict[str, list[int]] = {}
    for row, job in enumerate(jobs):
        out.setdefault(job.submitter, []).append(row)
    return {sub: sorted(rows, key=lambda r: (jobs[r].queue_key(), jobs[r].index))
            for sub, rows in out.items()}


def _rows(spans: list[tuple[int, int]]) -> list[int]:
    return list(chain.from_iterable(range(start, end) for start, end in spans))


def _heads(jobs: list[Job], size: int) -> list[int]:
    return list(chain.from_iterable(chunk_heads(jobs[first:first + size], first)
                                    for first in range(0, len(jobs), size)))


@settings(max_examples=300, deadline=None)
@given(st.lists(fields, max_size=60), st.integers(1, 9))
def test_blocks_give_the_stable_queue_order(keys, size):
    jobs = _jobs(keys)
    want = _plain(jobs)
    for blocks in (QueueBlocks(jobs), QueueBlocks(jobs, _heads(jobs, size))):
        got = {sub: _rows(spans) for sub, spans in blocks.spans().items()}
        assert got == want
        assert list(got) == list(want)  # submitters in order of their first job


@settings(max_examples=300, deadline=None)
@given(st.lists(fields, min_size=1, max_size=60), st.data())
def test_least_is_the_least_key_of_the_rows(keys, data):
    jobs = _jobs(keys)
    start = data.draw(st.integers(0, len(jobs) - 1))
    end = data.draw(st.integers(start + 1, len(jobs)))
    size = data.draw(st.integers(1, 9))
    want = min(queue_key(jobs[row], row) for row in range(start, end))
    assert QueueBlocks(jobs, _heads(jobs, size)).least(start, end) == want


@settings(max_examples=200, deadline=None)
@given(st.lists(fields, max_size=60))
def test_each_block_is_in_queue_order_with_one_submitter_and_prio(keys):
    jobs = _jobs(keys)
    heads = QueueBlocks(jobs).heads
    assert heads == sorted(set(heads)) and (not jobs or heads[0] == 0)
    for head, end in zip(heads, [*heads[1:], len(jobs)], strict=False):
        block = jobs[head:end]
        assert len({(j.submitter, j.prio) for j in block}) == 1
        keys_in = [queue_key(j, head + i) for i, j in enumerate(block)]
        assert keys_in == sorted(keys_in)


def test_a_queue_in_submission_order_is_a_block_per_cluster_and_prio():
    """Clusters listed in order, a prio per cluster: no tangle, one stretch per
    (cluster run, prio); a cluster listed out of proc order is merged back."""
    keys = [("u", 0, 10, 1, p, p) for p in range(5)]
    keys += [("u", 5, 11, 2, p, 5 + p) for p in range(3)]
    keys += [("u", 0, 12, 3, p, 8 + p) for p in range(4)]
    jobs = _jobs(keys)
    blocks = QueueBlocks(jobs)
    assert blocks.heads == [0, 5, 8]
    assert blocks.spans() == {"u": [(5, 8), (0, 5), (8, 12)]}
    shuffled = _jobs([keys[i] for i in (0, 2, 4, 1, 3)])  # procs 0 2 4 1 3
    spans = QueueBlocks(shuffled).spans()["u"]
    assert [shuffled[r].proc for r in _rows(spans)] == [0, 1, 2, 3, 4]


def test_tangled_blocks_are_sorted_row_by_row(monkeypatch):
    """Blocks whose key ranges overlap are merged: the same queue without the merge
    (each block taken whole) is out of order, so the merge is what makes it right."""
    jobs = _jobs([("u", 0, 1, 1, p, p) for p in (0, 2, 4, 1, 3, 5)])
    assert QueueBlocks(jobs).heads == [0, 3]
    assert _rows(QueueBlocks(jobs).spans()["u"]) == _plain(jobs)["u"]
    monkeypatch.setattr(queue_blocks, "_flush", _whole_blocks)
    with pytest.raises(AssertionError):
        assert _rows(QueueBlocks(jobs).spans()["u"]) == _plain(jobs)["u"]


def _whole_blocks(jobs, tangle, out):
    queue_blocks._append(out, [(head, end) for _, head, end in tangle])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["a", "b", "c"]), small, st.integers(-2, 2**70),
                          small, small, st.integers(0, 6)), max_size=40))
def test_the_compiled_cuts_are_the_tuple_comparisons(keys):
    """``oldscan.descents``: 0 and each row whose five fields, as a tuple, are ``<=``
    the row before's (equal values that are not the same object, big integers)."""
    if oldscan.descents is None:
        pytest.skip("the compiled module is not built")
    jobs = _jobs(keys)
    fields = [(j.submitter, j.prio, j.qdate, j.cluster, j.proc) for j in jobs]
    want = [row for row in range(len(jobs)) if row == 0 or fields[row] <= fields[row - 1]]
    assert oldscan.descents(jobs, queue_blocks._FIELDS) == want


def test_the_compiled_cuts_refuse_what_they_cannot_read():
    if oldscan.descents is None:
        pytest.skip("the compiled module is not built")
    jobs = _jobs([("a", 0, 1, 1, 0, 0)])
    with pytest.raises(TypeError):
        oldscan.descents([*jobs, object()], queue_blocks._FIELDS)
    with pytest.raises(TypeError):
        oldscan.descents(tuple(jobs), queue_blocks._FIELDS)
    with pytest.raises(TypeError):
        oldscan.descents(jobs, ("submitter",))
    assert oldscan.descents([], queue_blocks._FIELDS) == []
