"""``entry_keys.entry_key``: the compiled key and the Python one tell the same ads
apart: two tables get equal keys for some names exactly when they hold the same
entry objects (or both lack one) for each of the names."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from condorlite.core import entry_keys
from condorlite.core.classad import oldscan

ENTRIES = [("A", object()), ("a", object()), ("B", object()), ("A", object())]
NAMES = ("a", "b", "c", "requirements")

_TABLE = st.dictionaries(st.sampled_from((*NAMES, "x", "y")),
                         st.sampled_from(range(len(ENTRIES))), max_size=6)


def _table(picks: dict[str, int]) -> dict:
    return {name: ENTRIES[i] for name, i in picks.items()}


@pytest.mark.skipif(not oldscan.AVAILABLE, reason="the compiled module was not built")
@settings(max_examples=300, deadline=None)
@given(one=_TABLE, other=_TABLE, names=st.lists(st.sampled_from(NAMES), max_size=5))
def test_compiled_and_python_keys_tell_the_same_tables_apart(one, other, names) -> None:
    names = tuple(names)
    a, b = _table(one), _table(other)
    compiled = entry_keys._compiled
    same_python = (entry_keys.python_entry_key(a, names)
                   == entry_keys.python_entry_key(b, names))
    assert (compiled(a, names) == compiled(b, names)) == same_python
    assert same_python == all(a.get(n) is b.get(n) for n in names)


@pytest.mark.skipif(not oldscan.AVAILABLE, reason="the compiled module was not built")
def test_compiled_key_refuses_what_is_not_a_dict_and_a_sequence() -> None:
    assert entry_keys._compiled({"a": None}, ["a"]) == entry_keys._compiled({"a": None}, ("a",))
    with pytest.raises(TypeError):
        entry_keys._compiled({}, 3)
    with pytest.raises(TypeError):
        entry_keys._compiled([], ("a",))
    with pytest.raises(TypeError):  # an unhashable name is the dict's error
        entry_keys._compiled({}, ([],))


def test_pure_python_is_chosen_at_import() -> None:
    code = ("from condorlite.core import entry_keys as e; "
            "print(e.entry_key is e.python_entry_key)")
    env = {**os.environ, "CONDORLITE_PURE_PYTHON": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "True"
