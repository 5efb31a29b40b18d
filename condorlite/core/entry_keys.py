"""Keys of an ad's entries for a few names, for the memos of a reading pass.

The readers share one ``(spelling, expression)`` entry object between every ad holding
the same line, so the memos that decode and screen a pass's ads (``ad_screen``,
``ad_decoder.AdDecoder``) and the cycle's expression numbers (``expr_numbers.Canon``) key
what they work out by the *identity* of an ad's entries for the names they read: ads
holding the same entries get the same answer. ``entry_key``
is that key: compiled (``_oldscan``'s ``entry_key``: the entries' addresses, absent
ones as 0, in one bytes object), or in Python a tuple of ``id``s (an absent entry is
``id(None)``). The two are never mixed: which one is used is settled at import
(``CONDORLITE_PURE_PYTHON`` set: Python). A memo must hold the entries of every key
it keeps, so that an address or id stays that entry's while the key is kept.

``bound_to(table, names, kind)`` asks the other thing such a memo's lookup asks of a
few names (``matching/kind_records.py``'s records: a slot's literals may hold any
value, but must be literals): whether ``table`` binds each of ``names`` to an entry
whose expression (item 1) is exactly of type ``kind``; an absent name gives False.
Compiled (``_oldscan``'s ``bound_to``, one C pass) or in Python (a loop over the
names), settled at import as ``entry_key`` is; both give the same answer.

Why compiled: screening and decoding 100,000 job ads built these keys 200,000 times
(two levels of about ten names each), 0.2 s of the 10k pools' command
(``benchmarks/RESULTS.md``, session 17).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Sequence

try:
    from condorlite.core.classad._oldscan import bound_to as _compiled_bound_to
    from condorlite.core.classad._oldscan import entry_key as _compiled
except ImportError:  # built without a C compiler
    _compiled = _compiled_bound_to = None

_PURE = _compiled is None or bool(os.environ.get("CONDORLITE_PURE_PYTHON"))


def python_entry_key(table: dict, names: Sequence[str]) -> tuple[int, ...]:
    """The ids of ``table``'s values for ``names`` (``id(None)`` for an absent one)."""
    return tuple(map(id, map(table.get, names)))


#: ``entry_key(table, names)``: the key of ``table``'s entries for ``names`` (see the
#: module doc); ``table`` a dict, ``names`` a sequence of lower-case names.
entry_key: Callable[[dict, Sequence[str]], Hashable] = (
    python_entry_key if _PURE else _compiled)


def python_bound_to(table: dict, names: Sequence[str], kind: type) -> bool:
    """Whether ``table`` binds each of ``names`` to an entry whose item 1 is exactly
    of type ``kind`` (False at the first that is absent or of another type)."""
    for name in names:
        entry = table.get(name)
        if entry is None or type(entry[1]) is not kind:
            return False
    return True


#: ``bound_to(table, names, kind)``: the module doc's test; ``table`` a dict of
#: ``(spelling, expression)`` entries, ``names`` a sequence of lower-case names.
bound_to: Callable[[dict, Sequence[str], type], bool] = (
    python_bound_to if _PURE else _compiled_bound_to)
