"""What a carve leaves of a partitionable slot's state: its new values and amounts left
(``carved_states.CarvedStates._carve_vals``), in one C call where the scanner module is
built (``_oldscan.carve_amounts``, ``carve.c``), else in Python.

A carve (``slot_vectors.rest_state``) takes ``amount`` at each moved position of the
vector: with ``had`` the state's amounts left (its shape's ``shape_left``, floats:
``slot_vectors.left`` of its values) and ``have = had[pos] - amount``, the new value is
``int(have)`` when ``have`` is integral and ``have`` itself otherwise, and the new
amount left is ``have + 0.0`` (``float(int(have))``: -0.0 is 0.0) or ``have``, 0.0 for
a NaN (what ``left`` reads of the new value). The other positions keep their values
and amounts. A carve also asks whether no new value is a float (the ranks' memo key
of a state without one needs no typed state: ``carved_states``), answered in the
same pass.

Why compiled: one carve per match, and the Python loop (two lists made, three moves,
two tuples) was 142 opcodes a carve, 4.8 % of the 10,000-slot partitionable mix's
opcodes (RESULTS, session 36, carv36).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

try:
    from condorlite.core.classad._oldscan import carve_amounts as _compiled
except ImportError:  # built without a C compiler
    _compiled = None

_PURE = _compiled is None or bool(os.environ.get("CONDORLITE_PURE_PYTHON"))


def python_carve_amounts(vals: tuple, had: tuple[float, ...],
                         moves: Sequence[tuple[int, float]]
                         ) -> tuple[tuple, tuple[float, ...], bool]:
    """(the new values, the new amounts left, whether no new value is exactly a float)
    of a state with values ``vals`` and amounts left ``had`` after the (position,
    amount) ``moves`` (module doc)."""
    rest, new_left = list(vals), list(had)
    for pos, amount in moves:
        have = had[pos] - amount
        if have.is_integer():
            rest[pos] = int(have)
            new_left[pos] = have + 0.0  # (``float(int(have))``: -0.0 is 0.0)
        else:
            rest[pos] = have
            new_left[pos] = have if have == have else 0.0
    return tuple(rest), tuple(new_left), float not in map(type, rest)


#: ``carve_amounts(vals, had, moves)``: ``python_carve_amounts``'s answer, or None off
#: the C pass's fast path (values or amounts left not tuples of one length, a moved
#: amount left not a float, a move not an (int, float or int) pair in range: the
#: caller then asks ``python_carve_amounts``; none of it on a pool's carves, whose
#: amounts left are ``lefts``' floats). The Python version where C is not built.
carve_amounts: Callable[[tuple, tuple, Sequence[tuple[int, float]]],
                        tuple[tuple, tuple[float, ...], bool] | None] = (
    python_carve_amounts if _PURE else _compiled)  # type: ignore[assignment]
