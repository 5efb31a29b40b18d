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

``find_split(table, splits, kind, literal, member)`` is the lookup such a memo makes
over a list of *splits* (``matching/kind_records.py``'s records: each split a tuple
whose first three items are ``keyed``, a tuple of names, ``literal``, a tuple of
names, and ``records``, a dict: kind -> ``entry_key`` of ``keyed`` -> record; a slot's
literals may hold any value, but must be literals): the first split, in order, whose
``records[kind]`` holds ``entry_key(table, keyed)`` and whose ``literal`` names
``table`` binds each to an entry whose expression (item 1) is exactly of type
``literal`` (an absent name, another type, a subclass too: no), as ``(its place,
the record, the values)``, the values ``member`` (a descriptor of ``literal``'s
instances) of each of those expressions, a tuple in ``literal``'s order read in the
same pass; or None. Compiled (``_oldscan``'s ``find_split``: one C call for every
split) or in Python (``entry_key`` and a loop), settled at import as ``entry_key``
is; both give the same answer.

Why compiled: screening and decoding 100,000 job ads built these keys 200,000 times
(two levels of about ten names each), 0.2 s of the 10k pools' command
(``benchmarks/RESULTS.md``, session 17).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Hashable, Sequence

try:
    from condorlite.core.classad._oldscan import entry_key as _compiled
    from condorlite.core.classad._oldscan import find_split as _compiled_find_split
except ImportError:  # built without a C compiler
    _compiled = _compiled_find_split = None

_PURE = _compiled is None or bool(os.environ.get("CONDORLITE_PURE_PYTHON"))


def python_entry_key(table: dict, names: Sequence[str]) -> tuple[int, ...]:
    """The ids of ``table``'s values for ``names`` (``id(None)`` for an absent one)."""
    return tuple(map(id, map(table.get, names)))


#: ``entry_key(table, names)``: the key of ``table``'s entries for ``names`` (see the
#: module doc); ``table`` a dict, ``names`` a sequence of lower-case names.
entry_key: Callable[[dict, Sequence[str]], Hashable] = (
    python_entry_key if _PURE else _compiled)


def python_find_split(table: dict, splits: Sequence[Sequence], kind: Hashable,
                      literal: type, member) -> tuple[int, object, tuple] | None:
    """The module doc's ``find_split``: the first split of ``splits`` whose records of
    ``kind`` hold ``table``'s entries for its ``keyed`` names and whose ``literal``
    names ``table`` binds to expressions of exactly type ``literal``, as (its place,
    the record, ``member`` of each of those expressions), or None."""
    for at, split in enumerate(splits):
        records = split[2].get(kind)
        if records is None:
            continue
        record = records.get(entry_key(table, split[0]))
        if record is None:
            continue
        values = []
        for name in split[1]:
            entry = table.get(name)
            if entry is None or type(entry[1]) is not literal:
                break
            values.append(member.__get__(entry[1], literal))
        else:
            return at, record, tuple(values)
    return None


#: ``find_split(table, splits, kind, literal, member)``: the module doc's lookup;
#: ``table`` a dict of ``(spelling, expression)`` entries, ``splits`` a list.
find_split: Callable[[dict, list, Hashable, type, object], tuple | None] = (
    python_find_split if _PURE else _compiled_find_split)
