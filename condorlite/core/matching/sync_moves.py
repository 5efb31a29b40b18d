"""``StaticOrders.sync``'s step of each moved offer on its common path, in one C call
over the offers where the scanner module is built (``_oldscan.sync_moves``,
``sync.c``); the Python step (``StaticOrders._move``) takes every offer the C loop
does not, and all of them where it is not built.

``sync_moves(offers, at, context)``, ``context`` being (walked, groups, orders,
keyed, items, shape_left, tier_of_left, pending, moves_type, shared, shared_on, pre,
post, dependent) (one tuple made per sync, not sixteen arguments per call: the loop
stops at each offer it leaves to ``_move``, most of the partitionable row's, whose
moved offers are mostly of statics not ordered yet), steps through ``offers`` from
``at`` and returns the index of the first offer it does not take (``len(offers)``
when it takes them all); the caller steps that offer in Python and calls again from
the next. It takes an offer whose static is walked (passed over), leaves one whose
static is not ordered (yet) before reading anything else of it, and takes one that is
nobody's, of an ordered static, whose pre-job rank reads no job (``pre`` in its
independent ranks) or whose static is keyed (a split static: ``LiteralSplit.key``
called) when the offer is available and had an item (the by-group bookkeeping of an
offer new to the order or gone from it is ``_move``'s), and, its state shared by
several offers, only with ``shared_on`` (the static then added to ``shared``): its
old item leaves ``items`` and is noted gone in ``pending[(static, its tier)]``, and
its new item (``static_orders.item_of``'s fields, the tier ``()`` when every amount
left is over 0, else ``tier_of_left(left)``) is stored in ``items`` and noted added
in ``pending[(static, tier)]`` (a ``moves_type([], [])`` made where missing). Every
other offer (held, a static not ordered yet, deferred, unkeyed, walked on the way) is
``_move``'s, whose first steps decide it.

Why compiled: ``sync`` is ~9 % of the 10,000-slot partitionable mix's instructions
(~18,000 a moved offer, 56,103 of them: RESULTS, session 36, sync36), 60 % of it the
Python step's attribute loads, look-ups and the item's tuple (~150 opcodes an
offer); every carve changes the item's key, so the step itself cannot be skipped.
"""

from __future__ import annotations

import os
from collections.abc import Callable

try:
    from condorlite.core.classad._oldscan import sync_moves as _compiled
except ImportError:  # built without a C compiler
    _compiled = None

_PURE = _compiled is None or bool(os.environ.get("CONDORLITE_PURE_PYTHON"))


def python_sync_moves(offers: list, at: int, context: tuple) -> int:
    """``sync_moves`` where C is not built: takes no offer (``_move`` steps each)."""
    return at


#: ``sync_moves(...)``: the index of the first offer from ``at`` the C loop did not
#: take (module doc); ``python_sync_moves`` where it is not built.
sync_moves: Callable[[list, int, tuple], int] = python_sync_moves if _PURE else _compiled  # type: ignore[assignment]
