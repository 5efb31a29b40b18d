"""An ordered source's items made into candidate entries (``ordered_states.OrderedStates``'s
loop, and ``literal_states.LiteralStates``' over a merge, ``literal_make``), in one C
call where the scanner module is built (``_oldscan.ordered_make``, ``literal_make``,
``ordered.c``), else in Python.

``ordered_make(items, at, room, last, requests, left, pair_of, known, boxed, kept, run,
batch, dependent, post, tail)`` walks ``items`` (a snapshot's, ``static_orders.item_of``:
(key, position, version, shape, post-job rank, vector values, name, tier)) from ``at``,
a whole group of equal key at a time, stopping at the first group that starts with
more than ``room`` entries in ``batch`` (None: no such stop) or whose key is over
``last`` (None: none). For each item: a state that does not hold every (position,
amount) of ``requests`` (``left[shape]``, its amounts left) is passed over; a fitting
one gets its pair result, ``boxed`` (stored in ``known`` under the state's
``pair_of[shape]`` when not there, counted as an evaluation) or else ``known``'s, or
``run(vals, key)`` stored there and counted; if that matches, the entry (key, -job rank,
-post, ``tail[0]``, ``tail[1]``, name, position, version, ``tail[2]``) is appended to
``batch``: the job rank the pair's, or ``kept[position][1]`` when ``kept`` is given (a
rank column's values, ``RankColumn.kept``), the post-job rank the item's, or the pair's
``dependent[post]`` when the item holds ``dependent``. Returns (the index of the first
item not made, the evaluations counted).

``literal_make`` is that loop over the merge, by key, of a split static's order and a
class's offsets (``python_literal_make``).

Why compiled: the loops run once per item an ordered source makes, ~120 opcodes an
item (~190 over a merge), ~7 % of the 10,000-slot partitionable mix's opcodes
(RESULTS, session 36, carv36); the C loops make the same comparisons (floats as
floats, NaN included), the same look-ups, stores and calls of ``run`` (and of
``group``), in the same order.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from itertools import islice
from typing import TYPE_CHECKING

try:
    from condorlite.core.classad._oldscan import literal_make as _compiled_literal
    from condorlite.core.classad._oldscan import ordered_make as _compiled
except ImportError:  # built without a C compiler
    _compiled = _compiled_literal = None

if TYPE_CHECKING:  # (the pair results' type: ``candidates`` imports this module's user)
    from condorlite.core.matching.candidates import PairEval

_PURE = _compiled is None or bool(os.environ.get("CONDORLITE_PURE_PYTHON"))


def python_ordered_make(items: list[tuple], at: int, room: int | None, last: object,
                        requests: list[tuple[int, float]], left: dict[int, tuple],
                        pair_of: dict[int, int], known: dict[int, PairEval], boxed: PairEval | None,
                        kept: dict | None, run: Callable[[tuple, float], PairEval],
                        batch: list[tuple], dependent: object, post_key: str,
                        tail: tuple) -> tuple[int, int]:
    """``ordered_make`` in Python (module doc)."""
    group = None  # (the key of the group being made)
    evaluations = 0
    # (a for loop over the items left, not an index loop: the item that stops it
    # is not counted in ``at``)
    for key, idx, version, shape, post, vals, name, _ in islice(items, at, None):
        if key != group:
            if _stops(key, room, last, batch):
                break
            group = key
        at += 1
        evaluations += _make_item(key, idx, version, shape, post, vals, name, requests,
                                  left, pair_of, known, boxed, kept, run, batch, dependent,
                                  post_key, tail)
    return at, evaluations


def _stops(key: object, room: int | None, last: object, batch: list[tuple]) -> bool:
    """Whether a group's first item (of key ``key``) stops the loop there (``stops`` in
    ``ordered.c``): ``batch`` already holds more than ``room`` entries, or ``key`` is
    over ``last`` (None: no such stop)."""
    return (room is not None and len(batch) > room) or (last is not None and key > last)


def _make_item(key: object, idx: int, version: int, shape: int, post: object, vals: tuple,
               name: str, requests: list[tuple[int, float]], left: dict[int, tuple],
               pair_of: dict[int, int], known: dict[int, PairEval], boxed: PairEval | None,
               kept: dict | None, run: Callable[[tuple, float], PairEval],
               batch: list[tuple], dependent: object, post_key: str, tail: tuple) -> int:
    """One item of the two loops (``make_item`` in ``ordered.c``): its entry appended
    to ``batch`` when its state holds every fixed request and its pair matches (module
    doc); returns the evaluations it counted (0 or 1)."""
    # (whether the state holds every fixed request: a plain loop, cheaper here than a
    # C pass of ``map``, ``any`` and an item getter per state)
    have = left[shape]
    for pos, amount in requests:
        if amount > have[pos]:
            return 0
    evaluations = 0
    pair_shape = pair_of[shape]
    if boxed is not None:
        pair = boxed
        if pair_shape not in known:
            evaluations = 1
            known[pair_shape] = boxed
    else:
        pair = known.get(pair_shape)
        if pair is None:
            evaluations = 1
            pair = known[pair_shape] = run(vals, key)
    if pair.match:
        order, prank, reason = tail
        batch.append((key, -(pair.job_rank if kept is None else kept[idx][1]),
                      -(post if post is not dependent else pair.dependent[post_key]),
                      order, prank, name, idx, version, reason))
    return evaluations


def python_literal_make(items: list[tuple], at: int, extra: list[tuple], xat: int,
                        skip: frozenset, group_of: Callable[[tuple], object],
                        room: int | None, last: object, requests: list[tuple[int, float]],
                        left: dict[int, tuple], pair_of: dict[int, int],
                        known: dict[int, PairEval], boxed: PairEval | None,
                        kept: dict | None, run: Callable[[tuple, float], PairEval],
                        batch: list[tuple], dependent: object, post_key: str,
                        tail: tuple) -> tuple[int, int, int]:
    """``literal_make`` in Python: ``python_ordered_make`` over the merge, by key, of
    ``items`` from ``at`` and ``extra`` from ``xat`` (an ``extra`` item first on equal
    keys), an item of ``items`` whose ``group_of(vals)`` is in ``skip`` passed over
    (once counted in ``at``): ``literal_states.LiteralStates``' loop. Returns
    (``at``, ``xat``, the evaluations)."""
    end, xend = len(items), len(extra)
    group = None  # (the key of the group being made)
    evaluations = 0
    while at < end or xat < xend:
        # (the next item of the merge: an offset's first on equal keys, any order
        # will do within a group)
        if xat < xend and (at >= end or extra[xat][0] <= items[at][0]):
            item = extra[xat]
            taken = False
        else:
            item = items[at]
            taken = True
        key, idx, version, shape, post, vals, name, _ = item
        if key != group:
            if _stops(key, room, last, batch):
                break
            group = key
        if taken:
            at += 1
            if skip and group_of(vals) in skip:
                continue  # (an offset: its own item is in ``extra``)
        else:
            xat += 1
        evaluations += _make_item(key, idx, version, shape, post, vals, name, requests,
                                  left, pair_of, known, boxed, kept, run, batch, dependent,
                                  post_key, tail)
    return at, xat, evaluations


#: ``ordered_make(...)`` (module doc): the C loop where built, else the Python one
ordered_make: Callable[..., tuple[int, int]] = (
    python_ordered_make if _PURE else _compiled)  # type: ignore[assignment]
#: ``literal_make(...)``: ``python_literal_make``, the C loop where built
literal_make: Callable[..., tuple[int, int, int]] = (
    python_literal_make if _PURE else _compiled_literal)  # type: ignore[assignment]
