"""Sorted runs of a list's candidates made only when the list's merge reaches them.

A list's pending runs (``Candidates.pending``) are merged a part at a time, as far as
its scan reads (``Candidates.merge_more``). A run whose entries are costly to make and
often never read (a held list's entries by priority: ``held_lists``; on the 10,000-slot
static mix 73,598 such entries were made for 300 held lists, and no list's scan ever
came to the first entry of runs holding 28,362 of them) can be handed out before it is
made, as a ``LazyRun``: empty until ``make``, with ``head``, a key that sorts no later
than any entry it will hold (a 1-tuple of a bound on the first key, ``-PRE_JOB_RANK``).

The merge (``reach``) makes such a run once the entries it merges could sort past its
head: the bound it merges to, else (every run merged whole) the last entry of a run it
merges. When there is nothing else to merge, the scan may still have entries of its own
to read first (``Candidates.static``, read alongside the merged entries, whose place
the merge does not know): the merge then adds the run's ``sentinel`` to the merged
entries, an entry sorting before every entry of the run and after every entry merged,
which every scan passes over (its offer's version, -1, is no version: ``list_scan``'s
``_stale`` holds for it whatever the offer), and makes the run at its next call, when
the scan has passed the sentinel. So a scan that takes what it needs before the held
offers' entries never has them made; one that reads on makes them when it reaches
them, from the offers still available then (an offer never comes back, and a scan
passes over an entry of an offer that has left).

A ``LazyRun`` is made in place (it may be pending in several lists: each sees it made),
and made whole by any read of an entry or a slice (``list_scan.ListWalk._rest_floors``
reads the runs pending): ``len`` is what it holds so far (0 before ``make``), and its
truth that it is unmade or holds entries (so that a list is handed it).
"""

from __future__ import annotations

from collections.abc import Callable


class LazyRun(list):
    """A sorted run made on demand (module doc): ``fill`` gives its entries, sorted,
    once; ``head`` sorts no later than any of them; ``sentinel`` is the entry the
    merge adds in its place while it waits."""

    __slots__ = ("_fill", "head", "made", "sentinel")

    def __init__(self, fill: Callable[[], list[tuple]], head: tuple, sentinel: tuple) -> None:
        super().__init__()
        self._fill: Callable[[], list[tuple]] | None = fill
        self.head = head
        self.sentinel = sentinel
        self.made = False

    def make(self) -> None:
        """Hold the run's entries (once)."""
        fill = self._fill
        if fill is not None:
            self._fill = None
            self.made = True
            self.extend(fill())

    def __bool__(self) -> bool:
        return not self.made or list.__len__(self) > 0

    def __getitem__(self, index):  # type: ignore[no-untyped-def]
        if not self.made:
            self.make()
        return list.__getitem__(self, index)


def reach(pending: list[list], entries: list[tuple], bound: tuple | None, chunk: int
          ) -> tuple[tuple | None, list[list]]:
    """The lazy runs among ``pending`` (items [run, start]) that a merge to ``bound``
    (None: everything left) reaches, made, and the bound that merge takes with them
    made; returns that bound and the items of the runs left unmade, which the merge
    leaves pending. When nothing else is left to merge, the least-headed run left is
    made if its sentinel is the last merged entry (the scan has passed it), else its
    sentinel is added to ``entries`` (module doc)."""
    waiting = [item for item in pending if type(item[0]) is not list
               and isinstance(item[0], LazyRun) and not item[0].made]
    while waiting:
        if bound is not None:
            upto = bound
        else:
            # (every run merged whole: as far as the last entry of any)
            ends = [item[0][-1] for item in pending
                    if len(item[0]) > item[1] and not _unmade(item)]
            upto = max(ends) if ends else None
        # (the least head first: once made, its run may lower the bound under the
        # other heads)
        first = min(waiting, key=_head)
        run, start = first
        if upto is None:
            if not entries or entries[-1] is not run.sentinel:
                entries.append(run.sentinel)
                return bound, waiting
        elif not run.head <= upto:
            return bound, waiting
        run.make()
        if len(run) - start > chunk:
            mark = list.__getitem__(run, start + chunk - 1)
            if bound is None or mark < bound:
                bound = mark
        waiting = [item for item in waiting if item is not first]
    return bound, waiting


def _head(item: list) -> tuple:
    return item[0].head


def _unmade(item: list) -> bool:
    run = item[0]
    return isinstance(run, LazyRun) and not run.made
