"""The cycle's queue order: two C-level sorts give ``(Job.queue_key(), index)`` order."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core.model import Job
from condorlite.core.negotiator import _queue_sort

small = st.integers(min_value=-3, max_value=3)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(small, small, small, small), max_size=40))
def test_two_sorts_give_the_queue_order(keys):
    jobs = [Job(f"{c}.{p}", c, p, index, None, 1, "u@x", prio, qdate)  # type: ignore[arg-type]
            for index, (prio, qdate, c, p) in enumerate(keys)]
    want = sorted(jobs, key=lambda j: (j.queue_key(), j.index))
    got = list(jobs)
    _queue_sort(got)
    assert [j.index for j in got] == [j.index for j in want]
