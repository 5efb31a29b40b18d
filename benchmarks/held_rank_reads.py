"""Count which of the held walks' pair results have their dependent ranks read.

Runs ``cycle_cpu.py`` on a pool with ``HeldWalks``' pair results (those
``_pairs_of`` makes from a program's run, not a box's one result) given a dependent
dict that records whether anything reads it, and ``PairProgram._ranked`` counted
while ``_pairs_of`` runs. Prints how many results have non-constant dependent ranks
(evaluated for every matching pair) against how many of those dicts are ever read
(an entry made of it, or anyone else). Diagnostic only::

    cd /tmp && env PYTHONPATH=/tmp/<tree> /tmp/venv/bin/python \
        /tmp/<tree>/benchmarks/held_rank_reads.py /tmp/real/<pool>
"""

from __future__ import annotations

import collections
import contextlib
import runpy
import sys
from pathlib import Path

from wrap_args import Named

from condorlite.core.matching import candidates, held_walks

# (counted with the ranks worked out at the run: a deferred dict would be read by the
# copy into the recording one)
held_walks.DEFER_RANKS = False

COUNTS: collections.Counter = collections.Counter()
SPIES: list = []


class Spy(dict):
    """A dependent dict that records being read (any way a Python caller reads it)."""

    __slots__ = ("read",)

    def _mark(self) -> None:
        if not self.read:
            self.read = True

    def __getitem__(self, key):
        self._mark()
        return dict.__getitem__(self, key)

    def get(self, key, default=None):
        self._mark()
        return dict.get(self, key, default)

    def __contains__(self, key):
        self._mark()
        return dict.__contains__(self, key)

    def items(self):
        self._mark()
        return dict.items(self)

    def __iter__(self):
        self._mark()
        return dict.__iter__(self)

    def __eq__(self, other):
        self._mark()
        return dict.__eq__(self, other)

    __hash__ = None


_init = held_walks.HeldWalks.__init__


def init(self, *args, **kwargs) -> None:
    _init(self, *args, **kwargs)
    plain = self._part_pair

    def part_pair(program, out):
        pe = plain(program, out)
        if not pe.match:
            return pe
        COUNTS["results"] += 1
        if out is program.result or program.dependent_keys is None:
            COUNTS["constant dependent"] += 1
            return pe
        COUNTS["evaluated dependent"] += 1
        spy = Spy(pe.dependent)
        spy.read = False
        SPIES.append(spy)
        return candidates.PairEval(pe.match, pe.job_rank, pe.slot_rank, spy, pe.taken)

    self._part_pair = part_pair


held_walks.HeldWalks.__init__ = init  # type: ignore[method-assign]

_pairs_of = held_walks.HeldWalks._pairs_of
_pairs_args = Named(_pairs_of)
#: id(spy) -> whether its slot rank was below every CurrentRank of its group's offers
BELOW: dict[int, bool] = {}


def pairs_of(self, *args, **kwargs):
    out = _pairs_args(self, *args, **kwargs)["out"]
    before = len(out.matched), len(out.allowed)
    _pairs_of(self, *args, **kwargs)
    for item in [*out.matched[before[0]:], *out.allowed[before[1]:]]:
        group, pe = item[0], item[1]
        if type(pe.dependent) is Spy:
            ranks = [r for r, n in group.ranks.items() if n]
            BELOW[id(pe.dependent)] = all(pe.slot_rank < r for r in ranks)


held_walks.HeldWalks._pairs_of = pairs_of  # type: ignore[method-assign]


def main() -> int:
    sys.argv = ["cycle_cpu.py", sys.argv[1]]
    with contextlib.suppress(SystemExit):
        runpy.run_path(str(Path(__file__).with_name("cycle_cpu.py")), run_name="__main__")
    read = sum(1 for s in SPIES if s.read)
    print(dict(COUNTS))
    print(f"evaluated dependent dicts: {len(SPIES)}, read: {read}, never read: {len(SPIES) - read}")
    below = [s for s in SPIES if BELOW.get(id(s))]
    print(f"slot rank below every CurrentRank of its group: {len(below)},"
          f" of which read: {sum(1 for s in below if s.read)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
